/**
 * End-to-end: a player never wedges on a segment that cannot arrive
 * (player/abr/rescue.ts). The origin lets every response of the top rung's
 * file (rep-4.mp4, 6 Mbit/s) send 200 KB and then go silent (stall) or close
 * (fin), the ABR is pushed to that rung (BW-1000: ten times the measured
 * throughput), and dash.js's fragment timeout is 3 s. Each failure must be
 * asked again at a lower rung, the first failed segment must arrive there
 * before playback passes its media time, and no dash.js error may occur; in
 * stock, Sprint-x and Sprint (trains over fetch) modes.
 */
import { demoUrl, mediaRecords, startStack, waitForPlayback, waitForStats, type Stack } from './support/playback';

const TOP = 'rep-4.mp4';

describe.each([
  ['stock', 'stall', {}],
  // At most 8 s of media per expanded request. An expanded request spans the
  // chunk size (up to 60 s of media by default), so on a busy machine, whose
  // RTT estimate is larger, the first one at the lowest rung can reach past
  // the 24 s of playback the test waits for, and the top rung is never asked
  // for (a CI run with no top-rung response cut; here, with both cores busy,
  // the first request spanned 24 s).
  ['sprint-x', 'fin', { sxmaxsec: '8' }],
  ['sprint', 'stall', { transport: 'fetch' }],
  ['sprint', 'fin', { transport: 'fetch' }],
] as const)('segment rescue in %s mode (top rung: 200 KB then %s)', (mode, resetWith, extra) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      rateLimitBitsPerSec: 8e6,
      resetAfterBytes: 200_000,
      resetWith,
      faultPath: TOP,
      resetCount: Number.POSITIVE_INFINITY,
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('steps down and keeps playing past the segments the top rung could not deliver', async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode, abr: 'bw-1000', fragtimeout: '3000', ...extra }));
    // waitForPlayback fails on any dash.js error.
    const playing = await waitForPlayback(stack.page, 24, 150_000);
    expect(playing.mode).toBe(mode);
    // Playback must pass the first failed segment's media time: dash.js asks for that segment again only when
    // its buffer falls to its target, which may be after the 24 s above, but it must come. The wait is bounded
    // by that media time plus a margin; an error fails it at once.
    const first = playing.rescues[0] ?? (await waitForStats(stack.page, 'a first rescue', (x) => x.rescues.length > 0, 60_000)).rescues[0]!;
    const failedEndSec = (first.index + 1) * (first.segmentSec ?? 4);
    const s = await waitForStats(
      stack.page,
      `playback past the first failed segment (index ${first.index}, ends at ${failedEndSec} s)`,
      (x) => {
        if (x.playback.errors.length > 0) throw new Error(`player errors: ${x.playback.errors.join('; ')}`);
        return x.playback.currentTimeSec > failedEndSec;
      },
      Math.min(Math.max(0, failedEndSec - playing.playback.currentTimeSec) * 1000 + 90_000, 240_000),
      500,
    );

    // Printed before the assertions so that a failure shows what was requested and cut.
    process.stderr.write(
      `rescue ${mode}/${resetWith}: mode now ${s.mode} (${s.modeReason}); rescues ${JSON.stringify(
        s.rescues.map((r) => [r.index, r.reason, r.toBandwidth, r.atMs]),
      )}; video ${JSON.stringify(
        s.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media').map((x) => [x.index, x.bandwidth, x.status, x.requestMs]),
      )}; origin top rung ${JSON.stringify(
        mediaRecords(stack.origin)
          .filter((r) => r.url.endsWith(TOP))
          .map((r) => [r.range, r.bytes, r.error]),
      )}\n`,
    );
    // The origin really cut top-rung media responses.
    const cut = mediaRecords(stack.origin).filter((r) => r.url.endsWith(TOP) && r.bytes === 200_000);
    expect(cut.length).toBeGreaterThan(0);

    // Each rescue asked below the rung that failed, and the first failed segment arrived lower, after its
    // failure: playback did not pass it on a gap.
    expect(s.rescues.length).toBeGreaterThan(0);
    const ok = s.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media' && x.status === 'ok');
    for (const r of s.rescues.filter((x) => x.appliedMs !== null)) {
      expect(r.toBandwidth).not.toBeNull();
      expect(r.toBandwidth as number).toBeLessThan(r.fromBandwidth ?? 6_000_000);
      expect(r.bytesLoaded).toBeLessThanOrEqual(200_000);
    }
    expect(ok.some((x) => x.index === first.index && (x.bandwidth ?? Infinity) < 6_000_000 && x.requestMs >= first.atMs)).toBe(true);
    // No top-rung segment was ever delivered, yet playback went on.
    expect(ok.some((x) => x.bandwidth === 6_000_000)).toBe(false);
    expect(s.playback.currentTimeSec).toBeGreaterThanOrEqual(24);
    expect(s.counters['rescues']).toBe(s.rescues.length);
  }, 480_000);
});
