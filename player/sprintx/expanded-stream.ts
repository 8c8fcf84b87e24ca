/**
 * One Sprint-x expanded range request in flight (paper §IV-B2): a streamed
 * `fetch` of bytes start..end of one representation's file. Segments dash.js
 * asks for inside that range are handed over as soon as their last byte has
 * arrived, with the wire timing they really had (see src/sprintx/arrival-log).
 *
 * The request is dash.js's load of the first segment widened: its URL,
 * headers and credentials as the page's interceptors left them
 * (player/dataplane/request-path.ts), with the wider Range.
 *
 * Failure is never silent: a response that is not the 206 asked for, a body
 * that ends early or a connection reset ends the stream with an error, and
 * every segment still waiting is handed back to the caller (`onFailed`) to be
 * fetched another way.
 */
import { ArrivalLog } from '../../src/sprintx/arrival-log';
import { rangeLength, type ByteRange, type ExpandedRange } from '../../src/sprintx/range-plan';
import type { TransferRecord } from '../stats/types';
import { nowMs } from '../dataplane/clock';
import { plainRequestPath, type BuiltRequest, type RequestPath } from '../dataplane/request-path';

export interface PendingSegment {
  range: ByteRange;
  deliver(arrival: ReturnType<ArrivalLog['extract']>, transferId: number): void;
  /** The stream cannot deliver this segment (error or cancellation). */
  fail(reason: string): void;
}

export interface ExpandedStreamEvents {
  /** Bytes arrived: [bytes, wire seconds] since the previous report (for the bandwidth estimator). */
  onWireSample(bytes: number, wireSec: number): void;
  onEnd(stream: ExpandedStream): void;
}

/** Report wire samples to the bandwidth estimator at least every this many bytes. */
const SAMPLE_EVERY_BYTES = 512 * 1024;

export class ExpandedStream {
  readonly log: ArrivalLog;
  private readonly controller = new AbortController();
  private readonly pending: PendingSegment[] = [];
  private done = false;
  private failure: string | null = null;
  /** The HTTP error status (4xx, 5xx) the origin answered the expanded request with, if it refused it. */
  refusedStatus: number | null = null;
  private servedUpTo: number;
  private sampleBytes = 0;
  private sampleFromMs: number | null = null;

  constructor(
    readonly url: string,
    readonly plan: ExpandedRange,
    readonly representationId: string,
    readonly record: TransferRecord,
    private readonly events: ExpandedStreamEvents,
    /**
     * The connection pool: video's expanded requests go uncredentialed, a
     * pool that holds only them (the RTT probes use the other one), so the
     * next request reuses the previous one's connection; audio's go
     * credentialed, where dash.js's own requests and the probes are.
     */
    private readonly credentials: RequestCredentials = 'omit',
    /** The request path and the load it was built from (the page's headers and credentials ride the expanded range). */
    private readonly path: { requests: RequestPath; request: BuiltRequest } = {
      requests: plainRequestPath(),
      request: { url, headers: {}, withCredentials: false },
    },
  ) {
    this.log = new ArrivalLog(plan.start, record.startMs);
    this.servedUpTo = plan.start;
  }

  /** Every byte of the range is in; the body's end may still be a read away. */
  private get allBytesIn(): boolean {
    return this.log.receivedBytes === rangeLength(this.plan);
  }

  get finished(): boolean {
    return this.done || this.allBytesIn;
  }

  get failed(): string | null {
    return this.failure;
  }

  /** True when `r` lies inside this stream's range and has not been released. */
  contains(r: ByteRange): boolean {
    return r.start >= this.servedUpTo && r.end <= this.plan.end && this.failure === null;
  }

  /** Queues a segment; it is delivered as soon as its bytes are in (at once if the stream already holds them). */
  request(seg: PendingSegment): void {
    this.pending.push(seg);
    this.flush();
  }

  /** Detaches a segment dash.js gave up on; the transfer itself goes on. */
  forget(seg: PendingSegment): void {
    const i = this.pending.indexOf(seg);
    if (i >= 0) this.pending.splice(i, 1);
  }

  /** When the request was sent, performance.now() ms (its Resource Timing entry starts then). */
  sentAtPerfMs = 0;

  start(): void {
    this.sentAtPerfMs = performance.now();
    void this.run();
  }

