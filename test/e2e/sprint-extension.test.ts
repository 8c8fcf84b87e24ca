/**
 * Sprint end to end (paper §IV-B1) with the real extension and socket host
 * loaded in headless Chromium, on the demo page in `auto` mode over a paced
 * origin (8 Mbit/s and 100 ms before each response: a loopback bottleneck):
 *   - auto resolves to sprint on extension sockets, playback advances;
 *   - the origin's access log shows a train's requests on ONE connection,
 *     request k+1 arriving before response k finished (pipelined, the server
 *     never waits for a request);
 *   - a forced bitrate switch inside a train changes the bitrate of the
 *     requests that follow without cancelling or dropping loaded segments,
 *     and without draining the window: the new representation's first
 *     request goes out while the old one's are still arriving;
 *   - audio rides the train's connection (the player is one flow), is
 *     pipelined there too (an audio request reaches the origin while the
 *     audio response ahead of it is being sent), is recorded once, and
 *     playback goes on; with `saudio=own` it stays on
 *     dash.js's own connections;
 *   - without the socket host, auto falls back (to sprint-x here) with the
 *     reason, and playback goes on.
 */
import { startOrigin, type Origin } from '../../demo/server/origin';
import { AUDIO } from '../../demo/content/recipe';
import { buildArtifacts, launchExtBrowser, type Artifacts, type ExtBrowser } from './extension/support/ext-stack';
import { ensureTestContent, mediaRecords, stats, switchVideoByHand, waitForPlayback, TEST_SET, type MediaRecord } from './support/playback';
import type { Page } from 'puppeteer-core';
import { readdirSync, readlinkSync, rmSync } from 'fs';
import { join } from 'path';

/** PIDs of socket-host processes running this test's own host binary (started by our browser). */
function hostPids(binary: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readlinkSync(`/proc/${d}/exe`) === binary) pids.push(Number(d));
    } catch {
      // not ours or already gone
    }
  }
  return pids;
}

let artifacts: Artifacts;
beforeAll(async () => {
  await ensureTestContent();
  artifacts = await buildArtifacts();
});
afterAll(() => artifacts?.close());

async function open(hostManifest: boolean, layout: string, query = ''): Promise<{ origin: Origin; browser: ExtBrowser; page: Page }> {
  // 100 ms before each response (the probes see it as RTT).
  const origin = await startOrigin({ rateLimitBitsPerSec: 8e6, delayMs: 100 });
  const browser = await launchExtBrowser(artifacts, { hostManifest });
  const page = await browser.newPage();
  await page.goto(`${origin.url}/?set=${TEST_SET}&layout=${layout}&mode=auto${query}`);
  return { origin, browser, page };
}

function pipelinedPairs(records: MediaRecord[]): Array<[MediaRecord, MediaRecord]> {
  const pairs: Array<[MediaRecord, MediaRecord]> = [];
  const byConn = new Map<number, MediaRecord[]>();
  for (const r of records) byConn.set(r.conn, [...(byConn.get(r.conn) ?? []), r]);
  for (const list of byConn.values()) {
    list.sort((a, b) => a.seq - b.seq);
    for (let i = 1; i < list.length; i++) {
      const k = list[i - 1] as MediaRecord;
      const k1 = list[i] as MediaRecord;
      if (k.end !== null && k1.arrival < k.end) pairs.push([k, k1]);
    }
  }
  return pairs;
}

