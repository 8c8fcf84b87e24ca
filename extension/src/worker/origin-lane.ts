/**
 * One page session's requests to one media origin, on one connection at a
 * time (paper §IV-B1: a train's requests pipelined on a connection Sprint
 * controls; faults).
 *
 * - Pipelined (default): each request is written as soon as it arrives, on
 *   the lane's one keep-alive connection, so responses come back in request
 *   order and the server is never idle inside a train. A server that does not
 *   pipeline correctly (HTTP/1.0, a close after each response, mismatched
 *   responses, unsolicited bytes) puts the lane in sequential mode.
 * - A connection that closes mid-train, or stalls (no byte for max(stall
 *   floor, STALL_RTTS × RTT) while it owes a response, and is closed):
 *   requests that had delivered nothing to the page are re-issued, in order,
 *   on a new connection; one whose response had begun fails
 *   `connection-lost` (retryable). Three connections in a row closing
 *   unanswered, or two stalling, fail the waiting requests
 *   (`origin-unreachable`), so a silent server never wedges the lane.
 * - Responses pass the CORS check (cors.ts) before any byte reaches the page.
 *   A response nobody wants any more with over CUT_MIN_BYTES to come is cut
 *   with its connection, as a browser aborts an HTTP/1.1 fetch; each response
 *   is bounded by LIMITS.maxResponseBytes (`too-large`).
 * - Failure detail goes to the worker's log; the page gets it only when it
 *   may read the response, else the code's fixed text
 *   (player/sprint/extension/protocol.ts, RequestErrorCode).
 *
 * One file: the connection's life, re-issue, the CORS decision and
 * back-pressure all act on the same in-flight list; parsing (src/http/) and
 * the policies (url-policy.ts, cors.ts) are separate.
 */
import { PipelinedClient, type ConnectionClosed, type RequestFailure, type RequestFailureCode } from '../../../src/http/pipeline';
import type { PipelineUnsafeReason } from '../../../src/http/connection-state';
import type { ResponseHead } from '../../../src/http/response-parser';
import {
  LIMITS,
  REQUEST_ERROR_TEXT,
  type ByteRangeMsg,
  type PathInfoValue,
  type RequestErrorCode,
} from '../../../player/sprint/extension/protocol';
import { corsCheck, exposedHeaders } from './cors';
import { HostConnection } from './host-connection';
import { HostCommandError, HostUnavailableError, type NativeHost } from './native-host';
import type { RequestTarget } from './url-policy';

/** Where a request's outcome goes (the session, which forwards to the page). */
export interface RequestSink {
  head(status: number, headers: Record<string, string>, t: number): void;
  data(bytes: Uint8Array, t: number): void;
  end(t: number, bodyBytes: number): void;
  error(code: RequestErrorCode, reason: string, retryable: boolean): void;
  /** The lane holds no more state for this request (its response, if any, has left the wire). Called once. */
  done(): void;
}

export class LaneRequest {
  /** The page was told the outcome (end/error) or cancelled the request. */
  settled = false;
  cancelled = false;
  /** The response's head passed the CORS check (or is same-origin): the page may read what the response says. */
  readable = false;
  /** A head (and maybe body bytes) reached the page: a failure can no longer be retried transparently. */
  delivered = false;
  bodyBytes = 0;
  /** Connections this request was written on. */
  attempts = 0;
  /** Identifies the current attempt; callbacks of older attempts are ignored. */
  token = 0;
  isDone = false;
  /** Body bytes of the current attempt's response seen on the wire (delivered or not), and its announced length. */
  wire: { body: number; length: number | null } | null = null;
  constructor(
    readonly id: number,
    readonly target: RequestTarget,
    readonly range: ByteRangeMsg | undefined,
    readonly sink: RequestSink,
  ) {}
}

export interface LaneEnv {
  /** The live native host (started or restarted on demand). */
  host(): Promise<NativeHost>;
  pageOrigin: string;
  userAgent: string;
  log(line: string): void;
  /** Lower bound of the stall timeout, ms (default STALL_FLOOR_MS; tests lower it). */
  stallFloorMs?: number;
  /** True while the page is too far behind: the host's data is not acknowledged (back-pressure). */
  holdAcks?(): boolean;
}

