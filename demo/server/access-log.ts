// The demo origin's access log: one record per request, written when its
// response ends or its connection dies. Tests and the evaluation harness read
// it to see what happened on the wire: which requests shared a connection, when
// each arrived relative to the responses before it (pipelined trains, paper
// §IV-B1), and how many body bytes actually went out. Records go to a JSON-lines
// file (optional), to a bounded in-memory ring, and to 'request' listeners.

import { EventEmitter } from 'events';
import * as fs from 'fs';
import { performance } from 'perf_hooks';
import type { RangeOutcome } from './range';

/** Wall-clock epoch milliseconds with sub-millisecond precision. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** One request as seen by the origin. All times are epoch ms (see `nowMs`). */
export interface AccessRecord {
  /** Connection id, 1, 2, 3... in accept order per origin. */
  readonly conn: number;
  /** Index of this request on its connection, 0-based, in arrival order. */
  readonly seq: number;
  /** Client "address:port". */
  readonly remote: string;
  /** Request method, or null if the request line could not be read. */
  readonly method: string | null;
  /** Request-target as sent, or null if the request line could not be read. */
  readonly url: string | null;
  /** "HTTP/1.1" or "HTTP/1.0" as requested, or null if unreadable. */
  readonly version: string | null;
  /** The request's Range header, or null. */
  readonly range: string | null;
  /** What the origin did with Range (see range.ts); 'none' without Range. */
  readonly rangeOutcome: RangeOutcome;
  /** Response status, or null if no response was started (connection closed first). */
  readonly status: number | null;
  /** Body bytes handed to the kernel (write callbacks completed). */
  readonly bytes: number;
  /**
   * Bytes of the response head (status line and headers) on the connection's
   * byte stream: with `bytes`, where each response begins in it (`sprint
   * flows`). 0 when no response was started; null over HTTP/2 (frames).
   */
  readonly headBytes: number | null;
  /** Body bytes the response promised (Content-Length; 0 for HEAD and unanswered requests). */
  readonly bodyBytesExpected: number;
  /** When the request's header block had fully arrived. */
  readonly arrival: number;
  /** When the response's first byte (status line) was written, or null if never. */
  readonly start: number | null;
  /** When the last byte was handed to the kernel, or when the connection closed. */
  readonly end: number;
  /** True if the whole response (head and every body byte) was handed to the kernel. */
  readonly complete: boolean;
  /**
   * Null when complete; otherwise why not: "client-reset" (ECONNRESET),
   * "client-closed" (EOF/EPIPE), "server-closed" (origin.close()),
   * "not-answered" (arrived, but the connection closed first, e.g. pipelined
   * behind a response that closed it), "fault-reset-after-bytes",
   * "idle-timeout", "socket-error: CODE", "body-error: ..." (the file could
   * not be read) or "server-error: ...".
   */
  readonly error: string | null;
  /** Whether the response carried `Connection: close`. */
  readonly connectionClose: boolean;
  readonly userAgent: string | null;
}

export interface AccessLogOptions {
  /** JSON-lines file, appended to (created if missing). */
  readonly file?: string;
  /** Records kept in memory, oldest dropped first. Default 100000. */
  readonly ringSize?: number;
}

/** `R` is the record type: the HTTP/2 origin's records add fields (h2-origin.ts). */
export class AccessLog<R extends AccessRecord = AccessRecord> {
  private readonly emitter = new EventEmitter();
  private readonly ring: R[] = [];
  private ringStart = 0;
  private readonly ringSize: number;
  private dropped = 0;
  private stream: fs.WriteStream | null = null;
  private writeError: Error | null = null;
  private closing: Promise<void> | null = null;

  constructor(options: AccessLogOptions = {}) {
    this.ringSize = options.ringSize ?? 100000;
    if (!Number.isInteger(this.ringSize) || this.ringSize < 1) {
      throw new RangeError(`access log ringSize must be an integer >= 1, got ${String(options.ringSize)}`);
    }
    this.emitter.setMaxListeners(0);
    if (options.file !== undefined) {
      const file = options.file;
      this.stream = fs.createWriteStream(file, { flags: 'a' });
      this.stream.on('error', (err) => {
        if (!this.writeError) this.writeError = new Error(`access log ${file}: ${err.message}`);
      });
    }
  }

  /** Opens the file now so a bad path fails at startup, not at the first request. */
  async ready(): Promise<void> {
    const stream = this.stream;
    if (!stream || stream.pending === false) return;
    await new Promise<void>((resolve, reject) => {
      const onOpen = (): void => {
        stream.off('error', onError);
        resolve();
      };
      const onError = (err: Error): void => {
        stream.off('open', onOpen);
        reject(new Error(`cannot open access log ${stream.path.toString()}: ${err.message}`));
      };
      stream.once('open', onOpen);
      stream.once('error', onError);
    });
  }

  add(record: R): void {
    if (this.ring.length < this.ringSize) {
      this.ring.push(record);
    } else {
      this.ring[this.ringStart] = record;
      this.ringStart = (this.ringStart + 1) % this.ringSize;
      this.dropped += 1;
    }
    if (this.stream && !this.closing && !this.writeError) this.stream.write(`${JSON.stringify(record)}\n`);
    this.emitter.emit('request', record);
  }

  /** Records in the ring, oldest first (a copy). */
  records(): readonly R[] {
    return this.ring.slice(this.ringStart).concat(this.ring.slice(0, this.ringStart));
  }

  /** Records pushed out of the ring by newer ones (the file, if any, still has them). */
  get droppedFromRing(): number {
    return this.dropped;
  }

  on(event: 'request', listener: (record: R) => void): void {
    this.emitter.on(event, listener);
  }

  off(event: 'request', listener: (record: R) => void): void {
    this.emitter.off(event, listener);
  }

  /** Flushes and closes the file; rejects if any write failed. Idempotent. */
  close(): Promise<void> {
    if (!this.closing) {
      const stream = this.stream;
      this.closing = !stream
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            if (stream.destroyed) resolve();
            else stream.end(() => resolve());
            stream.once('error', () => resolve());
          });
    }
    return this.closing.then(() => {
      if (this.writeError) throw this.writeError;
    });
  }
}
