/**
 * The evaluation's ABR presets (paper §V-A buffer-based rule, §V-C BW-x) run
 * as dash.js custom rules inside the bundled player: playback advances with
 * each, no player error, and the rule really chose (dash.js's built-in rules
 * are off, so the first segments come at the rule's choice: the lowest rung
 * for the buffer-based rule, which starts there).
 */
import { demoUrl, startStack, waitForPlayback, type Stack } from './support/playback';

describe.each(['buffer', 'bw-90'])('ABR preset %s', (abr) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: 8e6 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('plays with the rule choosing the bitrates', async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout: 'chunked', mode: 'stock', abr }));
    const s = await waitForPlayback(stack.page, 8, 90_000);
    expect(s.playback.errors).toEqual([]);
    const video = s.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media');
    expect(video.length).toBeGreaterThan(1);
    if (abr === 'buffer') expect(video[0]?.bandwidth).toBe(300000);
  });
});
