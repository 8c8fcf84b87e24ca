// Unit tests of the segment rescue (player/abr/rescue.ts): which rung a
// failed segment is asked again at, which failures it takes from dash.js's
// same-rung retries (a timeout, a cut after partial bytes) and which it
// leaves alone (an HTTP error status, the lowest rung, a second failure
// while one is pending), and what it records for stats().rescues.

import { failedIndexOf, rescueRung, SegmentRescue, RESCUE_TIME_SHARE } from '../../../player/abr/rescue';
import type { LoaderRequest, LoaderResponse } from '../../../player/dash/loader-types';
import { StatsRecorder } from '../../../player/stats/recorder';

const LADDER = [0.4e6, 0.7e6, 1.5e6, 3e6, 6e6];
const REPS = LADDER.map((bandwidth, i) => ({ id: `rep-${i}`, bandwidth }));

describe('rescueRung', () => {
  const base = { segmentSec: 4, bufferSec: 0, timeoutSec: 20 };

  it('takes the highest rung below the failed one whose segment fits the time the player has', () => {
    // 2 Mbit/s measured, stalled: budget 0.8 × 4 s = 3.2 s; 1.5 Mbit/s × 4 s / 2 Mbit/s = 3 s fits, 3 Mbit/s (6 s) does not.
    expect(rescueRung(LADDER, 4, { ...base, measuredBitsPerSec: 2e6 })).toBe(2);
    // With 10 s buffered: budget 8 s; 3 Mbit/s (6 s) fits.
    expect(rescueRung(LADDER, 4, { ...base, bufferSec: 10, measuredBitsPerSec: 2e6 })).toBe(3);
  });

  it('never more than the request timeout, and always at least one rung down', () => {
    // 60 s buffered but a 5 s timeout: budget 4 s; 3 Mbit/s would take 6 s.
    expect(rescueRung(LADDER, 4, { ...base, bufferSec: 60, timeoutSec: 5, measuredBitsPerSec: 2e6 })).toBe(2);
    // A fast link: the top rung would fit, but it is the one that failed.
    expect(rescueRung(LADDER, 4, { ...base, bufferSec: 30, measuredBitsPerSec: 100e6 })).toBe(3);
    expect(rescueRung(LADDER, 1, { ...base, bufferSec: 30, measuredBitsPerSec: 100e6 })).toBe(0);
  });

  it('takes the lowest rung when nothing fits or nothing was measured', () => {
    expect(rescueRung(LADDER, 4, { ...base, measuredBitsPerSec: 0.1e6 })).toBe(0);
    expect(rescueRung(LADDER, 4, { ...base, measuredBitsPerSec: null })).toBe(0);
    expect(rescueRung(LADDER, 0, { ...base, measuredBitsPerSec: 10e6 })).toBe(0);
  });

  it('uses the stated share of the time', () => {
    expect(RESCUE_TIME_SHARE).toBeGreaterThan(0);
    expect(RESCUE_TIME_SHARE).toBeLessThanOrEqual(1);
  });
});

describe('failedIndexOf', () => {
  it('finds the failed rung by id, else by bitrate', () => {
    expect(failedIndexOf(REPS, { fromRepresentationId: 'rep-3', fromBandwidth: 1 })).toBe(3);
    expect(failedIndexOf(REPS, { fromRepresentationId: 'gone', fromBandwidth: 1.5e6 })).toBe(2);
    expect(failedIndexOf(REPS, { fromRepresentationId: null, fromBandwidth: 9e6 })).toBe(5);
  });
});

/** A dash.js load as HTTPLoader hands it to the XHRLoader, with callbacks that count what dash.js would see. */
function fakeLoad(rep = REPS[4]!, mediaType = 'video', type = 'MediaSegment') {
  const seen = { loadend: 0, abort: 0, progress: 0 };
  const request: LoaderRequest = {
    url: 'http://x/media/rep-4.mp4',
    method: 'GET',
    customData: {
      request: { type, mediaType, url: 'http://x/media/rep-4.mp4', range: '3120469-6189637', index: 7, duration: 4, representation: rep },
      onloadend: () => void seen.loadend++,
      onprogress: () => void seen.progress++,
      onabort: () => void seen.abort++,
      ontimeout: () => undefined,
    },
  };
  const response: LoaderResponse = {};
  return { request, response, seen };
}

function rescuer(lower = true) {
  const stats = new StatsRecorder('stock');
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const aborted: object[] = [];
  const rescue = new SegmentRescue(
    stats,
    log,
    () => lower,
    () => 20,
    (r) => void aborted.push(r),
  );
  return { stats, rescue, aborted };
}

