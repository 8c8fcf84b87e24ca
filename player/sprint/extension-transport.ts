/**
 * TrainTransport over the Sprint extension's sockets (paper §IV-B1: a train's
 * requests pipelined on a connection Sprint controls): the page side of the
 * session protocol in ./extension/protocol.ts. Each `request` is one message
 * on the private port; the extension writes it on its origin's connection
 * behind those in flight and streams the response back in request order.
 *
 *   const found = await detectExtension(1500);
 *   if (found.ok) scheduler.use(found.transport); else console.log(found.reason);
 *
 * Failures are `onError(reason, retryable)`; a session that ends is said
 * hello to again a bounded number of times, else the transport becomes
 * `unavailable` and the player falls back. The page reports the body bytes it
 * consumed, so a page that stops reading stops the download (back-pressure).
 * The whole contract: docs/design/08-extension-transport.md.
 * Browser code: DOM APIs only, no Node.
 */
import { openSession, type SessionOpen } from './extension/handshake';
import {
  checkExtensionMessage,
  describeRequestError,
  LIMITS,
  type ExtensionMessage,
  type PageMessage,
  type PathInfoValue,
  type UnavailableCode,
  type WelcomeInfo,
} from './extension/protocol';
import type { PathInfo, RequestTicket, ResponseSink, TrainRequest, TrainTransport } from './train-transport';

export type ExtensionTransportState = 'open' | 'reconnecting' | 'unavailable' | 'closed';

export interface ExtensionTransportOptions {
  win?: Window;
  /** How long the extension may take to acknowledge a hello, ms. Default 1500. */
  presenceTimeoutMs?: number;
  /** How long the extension may take to confirm its socket host, ms. Default 10000. */
  handshakeTimeoutMs?: number;
  /** Delays before each re-handshake after the session closed, ms. Default [250, 1000, 3000]. */
  reconnectDelaysMs?: readonly number[];
}

export type ExtensionDetection =
  { ok: true; transport: ExtensionTransport; info: string; details: WelcomeInfo } | { ok: false; code: UnavailableCode; reason: string };

/**
 * Looks for the Sprint extension and its socket host. `timeoutMs` bounds the
 * wait for the extension to answer at all (no answer: `no-extension`); the
 * host check that follows has its own bound (`handshakeTimeoutMs`). Never rejects.
 */
export async function detectExtension(
  timeoutMs = 1500,
  options: Omit<ExtensionTransportOptions, 'presenceTimeoutMs'> = {},
): Promise<ExtensionDetection> {
  const o = { ...options, presenceTimeoutMs: timeoutMs };
  const opened = await openSession({ win: o.win, presenceTimeoutMs: timeoutMs, handshakeTimeoutMs: o.handshakeTimeoutMs ?? 10_000 });
  if (!opened.ok) return { ok: false, code: opened.code, reason: `Sprint extension unavailable (${opened.code}): ${opened.reason}` };
  const t = new ExtensionTransport(opened.port, opened.info, o);
  const i = opened.info;
  return {
    ok: true,
    transport: t,
    details: i,
    info: `extension ${i.extensionVersion}, socket host ${i.hostVersion}${i.tcpInfo ? ', TCP_INFO' : ''}`,
  };
}

interface Pending {
  readonly id: number;
  readonly req: TrainRequest;
  readonly sink: ResponseSink;
  gotHead: boolean;
}

interface Query {
  resolve(value: unknown): void;
}

export class ExtensionTransport implements TrainTransport {
  readonly name = 'extension';
  /** The socket host sends no page headers and no cookies (extension/README.md): such loads stay off this transport. */
  readonly carriesPageHeaders = false;
  readonly oneConnection = true;
  private port: MessagePort | null;
  private info: WelcomeInfo;
  private st: ExtensionTransportState = 'open';
  private nextId = 1;
  /** Body bytes received on this session / last reported to the extension as consumed. */
  private taken = 0;
  private reportedTaken = 0;
  private reportScheduled = false;
  /** Set while an expired session waits for the next request to say hello again (why it ended). */
  private lazyReconnect: string | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Requests made while reconnecting, sent once a new session is welcomed. */
  private held: Pending[] = [];
  private readonly queries = new Map<number, Query>();
  private readonly listeners = new Set<(state: ExtensionTransportState, reason: string) => void>();
  private readonly o: Required<Omit<ExtensionTransportOptions, 'win'>> & { win: Window | undefined };
  private reconnects = 0;
  private lastReason = '';

