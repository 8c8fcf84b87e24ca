// What one origin's access log says a player did on the wire (paper §IV-B):
// its media requests grouped, per connection, into *bursts* — runs of
// requests in which each one arrived before the response ahead of it on that
// connection had ended, so the server never waited for a request. A Sprint
// train (§IV-B1) is one burst of many pipelined requests; a Sprint-x expanded
// range request (§IV-B2) and a stock segment request are bursts of one.
// Each burst can be set beside what the player meant to do: the model's
// target of the train (player log `train` records) or of the expanded
// request (`transfer` records' targetChunkBytes). Pure: parsed lines in,
// bursts out; wire-log-cli.ts reads the files.
//
// Our origin logs each request's arrival, response start and end (epoch ms).
// nginx (nginx-origin.ts) logs only the end (epoch s) and its request time,
// which starts when nginx begins that request, not when it arrived: for its
// lines a burst continues while the next response starts within `gapMs` of
// the previous one's end, and pipelining cannot be seen.

import { fileOf } from './media-split';
import { num } from '../testbed/jsonl';

/** One logged request, in epoch milliseconds. */
export interface WireRequest {
  readonly conn: number;
  readonly url: string;
  readonly range: string | null;
  readonly status: number | null;
  readonly bytes: number;
  /** When the request had arrived; null when the log does not say (nginx). */
  readonly arrivalMs: number | null;
  /** When the response started (nginx: end minus request time). */
  readonly startMs: number;
  readonly endMs: number;
  /** Null when the response went out whole; otherwise why not. */
  readonly error: string | null;
}

