/**
 * Owns the service worker's single native-messaging port to the socket host
 * (extension/host/PROTOCOL.md §14 step 1): starts it for the
 * first page session, shares it among all sessions, restarts it on demand
 * after a crash (a bounded number of times per minute), and closes it a little
 * after the last session ended, so an idle browser keeps no host process (an
 * open native port also keeps the MV3 worker alive).
 */
import { HostUnavailableError, NativeHost, type NativePort } from './native-host';

export interface HostManagerOptions {
  connect(): NativePort;
  log(line: string): void;
  /** Close the port this long after the last user left, ms. Default 10000. */
  idleCloseMs?: number;
  /** At most this many starts per minute after the first. Default 3. */
  maxRestartsPerMinute?: number;
  helloTimeoutMs?: number;
}

export class HostManager {
  private current: NativeHost | null = null;
  private starting: Promise<NativeHost> | null = null;
  private users = 0;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly starts: number[] = [];
  private readonly failureListeners: Array<(err: HostUnavailableError) => void> = [];

  constructor(private readonly o: HostManagerOptions) {}

  /** A session starts using the host: resolves with a live host or rejects with HostUnavailableError. */
  async acquire(): Promise<NativeHost> {
    this.users += 1;
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    try {
      return await this.get();
    } catch (err) {
      this.release();
      throw err;
    }
  }

  /** A session stopped using the host. */
  release(): void {
    this.users = Math.max(0, this.users - 1);
    if (this.users === 0 && !this.idleTimer) {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        if (this.users === 0 && this.current) {
          this.o.log('no page session for a while: closing the native host port');
          this.current.disconnect();
          this.current = null;
        }
      }, this.o.idleCloseMs ?? 10_000);
    }
  }

  /** Called when a restart after a crash failed: sessions should end and tell their pages. */
  onUnrecoverable(fn: (err: HostUnavailableError) => void): void {
    this.failureListeners.push(fn);
  }

  /** The live host, started now if needed. */
  get(): Promise<NativeHost> {
    if (this.current && !this.current.dead) return Promise.resolve(this.current);
    if (this.starting) return this.starting;
    const now = Date.now();
    while (this.starts.length > 0 && now - (this.starts[0] as number) > 60_000) this.starts.shift();
    const limit = 1 + (this.o.maxRestartsPerMinute ?? 3);
    if (this.starts.length >= limit) {
      const err = new HostUnavailableError(
        'host-failed',
        `the native host was started ${this.starts.length} times in the last minute; giving up`,
      );
      for (const fn of this.failureListeners) fn(err);
      return Promise.reject(err);
    }
    this.starts.push(now);
    const wasRestart = this.current !== null;
    this.starting = NativeHost.start(() => this.o.connect(), {
      log: this.o.log,
      ...(this.o.helloTimeoutMs !== undefined ? { timeoutMs: this.o.helloTimeoutMs } : {}),
    }).then(
      (host) => {
        this.starting = null;
        this.current = host;
        host.onDeath((err) => this.o.log(`native host gone: ${err.message}`));
        this.o.log(`native host ${host.hello.hostVersion} ready (protocol ${host.hello.protocol}, tcpInfo ${String(host.hello.tcpInfo)})`);
        return host;
      },
      (err: HostUnavailableError) => {
        this.starting = null;
        this.o.log(`native host unavailable: ${err.message}`);
        if (wasRestart) for (const fn of this.failureListeners) fn(err);
        throw err;
      },
    );
    return this.starting;
  }
}