describe('SegmentRescue', () => {
  it('turns a timeout after partial bytes into an abort dash.js asks again for, and records it', () => {
    const { stats, rescue, aborted } = rescuer();
    const { request, response, seen } = fakeLoad();
    rescue.watch(request, response);
    request.customData.onprogress?.({ loaded: 1_000_000, total: 3_069_169, lengthComputable: true });
    request.customData.onprogress?.({ loaded: 2_300_000, total: 3_069_169, lengthComputable: true });
    request.customData.ontimeout?.({});
    request.customData.onloadend?.();
    expect(seen).toEqual({ loadend: 0, abort: 1, progress: 2 });
    // dash.js's own abort of the request (its FragmentModel) came with it.
    expect(aborted).toEqual([request.customData.request]);
    const [r] = stats.rescues.toArray();
    expect(r).toMatchObject({
      mediaType: 'video',
      reason: 'timed out after 2300000 bytes',
      fromRepresentationId: 'rep-4',
      fromBandwidth: 6e6,
      index: 7,
      segmentSec: 4,
      bytesLoaded: 2_300_000,
      toRepresentationId: null,
    });
    expect(stats.counters['rescues']).toBe(1);
    // The ABR's next decision for video is the rescue's, once.
    const to = rescue.decide('video', REPS, 0);
    expect(to).not.toBeNull();
    expect(to!.bandwidth).toBeLessThan(6e6);
    expect(r!.toRepresentationId).toBe(to!.id);
    expect(r!.bufferSec).toBe(0);
    expect(rescue.decide('video', REPS, 0)).toBeNull();
  });

  it('turns a connection cut after partial bytes (no status) into an abort', () => {
    const { rescue, stats } = rescuer();
    const { request, response, seen } = fakeLoad();
    rescue.watch(request, response);
    request.customData.onprogress?.({ loaded: 400, total: 3_069_169, lengthComputable: true });
    request.customData.onloadend?.();
    expect(seen.abort).toBe(1);
    expect(stats.rescues.toArray()[0]!.reason).toBe('cut after 400 bytes');
  });

  it("reads what a Sprint data plane's own transfer got when it fails a load back (no progress events)", () => {
    const { rescue, stats } = rescuer();
    const { request, response, seen } = fakeLoad();
    rescue.watch(request, response);
    response.status = 0;
    request.customData.sprintFailure = { timedOut: false, bytes: 196_608, startMs: 1000, firstByteMs: 1100 };
    request.customData.onloadend?.();
    expect(seen.abort).toBe(1);
    const r = stats.rescues.toArray()[0]!;
    expect(r.reason).toBe('cut after 196608 bytes');
    expect(r.requestMs).toBe(1000);
    expect(r.measuredBitsPerSec).not.toBeNull();
  });

  it('leaves a success, an HTTP error status and a failure with no bytes and no timeout to dash.js', () => {
    const { rescue, stats } = rescuer();
    for (const [status, data, loaded] of [
      [200, new ArrayBuffer(8), 8],
      [503, undefined, 100],
      [undefined, undefined, 0],
    ] as const) {
      const { request, response, seen } = fakeLoad();
      rescue.watch(request, response);
      if (loaded > 0) request.customData.onprogress?.({ loaded, total: loaded, lengthComputable: true });
      if (status !== undefined) response.status = status;
      if (data) response.data = data;
      request.customData.onloadend?.();
      expect(seen.loadend).toBe(1);
      expect(seen.abort).toBe(0);
    }
    expect(stats.rescues.length).toBe(0);
  });

  it('leaves a failure at the lowest rung, audio, init segments, a segment with no index, and a second failure while one is pending to dash.js', () => {
    const fail = (r: SegmentRescue, load = fakeLoad()) => {
      r.watch(load.request, load.response);
      load.request.customData.ontimeout?.({});
      load.request.customData.onloadend?.();
      return load.seen;
    };
    expect(fail(rescuer(false).rescue).abort).toBe(0);
    expect(fail(rescuer().rescue, fakeLoad(REPS[4], 'audio')).abort).toBe(0);
    expect(fail(rescuer().rescue, fakeLoad(REPS[4], 'video', 'InitializationSegment')).abort).toBe(0);
    // dash.js moves its next request to a failed segment's index: with none (NaN), nothing could ask for it again
    const noIndex = fakeLoad();
    noIndex.request.customData.request!.index = NaN;
    expect(fail(rescuer().rescue, noIndex)).toMatchObject({ abort: 0, loadend: 1 });
    const { rescue } = rescuer();
    expect(fail(rescue).abort).toBe(1);
    expect(fail(rescue).loadend).toBe(1);
    rescue.decide('video', REPS, 4);
    expect(fail(rescue).abort).toBe(1);
  });
});