  constructor(port: MessagePort, info: WelcomeInfo, options: ExtensionTransportOptions = {}) {
    this.info = info;
    this.o = {
      win: options.win,
      presenceTimeoutMs: options.presenceTimeoutMs ?? 1500,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
      reconnectDelaysMs: options.reconnectDelaysMs ?? [250, 1000, 3000],
    };
    this.port = port;
    this.attach(port);
  }

  get state(): ExtensionTransportState {
    return this.st;
  }

  /** Why the transport left the `open` state last (empty while it never did). */
  get reason(): string {
    return this.lastReason;
  }

  /** What the extension reported at the (latest) welcome. */
  get details(): WelcomeInfo {
    return this.info;
  }

  /** Sessions re-established after the extension side went away. */
  get reconnectCount(): number {
    return this.reconnects;
  }

  /** TrainTransport: calls `fn` once when the transport becomes unavailable for good. */
  onUnavailable(fn: (reason: string) => void): () => void {
    let fired = false;
    return this.onStateChange((state, reason) => {
      if (state === 'unavailable' && !fired) {
        fired = true;
        fn(reason);
      }
    });
  }

  /** Calls `fn` on every state change; returns the unsubscribe function. */
  onStateChange(fn: (state: ExtensionTransportState, reason: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  request(req: TrainRequest, sink: ResponseSink): RequestTicket {
    const id = this.nextId;
    this.nextId += 1;
    const p: Pending = { id, req, sink, gotHead: false };
    const failSoon = (reason: string, retryable: boolean): RequestTicket => {
      let cancelled = false;
      queueMicrotask(() => cancelled || this.safe(() => sink.onError(reason, retryable)));
      return { cancel: () => (cancelled = true) };
    };
    const problem = checkTrainRequest(req, this.info.limits.maxUrlLength);
    if (problem) return failSoon(`bad request: ${problem}`, false);
    if (this.st === 'closed') return failSoon('the extension transport is closed', false);
    if (this.st === 'unavailable') return failSoon(`the Sprint extension is unavailable: ${this.lastReason}`, false);
    if (this.pending.size + this.held.length >= this.info.limits.maxOutstanding) {
      return failSoon(`at most ${this.info.limits.maxOutstanding} requests may be outstanding`, false);
    }
    if (this.st === 'reconnecting') {
      this.held.push(p);
      const why = this.lazyReconnect;
      if (why !== null) {
        this.lazyReconnect = null;
        void this.reconnect(why);
      }
    } else this.send(p);
    return {
      cancel: () => {
        const i = this.held.indexOf(p);
        if (i >= 0) this.held.splice(i, 1);
        if (this.pending.delete(id)) this.post({ type: 'cancel', id });
      },
    };
  }

  /** TCP_INFO of the connection to `origin` ("scheme://host[:port]"), if the extension has one. */
  async pathInfo(origin: string): Promise<PathInfo | null> {
    const v = (await this.query({ type: 'pathInfo', id: 0, origin })) as PathInfoValue | null;
    if (!v || typeof v.rttUs !== 'number') return null;
    return { rttSec: v.rttUs / 1e6, minRttSec: v.minRttUs > 0 ? v.minRttUs / 1e6 : null, bytesReceived: v.bytesReceived, atMs: v.t };
  }

  /** The extension's view of this session: per origin, mode (pipelined / sequential and why), connections, counters. */
  async stats(): Promise<unknown> {
    return this.query({ type: 'stats', id: 0 });
  }

  close(): void {
    if (this.st === 'closed') return;
    this.end('closed', 'closed by the player', 'the extension transport was closed');
  }

  // ---- internals ----

  private send(p: Pending): void {
    this.pending.set(p.id, p);
    const r = p.req.range;
    this.post({ type: 'request', id: p.id, url: p.req.url, ...(r ? { range: { start: r.start, end: r.end } } : {}) });
  }

  private query(m: { type: 'pathInfo'; id: number; origin: string } | { type: 'stats'; id: number }): Promise<unknown> {
    if (this.st !== 'open' || !this.port) return Promise.resolve(null);
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve) => {
      this.queries.set(id, { resolve });
      this.post({ ...m, id });
    });
  }

