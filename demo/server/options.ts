// Options of the demo origin, their defaults and their validation. The fault
// options reproduce servers that Sprint's pipelined trains (paper §IV-B1) must
// survive (issue "Sprint", faults): a keep-alive request limit, servers that do
// not keep connections alive or speak only HTTP/1.0, a connection dying in the
// middle of a response, no Range support, no CORS. All are off by default.

import * as fs from 'fs';
import * as path from 'path';

export interface OriginOptions {
  /** Address to bind. Default "127.0.0.1". */
  readonly host?: string;
  /** Port; 0 picks a free one. Default 0. */
  readonly port?: number;
  /** Content root served under /media/. Default <package root>/demo/media. */
  readonly mediaDir?: string;
  /** Demo page directory: "/" and "/index.html" serve its index.html, other top-level paths its files. Default <package root>/demo/page. */
  readonly pageDir?: string;
  /** Player bundle directory served under /dist/. Default <package root>/dist/player. */
  readonly distDir?: string;
  /** Access log JSON-lines file (appended to). Default: none (memory only). */
  readonly logFile?: string;
  /** Access records kept in memory. Default 100000. */
  readonly logRingSize?: number;

  /** Largest request head accepted, bytes; larger → 431 and close. Default 16384. */
  readonly maxHeaderBytes?: number;
  /** Parsed requests waiting per connection; at the limit the origin stops reading the socket until one is answered. Default 64. */
  readonly maxQueuedRequests?: number;
  /** Close a connection with no request in progress after this long idle, ms; 0 = never. Default 120000. */
  readonly idleTimeoutMs?: number;
  /** After the origin closes its side, how long to keep reading (and discarding) before destroying the socket, ms. Default 2000. */
  readonly lingerMs?: number;
  /** Largest /bulk?bytes=N accepted. Default 100e9. */
  readonly maxBulkBytes?: number;
  /**
   * Called with a message for server-side failures (500 responses, a file
   * that cannot be read while being served). Default: a line on stderr.
   */
  readonly onServerError?: (message: string) => void;

  // ---- Fault injection (all off by default) ----

  /** Ignore Range: always 200 with the whole body, and no Accept-Ranges header. */
  readonly noRange?: boolean;
  /** Omit all CORS headers (and Timing-Allow-Origin), including on OPTIONS. */
  readonly noCors?: boolean;
  /**
   * A CDN's token check: /media/ requests without the query parameter
   * `query=value` AND the header `header: value` are refused with 403.
   */
  readonly requireToken?: { readonly query: string; readonly header: string; readonly value: string };
  /** A CDN rule against wide ranges: /media/ requests whose Range spans more than this many bytes are refused with 403. */
  readonly refuseRangeOverBytes?: number;
  /**
   * Answer at most N requests per connection (like nginx keepalive_requests):
   * the Nth response carries `Connection: close` and the origin then closes.
   * Requests already pipelined behind it are not answered (logged "not-answered").
   */
  readonly maxRequestsPerConnection?: number;
  /** Close after every response (with `Connection: close`) even if more requests were pipelined. */
  readonly closeAfterEachResponse?: boolean;
  /** Answer with HTTP/1.0 status lines and `Connection: close`, closing after each response. */
  readonly http10?: boolean;
  /**
   * Cut the connection after exactly N body bytes of a /media/ response
   * whose body is longer than N. See `resetCount` and `resetWith`.
   */
  readonly resetAfterBytes?: number;
  /** How many responses `resetAfterBytes` cuts, counted per origin. Default 1; Infinity = every one. */
  readonly resetCount?: number;
  /**
   * How `resetAfterBytes` cuts: "fin" (default) closes the connection once the
   * N bytes are in the kernel, so the client sees exactly N body bytes then EOF;
   * "rst" aborts with a TCP reset, so the client may see fewer and an ECONNRESET;
   * "stall" sends the N bytes and then nothing more, keeping the connection
   * open until the client gives up (its request timeout).
   */
  readonly resetWith?: 'fin' | 'rst' | 'stall';
  /**
   * Only /media/ responses whose request path contains this string are cut
   * by `resetAfterBytes` (e.g. one representation's file, so the top rung's
   * segments cannot arrive while the others do). Default: every /media/ response.
   */
  readonly faultPath?: string;
  /** Wait this long before starting each response, ms. Default 0. */
  readonly delayMs?: number;
  /**
   * Emulated round-trip time on loopback, ms: no response's first byte is
   * written before its request arrived this long ago. Unlike `delayMs` (a wait
   * after the previous response), requests pipelined or sent early enough see
   * no gap, as on a real path whose RTT is covered by the requests in flight
   * (paper §IV-B1). Responses keep their order on each connection. Default 0.
   */
  readonly latencyMs?: number;
  /**
   * Answer pipelined requests out of order: when two or more are waiting, the
   * later is answered first (a broken intermediary that mismatches responses).
   */
  readonly misorderResponses?: boolean;
  /**
   * Send response bodies, all connections together, at most this fast
   * (bit/s): a bottleneck in front of the origin for loopback tests. Default: unlimited.
   */
  readonly rateLimitBitsPerSec?: number;
  /**
   * With `rateLimitBitsPerSec`: the largest body write, bytes (default 65536).
   * Smaller writes make the paced link smoother (a real link delivers a few
   * packets at a time, not 64 KB bursts), so a client reads smaller pieces.
   */
  readonly rateLimitPieceBytes?: number;
}