export interface LaneStats {
  origin: string;
  mode: 'pipelined' | 'sequential';
  unsafeReason: string | null;
  connectionsOpened: number;
  requestsWritten: number;
  responsesCompleted: number;
  /** Requests re-issued on a new connection without the page noticing. */
  reissued: number;
  /** Responses withheld by the CORS check. */
  withheld: number;
  /** Body bytes passed to the page. */
  bodyBytesDelivered: number;
  /** Connections cut to stop an unwanted response (cancelled or withheld). */
  cut: number;
  waiting: number;
  inFlight: number;
}

const MAX_FRUITLESS_CONNECTIONS = 3;
const IDLE_CLOSE_MS = 60_000;
/** A connection owing a response that receives nothing for this long (at least) is stalled. */
const STALL_FLOOR_MS = 8_000;
/** ... or for this many round trips of the connection, if longer. */
const STALL_RTTS = 50;
/** Stalled connections in a row (nothing answered in between) before the waiting requests fail. */
const MAX_STALLS = 2;
/** An unwanted response with more than this left on the wire is cut (connection closed) rather than read. */
const CUT_MIN_BYTES = 64 * 1024;

export class OriginLane {
  mode: 'pipelined' | 'sequential' = 'pipelined';
  private unsafe: PipelineUnsafeReason | null = null;
  private waiting: LaneRequest[] = [];
  private retries: LaneRequest[] = [];
  private conn: HostConnection | null = null;
  private client: PipelinedClient | null = null;
  private opening = false;
  private fruitless = 0;
  private closed = false;
  private pumpScheduled = false;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private stallTimer: ReturnType<typeof setTimeout> | null = null;
  /** Bytes the current connection had read when they last changed, and when (Date.now()). */
  private progress = { bytes: 0, at: 0 };
  /** Connections closed as stalled since a response last completed. */
  private stalls = 0;
  /** Clients cut on purpose (cutIfUnwanted): their close says nothing about the origin. */
  private readonly cutClients = new WeakSet<PipelinedClient>();
  private lastPath: PathInfoValue | null = null;
  private readonly counters = {
    connectionsOpened: 0,
    requestsWritten: 0,
    responsesCompleted: 0,
    reissued: 0,
    withheld: 0,
    bodyBytesDelivered: 0,
    cut: 0,
  };

  constructor(
    readonly origin: string,
    private readonly template: RequestTarget,
    private readonly env: LaneEnv,
  ) {}

  submit(r: LaneRequest): void {
    if (this.closed) {
      this.settleError(r, 'connection-lost', 'the session is closing', false);
      this.finish(r);
      return;
    }
    this.waiting.push(r);
    this.schedulePump();
  }

  /** Stops delivery for `r`; a request still queued is dropped, one on the wire is read and discarded. */
  cancel(r: LaneRequest): void {
    r.cancelled = true;
    r.settled = true;
    const i = this.waiting.indexOf(r);
    if (i >= 0) {
      this.waiting.splice(i, 1);
      this.finish(r);
      return;
    }
    this.cutIfUnwanted(r);
  }

  /**
   * `r` is settled (cancelled or withheld) and its response is the one being
   * received: cut the connection if much of it is still to come. Before its
   * head arrives nothing is done; onHead calls this again.
   */
  private cutIfUnwanted(r: LaneRequest): void {
    if (!r.settled || r.isDone || r.wire === null) return;
    const left = r.wire.length === null ? Infinity : r.wire.length - r.wire.body;
    if (left <= CUT_MIN_BYTES) return;
    const client = this.client;
    if (!client || client.isClosed) return;
    this.counters.cut += 1;
    this.cutClients.add(client);
    this.env.log(
      `${this.origin}: request ${r.id} is no longer wanted with ${Number.isFinite(left) ? `${left} bytes` : 'an unknown length'} to come: cut the connection`,
    );
    queueMicrotask(() => client.close()); // the requests behind it fail retryable and are re-issued (onClientClosed)
  }

  /** The page caught up: acknowledge what the host sent meanwhile. */
  resumeAcks(): void {
    this.conn?.releaseAcks();
  }

  /** Latest TCP_INFO of the lane's connection (read now if one is open), else the last sample, else null. */
  async pathInfo(): Promise<PathInfoValue | null> {
    const conn = this.conn;
    if (conn && !conn.isEnded) {
      try {
        const { info, t } = await conn.tcpInfo();
        this.lastPath = { rttUs: info.rttUs, minRttUs: info.minRttUs, bytesReceived: info.bytesReceived, t };
      } catch (err) {
        this.env.log(`tcpInfo on ${this.origin}: ${(err as Error).message}`);
      }
    }
    return this.lastPath;
  }

