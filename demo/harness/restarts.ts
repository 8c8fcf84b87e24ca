// Sprint's restarts in a player's log (player-<port>.jsonl of a sprint ab
// run), for `sprint restarts`: each video train after the first, the pause
// before it, the buffer it resumed with and the restart reserve then
// (src/train/restart-reserve.ts, paper §IV-B1's paused regime), how its
// video arrived — the first segment's time, the draw-down (the largest of
// each segment's arrival less the media that arrived before it) and when
// the media delivered caught up with the time elapsed — and the stalls
// while it ran, each put on the buffer that ran out (from the player's
// polls). The draw-down is the train's own record where the player wrote
// one (`restartDrawDownSec`); older logs have none, and it is recomputed
// from the segment records with the same rule (RestartRun), each media
// segment taken as `segmentSec` long (the logs do not carry durations).
// With the origin's access log beside it, each train also says whether it
// began on a new connection (the previous train's went away during the
// pause: an idle limit at the browser's side or the server's), which a
// restart pays with a handshake and a slow start that has no threshold yet.
// Reads records only: no I/O here.

import { restartIdleSec, RestartRun } from '../../src/train/restart-reserve';
import { num } from '../testbed/jsonl';
import { fileOf } from './media-split';
import { bareRange, latestTrainRecords, wireRequestOf } from './wire-log';

/** Which buffer ran out at a stall: one that held 0.3 s or more less than the other, or both. */
export type StallBuffer = 'video' | 'audio' | 'both';

/** A buffer this much below the other ran out first. */
export const STALL_BUFFER_MARGIN_SEC = 0.3;

export interface RestartStall {
  /** Seconds after the train began (the poll that first counted it). */
  readonly atSec: number;
  readonly buffer: StallBuffer;
  /** Video and audio buffered at the poll before it, seconds. */
  readonly videoBufferSec: number;
  readonly audioBufferSec: number;
}

export interface RestartRow {
  readonly train: number;
  /** When the train began, ms on the player's clock. */
  readonly startMs: number;
  /** From the previous train's end to this one's start, seconds. */
  readonly pauseSec: number;
  /** The pause was long enough for the server to restart the connection (restartIdleSec at the train's RTT). */
  readonly restart: boolean;
  /** Nominal bitrate of the train's first video media segment, bit/s (null: none). */
  readonly bitrate: number | null;
  readonly resumeBufferSec: number | null;
  readonly reserveSec: number | null;
  /** From the train's start to its first video media segment's last byte, seconds (null: none arrived). */
  readonly firstSegmentSec: number | null;
  /** The draw-down, seconds (null: no video media arrived). */
  readonly drawDownSec: number | null;
  /** Where the draw-down comes from: the train's record, or recomputed from the segments. */
  readonly drawDownFrom: 'record' | 'segments' | null;
  /** When the media delivered caught up with the time elapsed, seconds after the start (null: not within the train). */
  readonly caughtUpSec: number | null;
  /**
   * The train's first video segment came on another origin connection than
   * the previous train's last one (null: no origin log, or a segment not
   * found in it).
   */
  readonly newConnection: boolean | null;
  /** Stalls between this train's start and the next one's. */
  readonly stalls: readonly RestartStall[];
}

interface Train {
  readonly id: number;
  readonly startMs: number;
  readonly endMs: number | null;
  readonly rttSec: number | null;
  readonly resumeBufferSec: number | null;
  readonly reserveSec: number | null;
  readonly drawDownSec: number | null;
}

interface Segment {
  /** File name and byte range: the key of its origin log line (servingConnections). */
  readonly key: string | null;
  readonly requestMs: number;
  readonly endMs: number;
  readonly bytes: number;
  readonly bandwidth: number | null;
  readonly ok: boolean;
}

interface Poll {
  readonly ms: number;
  readonly rebuffers: number;
  readonly videoBufferSec: number;
  readonly audioBufferSec: number;
}

type Row = Record<string, unknown>;

const obj = (v: unknown): Row | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Row) : null);

function trainsOf(rows: readonly Row[]): Train[] {
  const out: Train[] = [];
  for (const r of latestTrainRecords(rows)) {
    const startMs = num(r['startMs']);
    if (r['mediaType'] !== 'video' || startMs === null) continue;
    out.push({
      id: num(r['id']) as number,
      startMs,
      endMs: num(r['endMs']),
      rttSec: num(r['rttEstimateSec']),
      resumeBufferSec: num(r['resumeBufferSec']),
      reserveSec: num(r['restartReserveSec']),
      drawDownSec: num(r['restartDrawDownSec']),
    });
  }
  return out.sort((a, b) => a.startMs - b.startMs);
}

function videoSegmentsOf(rows: readonly Row[]): Segment[] {
  const out: Segment[] = [];
  for (const r of rows) {
    if (r['kind'] !== 'segment' || r['mediaType'] !== 'video' || r['segmentKind'] !== 'media') continue;
    const requestMs = num(r['requestMs']);
    const endMs = num(r['endMs']);
    if (requestMs === null || endMs === null) continue;
    const url = typeof r['url'] === 'string' ? r['url'] : null;
    const range = typeof r['range'] === 'string' ? r['range'] : null;
    out.push({
      key: url !== null && range !== null ? segmentKey(url, range) : null,
      requestMs,
      endMs,
      bytes: num(r['bytes']) ?? 0,
      bandwidth: num(r['bandwidth']),
      ok: r['status'] === 'ok',
    });
  }
  return out.sort((a, b) => a.requestMs - b.requestMs);
}