  private post(m: PageMessage): void {
    try {
      this.port?.postMessage(m);
    } catch (err) {
      this.lost(`posting to the extension failed: ${(err as Error).message}`);
    }
  }

  private attach(port: MessagePort): void {
    // A new session counts consumed bytes from zero.
    this.taken = 0;
    this.reportedTaken = 0;
    port.onmessage = (ev: MessageEvent) => this.receive(ev.data);
  }

  /** Tells the extension how many body bytes this session has taken, once per task (back-pressure). */
  private reportTaken(): void {
    if (this.reportScheduled) return;
    this.reportScheduled = true;
    queueMicrotask(() => {
      this.reportScheduled = false;
      if (this.st !== 'open' || this.taken === this.reportedTaken) return;
      this.reportedTaken = this.taken;
      this.post({ type: 'consumed', bytes: this.taken });
    });
  }

  /** The transport cannot go on (a lane failed twice): unavailable for good, like a dead host. */
  private giveUp(reason: string): void {
    if (this.st === 'unavailable' || this.st === 'closed') return;
    this.end('unavailable', reason, `unavailable: ${reason}`);
  }

  /** Closes the session for good: every pending or held request fails non-retryable with `failure`. */
  private end(state: 'closed' | 'unavailable', reason: string, failure: string): void {
    this.post({ type: 'close' });
    this.detach();
    this.setState(state, reason);
    const all = [...this.pending.values(), ...this.held];
    this.pending.clear();
    this.held = [];
    for (const p of all) this.safe(() => p.sink.onError(failure, false));
    for (const q of this.queries.values()) q.resolve(null);
    this.queries.clear();
  }

  private detach(): void {
    if (!this.port) return;
    this.port.onmessage = null;
    this.port.close();
    this.port = null;
  }

