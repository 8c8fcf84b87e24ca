/**
 * dash.js's throughput estimate in the demo page reflects the link, in stock
 * mode with dash.js's own rules, for content addressed by byte ranges:
 *  - on an origin paced at 4 Mbit/s the estimate is not above the link rate;
 *  - on a fast origin (loopback paced at 20 Mbit/s, over 3x the top rung)
 *    the demo page reaches the top rung in both layouts (the demo must show
 *    the truth on localhost).
 * Why 20 Mbit/s and not unpaced loopback: dash.js drops a sample whose
 * request completed in under 10 ms (`streaming.cacheLoadThresholds`, taken
 * as a browser-cache hit) and an XHR sample with a single progress event.
 * On a fast machine every 700 kbit/s segment (350 KB) of unpaced loopback
 * qualifies, dash.js never gets a sample and stays on its start rung: seen
 * once in CI (9 segments, all 700 kbit/s), never on the development machine.
 * That is dash.js's behaviour on an unrealistically fast link, not what this
 * test guards. At 20 Mbit/s a 350 KB segment takes ~140 ms.
 * What can break both is dash.js's default Resource Timing throughput, which
 * repeats the timing of the first request made to each file
 * (player/dash/player-defaults.ts turns it off; test/unit/player/
 * dashjs-contract.test.ts pins the dash.js code). Whether that first entry
 * gives a bogus figure varies from run to run: plain dash.js 5.2.1 on the
 * demo content read 5.7 and 10.6 Mbit/s on this 4 Mbit/s origin (2 of 2
 * runs), the Sprint player's stock mode on the test content stayed right in
 * 4 of 4 runs without the setting. So this test guards the outcome; it does
 * not reproduce the bug on every run.
 */
import { demoUrl, startStack, waitForPlayback, type Stack } from './support/playback';

const TOP_RUNG = 6_000_000;
const LINK = 4_000_000;
const FAST = 20_000_000;

describe('demo page, stock mode, unchunked layout, origin paced at 4 Mbit/s', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: LINK });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("dash.js's throughput estimate stays within the link rate", async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode: 'stock' }));
    const s = await waitForPlayback(stack.page, 12, 120_000);
    expect(s.playback.dashThroughputBitsPerSec).not.toBeNull();
    // 10 % above the pacer's rate is the most timing noise could explain
    expect(s.playback.dashThroughputBitsPerSec).toBeLessThanOrEqual(LINK * 1.1);
  });
});

describe.each(['unchunked', 'chunked'])('demo page, stock mode, %s layout, origin paced at 20 Mbit/s', (layout) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: FAST });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('plays the top rung and dash.js estimates more than the top rung', async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout, mode: 'stock' }));
    const s = await waitForPlayback(stack.page, 16, 120_000);
    const rungs = s.segments.filter((x) => x.kind === 'media' && x.mediaType === 'video' && x.status === 'ok').map((x) => x.bandwidth);
    console.log(`${layout}: rungs ${rungs.join(',')}; dash.js estimate ${s.playback.dashThroughputBitsPerSec} bit/s`);
    expect(rungs).toContain(TOP_RUNG);
    expect(s.playback.dashThroughputBitsPerSec).toBeGreaterThan(TOP_RUNG);
  });
});
