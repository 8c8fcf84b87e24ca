// The Sprint data plane (player/sprint/sprint-data-plane.ts, paper §IV-B1)
// against a small fake of dash.js (the XHRLoader extension point, its
// fragment and append events, settings, buffer level) with trains on the
// page's fetch to the project's real origin on loopback: requests dash.js
// scheduled ride the train and several are on the wire at once; responses
// reach dash.js strictly in request order, one append at a time, byte for
// byte; requests dash.js did not schedule (index probes) stay with dash.js.
// Judged from the origin's access records and the player's stats.

import { RequestPath } from '../../../player/dataplane/request-path';
import { startOrigin, type OriginOptions } from '../../../demo/server/origin';
import type { ResponseSink, TrainTransport } from '../../../player/sprint/train-transport';
import { SprintDataPlane } from '../../../player/sprint/sprint-data-plane';
import { FetchTrainTransport } from '../../../player/sprint/fetch-transport';
import type { DataPlaneContext } from '../../../player/dataplane/data-plane';
import type { LoaderRequest, LoaderResponse } from '../../../player/dash/loader-types';
import { StatsRecorder } from '../../../player/stats/recorder';
import { nowMs } from '../../../player/dataplane/clock';
import { makeFixture, type Fixture } from '../server/helpers';
import { fakeDash, fakeScheduleController } from './fake-dash';

const SEGMENT = 10_000;

function context(dash: unknown, originUrl: string, stats: StatsRecorder, extra: Partial<DataPlaneContext> = {}): DataPlaneContext {
  return {
    dash,
    dashjs: {
      MediaPlayer: {
        events: {
          FRAGMENT_LOADING_COMPLETED: 'fragmentLoadingCompleted',
          FRAGMENT_LOADING_ABANDONED: 'fragmentLoadingAbandoned',
          PLAYBACK_SEEKING: 'playbackSeeking',
        },
      },
    },
    manifestUrl: `${originUrl}/media/manifest.mpd`,
    // counts into the stats as the player's request path does
    requests: new RequestPath({ interceptors: () => [], withCredentials: () => false }, (k) => stats.count(`requests.${k}` as const)),
    stats,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    epsilon: 0.1,
    chunkBytes: 100_000,
    minimumTrain: true,
    sprintWindowBdps: 2,
    sprintAudio: 'train',
    sprintxSwitch: 'after-chunk',
    sprintxMaxRangeSec: 60,
    ...extra,
  } as unknown as DataPlaneContext;
}

type Segment = ReturnType<typeof segmentRequest>;

/** A scheduled segment request as dash.js's FragmentModel makes it, with a promise of its hand-over. */
function segmentRequest(url: string, mediaType: string, i: number, onEnd: () => void = () => undefined) {
  const request: LoaderRequest = {
    url,
    method: 'GET',
    customData: {
      request: {
        type: 'MediaSegment',
        mediaType,
        url,
        range: `${i * SEGMENT}-${i * SEGMENT + SEGMENT - 1}`,
        index: i,
        duration: 4,
        representation: { id: `${mediaType}-1`, bandwidth: 1e6 },
      },
      onprogress: () => undefined,
    },
  };
  const response: LoaderResponse = {};
  const ended = new Promise<void>((resolve) => {
    request.customData.onloadend = () => {
      onEnd();
      resolve();
    };
  });
  return { request, response, ended };
}

