// Pipelined HTTP/1.1 client over one connection: the wire side of Sprint's
// trains (paper §IV-B1). `enqueue` writes each request at once, back to back
// on the same keep-alive connection, without waiting for earlier responses, so
// the server is never idle inside a train; responses are matched to requests
// strictly in order and streamed to each request's callbacks as they arrive.
//
// Faults (see extension/host/PROTOCOL.md, faults): when the connection closes or breaks
// mid-train (e.g. a keep-alive request limit), every request not fully
// answered fails with `retryable: true` and is listed in `onClosed` so the
// caller re-issues it on a new connection; a partial response is reported as
// failed, never completed. Servers that do not pipeline correctly (HTTP/1.0,
// closing after each response, mismatched responses, unsolicited bytes) are
// reported through `onPipelineUnsafe` so the caller falls back to sequential
// requests for that origin. The verdict logic is in connection-state.ts, the
// response-to-request check in content-range.ts, the parsing in
// response-parser.ts.
//
// Body pieces are provisional until `onComplete`: after `onFailed` the caller
// must discard what it received for that request.
//
// The in-order request/response matching and its fault handling on one
// connection are one state machine, kept in one file; parsing is
// response-parser.ts.

import { Http1Connection, type PipelineUnsafeReason } from './connection-state';
import type { HttpParseError } from './errors';
import { matchResponse } from './content-range';
import { serializeRequest, rangeLength, type HttpRequest } from './request';
import { ResponseParser, type ResponseHead, type ResponseParserOptions } from './response-parser';
import type { ByteTransport, TransportCloseReason, TransportReceiver } from './transport';

export type RequestFailureCode =
  /** The server closed the connection before this response was complete. Retryable. */
  | 'connection-closed'
  /** The connection broke (reset, timeout, host crash) before this response was complete. Retryable. */
  | 'connection-error'
  /** The client was closed (`close()`) before this response was complete. Retryable. */
  | 'closed-locally'
  /** An earlier response on the connection broke the stream; this request was never answered. Retryable. */
  | 'pipeline-aborted'
  /** The response answered a different request (pipeline order broken). Retryable, sequentially. */
  | 'mismatched-response'
  /** This request's response violates HTTP/1.1 framing. Not retryable. */
  | 'malformed-response'
  /** The response is well-formed but not the bytes asked for (Content-Encoding, Content-Range/length disagreement). Not retryable. */
  | 'unusable-response';

export interface RequestFailure {
  readonly code: RequestFailureCode;
  readonly message: string;
  /** True when re-issuing the same request (on a new connection) may succeed. */
  readonly retryable: boolean;
  /** Body bytes delivered through onBody before the failure: the caller discards them. */
  readonly bodyBytesReceived: number;
}

export interface ResponseResult {
  readonly head: ResponseHead;
  /** Body bytes delivered. */
  readonly bodyBytes: number;
  /** Receive time of the bytes that completed the head / the body (caller's clock, ms). */
  readonly headAtMs: number;
  readonly endAtMs: number;
}

/** Per-request callbacks; each called synchronously from enqueue/onData/onClose/close. */
export interface RequestEvents {
  /** The final response head (1xx skipped) was received and matches the request. */
  onHead?(head: ResponseHead, atMs: number): void;
  /** A piece of the body (a view of received bytes, never empty), with its receive time. Provisional until onComplete. */
  onBody?(piece: Uint8Array, atMs: number): void;
  /** The response is complete and checked. Exactly one of onComplete / onFailed is called per request. */
  onComplete?(result: ResponseResult): void;
  onFailed?(failure: RequestFailure): void;
}

export type RequestState = 'waiting' | 'receiving' | 'complete' | 'failed';

/** A request written on the connection. */
export interface RequestHandle {
  /** 0-based order of the request on this connection. */
  readonly seq: number;
  readonly request: HttpRequest;
  readonly state: RequestState;
  readonly head: ResponseHead | null;
  /** Body bytes received so far. */
  readonly bodyBytes: number;
  readonly failure: RequestFailure | null;
}

export interface ConnectionClosed {
  /** How the connection ended: the transport's reason, or 'protocol' when the client closed it because of the server's bytes. */
  readonly kind: TransportCloseReason['kind'] | 'protocol';
  readonly message: string;
  /** Responses completed on the connection. */
  readonly answered: number;
  /** Requests that failed retryable, in request order: re-issue them on a new connection. */
  readonly retry: readonly RequestHandle[];
  /** Non-null when the server should not be pipelined to. */
  readonly pipelineUnsafe: PipelineUnsafeReason | null;
}

