// One client connection of the demo origin: HTTP/1.1 keep-alive with
// pipelining (RFC 9112 §9.3). Every request is parsed as soon as its bytes
// arrive, even while an earlier response is still streaming, and stamped with
// that arrival time, so the access log shows whether a train of pipelined
// requests kept the server busy (paper §IV-B1: request k+1 must arrive before
// response k ends). Responses go out strictly in request order, each body in
// pieces that respect socket backpressure. At most `maxQueuedRequests` parsed
// requests wait; beyond that the socket is paused (TCP pushes back on the
// client) rather than anything being refused. The connection-level fault
// options (request limit, close after each response, HTTP/1.0, cut mid-body,
// delay, misordering) are applied here.
//
// Size (516 lines): the connection state machine (parse, queue, respond in
// order, close with linger) and the fault options it applies are one unit;
// parsing and routing are in request-parser.ts and routes.ts.

import type * as net from 'net';
import { PIECE_BYTES, type BodySource } from './body-source';
import { nowMs, type AccessLog, type AccessRecord } from './access-log';
import type { ResolvedOriginOptions } from './options';
import type { Pacer } from './pacer';
import type { RangeOutcome } from './range';
import { hasToken, isParseError, RequestParser, type ParsedRequest, type ParseResult } from './request-parser';
import { errorPlan, STATUS_TEXT, type ResponsePlan } from './responses';

/** State shared by all connections of one origin. */
export interface ConnectionContext {
  readonly options: ResolvedOriginOptions;
  readonly log: AccessLog;
  /** Plans the response to a well-formed request; rejections become 500. */
  readonly plan: (req: ParsedRequest) => Promise<ResponsePlan>;
  /** Responses the `resetAfterBytes` fault may still cut (shared, counts down). */
  readonly faults: { resetsLeft: number };
  /** Origin-wide body pacing (`rateLimitBitsPerSec`), or null. */
  readonly pacer: Pacer | null;
  /** Reports an unexpected server-side error (500 responses, body read failures). */
  readonly reportError: (message: string) => void;
}

interface QueuedRequest {
  readonly seq: number;
  readonly req: ParseResult;
}

/** An access record being filled in while its response is written. */
interface Pending {
  readonly seq: number;
  readonly method: string | null;
  readonly url: string | null;
  readonly version: string | null;
  readonly range: string | null;
  readonly userAgent: string | null;
  readonly arrival: number;
  rangeOutcome: RangeOutcome;
  status: number | null;
  bytes: number;
  headBytes: number;
  bodyBytesExpected: number;
  start: number | null;
  connectionClose: boolean;
  logged: boolean;
}

type CloseState = 'open' | 'ending' | 'closed';

export class Connection {
  private readonly parser: RequestParser;
  private readonly queue: QueuedRequest[] = [];
  private readonly remote: string;
  private nextSeq = 0;
  private answered = 0;
  private busy = false;
  private paused = false;
  private parserFailed = false;
  private clientEnded = false;
  private state: CloseState = 'open';
  private current: Pending | null = null;
  /** Why the origin killed the socket, for the record of the response in progress. */
  private killReason: string | null = null;
  private socketError: NodeJS.ErrnoException | null = null;
  private lingerTimer: NodeJS.Timeout | null = null;
  private delayTimer: { timer: NodeJS.Timeout; resolve: () => void } | null = null;
  private readonly closed: Promise<void>;
  private peak = 0;
  /** closeWhenIdle(): requests from this sequence number on are not answered (null: no close asked). */
  private closeBeforeSeq: number | null = null;

