// The Sprint-x data plane (player/sprintx/sprintx-data-plane.ts, paper
// §IV-B2) against a small fake of dash.js's loader contract (the XHRLoader
// extension point, settings, buffer level, events) and the project's real
// origin on loopback: segment requests are answered from one expanded Range
// request of at least the chunk size, byte for byte; a request outside the
// range opens the next one; a server that ignores Range fails the segment
// back to dash.js, records it, and falls back to stock with the reason.
// Judged from the origin's access records and the player's stats.

import { plainRequestPath } from '../../../player/dataplane/request-path';
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
function segmentRequest(url: string, index: number, mediaType: 'video' | 'audio' = 'video') {
  const r = ranges[index] as { start: number; end: number };
  let settle: (how: string) => void = () => undefined;
  const ended = new Promise<string>((resolve) => (settle = resolve));
  const request: LoaderRequest = {
    url,
    method: 'GET',
    customData: {
      request: {
        type: 'MediaSegment',
        mediaType,
        url,
        range: `${r.start}-${r.end}`,
        index,
        duration: 4,
        representation: mediaType === 'video' ? { id: 'rep-1', bandwidth: 1e6 } : { id: 'audio-1', bandwidth: 128_000 },
      },
      onloadend: () => settle('loadend'),
      onabort: () => settle('abort'),
      onprogress: () => undefined,
    },
  };
  const response: LoaderResponse = {};
  return { request, response, ended };
}

function context(dash: unknown, manifestUrl: string, stats: StatsRecorder, sprintxAudioSec = 0): DataPlaneContext {
  return {
    dash,
    dashjs: {
      MediaPlayer: {
        events: { FRAGMENT_LOADING_COMPLETED: 'fragmentLoadingCompleted', FRAGMENT_LOADING_ABANDONED: 'fragmentLoadingAbandoned' },
      },
    },
    manifestUrl,
    requests: plainRequestPath(),
    stats,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    epsilon: 0.1,
    chunkBytes: 25_000,
    minimumTrain: true,
    sprintWindowBdps: 2,
    sprintxSwitch: 'after-chunk',
    sprintxMaxRangeSec: 60,
    sprintxAudioSec,
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

  it('leaves audio to dash.js by default, and with sprintxAudioSec expands it by media time, not by the chunk', async () => {
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir });
    const url = `${origin.url}/media/video.m4s`;
    const audioRequests = () => origin.records().filter((r) => r.url === '/media/video.m4s' && r.range !== 'bytes=0-0');
    try {
      // Default (0): dash.js loads audio itself.
      const off = new SprintXDataPlane(url, new Map([['audio-1', ranges]]));
      const a = fakeDash(30);
      off.install(context(a.dash, `${origin.url}/media/manifest.mpd`, new StatsRecorder('sprint-x')));
      const s0 = segmentRequest(url, 0, 'audio');
      a.loader().load(s0.request, s0.response);
      expect(a.declined).toHaveLength(1);
      off.destroy();
      expect(audioRequests()).toEqual([]);

      // 8 s per audio request = 2 segments of 4 s (20 000 bytes), under the 25 000-byte chunk the video uses.
      const stats = new StatsRecorder('sprint-x');
      const on = new SprintXDataPlane(url, new Map([['audio-1', ranges]]));
      const b = fakeDash(30);
      try {
        on.install(context(b.dash, `${origin.url}/media/manifest.mpd`, stats, 8));
        const l = b.loader();
        for (const i of [0, 1, 2, 3]) {
          const s = segmentRequest(url, i, 'audio');
          l.load(s.request, s.response);
          expect(await s.ended).toBe('loadend');
          expect(Buffer.from(s.response.data as ArrayBuffer).equals(fx.video.subarray(i * SEGMENT, (i + 1) * SEGMENT))).toBe(true);
        }
        expect(b.declined).toEqual([]);
        expect(audioRequests().map((r) => r.range)).toEqual(['bytes=0-19999', 'bytes=20000-39999']);
        expect(stats.counters['sprintx.audioTransfers']).toBe(2);
        expect(stats.transfers.toArray().map((t) => t.targetChunkBytes)).toEqual([null, null]);
      } finally {
        on.destroy();
      }
    } finally {
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