/** A run of back-to-back media requests on one connection. */
export interface Burst {
  readonly conn: number;
  readonly requests: number;
  /** Requests that arrived before the previous response on the connection ended. */
  readonly pipelined: number;
  readonly bytes: number;
  readonly fromMs: number;
  readonly toMs: number;
  /** Distinct file names, in first-seen order (the representations a train spanned). */
  readonly files: readonly string[];
  /** Requests whose response did not go out whole. */
  readonly incomplete: number;
  /** Whether arrival times were logged (false: nginx, grouped by response gaps). */
  readonly arrivalsKnown: boolean;
  /** The first request's Range header (a Sprint-x expanded request's span), or null. */
  readonly firstRange: string | null;
  /** Bytes the requests' ranges asked for (null unless every request had one closed range "a-b"). */
  readonly requestedBytes: number | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * One access-log line (our origin's or nginx-origin.ts's JSON) as a request;
 * null for lines that are not such records or that name no request.
 */
export function parseWireLine(line: string): WireRequest | null {
  try {
    const v: unknown = JSON.parse(line);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
    return wireRequestOf(v as Record<string, unknown>);
  } catch {
    return null;
  }
}

/** One parsed access-log record as a request; null for records that name no request. */
export function wireRequestOf(r: Record<string, unknown>): WireRequest | null {
  const conn = num(r['conn']);
  const url = str(r['url']);
  const bytes = num(r['bytes']);
  const end = num(r['end']);
  if (conn === null || url === null || bytes === null || end === null) return null;
  const range = str(r['range']);
  const status = num(r['status']);
  if (r['server'] === 'nginx') {
    const endMs = end * 1000;
    const tookMs = (num(r['requestTimeS']) ?? 0) * 1000;
    return { conn, url, range, status, bytes, arrivalMs: null, startMs: endMs - tookMs, endMs, error: null };
  }
  const arrival = num(r['arrival']);
  const start = num(r['start']) ?? arrival ?? end;
  const error = typeof r['error'] === 'string' ? r['error'] : r['complete'] === false ? 'incomplete' : null;
  return { conn, url, range, status, bytes, arrivalMs: arrival, startMs: start, endMs: end, error };
}

/** Media files by extension: what a DASH player fetches as segments. */
export function isMediaUrl(url: string): boolean {
  return /\.(mp4|m4s|m4a|m4v|webm|cmfv|cmfa)$/i.test(fileOf(url));
}

/** Bytes a closed single range "bytes=a-b" asks for; null for anything else. */
export function rangeBytes(range: string | null): number | null {
  const m = range === null ? null : /^(\d+)-(\d+)$/.exec(bareRange(range));
  if (!m) return null;
  const n = Number(m[2]) - Number(m[1]) + 1;
  return n > 0 ? n : null;
}

function requestedBytes(requests: readonly WireRequest[]): number | null {
  let total = 0;
  for (const r of requests) {
    const n = rangeBytes(r.range);
    if (n === null) return null;
    total += n;
  }
  return total;
}

/**
 * A player's RTT probe (player/estimates/rtt-prober.ts): a one-byte range
 * (`bytes=0-0`) of a media file, or the origin's /probe. Not media.
 */
export function isProbe(r: Pick<WireRequest, 'url' | 'range'>): boolean {
  return (r.range !== null && bareRange(r.range) === '0-0') || r.url.split('?')[0] === '/probe';
}

/**
 * Groups `requests` (any order) into bursts per connection, in time order.
 * RTT probes are left out.
 * A request continues the burst of the previous media request on its
 * connection if it arrived before that response ended (or, without arrival
 * times, started within `gapMs` of its end).
 */
export function bursts(requests: readonly WireRequest[], isMedia: (url: string) => boolean = isMediaUrl, gapMs = 5): Burst[] {
  const byConn = new Map<number, WireRequest[]>();
  for (const r of requests) {
    if (!isMedia(r.url) || isProbe(r)) continue;
    const list = byConn.get(r.conn) ?? [];
    list.push(r);
    byConn.set(r.conn, list);
  }
  const out: Burst[] = [];
  for (const [conn, list] of byConn) {
    list.sort((a, b) => a.startMs - b.startMs);
    let cur: WireRequest[] = [];
    let pipelined = 0;
    const flush = (): void => {
      if (cur.length === 0) return;
      const files: string[] = [];
      for (const r of cur) if (!files.includes(fileOf(r.url))) files.push(fileOf(r.url));
      out.push({
        conn,
        requests: cur.length,
        pipelined,
        bytes: cur.reduce((s, r) => s + r.bytes, 0),
        fromMs: cur[0]?.startMs ?? 0,
        toMs: Math.max(...cur.map((r) => r.endMs)),
        files,
        incomplete: cur.filter((r) => r.error !== null).length,
        arrivalsKnown: cur.every((r) => r.arrivalMs !== null),
        firstRange: cur[0]?.range ?? null,
        requestedBytes: requestedBytes(cur),
      });
      cur = [];
      pipelined = 0;
    };
    for (const r of list) {
      const prev = cur[cur.length - 1];
      const continues = prev !== undefined && (r.arrivalMs !== null ? r.arrivalMs < prev.endMs : r.startMs - prev.endMs <= gapMs);
      if (!continues) flush();
      else if (r.arrivalMs !== null) pipelined += 1;
      cur.push(r);
    }
    flush();
  }
  return out.sort((a, b) => a.fromMs - b.fromMs);
}

/** What the player meant a burst to be, from its own log. */
export interface PlannedTransfer {
  /** The model's target in bytes: a train's target, an expanded request's chunk size. */
  readonly targetBytes: number;
  /** A train's first target (before it was re-sized from fresher estimates); else the same. */
  readonly initialTargetBytes: number;
  readonly fromMs: number;
  /** Null for a train still open when the log ended. */
  readonly toMs: number | null;
  readonly label: string;
  /** An expanded request's file and byte range ("a-b"): it matches the one request that carried it. */
  readonly request: { readonly file: string; readonly range: string } | null;
  /** A train's video buffer when it began, seconds (null: not logged, or not a train). */
  readonly resumeBufferSec?: number | null;
  /** The restart reserve when a train began, seconds (src/train/restart-reserve.ts; null: not logged). */
  readonly restartReserveSec?: number | null;
}

/**
 * The model's targets from a player log's lines (`sprint ab` writes
 * player-<port>.jsonl): Sprint's trains and Sprint-x's expanded requests.
 */
export function plannedTransfers(lines: readonly Record<string, unknown>[]): PlannedTransfer[] {
  const out: PlannedTransfer[] = [];
  for (const l of lines) {
    if (l['kind'] === 'transfer' && l['via'] === 'sprint-x') {
      const target = num(l['targetChunkBytes']);
      const from = num(l['startMs']);
      if (target === null || from === null) continue;
      const url = str(l['url']);
      const range = str(l['range']);
      out.push({
        targetBytes: target,
        initialTargetBytes: target,
        fromMs: from,
        toMs: num(l['endMs']),
        label: `sprint-x #${String(l['id'])}`,
        request: url !== null && range !== null ? { file: fileOf(url), range: bareRange(range) } : null,
      });
    }
  }
  for (const t of latestTrainRecords(lines)) {
    const id = num(t['id']) as number;
    const target = num(t['targetBytes']);
    const from = num(t['startMs']);
    if (target === null || from === null) continue;
    out.push({
      targetBytes: target,
      initialTargetBytes: num(t['initialTargetBytes']) ?? target,
      fromMs: from,
      toMs: num(t['endMs']),
      label: `train #${id}`,
      request: null,
      resumeBufferSec: num(t['resumeBufferSec']),
      restartReserveSec: num(t['restartReserveSec']),
    });
  }
  return out.sort((a, b) => a.fromMs - b.fromMs);
}

/**
 * A player log's train records (not audio's), the last of each id: a train
 * is logged again each time it changes, and once more if still open at the
 * end. In the order each id first appeared.
 */
export function latestTrainRecords(lines: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const trains = new Map<number, Record<string, unknown>>();
  for (const l of lines)
    if (l['kind'] === 'train' && num(l['id']) !== null && l['mediaType'] !== 'audio') trains.set(num(l['id']) as number, l);
  return [...trains.values()];
}

/** "bytes=a-b" or "a-b" → "a-b". */
export function bareRange(range: string): string {
  return range.replace(/^\s*bytes\s*=\s*/i, '').trim();
}

/** File name → media type, from a player log's `segment` records. */
export function mediaTypesOf(lines: readonly Record<string, unknown>[]): Map<string, string> {
  const types = new Map<string, string>();
  for (const l of lines) {
    const url = str(l['url']);
    const type = str(l['mediaType']);
    if (l['kind'] === 'segment' && url !== null && type !== null) types.set(fileOf(url), type);
  }
  return types;
}

/**
 * What the player planned for burst `b`: the expanded request whose file and
 * range it carried, else the train that overlaps it the longest in time (an
 * open train lasts until `openUntilMs`; client and origin share a clock in
 * the testbed and on loopback); null if neither. Trains are video: give
 * `type` (the burst's media type, when known) so audio bursts match none.
 */
export function matchPlanned(
  b: Burst,
  planned: readonly PlannedTransfer[],
  openUntilMs: number,
  type: string | null = null,
): PlannedTransfer | null {
  if (b.requests === 1 && b.firstRange !== null) {
    const range = bareRange(b.firstRange);
    const exact = planned.find((p) => p.request !== null && p.request.range === range && b.files[0] === p.request.file);
    if (exact) return exact;
  }
  if (type !== null && type !== 'video') return null;
  let best: PlannedTransfer | null = null;
  let bestOverlap = 0;
  for (const p of planned) {
    if (p.request !== null) continue;
    const overlap = Math.min(b.toMs, p.toMs ?? openUntilMs) - Math.max(b.fromMs, p.fromMs);
    if (overlap > bestOverlap) {
      best = p;
      bestOverlap = overlap;
    }
  }
  return best;
}

/** One of the player's own transfers (player log `transfer` records), on the player's clock. */
export interface PlayerTransfer {
  readonly via: string;
  /** From the player's `segment` records that name the transfer; null when none does. */
  readonly mediaType: string | null;
  /** When the player issued the request. */
  readonly startMs: number;
  /** When its last byte arrived (or it was cancelled or failed); null if the log ended first. */
  readonly endMs: number | null;
}

/** The player's transfers from its log's lines (the last record of each id wins). */
export function playerTransfers(lines: readonly Record<string, unknown>[]): PlayerTransfer[] {
  const typeOf = new Map<number, string>();
  const byId = new Map<number, Record<string, unknown>>();
  for (const l of lines) {
    const id = num(l['kind'] === 'segment' ? l['transferId'] : l['id']);
    if (id === null) continue;
    const type = str(l['mediaType']);
    if (l['kind'] === 'segment' && type !== null) typeOf.set(id, type);
    if (l['kind'] === 'transfer') byId.set(id, l);
  }
  const out: PlayerTransfer[] = [];
  for (const [id, t] of byId) {
    const startMs = num(t['startMs']);
    if (startMs === null) continue;
    out.push({ via: str(t['via']) ?? '?', mediaType: typeOf.get(id) ?? null, startMs, endMs: num(t['endMs']) });
  }
  return out.sort((a, b) => a.startMs - b.startMs);
}

/**
 * Of transfers in issue order, those after the first that the player issued
 * while an earlier one was still arriving: its outstanding window had not
 * dropped to zero. The player's side of pipelining (§IV-B1), which socket
 * buffers cannot hide: the origin counts a response as ended when its last
 * byte went to the kernel, while the bytes may still be on the link.
 */
export function issuedWhileArriving(transfers: readonly Pick<PlayerTransfer, 'startMs' | 'endMs'>[]): number {
  const sorted = [...transfers].sort((a, b) => a.startMs - b.startMs);
  let arrivingUntil = -Infinity;
  let count = 0;
  sorted.forEach((t, i) => {
    if (i > 0 && t.startMs < arrivingUntil) count += 1;
    arrivingUntil = Math.max(arrivingUntil, t.endMs ?? Infinity);
  });
  return count;
}

/** One Sprint train as the origin saw it: the video requests that arrived while it ran. */
export interface TrainOnWire {
  readonly train: PlannedTransfer;
  /** Connections that carried them (one, unless a connection was lost mid-train). */
  readonly conns: readonly number[];
  readonly requests: number;
  readonly bytes: number;
  /**
   * Requests after the train's first that arrived before the response ahead
   * of them ended: the previous media request (video or the audio the train
   * carried) in arrival order on the train's connections (on one pipelined
   * connection: the previous response on it; with a train spread over
   * parallel connections, fetch on HTTP/1.1: the previous on any of them).
   */
  readonly pipelined: number;
  /** Whether the log had arrival times (false: nginx, and `pipelined` is 0). */
  readonly arrivalsKnown: boolean;
  readonly fromMs: number | null;
  readonly toMs: number | null;
  /**
   * Idle time inside the train at the origin, ms: from its first video
   * response's start to its last one's end, the time no media response on
   * the train's connections (its video, and audio it carried) was being
   * written (see `idleInside`). Null without requests.
   */
  readonly idleMs: number | null;
  /** idleMs over the train's time at the origin (toMs − fromMs); null without requests or time. */
  readonly idleShare: number | null;
  /**
   * Gaps on the wire itself inside the train, ms: stretches of at least
   * WIRE_GAP_MIN_MS in which no byte of the player's port crossed the
   * bottleneck (the run's wire capture, `wireGapsMs`). The origin's idle time
   * above overstates this: a response counts as written once it is in the
   * socket buffer, while its bytes still wait there and in the bottleneck
   * queue. Null without the capture.
   */
  readonly wireGapMs: number | null;
  /** wireGapMs over the train's time; null without the capture or time. */
  readonly wireGapShare: number | null;
  /** The train's video transfers in the player's log (null without the player's transfers). */
  readonly playerRequests: number | null;
  /** Of those after the first, the ones issued while an earlier one was still arriving (`issuedWhileArriving`). */
  readonly playerPipelined: number | null;
}

/**
 * A train idle over this share of its time is flagged (by its wire gaps where the capture is known, else at the origin): the paper's
 * trains (§IV-B1) keep the next request at the server while the previous
 * response is being sent, so the wire should not idle inside a train.
 */
export const TRAIN_IDLE_FLAG_SHARE = 0.05;

/**
 * The shortest stretch without a byte on the wire that counts as a gap.
 * Shorter empty 100 ms bins are packet timing: two flows sharing a queue
 * each leave ~8 % of single bins empty at 3 Mbit/s, bulk flows included.
 */
export const WIRE_GAP_MIN_MS = 300;

/** One port's bytes on the wire in fixed bins (the run's wire.jsonl, testbed/wire-series.ts). */
export interface PortBins {
  /** Start of the first bin, epoch ms. */
  readonly t0Ms: number;
  readonly binMs: number;
  readonly bytes: readonly number[];
}

/**
 * A bin with fewer payload bytes than this counts as empty: two full
 * packets. An RTT probe's response (a one-byte range, ~300 bytes with
 * headers) does not fill a gap; any stretch of real sending does.
 */
export const WIRE_BUSY_BIN_BYTES = 3000;

/**
 * Time inside [fromMs, toMs] (the origin's view of a train) spent in runs of
 * empty bins at least WIRE_GAP_MIN_MS long, counted between the first and
 * the last busy bin in the span only: the wire lags the origin by the
 * bottleneck queue's delay (the train's first bytes reach the wire up to a
 * queue later than the origin wrote them), so the empty stretch at the
 * span's start is that lag, not a gap. Null when the capture does not cover
 * the span.
 */
export function wireGapsMs(wire: PortBins, fromMs: number, toMs: number): number | null {
  const eps = 1e-6;
  const first = Math.ceil((fromMs - wire.t0Ms) / wire.binMs - eps);
  const end = Math.floor((toMs - wire.t0Ms) / wire.binMs + eps);
  if (first < 0 || end > wire.bytes.length) return null;
  const busy = (i: number): boolean => (wire.bytes[i] ?? 0) >= WIRE_BUSY_BIN_BYTES;
  let lo = first;
  while (lo < end && !busy(lo)) lo++;
  // Nothing of the player's on the wire in the whole span: its bytes crossed before or after it; no anchor.
  if (lo >= end) return null;
  let hi = end - 1;
  while (hi > lo && !busy(hi)) hi--;
  const minBins = Math.ceil(WIRE_GAP_MIN_MS / wire.binMs - eps);
  let gaps = 0;
  let run = 0;
  for (let i = lo; i <= hi + 1; i++) {
    if (i <= hi && !busy(i)) {
      run += 1;
      continue;
    }
    if (run >= minBins) gaps += run;
    run = 0;
  }
  return gaps * wire.binMs;
}

/**
 * Idle time inside a run of responses: the gaps, between the first start
 * and the last end, covered by none of the [start, end] intervals. On one
 * connection this is the sum of the gaps between one response's end and the
 * next response's start; on parallel connections a gap counts only when no
 * response at all was being written.
 */
export function idleInside(responses: readonly Pick<WireRequest, 'startMs' | 'endMs'>[]): { spanMs: number; idleMs: number } {
  if (responses.length === 0) return { spanMs: 0, idleMs: 0 };
  const sorted = [...responses].sort((a, b) => a.startMs - b.startMs);
  const from = (sorted[0] as WireRequest).startMs;
  let coveredTo = from;
  let idle = 0;
  for (const r of sorted) {
    if (r.startMs > coveredTo) idle += r.startMs - coveredTo;
    coveredTo = Math.max(coveredTo, r.endMs);
  }
  return { spanMs: coveredTo - from, idleMs: idle };
}

/**
 * Each train of `planned` (expanded requests are left out) with the media
 * requests of type video (by `types`, file name → media type) that reached
 * the origin while it ran: from its start to its end (an open train, to
 * `openUntilMs`). A response counts as ended when its last byte went to the
 * kernel, so with a large socket buffer the next request may arrive "after"
 * it while the link is still busy with its bytes: `pipelined` is a lower
 * bound on how often the server had the next request in hand.
 */
export function trainsOnWire(
  requests: readonly WireRequest[],
  planned: readonly PlannedTransfer[],
  types: ReadonlyMap<string, string>,
  openUntilMs: number,
  transfers: readonly PlayerTransfer[] | null = null,
  wire: PortBins | null = null,
): TrainOnWire[] {
  // When a request reached the origin (nginx logs no arrival: when its response started).
  const arrivedAt = (r: WireRequest): number => r.arrivalMs ?? r.startMs;
  const media = requests.filter((r) => isMediaUrl(r.url) && !isProbe(r)).sort((a, b) => arrivedAt(a) - arrivedAt(b));
  const video = media.filter((r) => types.get(fileOf(r.url)) === 'video');
  return planned
    .filter((p) => p.request === null)
    .map((train) => {
      const until = train.toMs ?? openUntilMs;
      const mine = video.filter((r) => arrivedAt(r) >= train.fromMs && arrivedAt(r) <= until);
      // The response ahead of a request, and idle time at the origin, count every media response on the
      // train's connections: audio carried in the train (player/sprint puts it on the train's connection)
      // is as much ahead of the next video request, and fills the link as much, as video.
      const conns = new Set(mine.map((r) => r.conn));
      const first = Math.min(...mine.map((r) => r.startMs));
      const last = Math.max(...mine.map((r) => r.endMs));
      // In arrival order, as `media` is.
      const onConns = media.filter((r) => conns.has(r.conn) && r.endMs >= first && r.startMs <= last);
      let pipelined = 0;
      for (const r of mine.slice(1)) {
        const ahead = onConns[onConns.indexOf(r) - 1];
        if (r.arrivalMs !== null && ahead !== undefined && r.arrivalMs < ahead.endMs) pipelined += 1;
      }
      const { spanMs, idleMs } = idleInside(onConns.map((r) => ({ startMs: Math.max(r.startMs, first), endMs: Math.min(r.endMs, last) })));
      const wireGapMs = wire !== null && mine.length > 0 ? wireGapsMs(wire, first, last) : null;
      const own =
        transfers === null
          ? null
          : transfers.filter((t) => t.via === 'sprint' && t.mediaType === 'video' && t.startMs >= train.fromMs && t.startMs <= until);
      return {
        train,
        conns: [...conns],
        requests: mine.length,
        bytes: mine.reduce((s, r) => s + r.bytes, 0),
        pipelined,
        arrivalsKnown: mine.every((r) => r.arrivalMs !== null),
        fromMs: mine.length > 0 ? first : null,
        toMs: mine.length > 0 ? last : null,
        idleMs: mine.length > 0 ? idleMs : null,
        idleShare: spanMs > 0 ? idleMs / spanMs : null,
        wireGapMs,
        wireGapShare: wireGapMs !== null && last > first ? wireGapMs / (last - first) : null,
        playerRequests: own === null ? null : own.length,
        playerPipelined: own === null ? null : issuedWhileArriving(own),
      };
    });
}
