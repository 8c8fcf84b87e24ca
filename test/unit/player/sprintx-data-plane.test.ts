// The Sprint-x data plane (player/sprintx/sprintx-data-plane.ts, paper
// §IV-B2) against a small fake of dash.js's loader contract (the XHRLoader
// extension point, settings, buffer level, events) and the project's real
// origin on loopback: segment requests are answered from one expanded Range
// request of at least the chunk size, byte for byte; a request outside the
// range opens the next one; a server that ignores Range fails the segment
// back to dash.js, records it, and falls back to stock with the reason.
// Judged from the origin's access records and the player's stats.

import { startOrigin, type Origin } from '../../../demo/server/origin';
import { SprintXDataPlane } from '../../../player/sprintx/sprintx-data-plane';
import type { DataPlaneContext } from '../../../player/dataplane/data-plane';
import type { LoaderRequest, LoaderResponse } from '../../../player/dash/loader-types';
import { StatsRecorder } from '../../../player/stats/recorder';
import { makeFixture, type Fixture } from '../server/helpers';
import { fakeDash } from './fake-dash';

const SEGMENT = 10_000;
const ranges = Array.from({ length: 10 }, (_, i) => ({ start: i * SEGMENT, end: i * SEGMENT + SEGMENT - 1 }));

/** One segment request as dash.js's HTTPLoader hands it over, and a promise of its end. */
function segmentRequest(url: string, index: number) {
  const r = ranges[index] as { start: number; end: number };
  let settle: (how: string) => void = () => undefined;
  const ended = new Promise<string>((resolve) => (settle = resolve));
  const request: LoaderRequest = {
    url,
    method: 'GET',
    customData: {
      request: {
        type: 'MediaSegment',
        mediaType: 'video',
        url,
        range: `${r.start}-${r.end}`,
        index,
        duration: 4,
        representation: { id: 'rep-1', bandwidth: 1e6 },
      },
      onloadend: () => settle('loadend'),
      onabort: () => settle('abort'),
      onprogress: () => undefined,
    },
  };
  const response: LoaderResponse = {};
  return { request, response, ended };
}

function context(dash: unknown, manifestUrl: string, stats: StatsRecorder): DataPlaneContext {
  return {
    dash,
    dashjs: {
      MediaPlayer: {
        events: { FRAGMENT_LOADING_COMPLETED: 'fragmentLoadingCompleted', FRAGMENT_LOADING_ABANDONED: 'fragmentLoadingAbandoned' },
      },
    },
    manifestUrl,
    stats,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    epsilon: 0.1,
    chunkBytes: 25_000,
    minimumTrain: true,
    sprintxSwitch: 'after-chunk',
    sprintxMaxRangeSec: 60,
  } as unknown as DataPlaneContext;
}

const expanded = (origin: Origin) => origin.records().filter((r) => r.url === '/media/video.m4s' && r.range !== 'bytes=0-0');

describe('SprintXDataPlane on a loopback origin', () => {
  let fx: Fixture;
  beforeAll(() => {
    fx = makeFixture();
  });
  afterAll(() => fx.remove());

  it('answers consecutive segments from one expanded Range request of at least the chunk, byte for byte', async () => {
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir });
    const stats = new StatsRecorder('sprint-x');
    const url = `${origin.url}/media/video.m4s`;
    const plane = new SprintXDataPlane(url, new Map([['rep-1', ranges]]));
    const { dash, loader, declined } = fakeDash(30);
    try {
      plane.install(context(dash, `${origin.url}/media/manifest.mpd`, stats));
      const l = loader();
      for (const i of [0, 1, 2]) {
        const s = segmentRequest(url, i);
        l.load(s.request, s.response);
        expect(await s.ended).toBe('loadend');
        expect(s.response.status).toBe(206);
        expect(Buffer.from(s.response.data as ArrayBuffer).equals(fx.video.subarray(i * SEGMENT, (i + 1) * SEGMENT))).toBe(true);
      }
      // Outside the first range: the next expanded request starts there.
      const s7 = segmentRequest(url, 7);
      l.load(s7.request, s7.response);
      expect(await s7.ended).toBe('loadend');
      expect(Buffer.from(s7.response.data as ArrayBuffer).equals(fx.video.subarray(7 * SEGMENT, 8 * SEGMENT))).toBe(true);

      expect(declined).toEqual([]);
      expect(expanded(origin).map((r) => r.range)).toEqual(['bytes=0-29999', 'bytes=70000-99999']);
      const transfers = stats.transfers.toArray().filter((t) => t.via === 'sprint-x');
      expect(transfers.map((t) => t.range)).toEqual(['0-29999', '70000-99999']);
      const segments = stats.segments.toArray();
      expect(segments.map((x) => [x.index, x.status, x.transferId])).toEqual([
        [0, 'ok', transfers[0]?.id],
        [1, 'ok', transfers[0]?.id],
        [2, 'ok', transfers[0]?.id],
        [7, 'ok', transfers[1]?.id],
      ]);
      expect(stats.mode).toBeNull(); // never fell back (the resolver sets the mode, not the plane)
    } finally {
      plane.destroy();
      await origin.close();
    }
  });

  it('a server that ignores Range: the segment fails back to dash.js, is recorded, and the player falls back to stock', async () => {
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, noRange: true });
    const stats = new StatsRecorder('sprint-x');
    const url = `${origin.url}/media/video.m4s`;
    const plane = new SprintXDataPlane(url, new Map([['rep-1', ranges]]));
    const { dash, loader } = fakeDash(30);
    try {
      plane.install(context(dash, `${origin.url}/media/manifest.mpd`, stats));
      const s = segmentRequest(url, 0);
      loader().load(s.request, s.response);
      expect(await s.ended).toBe('loadend');
      expect(s.response.status).toBe(0);
      expect(s.response.statusText).toMatch(/^sprint-x: /);
      expect(stats.segments.toArray().map((x) => [x.index, x.status])).toEqual([[0, 'error']]);
      expect(stats.mode).toBe('stock');
      expect(stats.modeReason).toMatch(/fell back from sprint-x during playback: the server stopped honouring Range requests/);
      expect(stats.counters['sprintx.fallbacks']).toBe(1);
    } finally {
      plane.destroy();
      await origin.close();
    }
  });
});