export interface PipelinedClientEvents {
  /** The server does not pipeline correctly; reported once per connection, before the affected failures. */
  onPipelineUnsafe?(reason: PipelineUnsafeReason): void;
  /** The connection is finished (all requests completed or failed); called once. */
  onClosed?(closed: ConnectionClosed): void;
}

export interface PipelinedClientOptions {
  readonly parser?: ResponseParserOptions;
}

class Entry implements RequestHandle {
  state: RequestState = 'waiting';
  head: ResponseHead | null = null;
  bodyBytes = 0;
  failure: RequestFailure | null = null;
  headAtMs = 0;
  /** Body length the response must have, once known (Range before the head; Content-Range/Content-Length after). */
  expectedBody: number | null;
  constructor(
    readonly seq: number,
    readonly request: HttpRequest,
    readonly events: RequestEvents,
  ) {
    this.expectedBody = request.method === 'HEAD' ? 0 : (rangeLength(request.range) ?? null);
  }
  /** True once the caller has been told the outcome; the response may still be on the wire. */
  get settled(): boolean {
    return this.state === 'complete' || this.state === 'failed';
  }
}

type Inbound =
  { readonly data: Uint8Array; readonly atMs: number } | { readonly close: TransportCloseReason; readonly atMs: number | undefined };

export class PipelinedClient implements TransportReceiver {
  /** The connection's state machine and pipelining verdict. */
  readonly connection = new Http1Connection();
  private readonly transport: ByteTransport;
  private readonly events: PipelinedClientEvents;
  private readonly parser: ResponseParser;
  /** Requests written and whose response has not fully passed on the wire, in order. */
  private readonly queue: Entry[] = [];
  private nextSeq = 0;
  private finished = false;
  private lastAtMs = 0;
  private closeReason: TransportCloseReason | null = null;
  private readonly inbox: Inbound[] = [];
  private processing = false;
  private readonly callbackErrors: unknown[] = [];

  constructor(transport: ByteTransport, events: PipelinedClientEvents = {}, options: PipelinedClientOptions = {}) {
    this.transport = transport;
    this.events = events;
    this.parser = new ResponseParser(
      {
        onHead: (head, atMs) => this.handleHead(head, atMs),
        onBody: (piece, atMs) => this.handleBody(piece, atMs),
        onEnd: (atMs) => this.handleEnd(atMs),
        onError: (err) => this.handleParseError(err),
      },
      options.parser,
    );
  }

  /** Whether `enqueue` may be called now (the connection is open and healthy). */
  get canEnqueue(): boolean {
    return !this.finished && this.connection.canWrite;
  }

  /** Requests written whose response has not fully arrived (the outstanding requests on the wire). */
  get inFlight(): number {
    return this.queue.length;
  }

  /** Body bytes still to arrive for in-flight requests whose size is known (from Range, Content-Range or Content-Length). */
  get inFlightBytes(): number {
    let n = 0;
    for (const e of this.queue) if (e.expectedBody !== null) n += Math.max(0, e.expectedBody - e.bodyBytes);
    return n;
  }

  /** In-flight requests whose response size is not known yet (no Range and no head yet, or a chunked/until-close body). */
  get inFlightUnknownSize(): number {
    let n = 0;
    for (const e of this.queue) if (e.expectedBody === null) n += 1;
    return n;
  }

  /** Whether the connection is finished (onClosed was or is being reported). */
  get isClosed(): boolean {
    return this.finished;
  }

  /**
   * Serialises `request` and writes it now, behind the requests already in
   * flight. Throws HttpRequestError for an invalid request and Error when the
   * connection does not accept requests (check `canEnqueue`); nothing is
   * written then. If the transport's write throws, the connection is
   * terminated: the returned handle has already failed (retryable).
   */
  enqueue(request: HttpRequest, events: RequestEvents = {}): RequestHandle {
    if (!this.canEnqueue) {
      const why = this.finished ? 'closed' : `${this.connection.state} (${this.connection.whyDraining ?? ''})`;
      throw new Error(`PipelinedClient.enqueue: the connection does not accept requests: it is ${why}`);
    }
    const bytes = serializeRequest(request);
    const entry = new Entry(this.nextSeq, { ...request, method: request.method ?? 'GET' }, events);
    this.nextSeq += 1;
    this.queue.push(entry);
    this.connection.requestWritten();
    this.parser.expect(entry.request.method ?? 'GET');
    try {
      this.transport.write(bytes);
    } catch (err) {
      this.terminate({ kind: 'error', message: `transport write threw: ${errorText(err)}` }, null);
    }
    this.rethrowCallbackErrors();
    return entry;
  }

