/**
 * End-to-end: the throughput the player measures stays true to the link. On
 * an origin paced to 3 Mbit/s, stock dash.js with the BW-80 preset (paper
 * §V-C) on byte-range-addressed content: the project's wire estimate (what
 * BW-x reads, player/abr/bw-x-rule.ts) and dash.js's own average (with the
 * Resource Timing API off, player/create-player.ts) both read near 3 Mbit/s —
 * with the API on, dash.js read ~1 Mbit/s here (the timing of each
 * representation's index request), and 7.25 Mbit/s on the testbed — and BW-80
 * never picks a rung above 80 % of the link.
 */
import { demoUrl, startStack, stats, waitForPlayback, type Stack } from './support/playback';

const LINK = 3e6;

describe('throughput estimates on a 3 Mbit/s paced origin (stock, BW-80)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: LINK });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('reads near the link in both estimates, and BW-80 stays below 80 % of it', async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode: 'stock', abr: 'bw-80' }));
    await waitForPlayback(stack.page, 20, 120_000);
    const s = await stats(stack.page);
    expect(s.estimates.bandwidthSamples).toBeGreaterThan(3);
    expect(s.estimates.source).toMatch(/request to last byte/);
    // The wire estimate: within [60 %, 110 %] of the pacer (its token bucket lets a little more through at times).
    expect(s.estimates.bandwidthBitsPerSec!).toBeGreaterThan(0.6 * LINK);
    expect(s.estimates.bandwidthBitsPerSec!).toBeLessThan(1.1 * LINK);
    // dash.js's own average, once its index-request timing is out of the way.
    expect(s.playback.dashThroughputBitsPerSec!).toBeGreaterThan(0.6 * LINK);
    expect(s.playback.dashThroughputBitsPerSec!).toBeLessThan(1.1 * LINK);
    const settings = await stack.page.evaluate(
      () =>
        (
          window as unknown as {
            sprintPlayer: { dash: { getSettings(): { streaming: { abr: { throughput: { useResourceTimingApi: boolean } } } } } };
          }
        ).sprintPlayer.dash.getSettings().streaming.abr.throughput.useResourceTimingApi,
    );
    expect(settings).toBe(false);
    const video = s.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media');
    // The first segment before any sample: the lowest rung; none ever above 80 % of the link.
    expect(video[0]?.bandwidth).toBe(300_000);
    for (const v of video) expect(v.bandwidth!).toBeLessThanOrEqual(0.8 * LINK);
    expect(video.some((v) => v.bandwidth === 1_500_000)).toBe(true);
  });
});