  private receive(raw: unknown): void {
    const c = checkExtensionMessage(raw, 'bytes');
    if (!c.ok) {
      console.warn(`[sprint] ignored a malformed message from the extension: ${c.reason}`);
      return;
    }
    const m: ExtensionMessage = c.value;
    switch (m.type) {
      case 'head': {
        const p = this.pending.get(m.id);
        if (!p || p.gotHead) return;
        p.gotHead = true;
        this.safe(() => p.sink.onHead(m.status, m.headers, m.t));
        return;
      }
      case 'data': {
        // Every piece counts as taken once it is here, wanted or not: the extension holds the host until we report it.
        this.taken += m.bytes.byteLength;
        this.reportTaken();
        const p = this.pending.get(m.id);
        if (!p || !p.gotHead) return;
        this.safe(() => p.sink.onData(new Uint8Array(m.bytes), m.t));
        return;
      }
      case 'end': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        this.safe(() => p.sink.onEnd(m.t));
        return;
      }
      case 'error': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        this.safe(() => p.sink.onError(describeRequestError(m.code, m.reason), m.retryable));
        if (m.code === 'origin-unreachable') this.giveUp(`a lane failed twice (${describeRequestError(m.code, m.reason)})`);
        return;
      }
      case 'rejected': {
        console.warn(`[sprint] the extension rejected a message: ${m.reason}`);
        const p = m.id === null ? undefined : this.pending.get(m.id);
        if (p) {
          this.pending.delete(p.id);
          this.safe(() => p.sink.onError(`bad-message: ${m.reason}`, false));
        }
        const q = m.id === null ? undefined : this.queries.get(m.id);
        if (q && m.id !== null) {
          this.queries.delete(m.id);
          q.resolve(null);
        }
        return;
      }
      case 'result': {
        const q = this.queries.get(m.id);
        if (q) {
          this.queries.delete(m.id);
          q.resolve(m.value);
        }
        return;
      }
      case 'closed':
        this.lost(`${m.code}: ${m.reason}`, m.code === 'session-idle');
        return;
      default:
        return; // ack / welcome / unavailable belong to the handshake
    }
  }

  /**
   * The session ended under us: fail what was pending (retryable) and say
   * hello again: at once, or (`lazily`, after the worker expired an idle
   * session) when the next request comes.
   */
  private lost(reason: string, lazily = false): void {
    if (this.st !== 'open') return;
    this.detach();
    this.setState('reconnecting', reason);
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) this.safe(() => p.sink.onError(`extension-disconnected: ${reason}`, true));
    for (const q of this.queries.values()) q.resolve(null);
    this.queries.clear();
    if (lazily && pending.length === 0) this.lazyReconnect = reason;
    else void this.reconnect(reason);
  }

  private async reconnect(firstReason: string): Promise<void> {
    let last: SessionOpen | null = null;
    for (const delay of this.o.reconnectDelaysMs) {
      await new Promise((r) => setTimeout(r, delay));
      if (this.st !== 'reconnecting') return;
      last = await openSession({
        win: this.o.win,
        presenceTimeoutMs: this.o.presenceTimeoutMs,
        handshakeTimeoutMs: this.o.handshakeTimeoutMs,
      });
      if (this.st !== 'reconnecting') {
        if (last.ok) last.port.close();
        return;
      }
      if (last.ok) {
        this.port = last.port;
        this.info = last.info;
        this.attach(last.port);
        this.reconnects += 1;
        this.setState('open', `session re-established after: ${firstReason}`);
        const held = this.held;
        this.held = [];
        for (const p of held) this.send(p);
        return;
      }
      if (last.code === 'host-missing' || last.code === 'host-forbidden' || last.code === 'unsupported-protocol') break;
    }
    const why = last && !last.ok ? `${last.code}: ${last.reason}` : 'no attempt was made';
    this.setState('unavailable', `the extension session ended (${firstReason}) and could not be re-established (${why})`);
    const held = this.held;
    this.held = [];
    for (const p of held) this.safe(() => p.sink.onError(`unavailable: ${this.lastReason}`, false));
  }

  private setState(s: ExtensionTransportState, reason: string): void {
    this.st = s;
    this.lastReason = reason;
    for (const fn of this.listeners) this.safe(() => fn(s, reason));
  }

  /** Runs a sink or listener callback; an exception is reported, never allowed to break the message loop. */
  private safe(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      console.error('[sprint] a callback of the extension transport threw', err);
    }
  }
}

/** Page-side check of a TrainRequest against the protocol (the extension checks again); null when fine. */
export function checkTrainRequest(req: TrainRequest, maxUrlLength: number = LIMITS.maxUrlLength): string | null {
  if (typeof req !== 'object' || req === null) return 'not an object';
  if (typeof req.url !== 'string' || req.url.length === 0 || req.url.length > maxUrlLength)
    return `url must be a string of 1..${maxUrlLength} characters`;
  if (!/^https?:\/\//i.test(req.url)) return `only http(s) URLs: ${req.url.slice(0, 100)}`;
  const r = req.range;
  if (r !== undefined) {
    if (!Number.isSafeInteger(r.start) || !Number.isSafeInteger(r.end) || r.start < 0 || r.end < r.start)
      return `range {start: ${r.start}, end: ${r.end}} is not 0 <= start <= end`;
    if (r.end - r.start + 1 > LIMITS.maxResponseBytes) return `range longer than ${LIMITS.maxResponseBytes} bytes`;
  }
  return null;
}
