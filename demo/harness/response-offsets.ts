// Where in the responses of a connection the bottleneck queue's drops fell:
// each response's first byte on the connection's byte stream comes from the
// origin's access log (head and body bytes of the responses before it), and
// each drop goes to a bin of its offset into the response it belongs to.
// A drop of another connection goes to the bin this connection's sender was
// in when it happened, so an overflow that recurs at one point of every
// response shows in both rows. `sprint flows` prints the bins.

/** The fields of an origin access record (demo/server/access-log.ts) this reads. */
export interface ResponseRecord {
  readonly remote: string;
  readonly seq: number;
  readonly bytes: number;
  readonly headBytes?: number | null;
  readonly complete: boolean;
}

/** Bin width of the offsets, bytes. */
export const DEFAULT_OFFSET_BIN_BYTES = 256 * 1024;
/** Offsets past this many bins share the last one. */
export const MAX_OFFSET_BINS = 32;

/**
 * Per client endpoint ("address:port"), the stream offsets where its
 * responses begin, in order: as far as the log gives every response's head
 * and whole body (an HTTP/2 log, without head bytes, gives none).
 */
export function responseStarts(records: readonly ResponseRecord[]): Map<string, number[]> {
  const byRemote = new Map<string, ResponseRecord[]>();
  for (const r of records) {
    const list = byRemote.get(r.remote) ?? [];
    list.push(r);
    byRemote.set(r.remote, list);
  }
  const out = new Map<string, number[]>();
  for (const [remote, list] of byRemote) {
    const starts: number[] = [];
    let at = 0;
    for (const r of list.sort((a, b) => a.seq - b.seq)) {
      if (typeof r.headBytes !== 'number' || r.headBytes <= 0) break;
      starts.push(at);
      if (!r.complete) break;
      at += r.headBytes + r.bytes;
    }
    if (starts.length > 0) out.set(remote, starts);
  }
  return out;
}

/** A segment's time (epoch s) and its offset on the connection's byte stream. */
export interface StreamPoint {
  readonly t: number;
  readonly seq: number;
}

export interface OffsetBins {
  readonly binBytes: number;
  /** Responses whose start is known. */
  readonly responses: number;
  /** First transmissions in the window, by offset into their response. */
  readonly sent: number[];
  /** This connection's drops, by offset into their response. */
  readonly own: number[];
  /** Other connections' drops, by this connection's offset when they happened (within `spanS` of its last send). */
  readonly others: number[];
}

/** The offset of `seq` into the response it belongs to, or null before the first known start. */
function offsetIn(starts: readonly number[], seq: number): number | null {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((starts[mid] as number) <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : seq - (starts[lo - 1] as number);
}

/**
 * Bins of offsets into the responses: `sends` are the connection's first
 * transmissions in time order (all of them: the last one before another
 * connection's drop places that drop), `inWindow` picks those counted.
 */
export function offsetBins(o: {
  readonly starts: readonly number[];
  readonly sends: readonly StreamPoint[];
  readonly drops: readonly StreamPoint[];
  readonly otherDropTimes: readonly number[];
  readonly inWindow: (t: number) => boolean;
  readonly spanS: number;
  readonly binBytes?: number;
}): OffsetBins {
  const binBytes = o.binBytes ?? DEFAULT_OFFSET_BIN_BYTES;
  const sent: number[] = [];
  const own: number[] = [];
  const others: number[] = [];
  const add = (row: number[], offset: number | null): void => {
    if (offset === null) return;
    const k = Math.min(MAX_OFFSET_BINS - 1, Math.floor(offset / binBytes));
    while (row.length <= k) row.push(0);
    row[k] = (row[k] as number) + 1;
  };
  for (const s of o.sends) if (o.inWindow(s.t)) add(sent, offsetIn(o.starts, s.seq));
  for (const d of o.drops) add(own, offsetIn(o.starts, d.seq));
  let i = 0;
  for (const t of [...o.otherDropTimes].sort((a, b) => a - b)) {
    while (i < o.sends.length && (o.sends[i] as StreamPoint).t <= t) i++;
    const last = o.sends[i - 1];
    if (last && t - last.t <= o.spanS) add(others, offsetIn(o.starts, last.seq));
  }
  const width = Math.max(sent.length, own.length, others.length);
  for (const row of [sent, own, others]) while (row.length < width) row.push(0);
  return { binBytes, responses: o.starts.length, sent, own, others };
}