  constructor(
    readonly id: number,
    private readonly socket: net.Socket,
    private readonly ctx: ConnectionContext,
  ) {
    const o = ctx.options;
    this.parser = new RequestParser({ maxHeadBytes: o.maxHeaderBytes });
    this.remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    this.closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.setNoDelay(true);
    if (o.idleTimeoutMs > 0) socket.setTimeout(o.idleTimeoutMs, () => this.onIdle());
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onClientEnd());
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!this.socketError) this.socketError = err;
    });
    socket.once('close', () => this.onClose());
  }

  /** Resolves once the socket is fully closed and every record of it is logged. */
  whenClosed(): Promise<void> {
    return this.closed;
  }

  /** A method, not a field test, so checks after an await are not narrowed away by the compiler. */
  private isClosed(): boolean {
    return this.state === 'closed';
  }

  /** Most parsed requests that were waiting at once on this connection. */
  get peakQueued(): number {
    return this.peak;
  }

  /**
   * Ends the connection once it has answered the requests it has read so
   * far: now if it is idle, else after those responses. Requests read later
   * are logged unanswered (`not-answered`), as on any server that closes a
   * keep-alive connection. Returns whether it was idle.
   */
  closeWhenIdle(): boolean {
    if (this.state !== 'open') return false;
    this.closeBeforeSeq ??= this.nextSeq;
    const idle = !this.busy && this.queue.length === 0;
    // pump() ends it once nothing read before the call is left to answer.
    this.pump();
    return idle;
  }

  /** Destroys the socket now; the response in progress is logged with `reason`. */
  destroy(reason: string): void {
    if (this.isClosed()) return;
    if (!this.killReason) this.killReason = reason;
    this.socket.destroy();
  }

  // ---- Reading: parse as bytes arrive, bounded queue --------------------------------

  private onData(chunk: Buffer): void {
    const time = nowMs();
    if (this.state === 'closed' || this.parserFailed) return;
    // While ending, requests are parsed only so the log can show them unanswered.
    if (this.state === 'ending' && this.queue.length >= this.ctx.options.maxQueuedRequests) return;
    this.parser.feed(chunk, time);
    this.parseQueued();
    this.pump();
  }

  private parseQueued(): void {
    const max = this.ctx.options.maxQueuedRequests;
    while (this.queue.length < max && !this.parserFailed) {
      const req = this.parser.next();
      if (req === null) break;
      this.queue.push({ seq: this.nextSeq, req });
      this.nextSeq += 1;
      if (isParseError(req)) this.parserFailed = true;
    }
    if (this.queue.length > this.peak) this.peak = this.queue.length;
    const full = this.queue.length >= max;
    if (this.state === 'open' && full && !this.paused) {
      this.paused = true;
      this.socket.pause();
    } else if (this.paused && (!full || this.state !== 'open')) {
      this.paused = false;
      this.socket.resume();
    }
  }

  private onClientEnd(): void {
    this.clientEnded = true;
    // Once ending, the socket closes by itself when our FIN is out (autoDestroy).
    if (this.state === 'open') this.pump();
  }

  private onIdle(): void {
    if (this.state !== 'open') return;
    if (!this.busy && this.queue.length === 0) this.endGracefully();
    else this.destroy('idle-timeout');
  }

  // ---- Answering: strictly in order, one at a time ---------------------------------

  private pump(): void {
    if (this.busy || this.state !== 'open') return;
    const limit = this.closeBeforeSeq;
    if (limit !== null && !this.queue.some((q) => q.seq < limit)) {
      // closeWhenIdle(): everything read before it is answered.
      this.endGracefully();
      return;
    }
    const item = this.takeNext();
    if (!item) {
      // The client half-closed and everything it sent is answered (a partial head can never complete).
      if (this.clientEnded) this.endGracefully();
      return;
    }
    this.busy = true;
    this.respond(item).then(
      () => {
        this.busy = false;
        this.pump();
      },
      (err: unknown) => {
        this.busy = false;
        const message = err instanceof Error ? err.message : String(err);
        this.ctx.reportError(`connection ${this.id}: ${message}`);
        this.destroy(`server-error: ${message}`);
      },
    );
  }

  private takeNext(): QueuedRequest | undefined {
    // Fault: a broken intermediary answering the later of two waiting requests first.
    const index = this.ctx.options.misorderResponses && this.queue.length >= 2 ? 1 : 0;
    const [item] = this.queue.splice(index, 1);
    if (item) this.parseQueued();
    return item;
  }

  private async respond(item: QueuedRequest): Promise<void> {
    const o = this.ctx.options;
    const req = item.req;
    const pending: Pending = {
      seq: item.seq,
      method: req.method,
      url: req.target,
      version: isParseError(req) ? null : req.version,
      range: isParseError(req) ? null : (req.headers.get('range') ?? null),
      userAgent: isParseError(req) ? null : (req.headers.get('user-agent') ?? null),
      arrival: req.arrival,
      rangeOutcome: 'none',
      status: null,
      bytes: 0,
      headBytes: 0,
      bodyBytesExpected: 0,
      start: null,
      connectionClose: false,
      logged: false,
    };
    this.current = pending;

    let plan: ResponsePlan;
    if (isParseError(req)) {
      plan = errorPlan(req.status, req.message, { noCors: o.noCors, forceClose: true });
    } else {
      try {
        plan = await this.ctx.plan(req);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.ctx.reportError(`${req.method} ${req.target}: ${message}`);
        plan = errorPlan(500, message, { noCors: o.noCors, head: req.method === 'HEAD' });
      }
    }
    const body = plan.body;
    try {
      if (o.latencyMs > 0) {
        // Emulated RTT: the first byte leaves no earlier than arrival + latency.
        const wait = req.arrival + o.latencyMs - nowMs();
        if (wait > 0) await this.delay(wait);
      }
      if (o.delayMs > 0) await this.delay(o.delayMs);
      if (this.isClosed()) return; // onClose logged the record
      await this.writeResponse(req, plan, pending);
    } finally {
      await body?.close();
    }
  }

  private async writeResponse(req: ParseResult, plan: ResponsePlan, pending: Pending): Promise<void> {
    const o = this.ctx.options;
    const requestVersion = isParseError(req) ? 'HTTP/1.1' : req.version;
    const responseVersion = o.http10 || requestVersion === 'HTTP/1.0' ? 'HTTP/1.0' : 'HTTP/1.1';
    const connectionHeader = isParseError(req) ? undefined : req.headers.get('connection');
    const clientKeepsAlive =
      requestVersion === 'HTTP/1.1' ? !hasToken(connectionHeader, 'close') : hasToken(connectionHeader, 'keep-alive');
    const close =
      plan.forceClose || !clientKeepsAlive || o.http10 || o.closeAfterEachResponse || this.answered + 1 >= o.maxRequestsPerConnection;

    const lines = [`${responseVersion} ${plan.status} ${STATUS_TEXT[plan.status] ?? 'Unknown'}`];
    lines.push(`Date: ${new Date().toUTCString()}`, 'Server: sprint-origin');
    for (const [name, value] of plan.headers) lines.push(`${name}: ${value}`);
    lines.push(`Content-Length: ${plan.contentLength}`);
    if (close) lines.push('Connection: close');
    else if (responseVersion === 'HTTP/1.0') lines.push('Connection: keep-alive');
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');

    pending.status = plan.status;
    pending.headBytes = head.length;
    pending.rangeOutcome = plan.rangeOutcome;
    pending.bodyBytesExpected = plan.body ? plan.body.length : 0;
    pending.connectionClose = close;

    // Fault: cut a media body after exactly N bytes (once per `resetCount`).
    let cutAfter: number | null = null;
    const body = plan.body;
    const faultHere = o.faultPath === null || (!isParseError(req) && req.target.split('?')[0]!.includes(o.faultPath));
    if (
      plan.media &&
      body &&
      faultHere &&
      o.resetAfterBytes !== null &&
      body.length > o.resetAfterBytes &&
      this.ctx.faults.resetsLeft > 0
    ) {
      this.ctx.faults.resetsLeft -= 1;
      cutAfter = o.resetAfterBytes;
    }
    const toSend = cutAfter ?? (body ? body.length : 0);

    // The head goes out together with the first body piece.
    let first: Buffer | null = null;
    if (body && toSend > 0) first = await this.readPiece(body, toSend, pending);
    if (first && this.ctx.pacer) await this.ctx.pacer.take(first.length);
    if (this.isClosed()) return;
    pending.start = nowMs();
    let sent = 0;
    if (!first || first.length >= toSend) {
      // Whole response in one write.
      const ok = await this.writeAndWait(first ? Buffer.concat([head, first]) : head, first ? first.length : 0, pending);
      if (!ok) return;
      sent = first ? first.length : 0;
    } else {
      this.socket.cork();
      this.writeCounted(head, 0, pending);
      const more = this.writeCounted(first, first.length, pending);
      this.socket.uncork();
      sent = first.length;
      if (!more && !(await this.drained())) return;
      while (sent < toSend) {
        const piece = await this.readPiece(body as BodySource, toSend - sent, pending);
        if (this.ctx.pacer) await this.ctx.pacer.take(piece.length);
        if (this.isClosed()) return;
        sent += piece.length;
        if (sent >= toSend) {
          if (!(await this.writeAndWait(piece, piece.length, pending))) return;
        } else if (!this.writeCounted(piece, piece.length, pending) && !(await this.drained())) {
          return;
        }
      }
    }
    this.answered += 1;

    if (cutAfter !== null && o.resetWith === 'stall') {
      // Nothing more on this connection: it stays open, silent, until the client closes it.
      this.finish(pending, false, 'fault-stall-after-bytes');
      await this.closed;
      return;
    }
    if (cutAfter !== null) {
      this.finish(pending, false, 'fault-reset-after-bytes');
      if (o.resetWith === 'rst') {
        this.killReason = 'fault-reset-after-bytes';
        this.socket.resetAndDestroy();
      } else {
        this.endGracefully();
      }
      return;
    }
    this.finish(pending, true, null);
    if (close) this.endGracefully();
  }

  /** Reads the next piece; a read failure kills the connection (the promised length cannot be met). */
  private async readPiece(body: BodySource, remaining: number, pending: Pending): Promise<Buffer> {
    try {
      const piece = await body.read(Math.min(this.ctx.pacer?.pieceBytes ?? PIECE_BYTES, PIECE_BYTES, remaining));
      if (!piece || piece.length === 0) throw new Error(`body ended with ${remaining} bytes still to send`);
      return piece;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.ctx.reportError(`connection ${this.id} seq ${pending.seq} ${pending.url ?? ''}: ${message}`);
      this.destroy(`body-error: ${message}`);
      await this.closed;
      return Buffer.alloc(0);
    }
  }

  /** Writes and counts `bodyBytes` into the record when the kernel has them. False = socket buffer full. */
  private writeCounted(buf: Buffer, bodyBytes: number, pending: Pending): boolean {
    return this.socket.write(buf, (err?: Error | null) => {
      if (!err) pending.bytes += bodyBytes;
    });
  }

  /** Writes and waits until the kernel has the bytes; false if the socket closed first. */
  private writeAndWait(buf: Buffer, bodyBytes: number, pending: Pending): Promise<boolean> {
    if (this.isClosed()) return Promise.resolve(false);
    return this.untilClose((done) => {
      this.socket.write(buf, (err?: Error | null) => {
        if (!err) pending.bytes += bodyBytes;
        done(!err);
      });
    });
  }

  /** Waits for 'drain'; false if the socket closed first. */
  private drained(): Promise<boolean> {
    if (this.isClosed()) return Promise.resolve(false);
    return this.untilClose((done) => {
      const onDrain = (): void => done(true);
      this.socket.once('drain', onDrain);
      return () => this.socket.off('drain', onDrain);
    });
  }

  /**
   * Runs `start`, resolving with what it reports or with false when the socket
   * closes first. Listeners are removed either way, so a long body (one wait
   * per piece) does not accumulate them.
   */
  private untilClose(start: (done: (ok: boolean) => void) => (() => void) | void): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let settled = false;
      // assigned once, but after `finish` (which `start` may call at once) reads it: const would be in its dead zone
      // eslint-disable-next-line prefer-const
      let cleanup: (() => void) | void;
      const finish = (ok: boolean): void => {
        if (settled) return;
        settled = true;
        this.socket.off('close', onClose);
        if (cleanup) cleanup();
        resolve(ok);
      };
      const onClose = (): void => finish(false);
      this.socket.once('close', onClose);
      cleanup = start(finish);
      if (settled && cleanup) cleanup();
    });
  }

  private delay(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.delayTimer = null;
        resolve();
      }, ms);
      this.delayTimer = { timer, resolve };
    });
  }

  // ---- Closing ----------------------------------------------------------------------

  /**
   * Half-closes (FIN after everything written) and keeps reading, discarding,
   * until the client closes or `lingerMs` passes: closing outright while the
   * client is still sending would make the kernel answer with a reset that can
   * destroy responses the client has not read yet.
   */
  private endGracefully(): void {
    if (this.state !== 'open') return;
    this.state = 'ending';
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    this.socket.end();
    // If the client already half-closed, 'close' follows once our FIN is out; the timer is a backstop.
    this.lingerTimer = setTimeout(() => this.socket.destroy(), this.ctx.options.lingerMs);
    this.lingerTimer.unref();
  }

  private finish(pending: Pending, complete: boolean, error: string | null): void {
    if (pending.logged) return;
    pending.logged = true;
    if (this.current === pending) this.current = null;
    const record: AccessRecord = {
      conn: this.id,
      seq: pending.seq,
      remote: this.remote,
      method: pending.method,
      url: pending.url,
      version: pending.version,
      range: pending.range,
      rangeOutcome: pending.rangeOutcome,
      status: pending.status,
      bytes: pending.bytes,
      headBytes: pending.headBytes,
      bodyBytesExpected: pending.bodyBytesExpected,
      arrival: pending.arrival,
      start: pending.start,
      end: nowMs(),
      complete,
      error,
      connectionClose: pending.connectionClose,
      userAgent: pending.userAgent,
    };
    this.ctx.log.add(record);
  }

  private closeError(): string {
    if (this.killReason) return this.killReason;
    const code = this.socketError?.code;
    if (code === 'ECONNRESET') return 'client-reset';
    if (code === 'EPIPE' || code === undefined) return 'client-closed';
    return `socket-error: ${code}`;
  }

  private onClose(): void {
    this.state = 'closed';
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    if (this.delayTimer) {
      clearTimeout(this.delayTimer.timer);
      this.delayTimer.resolve();
      this.delayTimer = null;
    }
    if (this.current) this.finish(this.current, false, this.closeError());
    // Requests that arrived but were never answered, including complete heads still buffered.
    if (!this.parserFailed) {
      for (let r = this.parser.next(); r !== null; r = this.parser.next()) {
        this.queue.push({ seq: this.nextSeq, req: r });
        this.nextSeq += 1;
        if (isParseError(r)) break;
      }
    }
    this.queue.sort((a, b) => a.seq - b.seq);
    for (const { seq, req } of this.queue) {
      this.finish(
        {
          seq,
          method: req.method,
          url: req.target,
          version: isParseError(req) ? null : req.version,
          range: isParseError(req) ? null : (req.headers.get('range') ?? null),
          userAgent: isParseError(req) ? null : (req.headers.get('user-agent') ?? null),
          arrival: req.arrival,
          rangeOutcome: 'none',
          status: null,
          bytes: 0,
          headBytes: 0,
          bodyBytesExpected: 0,
          start: null,
          connectionClose: false,
          logged: false,
        },
        false,
        'not-answered',
      );
    }
    this.queue.length = 0;
  }
}
