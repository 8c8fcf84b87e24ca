/**
 * Drives the real service-worker `Session` (extension/src/worker/session.ts)
 * against the real socket host binary (extension/host, built with `go build`)
 * over native-messaging framing on the child's stdin/stdout (PROTOCOL.md §2 of
 * extension/host), with raw TCP servers on loopback as origins. What a page
 * would receive is what the session posts to its port; what the worker logs is
 * collected separately, so tests can check that detail stays in the log.
 */
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { createServer, type Server, type Socket } from 'net';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import type { WorkerMessage } from '../../../../player/sprint/extension/protocol';
import { NativeHost, type NativePort } from '../../../../extension/src/worker/native-host';
import { Session } from '../../../../extension/src/worker/session';
import { parsePageOrigin } from '../../../../extension/src/worker/url-policy';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const CALLER = 'chrome-extension://aieflfmlkjpkgldfefpdcbfiogenabna/';

/** Builds the host once into a temp directory; returns the binary and a clean-up. */
export function buildHost(): { binary: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sprint-host-unit-'));
  const binary = join(dir, 'sprint-host');
  const go = spawnSync('go', ['build', '-trimpath', '-o', binary, '.'], {
    cwd: join(ROOT, 'extension', 'host'),
    env: { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local' },
    encoding: 'utf8',
  });
  if (go.error || go.status !== 0) throw new Error(`go build of the socket host failed: ${go.error?.message ?? ''}${go.stderr}`);
  return { binary, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A NativePort over a child process speaking Chrome's native-messaging framing. */
export function childPort(binary: string): { port: NativePort; child: ChildProcess; stderr: () => string } {
  const child = spawn(binary, [CALLER], { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
  let onMessage: (m: unknown) => void = () => undefined;
  let onDisconnect: (reason: string) => void = () => undefined;
  let buf = Buffer.alloc(0);
  child.stdout?.on('data', (b: Buffer) => {
    buf = Buffer.concat([buf, b]);
    while (buf.length >= 4) {
      const n = buf.readUInt32LE(0);
      if (buf.length < 4 + n) break;
      const frame = buf.subarray(4, 4 + n).toString('utf8');
      buf = buf.subarray(4 + n);
      onMessage(JSON.parse(frame));
    }
  });
  child.on('exit', () => onDisconnect('Native host has exited.'));
  const port: NativePort = {
    postMessage(msg) {
      const body = Buffer.from(JSON.stringify(msg), 'utf8');
      const head = Buffer.alloc(4);
      head.writeUInt32LE(body.length, 0);
      child.stdin?.write(Buffer.concat([head, body]));
    },
    disconnect() {
      child.stdin?.end();
    },
    onMessage: (fn) => (onMessage = fn),
    onDisconnect: (fn) => (onDisconnect = fn),
  };
  return { port, child, stderr: () => err };
}

/** One page session on a started host; `pageMessages` is everything the page would receive. */
export class PageSession {
  readonly pageMessages: WorkerMessage[] = [];
  readonly log: string[] = [];
  readonly session: Session;
  private nextId = 1;
  private readonly waiters: Array<() => void> = [];

  constructor(host: NativeHost, pageOrigin: string, options: { stallFloorMs?: number } = {}) {
    const page = parsePageOrigin(pageOrigin, undefined);
    if (!page) throw new Error(`bad page origin ${pageOrigin}`);
    this.session = new Session(
      1,
      {
        postMessage: (m) => {
          this.pageMessages.push(JSON.parse(JSON.stringify(m)) as WorkerMessage);
          for (const w of this.waiters.splice(0)) w();
        },
        disconnect: () => undefined,
      },
      page,
      {
        host: () => Promise.resolve(host),
        userAgent: 'Sprint-test',
        log: (l) => this.log.push(l),
        workerStartedAt: Date.now(),
        ...options,
      },
    );
  }

  /** Every message the page got for request `id` so far. */
  of(id: number): WorkerMessage[] {
    return this.pageMessages.filter((m) => 'id' in m && m.id === id);
  }

  /** Resolves with the messages of request `id` once it ended (end or error). */
  async settled(id: number, timeoutMs = 15_000): Promise<WorkerMessage[]> {
    await this.until(() => this.of(id).some((m) => m.type === 'end' || m.type === 'error'), timeoutMs);
    return this.of(id);
  }

  /** Sends a request; resolves with every message the page got for it once it ended (end or error). */
  async request(url: string, timeoutMs = 15_000): Promise<WorkerMessage[]> {
    const id = this.nextId;
    this.nextId += 1;
    this.session.handle({ type: 'request', id, url });
    return this.until(
      () => this.pageMessages.some((m) => 'id' in m && m.id === id && (m.type === 'end' || m.type === 'error')),
      timeoutMs,
    ).then(() => this.pageMessages.filter((m) => 'id' in m && m.id === id));
  }

  /** Sends a page message (`id` is filled in for request/cancel/stats if omitted); returns the id used. */
  send(msg: Record<string, unknown>): number {
    const id = typeof msg.id === 'number' ? msg.id : this.nextId;
    if (typeof msg.id !== 'number') this.nextId += 1;
    this.session.handle({ ...msg, id });
    return id;
  }

  async stats(): Promise<unknown> {
    const id = this.send({ type: 'stats' });
    await this.until(() => this.pageMessages.some((m) => m.type === 'result' && m.id === id));
    return (this.pageMessages.find((m) => m.type === 'result' && m.id === id) as { value: unknown }).value;
  }

  until(pred: () => boolean, timeoutMs = 15_000): Promise<void> {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out after ${timeoutMs} ms; page got ${JSON.stringify(this.pageMessages).slice(0, 2000)}`)),
        timeoutMs,
      );
      const check = (): void => {
        if (pred()) {
          clearTimeout(timer);
          resolvePromise();
        } else this.waiters.push(check);
      };
      check();
    });
  }

  close(): void {
    this.session.close();
  }
}

/** A raw TCP origin on 127.0.0.1 that answers every connection with `onConn`. */
export async function rawOrigin(
  onConn: (sock: Socket) => void,
): Promise<{ server: Server; port: number; sockets: Set<Socket>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => undefined);
    onConn(sock);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return {
    server,
    port: addr.port,
    sockets,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** An origin that answers each request head (up to CRLFCRLF) with `respond(head)`. */
export function answerEach(respond: (head: string) => string): (sock: Socket) => void {
  return (sock) => {
    let buf = '';
    sock.on('data', (b: Buffer) => {
      buf += b.toString('latin1');
      for (let i = buf.indexOf('\r\n\r\n'); i >= 0; i = buf.indexOf('\r\n\r\n')) {
        const head = buf.slice(0, i);
        buf = buf.slice(i + 4);
        sock.write(Buffer.from(respond(head), 'latin1'));
      }
    });
  };
}

/** Starts the host binary and says hello through the worker's NativeHost. */
export async function startHost(binary: string): Promise<{ host: NativeHost; child: ChildProcess; stop(): Promise<void> }> {
  const { port, child } = childPort(binary);
  const host = await NativeHost.start(() => port, { timeoutMs: 10_000 });
  return {
    host,
    child,
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null) {
          r();
          return;
        }
        child.once('exit', () => r());
        host.disconnect();
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/**
 * Builds and starts one real host for the calling test file (jest
 * beforeAll/afterAll) and returns it: `realHost().host` once the tests run.
 */
export function useRealHost(): () => Awaited<ReturnType<typeof startHost>> {
  let built: ReturnType<typeof buildHost> | undefined;
  let running: Awaited<ReturnType<typeof startHost>> | undefined;
  beforeAll(async () => {
    built = buildHost();
    running = await startHost(built.binary);
  }, 120_000);
  afterAll(async () => {
    await running?.stop();
    built?.remove();
  });
  return () => {
    if (!running) throw new Error('the socket host is not running (beforeAll failed?)');
    return running;
  };
}