function pollsOf(rows: readonly Row[]): Poll[] {
  const out: Poll[] = [];
  for (const r of rows) {
    if (r['kind'] !== 'poll' || r['ready'] !== true) continue;
    const t = num(r['t']);
    const p = obj(r['playback']);
    const rebuffers = num(p?.['rebufferCount']);
    if (t === null || p === null || rebuffers === null) continue;
    out.push({ ms: t * 1000, rebuffers, videoBufferSec: num(p['videoBufferSec']) ?? 0, audioBufferSec: num(p['audioBufferSec']) ?? 0 });
  }
  return out.sort((a, b) => a.ms - b.ms);
}

const segmentKey = (url: string, range: string): string => `${fileOf(url)} ${bareRange(range)}`;

/**
 * The origin connection that served each media range in an origin access
 * log (origin-<port>.log), keyed by file name and byte range; where a range
 * was served more than once (a request re-issued), the last whole response.
 */
export function servingConnections(originRows: readonly Row[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of originRows) {
    const w = wireRequestOf(r);
    if (w === null || w.range === null || w.error !== null) continue;
    out.set(segmentKey(w.url, w.range), w.conn);
  }
  return out;
}

/** The buffer that ran out: the one `STALL_BUFFER_MARGIN_SEC` or more below the other at the poll before, else both. */
export function stallBuffer(videoBufferSec: number, audioBufferSec: number): StallBuffer {
  if (videoBufferSec < audioBufferSec - STALL_BUFFER_MARGIN_SEC) return 'video';
  if (audioBufferSec < videoBufferSec - STALL_BUFFER_MARGIN_SEC) return 'audio';
  return 'both';
}

/** Every stall the polls count, at the poll that first counts it, with the buffers of the poll before. */
function stallsOf(polls: readonly Poll[]): Array<{ ms: number; buffer: StallBuffer; video: number; audio: number }> {
  const out: Array<{ ms: number; buffer: StallBuffer; video: number; audio: number }> = [];
  for (let i = 1; i < polls.length; i++) {
    const a = polls[i - 1] as Poll;
    const b = polls[i] as Poll;
    for (let n = 0; n < b.rebuffers - a.rebuffers; n++)
      out.push({ ms: b.ms, buffer: stallBuffer(a.videoBufferSec, a.audioBufferSec), video: a.videoBufferSec, audio: a.audioBufferSec });
  }
  return out;
}

/**
 * The restart curve of `segments` (a train's video media segments, in
 * request order) from `startMs`: the draw-down and when the media caught up.
 */
function curveOf(
  segments: readonly Segment[],
  startMs: number,
  segmentSec: number,
): { drawDownSec: number | null; caughtUpSec: number | null } {
  const run = new RestartRun(startMs);
  for (const s of segments) if (run.arrived(s.endMs, s.bytes, s.ok ? segmentSec : 0)) break;
  return { drawDownSec: run.points.length > 0 ? run.drawDownSec : null, caughtUpSec: run.caughtUpSec };
}

/**
 * One row per video train after the run's first: the pause before it, its
 * resume, how its video arrived, and the stalls until the next train began.
 * `segmentSec` is each media segment's duration for recomputing the
 * draw-down where the train's record has none.
 */
export function restartRows(rows: readonly Row[], segmentSec: number, connections?: ReadonlyMap<string, number>): RestartRow[] {
  const trains = trainsOf(rows);
  const segments = videoSegmentsOf(rows);
  const connOf = (seg: Segment | undefined): number | null =>
    seg === undefined || seg.key === null || connections === undefined ? null : (connections.get(seg.key) ?? null);
  const stalls = stallsOf(pollsOf(rows));
  const out: RestartRow[] = [];
  for (let i = 1; i < trains.length; i++) {
    const t = trains[i] as Train;
    const prev = trains[i - 1] as Train;
    const nextStartMs = trains[i + 1]?.startMs ?? Infinity;
    const pauseSec = Math.max(0, (t.startMs - (prev.endMs ?? t.startMs)) / 1000);
    const mine = segments.filter(
      (s) => s.requestMs >= t.startMs && s.requestMs < nextStartMs && (t.endMs === null || s.requestMs <= t.endMs),
    );
    const first = mine[0];
    const curve = curveOf(mine, t.startMs, segmentSec);
    const firstConn = connOf(first);
    const before = segments.filter((s) => s.requestMs < t.startMs);
    const prevConn = connOf(before[before.length - 1]);
    const drawDownFrom = t.drawDownSec !== null ? 'record' : curve.drawDownSec !== null ? 'segments' : null;
    out.push({
      train: t.id,
      startMs: t.startMs,
      pauseSec,
      restart: pauseSec >= restartIdleSec(t.rttSec),
      bitrate: first?.bandwidth ?? null,
      resumeBufferSec: t.resumeBufferSec,
      reserveSec: t.reserveSec,
      firstSegmentSec: first ? (first.endMs - t.startMs) / 1000 : null,
      drawDownSec: t.drawDownSec ?? curve.drawDownSec,
      drawDownFrom,
      caughtUpSec: curve.caughtUpSec,
      newConnection: firstConn === null || prevConn === null ? null : firstConn !== prevConn,
      stalls: stalls
        .filter((s) => s.ms >= t.startMs && s.ms < nextStartMs)
        .map((s) => ({ atSec: (s.ms - t.startMs) / 1000, buffer: s.buffer, videoBufferSec: s.video, audioBufferSec: s.audio })),
    });
  }
  return out;
}

/** Stalls anywhere in the log (the polls' count), for the share the restarts hold. */
export function stallCount(rows: readonly Row[]): number {
  return stallsOf(pollsOf(rows)).length;
}