  stats(): LaneStats {
    return {
      origin: this.origin,
      mode: this.mode,
      // The message quotes the response (e.g. a Content-Range): only a same-origin page may see it.
      unsafeReason: this.unsafe ? (this.template.sameOrigin ? `${this.unsafe.code}: ${this.unsafe.message}` : this.unsafe.code) : null,
      ...this.counters,
      waiting: this.waiting.length,
      inFlight: this.client?.inFlight ?? 0,
    };
  }

  /** Ends the lane: closes its connection; nothing more is sent to the page. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    const queued = [...this.waiting.splice(0), ...this.retries.splice(0)];
    for (const r of queued) {
      r.settled = true;
      this.finish(r);
    }
    this.client?.close();
  }

  // ---- scheduling ----

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.closed) return;
    this.waiting = this.waiting.filter((r) => {
      if (r.cancelled) this.finish(r);
      return !r.cancelled;
    });
    const client = this.client;
    if (this.waiting.length === 0) {
      this.armIdleClose();
      return;
    }
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    if (client && !client.isClosed) {
      if (!client.canEnqueue) return; // draining: the next connection opens when this one has closed
      if (this.mode === 'sequential') {
        if (client.inFlight === 0) this.write(client, this.waiting.shift() as LaneRequest);
        this.armStallCheck();
        return;
      }
      while (this.waiting.length > 0 && client.canEnqueue && this.mode === 'pipelined')
        this.write(client, this.waiting.shift() as LaneRequest);
      this.armStallCheck();
      return;
    }
    if (!this.opening) void this.openConnection();
  }

  private armIdleClose(): void {
    if (this.idleTimer || !this.client || this.client.isClosed || this.client.inFlight > 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.client && this.client.inFlight === 0 && this.waiting.length === 0) this.client.drain();
    }, IDLE_CLOSE_MS);
  }

  /** The stall timeout of the current connection: a floor, or STALL_RTTS round trips if longer. */
  private stallMs(): number {
    const rttMs = this.lastPath ? this.lastPath.rttUs / 1000 : 0;
    return Math.max(this.env.stallFloorMs ?? STALL_FLOOR_MS, STALL_RTTS * rttMs);
  }

  /** Watches the current connection while it owes responses; closes it when no byte came for stallMs(). */
  private armStallCheck(): void {
    const client = this.client;
    const conn = this.conn;
    if (this.stallTimer || this.closed || !client || !conn || client.isClosed || client.inFlight === 0) return;
    const limit = this.stallMs();
    const every = Math.max(50, Math.floor(limit / 4));
    const tick = (): void => {
      this.stallTimer = null;
      if (this.closed || this.client !== client || client.isClosed || client.inFlight === 0) return;
      const now = Date.now();
      if (conn.bytesRead !== this.progress.bytes || conn.acksHeld) {
        // Progress, or the host is waiting for our ack (the page is behind): not the origin's stall.
        this.progress = { bytes: conn.bytesRead, at: now };
      } else if (now - this.progress.at >= limit) {
        this.stalls += 1;
        this.env.log(
          `${this.origin}: connection ${conn.conn} stalled: no byte for ${now - this.progress.at} ms with ${client.inFlight} responses owed; closing it (stall ${this.stalls} in a row)`,
        );
        client.close(); // in-flight requests fail retryable: undelivered ones are re-issued (onClientClosed)
        return;
      }
      this.stallTimer = setTimeout(tick, every);
    };
    this.stallTimer = setTimeout(tick, every);
  }

  private async openConnection(): Promise<void> {
    this.opening = true;
    try {
      const host = await this.env.host();
      const conn = await HostConnection.open(host, this.template);
      if (this.closed) {
        conn.close();
        return;
      }
      this.counters.connectionsOpened += 1;
      if (this.env.holdAcks) conn.setAckGate(this.env.holdAcks);
      // The local address stays in the worker's log (it matches the origin's access log); the page never sees it.
      this.env.log(
        `${this.origin}: connection ${conn.opened.conn} open from ${conn.opened.localAddr} to ${conn.opened.remoteAddr} in ${conn.opened.connectMs.toFixed(1)} ms`,
      );
      this.lastPath = {
        rttUs: Math.round(conn.opened.connectMs * 1000),
        minRttUs: Math.round(conn.opened.connectMs * 1000),
        bytesReceived: 0,
        t: conn.opened.t,
      };
      const client = new PipelinedClient(conn, {
        onPipelineUnsafe: (reason) => this.markUnsafe(reason),
        onClosed: (closed) => this.onClientClosed(client, closed),
      });
      this.conn = conn;
      this.client = client;
      conn.attach(client);
    } catch (err) {
      const { code, retryable, reason } = openErrorOutcome(err);
      this.env.log(`open ${this.origin} failed: ${reason}`);
      for (const r of this.waiting.splice(0)) {
        this.settleError(r, code, `cannot connect to ${this.origin}: ${reason}`, retryable);
        this.finish(r);
      }
    } finally {
      this.opening = false;
      this.schedulePump();
    }
  }

