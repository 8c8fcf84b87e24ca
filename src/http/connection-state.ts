// The state machine of one HTTP/1.1 connection carrying Sprint's pipelined
// trains (paper §IV-B1), and its verdict on whether the server pipelines
// correctly. Pure bookkeeping: the client (pipeline.ts) feeds it what happened
// and asks whether it may write.
//
//   open ──(server announces close / pipeline unsafe / drain())──▶ draining
//   open|draining ──(connection ended)──▶ closed
//
// A server is judged unsafe for pipelining (the caller should then use
// sequential requests for that origin) when it answers with HTTP/1.0, closes
// after its first response while further requests were queued (closes after
// each response), answers a request with a response for another
// (mismatched Content-Range), or sends bytes nobody asked for. A server that
// answers several responses and then closes (a keep-alive request limit) is
// not unsafe: its unanswered requests are simply retried on a new connection.

export type Http1ConnectionState = 'open' | 'draining' | 'closed';

export type PipelineUnsafeCode = 'http-1.0' | 'closes-after-each-response' | 'mismatched-response' | 'unsolicited-bytes';

export interface PipelineUnsafeReason {
  readonly code: PipelineUnsafeCode;
  /** What was seen, for logs and stats. */
  readonly message: string;
}

/** Why the connection stopped accepting requests. */
export type DrainCause = 'server-close' | 'pipeline-unsafe' | 'local';

export class Http1Connection {
  private st: Http1ConnectionState = 'open';
  private written = 0;
  private answered = 0;
  private unsafeReason: PipelineUnsafeReason | null = null;
  private drainCause: DrainCause | null = null;

  get state(): Http1ConnectionState {
    return this.st;
  }

  /** Whether a new request may be written now. */
  get canWrite(): boolean {
    return this.st === 'open';
  }

  /** Requests written on this connection. */
  get requestsWritten(): number {
    return this.written;
  }

  /** Responses received completely on this connection. */
  get responsesCompleted(): number {
    return this.answered;
  }

  /** The first reason this server was judged unable to pipeline, or null. */
  get pipelineUnsafe(): PipelineUnsafeReason | null {
    return this.unsafeReason;
  }

  /** Why the connection stopped accepting requests, or null while open. */
  get whyDraining(): DrainCause | null {
    return this.drainCause;
  }

  /** A request was written. Throws if the connection does not accept requests. */
  requestWritten(): void {
    if (this.st !== 'open') throw new Error(`Http1Connection: cannot write a request while ${this.st} (${this.drainCause ?? 'closed'})`);
    this.written += 1;
  }

  /**
   * A final response head arrived. `queuedBehind`: requests written after the
   * one it answers. Returns a newly found unsafe reason, or null.
   */
  responseHead(
    head: { readonly httpVersion: '1.0' | '1.1'; readonly keepAlive: boolean; readonly status: number },
    queuedBehind: number,
  ): PipelineUnsafeReason | null {
    let found: PipelineUnsafeReason | null = null;
    if (head.httpVersion === '1.0') {
      found = this.markUnsafe({
        code: 'http-1.0',
        message: `the server answered with HTTP/1.0 (status ${head.status}), which does not define pipelining`,
      });
    } else if (!head.keepAlive && this.answered === 0 && queuedBehind > 0) {
      found = this.markUnsafe({
        code: 'closes-after-each-response',
        message: `the server closes the connection after its first response while ${queuedBehind} more request(s) were pipelined`,
      });
    }
    if (!head.keepAlive) this.drain('server-close');
    return found;
  }

  /** A response completed. */
  responseComplete(): void {
    this.answered += 1;
  }

  /** Records an unsafe verdict (the first one is kept) and stops writing. Returns the reason if it is new, else null. */
  markUnsafe(reason: PipelineUnsafeReason): PipelineUnsafeReason | null {
    if (this.st !== 'closed') this.drain('pipeline-unsafe');
    if (this.unsafeReason !== null) return null;
    this.unsafeReason = reason;
    return reason;
  }

  /** Stops accepting requests; the first cause is kept. */
  drain(cause: DrainCause): void {
    if (this.st === 'open') {
      this.st = 'draining';
      this.drainCause = cause;
    }
  }

  /**
   * The connection ended with `pending` requests unanswered. A server that
   * hangs up right after its first response while requests were queued
   * closes after each response. Returns a newly found unsafe reason, or null.
   */
  closed(pending: number, byServer: boolean): PipelineUnsafeReason | null {
    let found: PipelineUnsafeReason | null = null;
    if (byServer && this.answered === 1 && pending > 0 && this.st !== 'closed') {
      found = this.markUnsafe({
        code: 'closes-after-each-response',
        message: `the server closed the connection after its first response with ${pending} pipelined request(s) unanswered`,
      });
    }
    if (this.st === 'open') this.drainCause = byServer ? 'server-close' : 'local';
    this.st = 'closed';
    return found;
  }
}
