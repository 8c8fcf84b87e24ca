/**
 * Foundation end-to-end: the demo page plays both content layouts in stock
 * mode in headless Chromium. Judged from the origin's access log (media bytes
 * really fetched) and the player's stats (playback time advanced >= 20 s).
 * The page's request-timeout knobs reach dash.js.
 */
import { demoUrl, mediaRecords, startStack, waitForPlayback, type Stack } from './support/playback';

const PLAY_SECONDS = 20;

describe.each(['chunked', 'unchunked'])('stock mode, %s layout', (layout) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it(`plays at least ${PLAY_SECONDS} s with media fetched from the origin`, async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout, mode: 'stock' }));
    const s = await waitForPlayback(stack.page, PLAY_SECONDS, 120_000);

    expect(s.mode).toBe('stock');
    expect(s.modeReason).toMatch(/stock requested/);
    expect(s.playback.startupDelayMs).not.toBeNull();
    // stock checks no mode: dash.js loads the manifest itself, once
    expect(stack.origin.records().filter((r) => r.url?.endsWith('.mpd')).length).toBe(1);
    expect(s.counters['manifest.handedOver']).toBeUndefined();

    const media = mediaRecords(stack.origin).filter((r) => r.status === 200 || r.status === 206);
    const bytes = media.reduce((a, r) => a + r.bytes, 0);
    // 20 s of the lowest rendition alone is ~0.75 MB of video
    expect(bytes).toBeGreaterThan(500_000);
    if (layout === 'unchunked') {
      // byte-range addressed: segments come as 206 partial responses
      expect(media.filter((r) => r.status === 206).length).toBeGreaterThan(3);
    } else {
      expect(media.filter((r) => /\.m4s$/.test(r.url)).length).toBeGreaterThan(3);
    }

    // the player's per-request stats agree with the wire
    const segs = s.segments.filter((x) => x.kind === 'media' && x.status === 'ok');
    expect(segs.length).toBeGreaterThan(3);
    for (const seg of segs) {
      const path = new URL(seg.url).pathname;
      const onWire = media.find((r) => r.url === path && (seg.range === null || r.range === `bytes=${seg.range}`));
      expect(onWire).toBeDefined();
      expect(onWire?.bytes).toBe(seg.bytes);
    }
  });
});

describe('the demo page’s request timeouts', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('hands fragtimeout= and mpdtimeout= to dash.js (the defaults, 20 s and 10 s, are shorter than one request behind a multi-second queue)', async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode: 'stock', fragtimeout: '45000', mpdtimeout: '30000' }));
    await waitForPlayback(stack.page, 4, 60_000);
    const streaming = await stack.page.evaluate(() => {
      const s = (
        window as unknown as {
          sprintPlayer: { dash: { getSettings(): { streaming: { fragmentRequestTimeout: number; manifestRequestTimeout: number } } } };
        }
      ).sprintPlayer.dash.getSettings().streaming;
      return { fragment: s.fragmentRequestTimeout, manifest: s.manifestRequestTimeout };
    });
    expect(streaming).toEqual({ fragment: 45000, manifest: 30000 });
  });
});