  private markUnsafe(reason: PipelineUnsafeReason): void {
    if (this.mode === 'pipelined') {
      this.env.log(`${this.origin}: switching to sequential requests: ${reason.code}: ${reason.message}`);
      this.mode = 'sequential';
      this.unsafe = reason;
    }
  }

  private onClientClosed(client: PipelinedClient, closed: ConnectionClosed): void {
    if (this.client === client) {
      this.client = null;
      this.conn = null;
    }
    if (closed.pipelineUnsafe) this.markUnsafe(closed.pipelineUnsafe);
    const retries = this.retries.splice(0).filter((r) => {
      if (r.cancelled) this.finish(r);
      return !r.cancelled;
    });
    if (this.stallTimer) {
      clearTimeout(this.stallTimer);
      this.stallTimer = null;
    }
    if (closed.answered > 0 || this.cutClients.has(client)) this.fruitless = 0;
    else if (closed.retry.length > 0) this.fruitless += 1;
    this.counters.reissued += retries.length;
    this.waiting = [...retries, ...this.waiting];
    if (this.stalls >= MAX_STALLS && this.waiting.length > 0) {
      const why = `${this.stalls} connections in a row to ${this.origin} stalled (no byte for ${this.stallMs()} ms while a response was owed)`;
      this.stalls = 0;
      this.fruitless = 0;
      for (const r of this.waiting.splice(0)) {
        this.settleError(r, 'origin-unreachable', why, false);
        this.finish(r);
      }
    }
    if (this.fruitless >= MAX_FRUITLESS_CONNECTIONS && this.waiting.length > 0) {
      const why = `${this.fruitless} connections in a row to ${this.origin} closed without answering (${closed.kind}: ${closed.message})`;
      this.fruitless = 0;
      for (const r of this.waiting.splice(0)) {
        this.settleError(r, 'origin-unreachable', why, false);
        this.finish(r);
      }
    }
    this.schedulePump();
  }

  private write(client: PipelinedClient, r: LaneRequest): void {
    r.attempts += 1;
    r.token += 1;
    r.readable = false;
    r.wire = null;
    const token = r.token;
    const live = (): boolean => r.token === token && !this.closed;
    const t = r.target;
    this.counters.requestsWritten += 1;
    // A connection that owed nothing starts its stall clock with this request.
    if (client.inFlight === 0) this.progress = { bytes: this.conn?.bytesRead ?? 0, at: Date.now() };
    try {
      client.enqueue(
        {
          host: t.host,
          target: t.target,
          ...(r.range ? { range: { first: r.range.start, last: r.range.end } } : {}),
          userAgent: this.env.userAgent,
          ...(t.sameOrigin ? {} : { origin: this.env.pageOrigin }),
        },
        {
          onHead: (head, atMs) => {
            if (!live()) return;
            r.wire = { body: 0, length: head.framing.kind === 'length' ? head.framing.length : head.framing.kind === 'none' ? 0 : null };
            this.onHead(r, head, atMs);
            this.cutIfUnwanted(r);
          },
          onBody: (piece, atMs) => {
            if (!live()) return;
            if (r.wire) r.wire.body += piece.length;
            this.onBody(r, piece, atMs);
          },
          onComplete: (result) => {
            if (!live()) return;
            this.counters.responsesCompleted += 1;
            this.fruitless = 0;
            this.stalls = 0;
            if (!r.settled) {
              r.settled = true;
              r.sink.end(result.endAtMs, r.bodyBytes);
            }
            this.finish(r);
            this.schedulePump();
          },
          onFailed: (failure) => live() && this.onFailed(r, failure),
        },
      );
    } catch (err) {
      // Only an invalid request gets here (the URL policy should have refused it) or a closed client.
      this.settleError(r, 'forbidden-url', `the request cannot be written: ${(err as Error).message}`, false);
      this.finish(r);
    }
  }