describe('SprintDataPlane with trains over fetch on a loopback origin', () => {
  let fx: Fixture;
  beforeAll(() => {
    fx = makeFixture();
  });
  afterAll(() => fx.remove());

  it('puts scheduled segment requests on the wire together and hands them to dash.js in order, one append at a time', async () => {
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir });
    const stats = new StatsRecorder('sprint');
    const plane = new SprintDataPlane(new FetchTrainTransport());
    const { dash, emit, loader, declined } = fakeDash(10);
    const url = `${origin.url}/media/video.m4s`;
    const ctx = context(dash, origin.url, stats);
    try {
      plane.install(ctx);
      const l = loader();
      const order: number[] = [];
      const segments = [0, 1, 2].map((i) => segmentRequest(url, 'video', i, () => order.push(i)));
      // dash.js announces each scheduled request, then loads it; all three before any answer arrives.
      for (const s of segments) {
        emit('fragmentLoadingStarted', { request: s.request.customData.request });
        l.load(s.request, s.response);
      }
      // An index probe dash.js did not schedule stays with dash.js.
      const probe: LoaderRequest = {
        url,
        method: 'GET',
        customData: { request: { type: 'MediaSegment', mediaType: 'video', url, range: '0-99' } },
      };
      l.load(probe, {});
      expect(declined).toEqual([probe]);

      for (const [k, s] of segments.entries()) {
        await s.ended;
        expect(order).toEqual(segments.slice(0, k + 1).map((_, i) => i));
        expect(s.response.status).toBe(206);
        expect(Buffer.from(s.response.data as ArrayBuffer).equals(fx.video.subarray(k * SEGMENT, (k + 1) * SEGMENT))).toBe(true);
        // The next completion waits for dash.js to report this append, even
        // when its bytes are all in: wait (bounded) until the origin finished
        // every response, give the data plane a moment, and check nothing more came.
        for (
          let n = 0;
          n < 100 &&
          origin.records().filter((r) => r.complete && r.range?.startsWith('bytes=') && r.range !== 'bytes=0-0' && r.range !== 'bytes=0-99')
            .length < 3;
          n++
        ) {
          await new Promise((r) => setTimeout(r, 20));
        }
        await new Promise((r) => setTimeout(r, 100));
        expect(order).toHaveLength(k + 1);
        emit('bytesAppendedEndFragment', { mediaType: 'video' });
      }
      const media = origin.records().filter((r) => r.url === '/media/video.m4s' && r.range !== 'bytes=0-0' && r.range !== 'bytes=0-99');
      // (logged as each ends: node's fetch on HTTP/1.1 spreads them over connections, so any order)
      expect(media.map((r) => r.range).sort()).toEqual(['bytes=0-9999', 'bytes=10000-19999', 'bytes=20000-29999']);
      const trains = stats.trains.toArray();
      expect(trains).toHaveLength(1);
      expect(trains[0]).toMatchObject({ requests: 3, targetBytes: 100_000 });
      expect(trains[0]?.window).toBeGreaterThanOrEqual(2);
      expect(stats.segments.toArray().map((x) => [x.index, x.status])).toEqual([
        [0, 'ok'],
        [1, 'ok'],
        [2, 'ok'],
      ]);
    } finally {
      plane.destroy();
      await origin.close();
    }
  });

  /** Runs `body` against a data plane installed on a fresh loopback origin, then tears both down. */
  async function withPlane(
    opts: { origin?: Partial<OriginOptions>; transport?: TrainTransport; ctx?: Partial<DataPlaneContext>; bufferSec?: number },
    body: (h: {
      base: string;
      stats: StatsRecorder;
      declined: LoaderRequest[];
      load: (s: Segment) => void;
      factories: ReturnType<typeof fakeDash>['factories'];
      emit: ReturnType<typeof fakeDash>['emit'];
    }) => Promise<void>,
  ): Promise<void> {
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, ...opts.origin });
    const stats = new StatsRecorder('sprint');
    const plane = new SprintDataPlane(opts.transport ?? new FetchTrainTransport());
    const { dash, emit, loader, declined, factories } = fakeDash(opts.bufferSec ?? 10);
    try {
      plane.install(context(dash, origin.url, stats, opts.ctx));
      const l = loader();
      // dash.js announces each scheduled request, then loads it
      const load = (seg: Segment): void => {
        emit('fragmentLoadingStarted', { request: seg.request.customData.request });
        l.load(seg.request, seg.response);
      };
      await body({ base: `${origin.url}/media`, stats, declined, load, factories, emit });
    } finally {
      plane.destroy();
      await origin.close();
    }
  }

  // A CDN that checks a token in the query AND a header (the demo origin's requireToken, 403 otherwise).
  const TOKEN = { query: 'token', header: 'X-CDN-Token', value: 't0k' };
  /** A segment request as dash.js builds it after the page's interceptor: token in the URL, `headers` set. */
  const withToken = (seg: Segment, headers: Record<string, string>): Segment => {
    seg.request.url = `${seg.request.url}?token=${TOKEN.value}`;
    seg.request.headers = { ...headers };
    return seg;
  };
  /** Waits (bounded) until `ok` holds. */
  const until = async (ok: () => boolean, what: string): Promise<void> => {
    for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
    if (!ok()) throw new Error(`timed out waiting for ${what}`);
  };

  it("sends the headers of dash.js's load with each train request (the page's interceptor output)", async () => {
    await withPlane({ origin: { requireToken: TOKEN } }, async ({ base, stats, declined, load, emit }) => {
      const segments = [0, 1, 2].map((i) => withToken(segmentRequest(`${base}/video.m4s`, 'video', i), { 'X-CDN-Token': TOKEN.value }));
      segments.forEach(load);
      for (const s of segments) {
        await s.ended;
        expect(s.response.status).toBe(206);
        emit('bytesAppendedEndFragment', { mediaType: 'video' });
      }
      expect(declined).toEqual([]);
      expect(stats.counters['sprint.refused']).toBeUndefined();
      expect(stats.counters['requests.media']).toBe(3);
    });
  });

  it("hands a refused request to dash.js's own loader, and falls back to stock after three refusals in a row", async () => {
    await withPlane({ origin: { requireToken: TOKEN } }, async ({ base, stats, declined, load }) => {
      const fallbacks: string[] = [];
      stats.events.on('fallback', (e) => fallbacks.push(e.reason));
      // the URL has the token, the header is missing: the origin refuses Sprint's request
      const segments = [0, 1, 2, 3].map((i) => withToken(segmentRequest(`${base}/video.m4s`, 'video', i), {}));
      for (const [k, s] of segments.slice(0, 3).entries()) {
        load(s);
        await until(() => declined.length === k + 1, `segment ${k} handed to dash.js's loader`);
        expect(declined[k]).toBe(s.request);
      }
      expect(stats.counters['sprint.refused']).toBe(3);
      expect(stats.mode).toBe('stock');
      expect(fallbacks).toEqual([
        expect.stringMatching(/3 requests in a row refused \(last: the origin refused Sprint's request \(HTTP 403\)\)/),
      ]);
      // after the fallback dash.js loads everything itself, at once
      load(segments[3] as Segment);
      expect(declined[3]).toBe(segments[3]?.request);
    });
  });

  it('falls back instead of sending a load without the headers its transport cannot carry', async () => {
    const inner = new FetchTrainTransport();
    const noHeaders: TrainTransport = {
      name: 'extension',
      carriesPageHeaders: false,
      request: (r, sink) => inner.request(r, sink),
      close: () => inner.close(),
    };
    await withPlane({ origin: { requireToken: TOKEN }, transport: noHeaders }, async ({ base, stats, declined, load }) => {
      const seg = withToken(segmentRequest(`${base}/video.m4s`, 'video', 0), { 'X-CDN-Token': TOKEN.value });
      load(seg);
      expect(declined).toEqual([seg.request]);
      expect(stats.counters['sprint.headersNotCarried']).toBe(1);
      expect(stats.mode).toBe('stock');
      expect(stats.modeReason).toMatch(/headers X-CDN-Token, which the extension transport cannot send/);
      expect(stats.counters['requests.media']).toBeUndefined();
    });
  });

  // The outstanding window is the page's sprintWindowBdps fair BDPs
  // (src/model/outstanding-window.ts). Nothing arrives (the origin holds each
  // response 3 s), so the fair BDP is the bootstrap one (5 Mbit/s × 100 ms =
  // 62.5 KB): eight 10 KB requests, 80 KB of a 100 KB train, fill a window of
  // one BDP but not the default two, and dash.js's schedule loop is let run
  // (its ABR would pick the next segment) only while the window has room.
  it.each([
    ['the default (two fair BDPs)', {}, 1],
    ["sprintWindowBdps 1 (the paper's minimum)", { sprintWindowBdps: 1 }, 0],
  ] as const)(
    'with %s, 80 KB outstanding and nothing arriving (context %j), the schedule loop runs %p time(s)',
    async (_name, ctx, starts) => {
      await withPlane({ origin: { latencyMs: 3000 }, ctx }, async ({ base, stats, load, factories }) => {
        const segments = [...Array(8).keys()].map((i) => segmentRequest(`${base}/video.m4s`, 'video', i));
        segments.forEach(load);
        const c = fakeScheduleController(factories);
        c.instance.startScheduleTimer(0);
        expect(c.calls.start).toBe(starts);
        expect(stats.trains.toArray()[0]).toMatchObject({ requests: 8, targetBytes: 100_000 });
      });
    },
  );

  // Audio rides a transport whose requests share one connection (the
  // extension's pipelining, or fetch with dash.js's credentials mode on an
  // HTTP/2 origin) so the player is one flow; elsewhere, or with 'own',
  // dash.js loads it.
  it.each([
    ['one connection (fetch, same-origin), sprintAudio train', () => new FetchTrainTransport('same-origin'), 'train', true],
    ['one connection (fetch, same-origin), sprintAudio own', () => new FetchTrainTransport('same-origin'), 'own', false],
    ['fetch on a pool of its own (omit: the browser maps connections)', () => new FetchTrainTransport(), 'train', false],
  ] as const)('audio on %s', async (_name, transport, sprintAudio, carried) => {
    await withPlane({ transport: transport(), ctx: { sprintAudio } }, async ({ base, stats, declined, load }) => {
      const video = segmentRequest(`${base}/video.m4s`, 'video', 0);
      const audio = segmentRequest(`${base}/video.m4s`, 'audio', 1);
      load(video);
      load(audio);
      await video.ended;
      expect(declined.map((r) => r.customData.request?.mediaType)).toEqual(carried ? [] : ['audio']);
      if (!carried) {
        expect(stats.estimates.sharedAudioBitsPerSec ?? null).toBeNull();
        return;
      }
      await audio.ended;
      expect(Buffer.from(audio.response.data as ArrayBuffer).equals(fx.video.subarray(SEGMENT, 2 * SEGMENT))).toBe(true);
      expect(stats.counters['sprint.audioOnTrain']).toBe(1);
      // its bytes are in the connection's estimate: its bitrate is published for the ABR's video budget
      expect(stats.estimates.sharedAudioBitsPerSec).toBe(1e6);
      // audio is on the wire beside the train, not part of its books
      expect(stats.trains.toArray()[0]).toMatchObject({ requests: 1 });
      // (each type is handed over in its own order: which of the two came first is the network's)
      expect(
        stats.segments
          .toArray()
          .map((x) => `${x.mediaType} ${x.status}`)
          .sort(),
      ).toEqual(['audio ok', 'video ok']);
    });
  });

  // dash.js leaves its fragment request timeout to the loader: Sprint applies
  // it, so a response that stops arriving fails as timed out with the bytes
  // it got (what the segment rescue reads), instead of holding the train.
  it("fails a request at dash.js's timeout with the bytes it got, and the next one still arrives", async () => {
    const origin = { resetAfterBytes: 4_000, resetWith: 'stall' as const, resetCount: 1 };
    await withPlane({ origin }, async ({ base, stats, load }) => {
      const stalled = segmentRequest(`${base}/video.m4s`, 'video', 0);
      stalled.request.timeout = 1_000;
      load(stalled);
      await stalled.ended;
      expect(stalled.response.status).toBe(0);
      expect(stalled.request.customData.sprintFailure).toMatchObject({ timedOut: true, bytes: 4_000 });
      expect(stats.counters['sprint.timeouts']).toBe(1);
      expect(stats.segments.toArray().map((x) => x.status)).toEqual(['error']);
      // the fault cut one response only: the next request arrives whole
      const next = segmentRequest(`${base}/video.m4s`, 'video', 1);
      load(next);
      await next.ended;
      expect(next.response.status).toBe(206);
      expect(Buffer.from(next.response.data as ArrayBuffer).equals(fx.video.subarray(SEGMENT, 2 * SEGMENT))).toBe(true);
    });
  });

  // A response still arriving past the time limit, whose remaining bytes
  // would be in sooner than a new request could bring anything, gets to
  // finish (player/sprint/time-limit.ts); one that would take longer still
  // fails at the limit. The origin's pace decides which: 10 KB in 1.2 s or in
  // 5 s against a 0.5 s limit (the data plane checks twice a second, and a
  // new request is taken to need at least 1 s).
  it('lets a response still arriving finish past the time limit when it is nearly in', async () => {
    const origin = { rateLimitBitsPerSec: (SEGMENT * 8) / 1.2, rateLimitPieceBytes: 1024 };
    await withPlane({ origin }, async ({ base, stats, load }) => {
      const seg = segmentRequest(`${base}/video.m4s`, 'video', 0);
      seg.request.timeout = 500;
      load(seg);
      await seg.ended;
      expect(seg.response.status).toBe(206);
      expect(Buffer.from(seg.response.data as ArrayBuffer).equals(fx.video.subarray(0, SEGMENT))).toBe(true);
      expect(stats.counters['sprint.timeoutGrace']).toBe(1);
      expect(stats.counters['sprint.timeouts']).toBeUndefined();
      expect(stats.segments.toArray().map((x) => x.status)).toEqual(['ok']);
    });
  });

  it('still fails a response at the time limit when the rest of it would take longer than asking again', async () => {
    const origin = { rateLimitBitsPerSec: (SEGMENT * 8) / 5, rateLimitPieceBytes: 1024 };
    await withPlane({ origin }, async ({ stats, base, load }) => {
      const seg = segmentRequest(`${base}/video.m4s`, 'video', 0);
      seg.request.timeout = 500;
      load(seg);
      await seg.ended;
      expect(seg.response.status).toBe(0);
      const failure = seg.request.customData.sprintFailure as { timedOut: boolean; bytes: number };
      expect(failure.timedOut).toBe(true);
      expect(failure.bytes).toBeGreaterThan(0);
      expect(failure.bytes).toBeLessThan(SEGMENT);
      expect(stats.counters['sprint.timeouts']).toBe(1);
      expect(stats.counters['sprint.timeoutGrace']).toBeUndefined();
    });
  });

  // A response cut before any of its body arrived is sent again; one cut after
  // some body fails back to dash.js at once, so the segment rescue can ask for
  // it lower instead of copies of it taking the link.
  it.each([
    ['before any body', 'sent again and arrives whole', 0, 206, 1],
    ['after 4 KB of body', 'failed back at once with the bytes it got', 4_000, 0, undefined],
  ] as const)('a response cut %s is %s', async (_when, _what, resetAfterBytes, status, reissued) => {
    // (the fault spares the manifest, which the RTT probe reads)
    const origin = { resetAfterBytes, resetWith: 'fin' as const, faultPath: 'video.m4s', resetCount: 1 };
    await withPlane({ origin }, async ({ base, stats, load }) => {
      const seg = segmentRequest(`${base}/video.m4s`, 'video', 0);
      load(seg);
      await seg.ended;
      expect(seg.response.status).toBe(status);
      expect(stats.counters['sprint.reissued']).toBe(reissued);
      if (status === 206) {
        expect(Buffer.from(seg.response.data as ArrayBuffer).equals(fx.video.subarray(0, SEGMENT))).toBe(true);
      } else {
        expect(seg.request.customData.sprintFailure).toMatchObject({ timedOut: false, bytes: resetAfterBytes });
        expect(stats.segments.toArray().map((x) => x.status)).toEqual(['error']);
      }
    });
  });

  // A failed request goes back to dash.js only after the requests queued
  // behind it were aborted, latest first: dash.js then asks again from the
  // segment after the failed one (or from the failed one, when the segment
  // rescue reports it as aborted too), never past a segment nobody loads.
  it('aborts the requests behind a failed one, latest first, before failing it back', async () => {
    const origin = { resetAfterBytes: 4_000, resetWith: 'stall' as const, faultPath: 'video.m4s', resetCount: Number.POSITIVE_INFINITY };
    await withPlane({ origin }, async ({ base, stats, load }) => {
      const heard: string[] = [];
      // segment 0 from the file whose responses stall; 1 and 2 from one that answers
      const segments = [0, 1, 2].map((i) =>
        segmentRequest(`${base}/${i === 0 ? 'video.m4s' : 'sub/a.mp4'}`, 'video', 0, () => heard.push(`end ${i}`)),
      );
      segments[0]!.request.timeout = 1_000;
      segments.forEach((seg, i) => {
        seg.request.customData.request!.range = i === 0 ? '0-9999' : '0-99';
        seg.request.customData.onabort = () => heard.push(`abort ${i}`);
        load(seg);
      });
      await segments[0]!.ended;
      expect(heard).toEqual(['abort 2', 'abort 1', 'end 0']);
      expect(segments[0]!.response.status).toBe(0);
      expect(stats.counters['sprint.abortedBehindFailure']).toBe(2);
      expect(stats.segments.toArray().map((x) => x.status)).toEqual(['aborted', 'aborted', 'error']);
    });
  });

  // dash.js's HTTPLoader.abort walks its list of requests with forEach, and
  // each request's onabort takes it out of that list. Called at once, the
  // callback made the loop skip every other request: on the testbed those
  // loaded on after a MediaSource reset, unseen by dash.js, and their time
  // limits later aborted the new stream's init segments.
  it("aborts every request when dash.js's abort loop takes them out of its list as it goes", async () => {
    await withPlane({ origin: { latencyMs: 3000 } }, async ({ base, stats, load }) => {
      const heard: string[] = [];
      const segments = [0, 1, 2].map((i) => segmentRequest(`${base}/video.m4s`, 'video', i));
      const httpRequests = segments.map((seg) => seg.request);
      segments.forEach((seg, i) => {
        seg.request.customData.onabort = () => {
          heard.push(`abort ${i}`);
          httpRequests.splice(httpRequests.indexOf(seg.request), 1);
        };
        load(seg);
      });
      // HTTPLoader.abort(), as dash.js 5.2.1 has it
      httpRequests.forEach((req) => {
        req.customData.onloadend = req.customData.onprogress = undefined;
        (req.customData.abort as (() => void) | undefined)?.();
      });
      await new Promise((r) => setTimeout(r, 0));
      expect(heard).toEqual(['abort 0', 'abort 1', 'abort 2']);
      expect(stats.counters['sprint.abortedByDash']).toBe(3);
      expect(stats.segments.toArray().map((x) => x.status)).toEqual(['aborted', 'aborted', 'aborted']);
    });
  });

  // dash.js stops a stream (a MediaSource reset after a decode error, a
  // period's end) after aborting its requests; any it did not reach is
  // cancelled without a word back, the train ends, and the next request
  // (the new stream's) is not held behind them.
  it("drops the requests of a stream dash.js stopped, silently, and serves the next stream's at once", async () => {
    await withPlane({ origin: { latencyMs: 2000 } }, async ({ base, stats, load, emit }) => {
      const heard: string[] = [];
      const inStream = (seg: Segment, id: string): Segment => {
        (seg.request.customData.request!.representation as { mediaInfo?: unknown }).mediaInfo = { streamInfo: { id } };
        return seg;
      };
      const old = [0, 1].map((i) =>
        inStream(
          segmentRequest(`${base}/video.m4s`, 'video', i, () => heard.push(`end ${i}`)),
          'p0',
        ),
      );
      old.forEach((seg, i) => {
        seg.request.customData.onabort = () => heard.push(`abort ${i}`);
        load(seg);
      });
      emit('streamDeactivated', { streamInfo: { id: 'p0' } });
      expect(stats.counters['sprint.droppedAtStreamStop']).toBe(2);
      expect(stats.segments.toArray().map((x) => x.status)).toEqual(['aborted', 'aborted']);
      expect(stats.trains.toArray()[0]?.endMs).not.toBeNull();
      const next = inStream(segmentRequest(`${base}/video.m4s`, 'video', 2), 'p0');
      load(next);
      await next.ended;
      expect(next.response.status).toBe(206);
      expect(Buffer.from(next.response.data as ArrayBuffer).equals(fx.video.subarray(2 * SEGMENT, 3 * SEGMENT))).toBe(true);
      expect(heard).toEqual([]);
      expect(stats.trains.toArray()).toHaveLength(2);
    });
  });

  /** A one-connection transport that only records each request's response sink: the test scripts the arrivals. */
  function scriptedTransport(): { sinks: ResponseSink[]; scripted: TrainTransport } {
    const sinks: ResponseSink[] = [];
    const scripted: TrainTransport = {
      name: 'scripted',
      oneConnection: true,
      request: (_req, sink) => {
        sinks.push(sink);
        return { cancel: () => undefined };
      },
      close: () => undefined,
    };
    return { sinks, scripted };
  }

  // Audio on the train's connection is asked for in presentation order with
  // the video (src/train/audio-order.ts): the next video request waits while
  // the video asked for leads the audio asked for by a whole segment. A
  // video segment handed to dash.js is still asked for until its append is
  // reported: for those milliseconds it is neither in flight nor in the
  // buffer. On the testbed the ABR switched in that gap, and the next video
  // request went 12 ms after the segment arrived, ahead of audio's, and
  // audio's buffer ran out behind it. Here both buffers hold 6 s (the fake's
  // level); audio has nothing in flight; one video segment (4 s) is handed
  // over: video leads by that segment until the append.
  it('counts a video segment handed to dash.js as asked for until its append: the next video request waits for audio', async () => {
    const { sinks, scripted } = scriptedTransport();
    await withPlane({ transport: scripted, bufferSec: 6 }, async ({ base, load, emit, factories }) => {
      const c = fakeScheduleController(factories);
      const answer = async (seg: Segment, sink: ResponseSink, mediaType: string): Promise<void> => {
        const at = nowMs();
        sink.onHead(206, {}, at);
        sink.onData(new Uint8Array(SEGMENT), at + 1);
        sink.onEnd(at + 1);
        await seg.ended;
        if (mediaType === 'audio') emit('bytesAppendedEndFragment', { mediaType });
      };
      const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));
      const audio = segmentRequest(`${base}/video.m4s`, 'audio', 0);
      load(audio);
      await answer(audio, sinks[0] as ResponseSink, 'audio');
      const video = segmentRequest(`${base}/video.m4s`, 'video', 1);
      load(video);
      await settle();
      const beforeHandOver = c.calls.start;
      await answer(video, sinks[1] as ResponseSink, 'video');
      await settle();
      // Handed over, not yet appended: video leads audio by 4 s. Neither Sprint's own re-run of the
      // schedule loop nor dash.js's restart of it (after an ABR switch) may run it.
      c.instance.startScheduleTimer(0);
      expect(c.calls.start).toBe(beforeHandOver);
      // Appended (the fake's level stays 6 s): video no longer leads, the loop runs.
      emit('bytesAppendedEndFragment', { mediaType: 'video' });
      await settle();
      c.instance.startScheduleTimer(0);
      expect(c.calls.start).toBeGreaterThan(beforeHandOver);
    });
  });

  // The page reads a response's bytes when the browser hands them over, and
  // behind a deep queue it hands them over in bunches: two responses ending
  // milliseconds after a third, each with a bunch read in between, read as
  // Mbit/s on a link of tens of kbit/s (on the testbed: peaks of 151–327
  // Mbit/s on 3 Mbit/s, and a window of 22–27 requests). A sample spans two
  // round trips (two seconds at least) while responses are still arriving;
  // a short tail after one is dropped. Scripted arrival times, no network.
  it('takes no bandwidth sample from bytes read in a bunch between responses ending together', async () => {
    const { sinks, scripted } = scriptedTransport();
    await withPlane({ transport: scripted, ctx: { sprintAudio: 'own' } }, async ({ base, stats, load }) => {
      const segments = [0, 1, 2].map((i) => segmentRequest(`${base}/video.m4s`, 'video', i));
      segments.forEach(load);
      expect(sinks).toHaveLength(3);
      const t0 = nowMs() + 100;
      const piece = (n: number): Uint8Array => new Uint8Array(n);
      for (const sink of sinks) sink.onHead(206, {}, t0);
      // 0.1–2.5 s: all three arrive side by side (the first gets 100 KB, the others 10 KB each)
      for (let k = 0; k < 5; k++) {
        const at = t0 + 100 + k * 500;
        sinks[0]!.onData(piece(20_000), at);
        if (k < 1) {
          sinks[1]!.onData(piece(10_000), at);
          sinks[2]!.onData(piece(10_000), at);
        }
      }
      sinks[0]!.onEnd(t0 + 2500);
      // then the other two's remaining 90 KB each, read in a bunch 10 and 20 ms later
      sinks[1]!.onData(piece(90_000), t0 + 2510);
      sinks[1]!.onEnd(t0 + 2510);
      sinks[2]!.onData(piece(90_000), t0 + 2520);
      sinks[2]!.onEnd(t0 + 2520);
      // 300 KB over 2.5 s: 0.96 Mbit/s on the wire; read per response end, the bunches read 72 Mbit/s
      const bw = stats.estimates.bandwidthBitsPerSec;
      expect(bw).not.toBeNull();
      expect(bw as number).toBeLessThan(2e6);
      expect(stats.estimates.bandwidthSamples).toBe(1);
    });
  });

  // A response pipelined right behind another and handed over whole in one
  // read is no sample of its own (src/estimators/busy-period.ts): measured on
  // fetch over HTTP/2 behind a 1536 KB queue, a 64 KB segment read 1 ms after
  // the one before it read as 430 Mbit/s and lifted the estimate from 1.5 to
  // 20.3 Mbit/s. Scripted arrival times, no network.
  it('takes no bandwidth sample from a response read whole right behind the one before it', async () => {
    const { sinks, scripted } = scriptedTransport();
    await withPlane({ transport: scripted, ctx: { sprintAudio: 'own' } }, async ({ base, stats, load }) => {
      [0, 1, 2].map((i) => segmentRequest(`${base}/video.m4s`, 'video', i)).forEach(load);
      expect(sinks).toHaveLength(3);
      const t0 = nowMs() + 100;
      for (const sink of sinks) sink.onHead(206, {}, t0);
      // 0.1–2.5 s: the first response alone, 300 KB (0.96 Mbit/s on the wire)
      for (let k = 0; k < 5; k++) sinks[0]!.onData(new Uint8Array(60_000), t0 + 100 + k * 600);
      sinks[0]!.onEnd(t0 + 2500);
      // then the two behind it, 64 KB each, each read whole 1 ms after the one before
      sinks[1]!.onData(new Uint8Array(65_536), t0 + 2501);
      sinks[1]!.onEnd(t0 + 2501);
      sinks[2]!.onData(new Uint8Array(65_536), t0 + 2502);
      sinks[2]!.onEnd(t0 + 2502);
      const bw = stats.estimates.bandwidthBitsPerSec;
      expect(bw).not.toBeNull();
      expect(bw as number).toBeLessThan(2e6);
      expect(stats.estimates.bandwidthSamples).toBe(1);
    });
  });

  // The restart reserve samples the restart — its delivery curve from the
  // train's first request until the media delivered catches up with the time
  // elapsed — of a train after a pause only (src/train/restart-reserve.ts): not with the
  // run's first train (on the testbed it met a queue the bulk flow had not
  // filled yet and promised a restart 2.5–3 times faster than the first real
  // one), nor after an idle gap shorter than a retransmission timeout can be
  // (a second here: no RTT is measured, the probes go to a closed port).
  // Scripted arrivals on a clock the test moves: each segment is answered
  // whole `seconds` after its request.
  it('samples the restart of a train after a pause until its media catches up, not the first train nor one after a short gap', async () => {
    const { sinks, scripted } = scriptedTransport();
    let clock = nowMs();
    const now = jest.spyOn(performance, 'now').mockImplementation(() => clock - performance.timeOrigin);
    try {
      const ctx = { sprintAudio: 'own' as const, manifestUrl: 'http://127.0.0.1:1/closed.mpd' };
      await withPlane({ transport: scripted, ctx }, async ({ base, stats, load, emit }) => {
        let index = 0;
        /** A train of `n` 10 KB, 4 s segments (the context's 100 KB chunk in ten), one at a time, each answered in `seconds` (or the k-th's). */
        const train = async (n: number, seconds: number | number[]): Promise<void> => {
          for (let k = 0; k < n; k++) {
            const seg = segmentRequest(`${base}/video.m4s`, 'video', index++);
            load(seg);
            const sink = sinks[sinks.length - 1] as ResponseSink;
            sink.onHead(206, {}, clock);
            clock += (typeof seconds === 'number' ? seconds : (seconds[k] ?? 1)) * 1000;
            sink.onData(new Uint8Array(SEGMENT), clock);
            sink.onEnd(clock);
            await seg.ended;
            emit('bytesAppendedEndFragment', { mediaType: 'video' });
          }
        };
        const rate = (): number | null => stats.estimates.restartBitsPerSec ?? null;
        await train(10, 1); // the run's first train: 80 kbit/s, no sample
        expect(rate()).toBeNull();
        clock += 30_000; // a pause
        await train(10, 2); // its first segment at 40 kbit/s: the sample
        expect((rate() as number) / ((SEGMENT * 8) / 2)).toBeCloseTo(1, 6);
        clock += 200; // a gap under a second
        await train(10, 4); // 20 kbit/s, not a restart: no sample
        expect((rate() as number) / ((SEGMENT * 8) / 2)).toBeCloseTo(1, 6);
        clock += 30_000; // a pause
        await train(1, 8); // 10 kbit/s: the lowest sample now, while the restart goes on (4 s of media in 8 s)
        expect((rate() as number) / ((SEGMENT * 8) / 8)).toBeCloseTo(1, 6);
        expect(stats.trains.toArray().map((t) => t.requests)).toEqual([10, 10, 10, 1]);
        // The same train goes on: the second segment lands 8 s later (16 s in, with 4 s of media before
        // it: the draw-down), the next ones a second apart until the media (20 s at 19 s) catches up.
        await train(9, [8, 1, 1, 1, 1, 1, 1, 1, 1]);
        const records = stats.trains.toArray();
        expect(records.map((t) => t.requests)).toEqual([10, 10, 10, 10]);
        // Sampled: the two trains after a pause; the first segment's 2 s was the whole of the second train's.
        expect(records.map((t) => t.restartDrawDownSec)).toEqual([null, 2, null, 12]);
        expect((rate() as number) / ((SEGMENT * 8) / 8)).toBeCloseTo(1, 6);
      });
    } finally {
      now.mockRestore();
    }
  });
});
