/**
 * The bytes of one streamed HTTP response body with the time each piece
 * arrived, so segments cut out of an expanded range request (paper §IV-B2)
 * can be handed to dash.js with the wire timing they really had, not the
 * instant they were sliced: dash.js's throughput estimate must stay true.
 *
 * Offsets are absolute file offsets (the body starts at `origin`); times are
 * milliseconds on any monotonic clock the caller chooses.
 */
import type { ByteRange } from './range-plan';

interface Piece {
  /** Absolute offset of the first byte of this piece. */
  offset: number;
  bytes: Uint8Array;
  atMs: number;
}

/** One progress step of a segment's arrival: `bytes` arrived during [startMs, startMs+durationMs]. */
export interface ArrivalTrace {
  startMs: number;
  durationMs: number;
  bytes: number;
}

export interface SegmentArrival {
  data: Uint8Array;
  /** When the segment's bytes began to arrive: the arrival of the byte before it, or the request time. */
  startMs: number;
  firstByteMs: number;
  endMs: number;
  traces: ArrivalTrace[];
}

export class ArrivalLog {
  private readonly pieces: Piece[] = [];
  private received = 0;

  /**
   * @param origin absolute offset of the first body byte
   * @param requestMs when the request was sent (start of the first segment's wire time)
   */
  constructor(
    readonly origin: number,
    readonly requestMs: number,
  ) {}

  /** Appends the next piece of the body, received at `atMs`. */
  append(bytes: Uint8Array, atMs: number): void {
    if (bytes.length === 0) return;
    const last = this.pieces[this.pieces.length - 1];
    if (last && atMs < last.atMs) throw new RangeError('arrival times must not go backwards');
    this.pieces.push({ offset: this.origin + this.received, bytes, atMs });
    this.received += bytes.length;
  }

  /** Bytes received so far. */
  get receivedBytes(): number {
    return this.received;
  }

  /** Absolute offset one past the last byte received. */
  get frontier(): number {
    return this.origin + this.received;
  }

  firstArrivalMs(): number | null {
    return this.pieces[0]?.atMs ?? null;
  }

  lastArrivalMs(): number | null {
    return this.pieces[this.pieces.length - 1]?.atMs ?? null;
  }

  /** True when every byte of `r` has arrived. */
  covers(r: ByteRange): boolean {
    return r.start >= this.origin && r.end < this.frontier;
  }

  /** Arrival time of the piece holding absolute offset `offset`. */
  private arrivalOf(offset: number): number {
    let lo = 0;
    let hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.pieces[mid] as Piece).offset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return (this.pieces[lo] as Piece).atMs;
  }

  /**
   * Copies range `r` out of the log with its wire timing. The traces split the
   * segment's bytes by the pieces that carried them; there are always at
   * least two (dash.js discards the first trace as latency), the first one
   * holding the segment's first piece.
   */
  extract(r: ByteRange): SegmentArrival {
    if (!this.covers(r)) throw new RangeError(`range ${r.start}-${r.end} not fully received (have ${this.origin}-${this.frontier - 1})`);
    const data = new Uint8Array(r.end - r.start + 1);
    const traces: ArrivalTrace[] = [];
    const startMs = r.start === this.origin ? this.requestMs : this.arrivalOf(r.start - 1);
    let prevMs = startMs;
    for (const p of this.pieces) {
      const pEnd = p.offset + p.bytes.length - 1;
      if (pEnd < r.start || p.offset > r.end) continue;
      const from = Math.max(p.offset, r.start);
      const to = Math.min(pEnd, r.end);
      data.set(p.bytes.subarray(from - p.offset, to - p.offset + 1), from - r.start);
      traces.push({ startMs: prevMs, durationMs: Math.max(0, p.atMs - prevMs), bytes: to - from + 1 });
      prevMs = p.atMs;
    }
    const firstByteMs = this.arrivalOf(r.start);
    const endMs = this.arrivalOf(r.end);
    if (traces.length === 1) {
      // One piece carried the whole segment: split it so the latency trace
      // holds nothing and the second trace holds the bytes and the time.
      const only = traces[0] as ArrivalTrace;
      traces.splice(0, 1, { startMs: only.startMs, durationMs: 0, bytes: 0 }, only);
    }
    return { data, startMs, firstByteMs, endMs, traces };
  }

  /**
   * Frees pieces wholly before absolute offset `offset` (already handed out),
   * keeping the piece that holds `offset - 1` so the next segment's start time
   * is still known.
   */
  releaseBefore(offset: number): void {
    while (this.pieces.length > 1 && (this.pieces[1] as Piece).offset <= offset - 1) {
      this.pieces.shift();
    }
  }
}