  /** Cancels the transfer (the ABR moved to another representation, or a seek left the range). */
  cancel(reason: string): void {
    if (this.done) return;
    if (this.allBytesIn) {
      // Nothing left to cancel: the range arrived whole, so it ends as complete.
      this.flushSample(true);
      this.finish(null);
      return;
    }
    this.record.cancelled = true;
    this.finish(`cancelled: ${reason}`);
    this.controller.abort();
  }

  private async run(): Promise<void> {
    const { start, end } = this.plan;
    try {
      const res = await this.path.requests.send('media', this.path.request, {
        range: { start, end },
        credentials: this.credentials,
        signal: this.controller.signal,
      });
      if (res.status !== 206) {
        await res.body?.cancel();
        if (res.status >= 400) this.refusedStatus = res.status;
        throw new Error(res.status === 200 ? 'server ignored the Range header (200)' : `HTTP ${res.status}`);
      }
      const cr = res.headers.get('Content-Range');
      if (cr !== null && !cr.startsWith(`bytes ${start}-${end}/`)) {
        await res.body?.cancel();
        throw new Error(`unexpected Content-Range "${cr}" for bytes=${start}-${end}`);
      }
      if (!res.body) throw new Error('response has no body stream');
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (this.done) return; // cancelled meanwhile
        if (done) break;
        this.onBytes(value);
      }
      const expected = rangeLength(this.plan);
      if (this.log.receivedBytes !== expected) {
        throw new Error(`body ended after ${this.log.receivedBytes} of ${expected} bytes`);
      }
      this.flushSample(true);
      this.finish(null);
    } catch (e) {
      if (this.done) return; // our own abort
      this.flushSample(true);
      this.finish((e as Error).message || String(e));
    }
  }

  private onBytes(chunk: Uint8Array): void {
    const at = nowMs();
    if (this.record.firstByteMs === null) this.record.firstByteMs = at;
    if (this.sampleFromMs === null) this.sampleFromMs = at;
    this.log.append(chunk, at);
    this.record.bytes = this.log.receivedBytes;
    this.sampleBytes += chunk.length;
    this.flushSample(false);
    this.flush();
  }

  /** Feeds the bandwidth estimator with bytes over the time they were arriving. */
  private flushSample(final: boolean): void {
    if (this.sampleFromMs === null || this.sampleBytes === 0) return;
    if (!final && this.sampleBytes < SAMPLE_EVERY_BYTES) return;
    const last = this.log.lastArrivalMs() ?? this.sampleFromMs;
    const wireSec = (last - this.sampleFromMs) / 1000;
    if (wireSec > 0) this.events.onWireSample(this.sampleBytes, wireSec);
    this.sampleBytes = 0;
    this.sampleFromMs = last;
  }

  private flush(): void {
    for (let i = 0; i < this.pending.length;) {
      const seg = this.pending[i] as PendingSegment;
      if (this.log.covers(seg.range)) {
        this.pending.splice(i, 1);
        const arrival = this.log.extract(seg.range);
        this.record.segmentsServed += 1;
        this.servedUpTo = Math.max(this.servedUpTo, seg.range.end + 1);
        this.log.releaseBefore(this.servedUpTo);
        seg.deliver(arrival, this.record.id);
      } else {
        i += 1;
      }
    }
  }

  private finish(error: string | null): void {
    if (this.done) return;
    this.done = true;
    this.failure = error;
    const end = this.log.lastArrivalMs();
    this.record.endMs = end ?? nowMs();
    this.record.bytes = this.log.receivedBytes;
    this.record.error = error;
    const first = this.record.firstByteMs;
    if (first !== null && end !== null && end > first) {
      this.record.throughputBitsPerSec = ((this.log.receivedBytes * 8) / (end - first)) * 1000;
    }
    const waiting = this.pending.splice(0);
    for (const seg of waiting) seg.fail(error ?? 'stream ended before the segment arrived');
    this.events.onEnd(this);
  }

  /** Bytes received but not (yet) handed to dash.js. */
  get unservedBytes(): number {
    return Math.max(0, this.log.frontier - this.servedUpTo);
  }

  /**
   * Drops this stream for good (the data plane moves on): cancels it if still
   * running and books the bytes it received but never handed out as wasted.
   */
  discard(reason: string): void {
    // Booked first: cancelling ends the transfer, and its end is reported.
    this.record.wastedBytes = this.unservedBytes;
    this.cancel(reason);
  }
}