/** Options after defaults; directories are absolute. */
export interface ResolvedOriginOptions {
  readonly host: string;
  readonly port: number;
  readonly mediaDir: string;
  readonly pageDir: string;
  readonly distDir: string;
  readonly logFile: string | null;
  readonly logRingSize: number;
  readonly maxHeaderBytes: number;
  readonly maxQueuedRequests: number;
  readonly idleTimeoutMs: number;
  readonly lingerMs: number;
  readonly maxBulkBytes: number;
  readonly onServerError: (message: string) => void;
  readonly noRange: boolean;
  readonly noCors: boolean;
  readonly requireToken: { readonly query: string; readonly header: string; readonly value: string } | null;
  readonly refuseRangeOverBytes: number | null;
  readonly maxRequestsPerConnection: number;
  readonly closeAfterEachResponse: boolean;
  readonly http10: boolean;
  readonly resetAfterBytes: number | null;
  readonly resetCount: number;
  readonly resetWith: 'fin' | 'rst' | 'stall';
  readonly faultPath: string | null;
  readonly delayMs: number;
  readonly latencyMs: number;
  readonly misorderResponses: boolean;
  readonly rateLimitBitsPerSec: number | null;
  readonly rateLimitPieceBytes: number | null;
}

/** The package root: the nearest ancestor of this file holding package.json (works from demo/ and dist/demo/). */
export function packageRoot(from: string = __dirname): string {
  let dir = from;
  for (let i = 0; i < 10; i += 1) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`cannot find package.json above ${from} to locate the default directories; pass mediaDir, pageDir and distDir`);
}

function integer(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw new RangeError(`origin option ${name} must be an integer >= ${min}, got ${String(value)}`);
  }
  return v;
}

function flag(name: string, value: boolean | undefined): boolean {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new TypeError(`origin option ${name} must be a boolean, got ${String(value)}`);
  }
  return value ?? false;
}

function tokenRule(t: OriginOptions['requireToken']): ResolvedOriginOptions['requireToken'] {
  if (t === undefined) return null;
  for (const k of ['query', 'header', 'value'] as const) {
    if (typeof t?.[k] !== 'string' || t[k] === '') throw new TypeError(`origin option requireToken.${k} must be a non-empty string`);
  }
  return { query: t.query, header: t.header.toLowerCase(), value: t.value };
}

export function resolveOriginOptions(o: OriginOptions = {}): ResolvedOriginOptions {
  const needRoot = o.mediaDir === undefined || o.pageDir === undefined || o.distDir === undefined;
  const root = needRoot ? packageRoot() : '';
  const resetCount = o.resetCount ?? 1;
  if (resetCount !== Number.POSITIVE_INFINITY) integer('resetCount', resetCount, 1, 1);
  if (o.resetWith !== undefined && o.resetWith !== 'fin' && o.resetWith !== 'rst' && o.resetWith !== 'stall') {
    throw new RangeError(`origin option resetWith must be "fin", "rst" or "stall", got ${String(o.resetWith)}`);
  }
  if (o.host !== undefined && (typeof o.host !== 'string' || o.host === '')) {
    throw new TypeError(`origin option host must be a non-empty string, got ${String(o.host)}`);
  }
  const port = integer('port', o.port, 0, 0);
  if (port > 65535) throw new RangeError(`origin option port must be <= 65535, got ${port}`);
  return {
    host: o.host ?? '127.0.0.1',
    port,
    mediaDir: path.resolve(o.mediaDir ?? path.join(root, 'demo', 'media')),
    pageDir: path.resolve(o.pageDir ?? path.join(root, 'demo', 'page')),
    distDir: path.resolve(o.distDir ?? path.join(root, 'dist', 'player')),
    logFile: o.logFile === undefined ? null : path.resolve(o.logFile),
    logRingSize: integer('logRingSize', o.logRingSize, 100000, 1),
    maxHeaderBytes: integer('maxHeaderBytes', o.maxHeaderBytes, 16384, 64),
    maxQueuedRequests: integer('maxQueuedRequests', o.maxQueuedRequests, 64, 1),
    idleTimeoutMs: integer('idleTimeoutMs', o.idleTimeoutMs, 120000, 0),
    lingerMs: integer('lingerMs', o.lingerMs, 2000, 0),
    maxBulkBytes: integer('maxBulkBytes', o.maxBulkBytes, 100e9, 0),
    onServerError: o.onServerError ?? ((message: string) => void process.stderr.write(`sprint origin: ${message}\n`)),
    noRange: flag('noRange', o.noRange),
    noCors: flag('noCors', o.noCors),
    requireToken: tokenRule(o.requireToken),
    refuseRangeOverBytes: o.refuseRangeOverBytes === undefined ? null : integer('refuseRangeOverBytes', o.refuseRangeOverBytes, 0, 1),
    maxRequestsPerConnection:
      o.maxRequestsPerConnection === undefined
        ? Number.POSITIVE_INFINITY
        : integer('maxRequestsPerConnection', o.maxRequestsPerConnection, 0, 1),
    closeAfterEachResponse: flag('closeAfterEachResponse', o.closeAfterEachResponse),
    http10: flag('http10', o.http10),
    resetAfterBytes: o.resetAfterBytes === undefined ? null : integer('resetAfterBytes', o.resetAfterBytes, 0, 0),
    resetCount,
    resetWith: o.resetWith ?? 'fin',
    faultPath: o.faultPath === undefined || o.faultPath === '' ? null : String(o.faultPath),
    delayMs: integer('delayMs', o.delayMs, 0, 0),
    latencyMs: integer('latencyMs', o.latencyMs, 0, 0),
    misorderResponses: flag('misorderResponses', o.misorderResponses),
    rateLimitBitsPerSec: o.rateLimitBitsPerSec ?? null,
    rateLimitPieceBytes: o.rateLimitPieceBytes ?? null,
  };
}