  /** Stops accepting requests; the connection is closed once the in-flight responses are complete. */
  drain(): void {
    if (this.finished) return;
    this.connection.drain('local');
    if (this.queue.length === 0) this.terminate({ kind: 'local', message: 'drained' }, null);
    this.rethrowCallbackErrors();
  }

  /** Closes the connection now; in-flight requests fail with `closed-locally` (retryable). */
  close(): void {
    if (!this.finished) this.terminate({ kind: 'local', message: 'closed by the client' }, null);
    this.rethrowCallbackErrors();
  }

  // ---- TransportReceiver ----

  onData(bytes: Uint8Array, atMs: number): void {
    this.inbox.push({ data: bytes, atMs });
    this.processInbox();
  }

  onClose(reason: TransportCloseReason, atMs?: number): void {
    this.inbox.push({ close: reason, atMs });
    this.processInbox();
  }

  // ---- internals ----

  /** Handles transport input in order; input arriving from inside a callback is queued, not re-entered. */
  private processInbox(): void {
    if (this.processing) return;
    this.processing = true;
    try {
      for (let item = this.inbox.shift(); item !== undefined; item = this.inbox.shift()) {
        if (this.finished) continue;
        if ('data' in item) {
          this.lastAtMs = item.atMs;
          this.parser.push(item.data, item.atMs);
        } else {
          const at = item.atMs ?? this.lastAtMs;
          this.closeReason = item.close;
          this.parser.finish(item.close.kind === 'eof' ? 'eof' : 'error', at, item.close.message);
          if (!this.finished) this.terminate(item.close, null);
        }
      }
    } finally {
      this.processing = false;
    }
    this.rethrowCallbackErrors();
  }

  private handleHead(head: ResponseHead, atMs: number): void {
    if (this.finished) return;
    const entry = this.queue[0] as Entry;
    const unsafe = this.connection.responseHead(head, this.queue.length - 1);
    if (unsafe) this.emit(() => this.events.onPipelineUnsafe?.(unsafe));
    const match = matchResponse(entry.request.range, head);
    entry.head = head;
    entry.headAtMs = atMs;
    if (match.kind === 'mismatched') {
      const reason = this.connection.markUnsafe({ code: 'mismatched-response', message: `response #${head.index}: ${match.message}` });
      if (reason) this.emit(() => this.events.onPipelineUnsafe?.(reason));
      this.terminate(
        { kind: 'protocol', message: `response #${head.index} does not match its request: ${match.message}` },
        { code: 'mismatched-response', message: match.message, retryable: true, bodyBytesReceived: 0 },
      );
      return;
    }
    if (match.kind === 'unusable') {
      // The stream is still in sync: fail this request, read its body off the wire, keep going.
      entry.expectedBody = head.framing.kind === 'length' ? head.framing.length : head.framing.kind === 'none' ? 0 : null; // for inFlightBytes only
      this.fail(entry, {
        code: 'unusable-response',
        message: `response #${head.index}: ${match.message}`,
        retryable: false,
        bodyBytesReceived: 0,
      });
      return;
    }
    entry.expectedBody = match.bodyBytes;
    entry.state = 'receiving';
    this.emit(() => entry.events.onHead?.(head, atMs));
  }

  private handleBody(piece: Uint8Array, atMs: number): void {
    if (this.finished) return;
    const entry = this.queue[0] as Entry;
    entry.bodyBytes += piece.length;
    if (!entry.settled) this.emit(() => entry.events.onBody?.(piece, atMs));
  }

  private handleEnd(atMs: number): void {
    if (this.finished) return;
    const entry = this.queue.shift() as Entry;
    this.connection.responseComplete();
    const head = entry.head as ResponseHead;
    if (!entry.settled) {
      if (entry.expectedBody !== null && entry.bodyBytes !== entry.expectedBody) {
        this.fail(entry, {
          code: 'unusable-response',
          message: `response #${head.index} has ${entry.bodyBytes} body bytes where ${entry.expectedBody} were announced`,
          retryable: false,
          bodyBytesReceived: entry.bodyBytes,
        });
      } else {
        entry.state = 'complete';
        const result: ResponseResult = { head, bodyBytes: entry.bodyBytes, headAtMs: entry.headAtMs, endAtMs: atMs };
        this.emit(() => entry.events.onComplete?.(result));
      }
    }
    if (this.finished) return; // a callback closed the client
    if (this.closeReason !== null) {
      this.terminate(this.closeReason, null); // a body delimited by the close just ended
    } else if (!head.keepAlive) {
      const behind = this.queue.length;
      this.terminate(
        {
          kind: 'protocol',
          message: `response #${head.index} closes the connection (${head.httpVersion === '1.0' ? 'HTTP/1.0' : 'Connection: close'}) with ${behind} request(s) unanswered`,
        },
        null,
        'connection-closed',
      );
    } else if (this.connection.state === 'draining') {
      if (this.connection.whyDraining !== 'local') {
        this.terminate(
          { kind: 'protocol', message: `stopped after response #${head.index}: ${this.connection.pipelineUnsafe?.message ?? 'draining'}` },
          null,
          'pipeline-aborted',
        );
      } else if (this.queue.length === 0) {
        this.terminate({ kind: 'local', message: 'drained' }, null);
      }
    }
  }

