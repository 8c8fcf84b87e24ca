/**
 * One page session in the service worker: the
 * requests of one Sprint player instance, arriving through its content
 * script's port. Validates every message again (the content script already
 * did: a compromised renderer could bypass it), applies the URL policy with
 * the page origin the browser reported for the port, bounds outstanding
 * requests and origins, routes each request to the lane of its origin
 * (origin-lane.ts) and streams the outcome back: head, body pieces as base64
 * (extension messaging is JSON) with the host's receive time, end or error.
 * Back-pressure: the page reports the body bytes it has taken (`consumed`);
 * while more than LIMITS.maxUnconsumedBytes posted are not taken, the lanes
 * hold their acks to the host, which then stops reading the sockets.
 */
import {
  LIMITS,
  checkSessionMessage,
  clipReason,
  type PageMessage,
  type RequestErrorCode,
  type WorkerMessage,
} from '../../../player/sprint/extension/protocol';
import { LaneRequest, OriginLane, type LaneEnv, type LaneStats } from './origin-lane';
import { pieceBase64 } from './piece-base64';
import { checkRequestUrl } from './url-policy';

/** What a session needs of its content-script port. */
export interface SessionPort {
  postMessage(msg: WorkerMessage): void;
  disconnect(): void;
}

export interface SessionStats {
  sessionId: number;
  /** When the service worker running this session started (epoch ms): changes when the browser restarted it. */
  workerStartedAt: number;
  pageOrigin: string;
  outstanding: number;
  /** Body bytes posted to the page and not yet reported consumed. */
  unconsumedBytes: number;
  requests: number;
  rejected: number;
  origins: LaneStats[];
}

export class Session {
  private readonly lanes = new Map<string, OriginLane>();
  /** Requests the lanes still hold, by page id. */
  private readonly requests = new Map<number, LaneRequest>();
  private closed = false;
  private requestCount = 0;
  private rejectedCount = 0;
  /** Body bytes posted to the page / reported consumed by it (cumulative). */
  private posted = 0;
  private consumed = 0;
  /** Date.now() of the last request or response byte. */
  private lastActivity = Date.now();

  constructor(
    readonly sessionId: number,
    private readonly port: SessionPort,
    readonly page: { origin: string; hostname: string },
    private readonly env: Omit<LaneEnv, 'pageOrigin'> & { workerStartedAt: number },
  ) {}

  /** Handles one message from the content script (after the hello). */
  handle(raw: unknown): void {
    if (this.closed) return;
    const checked = checkSessionMessage(raw);
    if (!checked.ok) {
      this.reject(checked.id, checked.reason);
      return;
    }
    const m = checked.value;
    if (m.type === 'hello') {
      this.reject(null, 'hello: the session is already open');
      return;
    }
    this.dispatch(m);
  }

  /** Closes every connection of the session; nothing is sent afterwards. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const lane of this.lanes.values()) lane.close();
    this.lanes.clear();
    this.requests.clear();
  }

  /** Ends the session from the worker's side (host gone for good): tells the page why, then disconnects. */
  terminate(code: 'host-failed' | 'worker-disconnected' | 'session-idle', reason: string): void {
    if (this.closed) return;
    this.send({ type: 'closed', code, reason: clipReason(reason) });
    this.close();
    try {
      this.port.disconnect();
    } catch {
      // already disconnected
    }
  }

  /**
   * Closes the session (`closed`, code session-idle, then a disconnect) if no
   * request is held and neither a request nor a response byte came for
   * `idleMs` at `now`; true if it did. background.ts sweeps every session.
   * Only requests and response bytes count: stats/pathInfo polling does not
   * keep a session alive.
   */
  expireIfIdle(now: number = Date.now(), idleMs: number = LIMITS.sessionIdleMs): boolean {
    if (this.closed || this.requests.size > 0 || now - this.lastActivity < idleMs) return false;
    this.terminate(
      'session-idle',
      `no request for ${Math.round((now - this.lastActivity) / 1000)} s: the session is closed to free its slot`,
    );
    return true;
  }

  stats(): SessionStats {
    return {
      sessionId: this.sessionId,
      workerStartedAt: this.env.workerStartedAt,
      pageOrigin: this.page.origin,
      outstanding: this.outstanding(),
      unconsumedBytes: this.posted - this.consumed,
      requests: this.requestCount,
      rejected: this.rejectedCount,
      origins: [...this.lanes.values()].map((l) => l.stats()),
    };
  }

