/**
 * The service worker's side of the native-messaging socket host
 * (extension/host/PROTOCOL.md): one port, a `hello`
 * handshake, commands with ids and promised replies, and events routed to the
 * connection they belong to. Knows nothing of HTTP or pages.
 *
 * The port is abstract (`NativePort`) so the same code runs over
 * `chrome.runtime.connectNative` in the extension and over a child process in
 * Node tests. When the port disconnects (host missing, refused, crashed, or
 * closed by us) every pending command rejects with HostUnavailableError and
 * every open connection gets a `closed` event with reason `error`.
 */
import type { UnavailableCode } from '../../../player/sprint/extension/protocol';
import {
  parseHelloResult,
  parseHostMessage,
  parseOpenResult,
  type HostClosedEvent,
  type HostDataEvent,
  type HostHello,
  type HostOpened,
  type HostTcpInfoEvent,
} from './host-messages';

/** What the worker needs of a native-messaging port. */
export interface NativePort {
  postMessage(msg: unknown): void;
  disconnect(): void;
  /** Registers the message listener (called once). */
  onMessage(fn: (msg: unknown) => void): void;
  /** Registers the disconnect listener (called once); `reason` is chrome.runtime.lastError's message, if any. */
  onDisconnect(fn: (reason: string) => void): void;
}

export const HOST_PROTOCOL = 1;

/** The host cannot be used: not installed, not allowed, crashed, or did not answer. */
export class HostUnavailableError extends Error {
  constructor(
    readonly code: UnavailableCode,
    message: string,
  ) {
    super(message);
    this.name = 'HostUnavailableError';
  }
}

/** The host refused a command (PROTOCOL.md §13 error codes). */
export class HostCommandError extends Error {
  constructor(
    readonly code: string,
    readonly op: string,
    message: string,
  ) {
    super(`${op}: ${code}: ${message}`);
    this.name = 'HostCommandError';
  }
}

/** Receives a connection's events. */
export interface ConnHandler {
  onData(ev: HostDataEvent): void;
  onClosed(ev: HostClosedEvent): void;
  onTcpInfo?(ev: HostTcpInfoEvent): void;
  /** An `ack` was refused for another reason than the connection being gone. */
  onAckRefused?(message: string): void;
}

/** Maps chrome.runtime.lastError messages of connectNative to a stable code. */
export function classifyDisconnect(reason: string): UnavailableCode {
  if (/not found/i.test(reason)) return 'host-missing';
  if (/forbidden/i.test(reason)) return 'host-forbidden';
  return 'host-failed';
}

interface Pending {
  op: string;
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
}

const MAX_ACK_IDS = 4096;

export class NativeHost {
  private readonly port: NativePort;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly conns = new Map<number, ConnHandler>();
  /** ids of acks sent recently (acks are answered only when refused). */
  private readonly ackIds = new Map<number, number>();
  private deadReason: HostUnavailableError | null = null;
  private readonly deathListeners: Array<(err: HostUnavailableError) => void> = [];
  private helloResult: HostHello | null = null;
  private readonly log: (line: string) => void;

  private constructor(port: NativePort, log: (line: string) => void) {
    this.port = port;
    this.log = log;
    port.onMessage((msg) => this.receive(msg));
    port.onDisconnect((reason) =>
      this.die(new HostUnavailableError(classifyDisconnect(reason), `native host disconnected: ${reason || 'no reason given'}`)),
    );
  }

