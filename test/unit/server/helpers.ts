// Test helpers for the demo origin: a raw TCP client that writes exact bytes
// and reads HTTP/1.x responses off the wire one by one (so pipelining, close
// and reset behaviour are observed, not assumed), and temporary content
// directories with small generated files. Every wait is bounded.

import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

export interface RawResponse {
  readonly statusLine: string;
  readonly version: string;
  readonly status: number;
  /** Lower-cased names; repeated fields joined with ", ". */
  readonly headers: Map<string, string>;
  readonly body: Buffer;
  /** The exact bytes of the head, for checks on framing. */
  readonly rawHead: string;
}

const WAIT_MS = 10000;

/** A TCP client that reads HTTP responses from what arrives, byte-exactly. */
export class RawClient {
  /** Unread bytes as pieces; `compact()` joins them when a response is parsed. */
  private chunks: Buffer[] = [];
  private length = 0;
  private waiters: Array<() => void> = [];
  private ended = false;
  private closedFlag = false;
  error: NodeJS.ErrnoException | null = null;
  /** Total bytes received. */
  received = 0;
  private readonly closedPromise: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received += chunk.length;
      this.chunks.push(chunk);
      this.length += chunk.length;
      this.wake();
    });
    socket.on('end', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.error = err;
      this.wake();
    });
    this.closedPromise = new Promise((resolve) =>
      socket.once('close', () => {
        this.closedFlag = true;
        this.wake();
        resolve();
      }),
    );
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawClient(socket));
      });
      socket.once('error', reject);
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Waits until `ready()` is true, the connection ends, or WAIT_MS passes (rejects). */
  private async waitFor(ready: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready()) {
      if (this.ended || this.closedFlag) return;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  send(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Unread bytes. */
  get pending(): number {
    return this.length;
  }

  private compact(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks, this.length)];
    return this.chunks[0] as Buffer;
  }

  /** Reads exactly one response; HEAD responses (`head` = true) have no body. Rejects on timeout or EOF first. */
  async readResponse(head = false, ms = WAIT_MS): Promise<RawResponse> {
    const headEnd = (): number => this.compact().indexOf('\r\n\r\n');
    await this.waitFor(() => headEnd() >= 0, 'a response head', ms);
    const end = headEnd();
    if (end < 0) throw new Error(`connection ended before a complete response head (${this.length} bytes pending)`);
    const rawHead = this.compact().toString('latin1', 0, end);
    const [statusLine, ...fieldLines] = rawHead.split('\r\n');
    const m = /^(HTTP\/\d\.\d) (\d{3}) /.exec(statusLine ?? '');
    if (!m) throw new Error(`bad status line ${JSON.stringify(statusLine)}`);
    const headers = new Map<string, string>();
    for (const line of fieldLines) {
      const c = line.indexOf(':');
      const name = line.slice(0, c).toLowerCase();
      const value = line.slice(c + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    const length = head ? 0 : Number(headers.get('content-length') ?? '0');
    const total = end + 4 + length;
    await this.waitFor(() => this.length >= total, `a ${length}-byte body`, ms);
    if (this.length < total) {
      throw new Error(`connection ended after ${this.length - end - 4} of ${length} body bytes`);
    }
    const all = this.compact();
    const body = Buffer.from(all.subarray(end + 4, total));
    this.chunks = [all.subarray(total)];
    this.length -= total;
    return { statusLine: statusLine as string, version: m[1] as string, status: Number(m[2]), headers, body, rawHead };
  }

  /** Waits until at least `n` bytes were received in total. */
  async waitReceived(n: number, ms = WAIT_MS): Promise<void> {
    await this.waitFor(() => this.received >= n, `${n} bytes received`, ms);
  }

  /** Waits until the server closed its side (EOF or reset); rejects after `ms`. */
  async waitEnd(ms = WAIT_MS): Promise<void> {
    await this.waitFor(() => this.ended || this.closedFlag || this.error !== null, 'the server to close', ms);
  }

  /** Bytes left after the last parsed response, once the connection ended. */
  rest(): Buffer {
    return this.compact();
  }

  get serverEnded(): boolean {
    return this.ended;
  }

  /** Closes our side and waits for the socket to close (bounded). */
  async close(): Promise<void> {
    if (!this.closedFlag) this.socket.destroy();
    await this.closedPromise;
  }
}

export function request(path: string, extra: Record<string, string> = {}, method = 'GET', version = 'HTTP/1.1'): string {
  const lines = [`${method} ${path} ${version}`, 'Host: test'];
  for (const [k, v] of Object.entries(extra)) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Deterministic bytes: byte i = (i * 7 + seed) mod 251. */
export function patternBytes(size: number, seed = 0): Buffer {
  const b = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i += 1) b[i] = (i * 7 + seed) % 251;
  return b;
}

export interface Fixture {
  readonly root: string;
  readonly mediaDir: string;
  readonly pageDir: string;
  readonly distDir: string;
  /** media/video.m4s: 100000 pattern bytes. */
  readonly video: Buffer;
  remove(): void;
}

/** A temporary tree: media/ (video.m4s, manifest.mpd, sub/a.mp4, empty.m4s), page/ (index.html, style.css), dist/ (sprint.js), and secret.txt outside every root. */
export function makeFixture(): Fixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sprint-origin-'));
  const mediaDir = path.join(root, 'media');
  const pageDir = path.join(root, 'page');
  const distDir = path.join(root, 'dist');
  for (const d of [mediaDir, pageDir, distDir, path.join(mediaDir, 'sub')]) fs.mkdirSync(d, { recursive: true });
  const video = patternBytes(100000, 3);
  fs.writeFileSync(path.join(mediaDir, 'video.m4s'), video);
  fs.writeFileSync(path.join(mediaDir, 'manifest.mpd'), '<MPD/>\n');
  fs.writeFileSync(path.join(mediaDir, 'sub', 'a.mp4'), patternBytes(500, 1));
  fs.writeFileSync(path.join(mediaDir, 'empty.m4s'), Buffer.alloc(0));
  fs.writeFileSync(path.join(pageDir, 'index.html'), '<!doctype html><title>demo</title>\n');
  fs.writeFileSync(path.join(pageDir, 'style.css'), 'body{}\n');
  fs.writeFileSync(path.join(distDir, 'sprint.js'), 'window.Sprint={};\n');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'TOP-SECRET-CONTENT\n');
  return {
    root,
    mediaDir,
    pageDir,
    distDir,
    video,
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/** Sends one request on a fresh connection and reads its response. */
export async function fetchRaw(port: number, raw: string, head = false): Promise<RawResponse> {
  const c = await RawClient.connect(port);
  try {
    c.send(raw);
    return await c.readResponse(head);
  } finally {
    await c.close();
  }
}

/** Waits (bounded) until the origin has logged at least `n` records. */
export async function waitForRecords(origin: { records(): readonly unknown[] }, n: number, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (origin.records().length < n) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} access records (have ${origin.records().length})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