  private dispatch(m: PageMessage): void {
    switch (m.type) {
      case 'request':
        this.request(m.id, m.url, m.range);
        return;
      case 'cancel': {
        const r = this.requests.get(m.id);
        if (r) this.lanes.get(r.target.origin)?.cancel(r);
        return;
      }
      case 'pathInfo': {
        let origin: string | null = null;
        try {
          const u = new URL(m.origin);
          origin = u.origin === m.origin ? u.origin : null;
        } catch {
          origin = null;
        }
        const lane = origin === null ? undefined : this.lanes.get(origin);
        if (!lane) {
          this.send({ type: 'result', id: m.id, value: null });
          return;
        }
        void lane.pathInfo().then((value) => this.send({ type: 'result', id: m.id, value }));
        return;
      }
      case 'stats':
        this.send({ type: 'result', id: m.id, value: this.stats() });
        return;
      case 'consumed': {
        const c = Math.min(m.bytes, this.posted);
        if (c <= this.consumed) return;
        this.consumed = c;
        if (!this.holdAcks()) for (const lane of this.lanes.values()) lane.resumeAcks();
        return;
      }
      case 'close':
        this.close();
        try {
          this.port.disconnect();
        } catch {
          // already gone
        }
        return;
    }
  }

  /** The page is more than LIMITS.maxUnconsumedBytes behind. */
  private holdAcks(): boolean {
    return this.posted - this.consumed >= LIMITS.maxUnconsumedBytes;
  }

  private outstanding(): number {
    let n = 0;
    for (const r of this.requests.values()) if (!r.settled) n += 1;
    return n;
  }

  private request(id: number, url: string, range: { start: number; end: number } | undefined): void {
    this.requestCount += 1;
    this.lastActivity = Date.now();
    if (this.requests.has(id)) {
      this.reject(null, `request id ${id} is already in use`); // not `id`: that would fail the live request on the page
      return;
    }
    const fail = (code: RequestErrorCode, reason: string): void =>
      this.send({ type: 'error', id, code, reason: clipReason(reason), retryable: false });
    // Settled-but-still-on-the-wire requests (cancelled, withheld) count towards a hard bound of twice the limit.
    if (this.outstanding() >= LIMITS.maxOutstanding || this.requests.size >= 2 * LIMITS.maxOutstanding) {
      fail('too-many-requests', `at most ${LIMITS.maxOutstanding} requests may be outstanding per session`);
      return;
    }
    const checked = checkRequestUrl(url, this.page);
    if (!checked.ok) {
      fail(checked.code, checked.reason);
      return;
    }
    const target = checked.target;
    let lane = this.lanes.get(target.origin);
    if (!lane) {
      if (this.lanes.size >= LIMITS.maxOriginsPerSession) {
        fail('too-many-origins', `a session may use at most ${LIMITS.maxOriginsPerSession} media origins`);
        return;
      }
      lane = new OriginLane(target.origin, target, {
        host: this.env.host,
        userAgent: this.env.userAgent,
        log: this.env.log,
        pageOrigin: this.page.origin,
        ...(this.env.stallFloorMs !== undefined ? { stallFloorMs: this.env.stallFloorMs } : {}),
        holdAcks: () => this.holdAcks(),
      });
      this.lanes.set(target.origin, lane);
    }
    const r = new LaneRequest(id, target, range, {
      head: (status, headers, t) => this.send({ type: 'head', id, status, headers, t }),
      data: (bytes, t) => {
        this.posted += bytes.length;
        this.lastActivity = Date.now();
        this.send({ type: 'data', id, t, b64: pieceBase64(bytes) });
      },
      end: (t, bodyBytes) => this.send({ type: 'end', id, t, bodyBytes }),
      error: (code, reason, retryable) => this.send({ type: 'error', id, code, reason: clipReason(reason), retryable }),
      done: () => {
        this.lastActivity = Date.now();
        if (this.requests.get(id) === r) this.requests.delete(id);
      },
    });
    this.requests.set(id, r);
    lane.submit(r);
  }

  private reject(id: number | null, reason: string): void {
    this.rejectedCount += 1;
    this.send({ type: 'rejected', id, reason: clipReason(reason) });
  }

  private send(msg: WorkerMessage): void {
    if (this.closed) return;
    try {
      this.port.postMessage(msg);
    } catch (err) {
      this.env.log(`session ${this.sessionId}: posting to the content script failed (${(err as Error).message}); closing the session`);
      this.close();
    }
  }
}