  /** Connects and says hello; rejects with HostUnavailableError (code says why) within `timeoutMs`. */
  static async start(connect: () => NativePort, options: { timeoutMs?: number; log?: (line: string) => void } = {}): Promise<NativeHost> {
    let port: NativePort;
    try {
      port = connect();
    } catch (err) {
      throw new HostUnavailableError('host-failed', `connectNative threw: ${(err as Error).message}`);
    }
    const host = new NativeHost(port, options.log ?? (() => undefined));
    const timeoutMs = options.timeoutMs ?? 5000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const result = await Promise.race([
        host.command('hello', { protocol: HOST_PROTOCOL }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new HostUnavailableError('host-failed', `the native host did not answer hello within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
      const hello = parseHelloResult(result);
      if (!hello.ok) throw new HostUnavailableError('host-failed', hello.reason);
      if (hello.value.protocol !== HOST_PROTOCOL)
        throw new HostUnavailableError(
          'unsupported-protocol',
          `the host speaks protocol ${hello.value.protocol}, the extension ${HOST_PROTOCOL}`,
        );
      host.helloResult = hello.value;
      return host;
    } catch (err) {
      host.disconnect();
      if (err instanceof HostUnavailableError) throw err;
      if (err instanceof HostCommandError)
        throw new HostUnavailableError(err.code === 'unsupported_protocol' ? 'unsupported-protocol' : 'host-failed', err.message);
      throw new HostUnavailableError('host-failed', (err as Error).message);
    } finally {
      clearTimeout(timer);
    }
  }

  get hello(): HostHello {
    if (!this.helloResult) throw new Error('NativeHost: hello has not completed');
    return this.helloResult;
  }

  /** Null while the port is up, else why it went down. */
  get dead(): HostUnavailableError | null {
    return this.deadReason;
  }

  onDeath(fn: (err: HostUnavailableError) => void): void {
    this.deathListeners.push(fn);
  }

  /** Sends a command and resolves with its result; rejects with HostCommandError or HostUnavailableError. */
  command(op: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.deadReason) return Promise.reject(this.deadReason);
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { op, resolve, reject });
      this.post({ id, op, ...fields });
    });
  }

  /** Opens a connection; `handler` is registered before any of its events can be routed. */
  async open(fields: Record<string, unknown>, handler: ConnHandler): Promise<HostOpened> {
    if (this.deadReason) throw this.deadReason;
    const id = this.nextId;
    this.nextId += 1;
    const result = await new Promise<Record<string, unknown>>((resolve, reject) => {
      this.pending.set(id, {
        op: 'open',
        resolve: (r) => {
          // Register synchronously, in the reply's dispatch: the connection's events follow it on the port.
          const parsed = parseOpenResult(r);
          if (parsed.ok) this.conns.set(parsed.value.conn, handler);
          resolve(r);
        },
        reject,
      });
      this.post({ id, op: 'open', ...fields });
    });
    const parsed = parseOpenResult(result);
    if (!parsed.ok) throw new HostCommandError('internal', 'open', parsed.reason);
    return parsed.value;
  }

  /** Returns flow-control credit up to `offset` (cumulative). Not answered unless refused. */
  ack(conn: number, offset: number): void {
    if (this.deadReason) return;
    const id = this.nextId;
    this.nextId += 1;
    this.ackIds.set(id, conn);
    if (this.ackIds.size > MAX_ACK_IDS) this.ackIds.delete(this.ackIds.keys().next().value as number);
    this.post({ id, op: 'ack', conn, offset });
  }

  /** Closes the port: the host ends every connection and exits. */
  disconnect(): void {
    if (this.deadReason) return;
    try {
      this.port.disconnect();
    } finally {
      this.die(new HostUnavailableError('host-failed', 'the native host port was closed by the extension'));
    }
  }

  private post(msg: Record<string, unknown>): void {
    try {
      this.port.postMessage(msg);
    } catch (err) {
      this.die(new HostUnavailableError('host-failed', `posting to the native host failed: ${(err as Error).message}`));
    }
  }

  private receive(raw: unknown): void {
    const parsed = parseHostMessage(raw);
    if (!parsed.ok) {
      this.log(`native host sent a malformed message (${parsed.reason}); ignored`);
      return;
    }
    const m = parsed.value;
    if (m.kind === 'reply') {
      if (m.id === null) {
        this.log(`native host reply without id: ${m.ok ? 'ok' : `${m.code}: ${m.message}`}`);
        return;
      }
      const ackConn = this.ackIds.get(m.id);
      if (ackConn !== undefined) {
        this.ackIds.delete(m.id);
        const h = this.conns.get(ackConn);
        if (!m.ok && m.code !== 'unknown_conn' && h) this.guard(() => h.onAckRefused?.(`${m.code}: ${m.message}`));
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) {
        this.log(`native host reply to unknown id ${m.id}; ignored`);
        return;
      }
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new HostCommandError(m.code, p.op, m.message));
      return;
    }
    const handler = this.conns.get(m.conn);
    if (!handler) return; // events racing a local close
    if (m.kind === 'data') this.guard(() => handler.onData(m));
    else if (m.kind === 'tcpInfo') this.guard(() => handler.onTcpInfo?.(m));
    else {
      this.conns.delete(m.conn);
      this.guard(() => handler.onClosed(m));
    }
  }

  /** Runs a handler; an exception is logged, never allowed to stop the routing of later messages. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log(`connection handler threw: ${(err as Error).stack ?? String(err)}`);
    }
  }

  private die(err: HostUnavailableError): void {
    if (this.deadReason) return;
    this.deadReason = err;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(err);
    const conns = [...this.conns.entries()];
    this.conns.clear();
    const t = Date.now();
    for (const [conn, h] of conns)
      this.guard(() => h.onClosed({ kind: 'closed', conn, reason: 'error', message: err.message, bytesRead: -1, t }));
    for (const fn of this.deathListeners) this.guard(() => fn(err));
  }
}
