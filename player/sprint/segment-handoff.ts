/**
 * How a Sprint train's request reaches dash.js once its turn comes (the
 * in-order release of sprint-data-plane.ts): a completed response is handed
 * over with the wire timing its bytes had (so dash.js's throughput estimate
 * stays true, player/dash/loader-hook.ts applies it), a failed one is failed
 * back to dash.js's retry, and either way the segment is recorded in stats.
 */
import { nowMs } from '../dataplane/clock';
import { answerLoad } from '../dash/loader-hook';
import { recordAnsweredSegment } from '../dataplane/segment-records';
import type { StatsRecorder } from '../stats/recorder';
import type { Entry } from './train-entry';

/** Hands a completed response to dash.js: the body, the status and headers, the wire timing its bytes had. */
export function deliverToDash(e: Entry, stats: StatsRecorder): void {
  const data = new Uint8Array(e.bytes);
  let at = 0;
  for (const p of e.pieces) {
    data.set(p, at);
    at += p.length;
  }
  e.pieces = [];
  const traces = e.traces.length >= 2 ? e.traces : [{ startMs: e.prevMs, durationMs: 0, bytes: 0 }, ...e.traces];
  e.record.segmentsServed = 1;
  recordEntrySegment(e, stats, e.status >= 200 && e.status <= 299 ? 'ok' : 'error');
  answerLoad(e.req, e.resp, {
    url: e.url,
    status: e.status,
    statusText: String(e.status),
    headers: e.headers,
    data: data.buffer as ArrayBuffer,
    bytes: e.bytes,
    wire: { startMs: traces[0]?.startMs ?? e.sentMs, firstByteMs: e.firstByteMs ?? e.sentMs, endMs: e.lastByteMs ?? nowMs(), traces },
  });
}

/** The segment dash.js asked for and what became of it (as stock records its own). */
export function recordEntrySegment(e: Entry, stats: StatsRecorder, status: 'ok' | 'error' | 'aborted'): void {
  recordAnsweredSegment(stats, e.req.customData.request, {
    kind: e.kind,
    mediaType: e.type,
    url: e.url,
    bandwidth: e.bitrate,
    bytes: e.bytes,
    requestMs: e.requestMs,
    firstByteMs: e.firstByteMs,
    endMs: e.lastByteMs ?? nowMs(),
    status,
    transferId: e.record.id,
  });
}

/**
 * Fails a request back to dash.js (no status: dash.js's own retry policy
 * takes over), with what the transfer got for the segment rescue.
 */
export function failToDash(e: Entry, stats: StatsRecorder): void {
  e.resp.url = e.url;
  e.resp.status = 0;
  e.resp.statusText = `sprint: ${e.error ?? 'request failed'}`;
  e.req.customData.sprintFailure = {
    timedOut: /time/i.test(e.error ?? ''),
    bytes: Math.max(e.bytes, e.failedBytes),
    startMs: e.sentMs || e.requestMs,
    firstByteMs: e.firstByteMs,
  };
  recordEntrySegment(e, stats, 'error');
  e.req.customData.onloadend?.();
}
