/**
 * Sprint-x's switch policy on the wire (paper §IV-B2 with src/sprintx/
 * switch-policy.ts), over HTTP/1.1 on a paced loopback origin (8 Mbit/s).
 * The chunk is fixed at 1 MB so dash.js's own ABR, climbing from the lowest
 * rung at start-up, asks to switch while an expanded request is in flight.
 *   - `after-chunk` (the default): every held switch is recorded; no
 *     expanded request is cut before its chunk is on the wire (origin log);
 *     the new representation's transfer starts only once the old one had its
 *     chunk; playback advances.
 *   - and the expanded requests that were not cut all ride one connection,
 *     which no RTT probe uses: probes take the other connection pool
 *     (player/estimates/rtt-prober.ts), so the next expanded request does
 *     not land on a probe's fresh connection;
 *   - `immediate` (the paper's): the same climb cuts an expanded request
 *     short of its chunk (the origin log shows it), which is what the
 *     default avoids.
 * The safety level is set low (0.5 s) so start-up's small buffer does not
 * release the holds; the safety cancel itself is unit-tested.
 */
import { demoUrl, mediaRecords, startStack, stats, waitForPlayback, type Stack } from './support/playback';
import type { SprintStats, TransferRecord } from '../../player/stats/types';

const RATE = 8e6;
const CHUNK = 1_000_000;

/** The origin's record of a transfer's expanded request: bytes actually sent. */
function wireBytes(stack: Stack, t: TransferRecord): number {
  const rec = mediaRecords(stack.origin).find((r) => t.url.endsWith(r.url) && r.range === `bytes=${t.range}`);
  if (!rec) throw new Error(`no origin record for transfer #${t.id} ${t.url} bytes=${t.range}`);
  return rec.bytes;
}

async function playUntilSwitched(stack: Stack, sxswitch: string): Promise<SprintStats> {
  // dash.js starts from the bitrate it saved in localStorage last time: start each run from the bottom
  await stack.page.goto(`${stack.origin.url}/probe`);
  await stack.page.evaluate(() => localStorage.clear());
  await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode: 'sprint-x', chunk: String(CHUNK), sxsafety: '0.5', sxswitch }));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const s = await waitForPlayback(stack.page, 6, 120_000);
    const reps = new Set(s.transfers.filter((t) => t.via === 'sprint-x' && !/rep-5/.test(t.url)).map((t) => t.url));
    if (reps.size >= 3 && s.playback.currentTimeSec >= 20) return stats(stack.page);
    if (Date.now() > deadline)
      throw new Error(`the ABR did not switch twice within 120 s: transfers ${JSON.stringify(s.transfers.map((t) => [t.url, t.bytes]))}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('sprint-x switch policy on a paced HTTP/1.1 origin', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: RATE });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('after-chunk: a switch waits for the chunk, then takes effect at the next segment', async () => {
    const s = await playUntilSwitched(stack, 'after-chunk');
    expect(s.mode).toBe('sprint-x');
    expect(s.playback.errors).toEqual([]);
    const held = s.deferredSwitches.filter((d) => d.mediaType === 'video');
    expect(held.length).toBeGreaterThan(0);
    const applied = held.filter((d) => d.outcome === 'applied');
    expect(applied.length).toBeGreaterThan(0);
    const video = s.transfers.filter((t) => t.via === 'sprint-x' && !/rep-5/.test(t.url));
    for (const d of applied) {
      const protectedT = video.find((t) => t.id === d.transferId) as TransferRecord;
      expect(protectedT).toBeDefined();
      // the protected transfer put its whole chunk (or its whole range) on the wire
      expect(wireBytes(stack, protectedT)).toBeGreaterThanOrEqual(Math.min(CHUNK, protectedT.expectedBytes as number));
      // the new representation's first transfer came after the hold ended
      const next = video.find((t) => t.id > protectedT.id && t.url !== protectedT.url);
      if (next) expect(next.startMs).toBeGreaterThanOrEqual(d.endedMs as number);
    }
    // no expanded request was cut short of its chunk on the wire
    for (const t of video.filter((x) => x.cancelled)) {
      expect(wireBytes(stack, t)).toBeGreaterThanOrEqual(Math.min(CHUNK, t.expectedBytes as number));
    }
    // one connection for the expanded requests, none of it shared with the probes
    const records = mediaRecords(stack.origin);
    const connOf = (t: TransferRecord): number => {
      const rec = records.find((r) => t.url.endsWith(r.url) && r.range === `bytes=${t.range}`);
      if (!rec) throw new Error(`no origin record for transfer #${t.id}`);
      return rec.conn;
    };
    const whole = video.filter((t) => !t.cancelled && t.endMs !== null);
    expect(whole.length).toBeGreaterThan(2);
    const expandedConns = new Set(whole.map(connOf));
    expect([...expandedConns]).toHaveLength(1);
    const probeConns = new Set(records.filter((r) => r.range === 'bytes=0-0').map((r) => r.conn));
    expect(probeConns.size).toBeGreaterThan(0);
    for (const c of expandedConns) expect(probeConns.has(c)).toBe(false);
  });

  it('immediate: the same climb cuts an expanded request short of its chunk', async () => {
    const s = await playUntilSwitched(stack, 'immediate');
    expect(s.deferredSwitches).toEqual([]);
    const cut = s.transfers.filter((t) => t.via === 'sprint-x' && t.cancelled && !/rep-5/.test(t.url));
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.some((t) => wireBytes(stack, t) < Math.min(CHUNK, t.expectedBytes as number))).toBe(true);
  });
});