describe('sprint with the extension', () => {
  it('pipelines trains on one connection, switches bitrate inside a train, and plays', async () => {
    // Trains are sized from TCP_INFO's RTT, which on loopback is microseconds
    // (the origin's delay is think time, not path): the model then asks for
    // one segment per train. A fixed 30 MB chunk (30 s of the 8 Mbit/s
    // origin) keeps the first train running across the switch.
    const { origin, browser, page } = await open(true, 'chunked', '&chunk=30000000');
    try {
      await waitForPlayback(page, 1, 120_000);
      const before = await stats(page);
      expect(before.mode).toBe('sprint');
      expect(before.estimates.transport).toBe('extension');
      // Force a switch while the train's requests are outstanding.
      const current = before.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media').pop()?.representationId ?? '0';
      const to = current === '0' ? 2 : 0;
      const switchAt = Date.now();
      await switchVideoByHand(page, to);
      const s2 = await waitForPlayback(page, before.playback.currentTimeSec + 10, 120_000);
      const after = s2.segments.filter(
        (x) => x.mediaType === 'video' && x.kind === 'media' && x.requestMs > switchAt && x.representationId === String(to),
      );
      expect(after.length).toBeGreaterThan(0);
      // nothing cancelled or dropped: every video segment dash.js asked for was delivered, in order
      const delivered = s2.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media');
      expect(delivered.every((x) => x.status === 'ok')).toBe(true);
      for (let i = 1; i < delivered.length; i++) expect(delivered[i]?.index).toBe((delivered[i - 1]?.index as number) + 1);
      expect(s2.transfers.filter((t) => t.via === 'sprint' && t.cancelled)).toEqual([]);
      expect(s2.playback.errors).toEqual([]);
      expect(s2.trains.some((t) => t.requests >= 2)).toBe(true);
      const video = mediaRecords(origin).filter((r) => /(init|chunk)-[0-4]/.test(r.url));
      expect(pipelinedPairs(video).length).toBeGreaterThan(0);
      // Audio rides the train's connection (sprintAudio 'train', the default) and is in the stats.
      const audio = mediaRecords(origin).filter((r) => /(init|chunk)-5/.test(r.url));
      const videoConns = new Set(video.map((r) => r.conn));
      expect(audio.length).toBeGreaterThan(0);
      const audioMedia = audio.filter((r) => /chunk-5/.test(r.url));
      expect(audioMedia.length).toBeGreaterThan(0);
      expect(audioMedia.filter((r) => !videoConns.has(r.conn))).toEqual([]);
      expect(s2.counters['sprint.audioOnTrain'] ?? 0).toBeGreaterThan(0);
      // ...so its bytes are in the connection's estimate: BW-x's video budget leaves its bitrate out.
      expect(s2.estimates.sharedAudioBitsPerSec).toBe(AUDIO.bandwidth);
      // ...in presentation order with the video: every wait for audio ended with audio asking, none
      // lapsed (lapsing, video ran ahead and audio starved on the testbed; this fails on that version).
      expect(s2.counters['sprint.audioHoldTimeouts'] ?? 0).toBe(0);
      // ...and pipelined too: an audio request reached the origin while the
      // audio response ahead of it was still being sent (with one audio
      // request at a time, never), and Sprint counted it.
      expect(pipelinedPairs(audioMedia).length).toBeGreaterThan(0);
      expect(s2.counters['sprint.audioPipelined'] ?? 0).toBeGreaterThan(0);
      // Each audio segment recorded once: as many as the origin had answered,
      // less those answered but still on their way to dash.js.
      const answeredAudio = (): number =>
        mediaRecords(origin).filter((r) => /chunk-5/.test(r.url) && r.status === 200 && r.end !== null).length;
      const answeredBefore = answeredAudio();
      const now = await stats(page);
      const answeredAfter = answeredAudio();
      const audioInStats = now.segments.filter((x) => x.mediaType === 'audio' && x.kind === 'media' && x.status === 'ok').length;
      const audioOnTheWay = now.transfers.filter(
        (t) => t.via === 'sprint' && /chunk-5/.test(t.url) && t.segmentsServed === 0 && !t.cancelled && t.error === null,
      ).length;
      expect(audioInStats).toBeGreaterThan(0);
      expect(audioInStats).toBeGreaterThanOrEqual(answeredBefore - audioOnTheWay);
      expect(audioInStats).toBeLessThanOrEqual(answeredAfter);
      // The switch happened inside a train: one train requested both bitrates.
      const nominal = [300000, 700000, 1500000, 3000000, 6000000][to];
      expect(s2.trains.some((t) => t.bitrates.includes(nominal as number) && new Set(t.bitrates).size >= 2)).toBe(true);
      // ...without draining the window: the new representation's first request
      // (its init segment) was issued while a segment of the old one was still
      // arriving (dash.js's own switch waits until none is loading).
      const videoSegs = s2.segments.filter((x) => x.mediaType === 'video').sort((a, b) => a.requestMs - b.requestMs);
      const firstNew = videoSegs.find((x) => x.requestMs > switchAt && x.representationId === String(to));
      expect(firstNew).toBeDefined();
      const stillArriving = videoSegs.filter(
        (x) => x.representationId !== String(to) && x.requestMs < (firstNew?.requestMs ?? 0) && x.endMs > (firstNew?.requestMs ?? 0),
      );
      expect(stillArriving.length).toBeGreaterThan(0);
      expect(s2.counters['sprint.switchesInTrain'] ?? 0).toBeGreaterThan(0);
      // Bandwidth comes from the kernel's byte counter of the media connection (TCP_INFO through the
      // host), not from when the page read the bytes (src/estimators/kernel-bytes.ts).
      expect(s2.estimates.source).toMatch(/bandwidth: tcp-info byte counter of the media connection$/);
    } finally {
      await browser.close();
      await origin.close();
    }
  });

  it("with saudio=own, audio stays off the train's connection and playback goes on", async () => {
    const { origin, browser, page } = await open(true, 'chunked', '&saudio=own');
    try {
      const s = await waitForPlayback(page, 8, 120_000);
      expect(s.mode).toBe('sprint');
      expect(s.playback.errors).toEqual([]);
      const video = mediaRecords(origin).filter((r) => /chunk-[0-4]/.test(r.url));
      const audio = mediaRecords(origin).filter((r) => /chunk-5/.test(r.url));
      expect(video.length).toBeGreaterThan(0);
      expect(audio.length).toBeGreaterThan(0);
      const videoConns = new Set(video.map((r) => r.conn));
      expect(audio.filter((r) => videoConns.has(r.conn))).toEqual([]);
      expect(s.counters['sprint.audioOnTrain'] ?? 0).toBe(0);
      expect(s.estimates.sharedAudioBitsPerSec ?? null).toBeNull();
    } finally {
      await browser.close();
      await origin.close();
    }
  });

  it('falls back to stock when the socket host dies for good mid-playback, and keeps playing', async () => {
    const { origin, browser, page } = await open(true, 'chunked');
    try {
      const s1 = await waitForPlayback(page, 3, 120_000);
      expect(s1.mode).toBe('sprint');
      // The host can no longer be started (manifest gone), then the running one dies.
      rmSync(join(browser.profileDir, 'NativeMessagingHosts'), { recursive: true, force: true });
      const pids = hostPids(artifacts.hostBinary);
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      const s2 = await waitForPlayback(page, s1.playback.currentTimeSec + 12, 120_000);
      expect(s2.mode).toBe('stock');
      expect(s2.modeReason).toMatch(/fell back from sprint during playback/);
      expect(s2.playback.errors).toEqual([]);
    } finally {
      await browser.close();
      await origin.close();
    }
  });

  it('falls back without the socket host, saying why, and keeps playing', async () => {
    const { origin, browser, page } = await open(false, 'unchunked');
    try {
      const s = await waitForPlayback(page, 8, 120_000);
      expect(s.mode).toBe('sprint-x');
      expect(s.modeReason).toMatch(/sprint: .*host/i);
    } finally {
      await browser.close();
      await origin.close();
    }
  });
});
