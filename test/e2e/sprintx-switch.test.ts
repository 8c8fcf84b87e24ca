/**
 * Sprint-x under a bitrate switch and on a paced link (paper §IV-B2). The
 * origin sends at most 8 Mbit/s in total (a loopback bottleneck), so
 * expanded transfers take seconds and a switch lands while one is in flight:
 *   - forcing a switch through the dash.js API cancels the in-flight transfer
 *     (the origin's log shows that response cut short), later segments come
 *     from the new representation, and playback keeps advancing. A cancel
 *     needs dash.js to ask for a segment while the transfer still runs: 4 MB
 *     chunks and a buffer target past the content's end keep it asking, and
 *     the test switches again (at most 3 times) if the transfer it named
 *     ended before dash.js asked;
 *   - dash.js's own throughput estimate stays within a sensible factor of the
 *     throughput measured on the wire (segments served from a stream must not
 *     look like cache hits or vanish from its estimate).
 */
import type { SprintStats, TransferRecord } from '../../player/stats/types';
import { demoUrl, mediaRecords, startStack, switchVideoByHand, waitForPlayback, waitForStats, type Stack } from './support/playback';

const RATE = 8e6;

describe('sprint-x on a paced origin', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: RATE });
    await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode: 'sprint-x', chunk: '4000000', buffer: '900' }));
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("keeps dash.js's throughput estimate close to the wire throughput", async () => {
    const s = await waitForPlayback(stack.page, 12, 120_000);
    expect(s.mode).toBe('sprint-x');
    const done = s.transfers.filter((t) => t.via === 'sprint-x' && t.throughputBitsPerSec !== null && t.bytes > 1e6);
    expect(done.length).toBeGreaterThan(0);
    const wire = done.map((t) => t.throughputBitsPerSec as number).sort((a, b) => a - b)[Math.floor(done.length / 2)] as number;
    // dash.js's estimate over the run (once a sample a second, after the
    // first transfer ended), against the wire. Without Sprint's wire timing,
    // dash.js drops stream-served segments as cache hits and its estimate
    // lags far behind (measured: medians of 1.5 and 4.9 Mbit/s against 6-8 on
    // the wire; with it, 7.8 against 8.2).
    const firstEnd = Math.min(...done.map((t) => t.endMs as number));
    const series = s.samples
      .filter((x) => x.atMs > firstEnd && x.dashThroughputBitsPerSec !== null)
      .map((x) => x.dashThroughputBitsPerSec as number);
    expect(series.length).toBeGreaterThan(2);
    const dash = series.sort((a, b) => a - b)[Math.floor(series.length / 2)] as number;
    expect(dash).toBeGreaterThan(wire / 1.35);
    expect(dash).toBeLessThan(wire * 1.35);
    // and the wire itself respected the paced origin (sanity of the setup)
    expect(wire).toBeLessThan(RATE * 1.2);
  });

  it('cancels the in-flight transfer on a forced bitrate switch and keeps playing', async () => {
    const inFlight = (s: SprintStats): TransferRecord | undefined =>
      s.transfers.filter((t) => t.via === 'sprint-x' && t.endMs === null && /rep-\d+\.mp4$/.test(t.url) && !/rep-5/.test(t.url)).pop();
    let named: TransferRecord | undefined;
    let toIndex = 0;
    let atSwitch = 0;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const before = await waitForStats(stack.page, 'a video transfer in flight', (s) => inFlight(s) !== undefined, 60_000);
      named = inFlight(before)!;
      const fromRep = Number(/rep-(\d+)\.mp4$/.exec(named.url)?.[1]);
      toIndex = fromRep === 0 ? 1 : 0;
      atSwitch = before.playback.currentTimeSec;
      await switchVideoByHand(stack.page, toIndex);
      const id = named.id;
      const settled = await waitForStats(
        stack.page,
        `transfer ${id} to be cancelled or to end`,
        (s) => s.transfers.some((t) => t.id === id && (t.cancelled || t.endMs !== null)),
        60_000,
      );
      if (settled.transfers.some((t) => t.id === id && t.cancelled)) break;
      process.stderr.write(`attempt ${attempt}: transfer ${id} ended before dash.js asked for a segment of the new rung\n`);
    }
    const startedAfter = named?.startMs ?? 0;

    const after = await waitForStats(
      stack.page,
      'the switch to take effect and playback to go on',
      (s) =>
        s.transfers.some((t) => t.via === 'sprint-x' && t.cancelled) &&
        s.transfers.some((t) => t.url.endsWith(`rep-${toIndex}.mp4`) && t.segmentsServed > 0 && t.startMs > startedAfter) &&
        s.playback.currentTimeSec > atSwitch + 8,
      120_000,
    );
    expect(after.playback.errors).toEqual([]);
    expect(after.counters['sprintx.cancellations']).toBeGreaterThan(0);
    // Only Sprint-x's own transfers: dash.js may abort a load of its own (audio, left to it) on the
    // switch, and that record carries no expected size (seen once in CI).
    const cancelled = after.transfers.filter((t) => t.via === 'sprint-x' && t.cancelled);
    expect(cancelled.length).toBeGreaterThan(0);
    // Each cancelled transfer stopped short of its range: the player read less than the range,
    // and the origin either was cut off too or had already handed the rest to the kernel (a
    // range's tail can sit in socket buffers when the cancel arrives: seen once, complete at the
    // origin, cut at the player).
    for (const t of cancelled) {
      const rec = mediaRecords(stack.origin).find((r) => t.url.endsWith(r.url) && r.range === `bytes=${t.range}`);
      expect(rec).toBeDefined();
      expect(t.bytes).toBeLessThan(t.expectedBytes as number);
      if (rec?.complete === false) expect(rec.bytes).toBeLessThan(t.expectedBytes as number);
    }
  });
});
