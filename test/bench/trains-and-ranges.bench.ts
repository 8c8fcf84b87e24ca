/**
 * Benchmark (prints figures, asserts only that it ran): one demo run each of
 * Sprint-x and Sprint on the demo content over a paced loopback origin
 * (3 Mbit/s, 100 ms before each response), reporting from the origin's
 * access log and the player's stats:
 *   - Sprint-x: each expanded request's size on the wire against the model's
 *     chunk size at issue time (paper §IV-B2);
 *   - Sprint: trains — target (chunk) size, bytes, requests, window, the
 *     connections they used and how many requests arrived before the
 *     previous response finished (pipelining), and TCP_INFO RTT against the
 *     probes' RTT (§IV-B1).
 * Run: npm run bench   (SPRINT_BENCH_SECONDS, SPRINT_BENCH_SET to change)
 */
import { startOrigin } from '../../demo/server/origin';
import { ensureContent } from '../../demo/content/generate';
import { buildArtifacts, launchExtBrowser } from '../e2e/extension/support/ext-stack';
import { launchBrowser } from '../e2e/support/browser';
import { waitForPlayback, mediaRecords } from '../e2e/support/playback';

const SECONDS = Number(process.env.SPRINT_BENCH_SECONDS ?? 60);
const SET = process.env.SPRINT_BENCH_SET ?? 'demo';
const ORIGIN = { rateLimitBitsPerSec: 3e6, delayMs: 100 };
const mb = (n: number | null | undefined): string => (n == null ? '–' : (n / 1e6).toFixed(2));

beforeAll(async () => {
  await ensureContent({ set: SET, log: (l) => process.stderr.write(`${l}\n`) });
});

it('Sprint-x: expanded request sizes against the chunk size', async () => {
  const origin = await startOrigin(ORIGIN);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(`${origin.url}/?set=${SET}&layout=unchunked&mode=sprint-x`);
    const s = await waitForPlayback(page, SECONDS, SECONDS * 1000 + 120_000);
    const rows = s.transfers.filter((t) => t.via === 'sprint-x');
    console.log(
      [
        `Sprint-x, ${SET} set, origin 3 Mbit/s + 100 ms, ${SECONDS} s of playback: ${rows.length} expanded requests`,
        'id  file        range MB  target chunk MB  received MB  segments  rtt ms  bw Mbit/s  cancelled',
        ...rows.map(
          (t) =>
            `${String(t.id).padEnd(3)} ${t.url.split('/').pop()?.padEnd(10)}  ${mb(t.expectedBytes).padStart(8)}  ${mb(t.targetChunkBytes).padStart(15)}  ${mb(t.bytes).padStart(11)}  ${String(t.segmentsServed).padStart(8)}  ${t.rttEstimateSec == null ? '–' : (t.rttEstimateSec * 1000).toFixed(0).padStart(6)}  ${mb(t.bandwidthEstimateBitsPerSec).padStart(9)}  ${t.cancelled}`,
        ),
        `media requests on the wire: ${mediaRecords(origin).length}, segments played: ${s.segments.filter((x) => x.kind === 'media').length}`,
      ].join('\n'),
    );
    expect(rows.length).toBeGreaterThan(0);
  } finally {
    await browser.close();
    await origin.close();
  }
});

it('Sprint: trains on one connection against the model', async () => {
  const artifacts = await buildArtifacts();
  const origin = await startOrigin(ORIGIN);
  const browser = await launchExtBrowser(artifacts);
  try {
    const page = await browser.newPage();
    await page.goto(`${origin.url}/?set=${SET}&layout=chunked&mode=sprint`);
    const s = await waitForPlayback(page, SECONDS, SECONDS * 1000 + 120_000);
    const recs = mediaRecords(origin);
    const byTransfer = new Map(recs.map((r) => [r.url, r]));
    const lines = s.trains.map((t) => {
      const mine = s.transfers.filter(
        (x) =>
          x.via === 'sprint' &&
          x.startMs >= t.startMs &&
          (t.endMs === null || x.startMs <= t.endMs) &&
          /chunk-[0-4]|init-[0-4]/.test(x.url),
      );
      const conns = new Set(mine.map((x) => byTransfer.get(new URL(x.url).pathname)?.conn).filter((c) => c !== undefined));
      const rtts = t.rttSamplesSec;
      return `${String(t.id).padEnd(3)} ${mb(t.targetBytes).padStart(10)}  ${mb(t.issuedBytes).padStart(9)}  ${mb(t.completedBytes).padStart(9)}  ${String(t.requests).padStart(8)}  ${String(t.window).padStart(6)}  ${[...conns].join(',').padEnd(6)}  ${mb(t.throughputBitsPerSec).padStart(9)}  ${rtts.length ? ((rtts.reduce((a, b) => a + b, 0) / rtts.length) * 1000).toFixed(1) : '–'}  ${[...new Set(t.bitrates)].map((b) => b / 1e6).join('/')}`;
    });
    let pipelined = 0;
    const sorted = [...recs].sort((a, b) => a.conn - b.conn || a.seq - b.seq);
    for (let i = 1; i < sorted.length; i++) {
      const a = sorted[i - 1]!;
      const b = sorted[i]!;
      if (a.conn === b.conn && a.end !== null && b.arrival < a.end) pipelined += 1;
    }
    console.log(
      [
        `Sprint (extension), ${SET} set, origin 3 Mbit/s + 100 ms, ${SECONDS} s of playback: ${s.trains.length} trains`,
        'id  target MB  issued MB  done MB  requests  window  conns   Mbit/s     tcp rtt ms  bitrates',
        ...lines,
        `media requests: ${recs.length} on ${new Set(recs.map((r) => r.conn)).size} connection(s); ${pipelined} arrived before the previous response on their connection ended`,
        `RTT: TCP_INFO ${s.estimates.tcpInfoRttSec == null ? '–' : (s.estimates.tcpInfoRttSec * 1000).toFixed(1)} ms, probes ${s.estimates.probeRttSec == null ? '–' : (s.estimates.probeRttSec * 1000).toFixed(1)} ms; chunk now ${mb(s.estimates.chunkBytes)} MB; window ${s.estimates.outstandingWindow}`,
      ].join('\n'),
    );
    expect(s.trains.length).toBeGreaterThan(0);
  } finally {
    await browser.close();
    await origin.close();
    artifacts.close();
  }
});