  private handleParseError(err: HttpParseError): void {
    if (this.finished) return;
    if (err.code === 'unsolicited-bytes' || err.code === 'bytes-after-close') {
      const reason = this.connection.markUnsafe({ code: 'unsolicited-bytes', message: err.message });
      if (reason) this.emit(() => this.events.onPipelineUnsafe?.(reason));
      this.terminate({ kind: 'protocol', message: err.message }, null, 'pipeline-aborted');
      return;
    }
    if (err.code === 'truncated') {
      // The transport closed mid-response: the partial response is discarded, the request retried.
      const reason = this.closeReason ?? { kind: 'error' as const, message: 'connection ended' };
      this.terminate(reason, null);
      return;
    }
    const entry = this.queue[0];
    this.terminate(
      { kind: 'protocol', message: `malformed response: ${err.message}` },
      entry === undefined
        ? null
        : { code: 'malformed-response', message: err.message, retryable: false, bodyBytesReceived: entry.bodyBytes },
      'pipeline-aborted',
    );
  }

  /**
   * Ends the connection: fails every unsettled request (the first one with
   * `first` if given, the others retryable with `restCode` or the code that
   * matches `how`), closes the transport, reports onClosed.
   */
  private terminate(
    how: { kind: ConnectionClosed['kind']; message: string },
    first: RequestFailure | null,
    restCode?: RequestFailureCode,
  ): void {
    if (this.finished) return;
    this.finished = true;
    const pending = this.queue.splice(0);
    const unanswered = pending.filter((e) => !e.settled).length;
    const unsafe = this.connection.closed(unanswered, how.kind === 'eof' || how.kind === 'error');
    if (unsafe) this.emit(() => this.events.onPipelineUnsafe?.(unsafe));
    const code: RequestFailureCode =
      restCode ??
      (how.kind === 'eof'
        ? 'connection-closed'
        : how.kind === 'local'
          ? 'closed-locally'
          : how.kind === 'error'
            ? 'connection-error'
            : 'pipeline-aborted');
    const retry: Entry[] = [];
    pending.forEach((entry, k) => {
      if (entry.settled) return;
      const failure: RequestFailure =
        k === 0 && first !== null
          ? first
          : { code, message: `request #${entry.seq} not answered: ${how.message}`, retryable: true, bodyBytesReceived: entry.bodyBytes };
      if (failure.retryable) retry.push(entry);
      this.fail(entry, failure);
    });
    try {
      this.transport.close(); // idempotent; also releases a transport that reported its own close
    } catch (err) {
      this.callbackErrors.push(err);
    }
    const closed: ConnectionClosed = {
      kind: how.kind,
      message: how.message,
      answered: this.connection.responsesCompleted,
      retry,
      pipelineUnsafe: this.connection.pipelineUnsafe,
    };
    this.emit(() => this.events.onClosed?.(closed));
  }

  private fail(entry: Entry, failure: RequestFailure): void {
    entry.state = 'failed';
    entry.failure = failure;
    this.emit(() => entry.events.onFailed?.(failure));
  }

  /** Runs a caller's callback; an exception is kept and rethrown once the client's state is consistent. */
  private emit(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.callbackErrors.push(err);
    }
  }

  private rethrowCallbackErrors(): void {
    if (this.processing || this.callbackErrors.length === 0) return;
    const errors = this.callbackErrors.splice(0);
    if (errors.length === 1) {
      throw new Error(`PipelinedClient: a callback threw: ${errorText(errors[0])}`, { cause: errors[0] });
    }
    throw new AggregateError(errors, `PipelinedClient: ${errors.length} callbacks threw; first: ${errorText(errors[0])}`);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