  private onHead(r: LaneRequest, head: ResponseHead, atMs: number): void {
    if (r.settled) return;
    const cors = corsCheck(this.env.pageOrigin, this.origin, head.headers);
    if (!cors.ok) {
      this.counters.withheld += 1;
      this.settleError(r, 'cors', `response withheld: ${cors.reason}`, false);
      return;
    }
    r.readable = true;
    const headers = exposedHeaders(head.headers, r.target.sameOrigin);
    const names = Object.keys(headers);
    const chars = names.reduce((n, k) => n + k.length + (headers[k] as string).length, 0);
    if (names.length > LIMITS.maxHeaderFields || chars > LIMITS.maxHeaderChars) {
      this.settleError(
        r,
        'unusable-response',
        `the response has ${names.length} header fields (${chars} characters); at most ${LIMITS.maxHeaderFields} (${LIMITS.maxHeaderChars}) are passed on`,
        false,
      );
      return;
    }
    if (head.framing.kind === 'length' && head.framing.length > LIMITS.maxResponseBytes) {
      this.tooLarge(r, `the response announces ${head.framing.length} body bytes`);
      return;
    }
    r.delivered = true;
    r.sink.head(head.status, headers, atMs);
  }

  private onBody(r: LaneRequest, piece: Uint8Array, atMs: number): void {
    if (r.settled) return;
    if (r.bodyBytes + piece.length > LIMITS.maxResponseBytes) {
      this.tooLarge(r, `the body exceeds ${LIMITS.maxResponseBytes} bytes`);
      return;
    }
    r.bodyBytes += piece.length;
    this.counters.bodyBytesDelivered += piece.length;
    for (let at = 0; at < piece.length; at += LIMITS.maxPieceBytes)
      r.sink.data(piece.subarray(at, Math.min(piece.length, at + LIMITS.maxPieceBytes)), atMs);
  }

  private tooLarge(r: LaneRequest, why: string): void {
    this.settleError(r, 'too-large', `${why}; the limit is ${LIMITS.maxResponseBytes}`, false);
    // Stop the bytes: the requests behind it are re-issued on a new connection.
    const client = this.client;
    queueMicrotask(() => client?.close());
  }

  private onFailed(r: LaneRequest, failure: RequestFailure): void {
    if (r.settled) {
      this.finish(r);
      return;
    }
    if (failure.retryable && !r.delivered && !this.closed) {
      this.retries.push(r); // re-issued from onClientClosed, which follows
      return;
    }
    this.settleError(r, failureCode(failure.code), `${failure.code}: ${failure.message}`, failure.retryable);
    this.finish(r);
  }

  private settleError(r: LaneRequest, code: RequestErrorCode, reason: string, retryable: boolean): void {
    if (r.settled) return;
    r.settled = true;
    this.env.log(`${this.origin}: request ${r.id} failed: ${code}: ${reason}`);
    const readable = (r.target.sameOrigin || r.readable) && code !== 'unreachable';
    r.sink.error(code, readable ? reason : REQUEST_ERROR_TEXT[code], retryable);
  }

  private finish(r: LaneRequest): void {
    if (r.isDone) return;
    r.isDone = true;
    r.sink.done();
  }
}

function failureCode(code: RequestFailureCode): RequestErrorCode {
  switch (code) {
    case 'malformed-response':
      return 'malformed-response';
    case 'unusable-response':
      return 'unusable-response';
    default:
      return 'connection-lost';
  }
}

/** Maps an `open` failure to the page's error code. */
function openErrorOutcome(err: unknown): { code: RequestErrorCode; retryable: boolean; reason: string } {
  if (err instanceof HostCommandError) {
    const map: Record<string, RequestErrorCode> = {
      forbidden_address: 'unreachable',
      forbidden_port: 'forbidden-port',
      dns_failed: 'unreachable',
      connect_failed: 'unreachable',
      tls_failed: 'unreachable',
      too_many_connections: 'too-many-connections',
    };
    const code = map[err.code] ?? 'host-error';
    // `unreachable` is never retryable: a retryable connect failure would tell a closed port from a dead name.
    return { code, retryable: code === 'too-many-connections', reason: err.message };
  }
  if (err instanceof HostUnavailableError) return { code: 'host-error', retryable: false, reason: err.message };
  return { code: 'host-error', retryable: false, reason: (err as Error).message ?? String(err) };
}
