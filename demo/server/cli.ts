// `sprint serve`: runs the demo origin (origin.ts, HTTP/1.1; or h2-origin.ts,
// HTTPS + HTTP/2, with --h2) until SIGINT/SIGTERM, then closes it cleanly
// (open connections logged, access log flushed). Prints the origin's URL as
// the first line of stdout so scripts can read it; with --h2 the next lines
// give the certificate's SPKI hash and the Chromium flag that trusts it.
// SIGUSR2 closes the connections open at that moment once each is idle (the
// A/B harness's --preload-pages: a preloaded page's connections are not
// reused by its player) and reports the counts on stderr.
//
//   sprint serve [--host 127.0.0.1] [--port 8080] [--media DIR] [--page DIR]
//                [--dist DIR] [--log FILE] [fault options]
//   sprint serve --h2 [--port 8443] [--cert FILE --key FILE] [--rate-limit RATE] ...
// Also runnable directly: node dist/demo/server/cli.js ...

import { OptionsSpec, parseArgs, parseInteger, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { parseBitsPerSecond, parseBytes, parseSeconds } from '../../src/units';
import { readFileSync } from 'fs';
import { spkiTrustFlags } from '../chromium-flags';
import { startH2Origin, type H2OriginOptions } from './h2-origin';
import { startOrigin, type Origin } from './origin';
import type { OriginOptions } from './options';
import { spkiHashOf, type TlsIdentity } from './tls-cert';
import { runMain } from '../../src/cli/run-main';

/** `sprint serve` arguments: the origin's options, plus whether to serve HTTP/2 and with which certificate. */
export type ServeOptions = OriginOptions & {
  /** Serve HTTPS + HTTP/2 (h2-origin.ts) instead of HTTP/1.1. */
  readonly h2?: true;
  /** PEM certificate and key files for --h2 (default: a fresh self-signed certificate). */
  readonly certFile?: string;
  readonly keyFile?: string;
};

/** Flags of the HTTP/1.1 origin's connection handling that HTTP/2 does not have. */
const HTTP1_ONLY_FLAGS = [
  'max-header-bytes',
  'max-queued-requests',
  'max-requests-per-connection',
  'close-after-each-response',
  'http10',
  'reset-after-bytes',
  'reset-count',
  'reset-with',
  'misorder-responses',
];

const SPEC: OptionsSpec = {
  host: { kind: 'value' },
  port: { kind: 'value', short: 'p' },
  media: { kind: 'value' },
  page: { kind: 'value' },
  dist: { kind: 'value' },
  log: { kind: 'value' },
  'max-header-bytes': { kind: 'value' },
  'max-queued-requests': { kind: 'value' },
  'idle-timeout': { kind: 'value' },
  'max-bulk-bytes': { kind: 'value' },
  'no-range': { kind: 'flag' },
  'no-cors': { kind: 'flag' },
  'max-requests-per-connection': { kind: 'value' },
  'close-after-each-response': { kind: 'flag' },
  http10: { kind: 'flag' },
  'reset-after-bytes': { kind: 'value' },
  'reset-count': { kind: 'value' },
  'reset-with': { kind: 'value' },
  'fault-path': { kind: 'value' },
  delay: { kind: 'value' },
  latency: { kind: 'value' },
  'misorder-responses': { kind: 'flag' },
  'rate-limit': { kind: 'value' },
  h2: { kind: 'flag' },
  cert: { kind: 'value' },
  key: { kind: 'value' },
  help: { kind: 'flag', short: 'h' },
};

export const USAGE = `Usage: sprint serve [options]

Serves the demo page (/), the player bundle (/dist/), the DASH content
(/media/), an RTT probe (/probe) and generated bulk downloads (/bulk?bytes=N)
over HTTP/1.1 with keep-alive, pipelining, Range and CORS — or, with --h2,
over HTTPS + HTTP/2. Prints the URL on the first line of stdout; Ctrl-C
(SIGINT) or SIGTERM closes it cleanly. SIGUSR2 closes every connection open
at that moment as soon as it is idle (new ones are not affected).

Options:
  --host ADDR                  address to bind (default 127.0.0.1)
  -p, --port N                 port, 0 = any free one (default 8080, 8443 with --h2)
  --h2                         HTTPS + HTTP/2 only (no HTTP/1.1 fallback); prints
                               the certificate's SPKI hash and the Chromium flag
                               --ignore-certificate-errors-spki-list=HASH that
                               trusts it (and nothing else)
  --cert FILE, --key FILE      PEM certificate and key for --h2 (default: a fresh
                               self-signed certificate made with openssl)
  --media DIR                  content root for /media/ (default <repo>/demo/media)
  --page DIR                   demo page directory for / (default <repo>/demo/page)
  --dist DIR                   player bundle for /dist/ (default <repo>/dist/player)
  --log FILE                   append the access log (JSON lines) to FILE
  --max-header-bytes BYTES     largest request head (default 16kb)
  --max-queued-requests N      pipelined requests parsed ahead per connection (default 64)
  --idle-timeout DURATION      close idle connections after this long, 0s = never (default 120s)
  --max-bulk-bytes BYTES       largest /bulk?bytes=N (default 100e9 bytes)

Fault injection (all off by default; with --h2 only --no-range, --no-cors,
--delay and --rate-limit apply):
  --no-range                   ignore Range: always 200 with the whole body
  --no-cors                    send no CORS headers
  --max-requests-per-connection N
                               answer N requests per connection, then close
                               (pipelined requests beyond N are not answered)
  --close-after-each-response  close after every response
  --http10                     answer as HTTP/1.0 and close after each response
  --reset-after-bytes BYTES    cut a /media/ response after BYTES body bytes
  --reset-count N|every        how many responses to cut (default 1)
  --reset-with fin|rst|stall   cut with a FIN (exact byte count), a TCP reset, or by going
                               silent on the open connection (default fin)
  --fault-path S               cut only responses whose path contains S (e.g. rep-4.mp4)
  --delay DURATION             wait before each response, e.g. 50ms
  --latency DURATION           emulate this RTT: no response starts before its
                               request arrived this long ago, e.g. 600ms
  --misorder-responses         answer two waiting pipelined requests in the wrong order
  --rate-limit RATE            send bodies (all connections together) at most this fast, e.g. 8mbit
  -h, --help                   show this help
`;

/** Turns `sprint serve` arguments into origin options; throws UsageError/RangeError on bad input. */
export function parseServeArgs(argv: readonly string[]): ServeOptions {
  const args = parseArgs(argv, SPEC);
  const v = (name: string): string | undefined => args.values.get(name);
  const opts: { -readonly [K in keyof ServeOptions]: ServeOptions[K] } = {};
  const h2 = args.flags.has('h2');
  if (h2) {
    const http1 = HTTP1_ONLY_FLAGS.filter((f) => args.flags.has(f) || args.values.has(f));
    if (http1.length > 0)
      throw new UsageError(`${http1.map((f) => `--${f}`).join(', ')}: HTTP/1.1 connection options, not available with --h2`);
  }
  if ((v('cert') === undefined) !== (v('key') === undefined)) throw new UsageError('--cert and --key go together');
  if (v('cert') !== undefined && !h2) throw new UsageError('--cert and --key need --h2');
  opts.host = v('host') ?? '127.0.0.1';
  const port = v('port');
  opts.port = port === undefined ? (h2 ? 8443 : 8080) : parseInteger(port, '--port', 0);
  if (opts.port > 65535) throw new UsageError(`--port: ${port} is not a port (0-65535)`);
  if (v('media') !== undefined) opts.mediaDir = v('media');
  if (v('page') !== undefined) opts.pageDir = v('page');
  if (v('dist') !== undefined) opts.distDir = v('dist');
  if (v('log') !== undefined) opts.logFile = v('log');
  const bytes = (name: string, allowZero: boolean): number | undefined => {
    const t = v(name);
    return t === undefined ? undefined : parseBytes(t, { name: `--${name}`, allowZero });
  };
  const ms = (name: string): number | undefined => {
    const t = v(name);
    return t === undefined ? undefined : Math.round(parseSeconds(t, { name: `--${name}`, allowZero: true }) * 1000);
  };
  const int = (name: string): number | undefined => {
    const t = v(name);
    return t === undefined ? undefined : parseInteger(t, `--${name}`, 1);
  };
  const set = <K extends keyof OriginOptions>(key: K, value: OriginOptions[K] | undefined): void => {
    if (value !== undefined) opts[key] = value;
  };
  set('maxHeaderBytes', bytes('max-header-bytes', false));
  set('maxQueuedRequests', int('max-queued-requests'));
  set('idleTimeoutMs', ms('idle-timeout'));
  set('maxBulkBytes', bytes('max-bulk-bytes', true));
  set('noRange', args.flags.has('no-range') || undefined);
  set('noCors', args.flags.has('no-cors') || undefined);
  set('maxRequestsPerConnection', int('max-requests-per-connection'));
  set('closeAfterEachResponse', args.flags.has('close-after-each-response') || undefined);
  set('http10', args.flags.has('http10') || undefined);
  set('resetAfterBytes', bytes('reset-after-bytes', true));
  const resetCount = v('reset-count');
  if (resetCount !== undefined) {
    opts.resetCount = resetCount === 'every' ? Number.POSITIVE_INFINITY : parseInteger(resetCount, '--reset-count', 1);
  }
  const resetWith = v('reset-with');
  if (resetWith !== undefined) {
    if (resetWith !== 'fin' && resetWith !== 'rst' && resetWith !== 'stall')
      throw new UsageError(`--reset-with: ${JSON.stringify(resetWith)} must be fin, rst or stall`);
    opts.resetWith = resetWith;
  }
  const faultPath = v('fault-path');
  if (faultPath !== undefined) opts.faultPath = faultPath;
  if ((resetCount !== undefined || resetWith !== undefined || faultPath !== undefined) && opts.resetAfterBytes === undefined) {
    throw new UsageError('--reset-count, --reset-with and --fault-path need --reset-after-bytes');
  }
  set('delayMs', ms('delay'));
  set('latencyMs', ms('latency'));
  set('misorderResponses', args.flags.has('misorder-responses') || undefined);
  const rate = v('rate-limit');
  if (rate !== undefined) opts.rateLimitBitsPerSec = parseBitsPerSecond(rate, { name: '--rate-limit' });
  if (h2) opts.h2 = true;
  if (v('cert') !== undefined) opts.certFile = v('cert');
  if (v('key') !== undefined) opts.keyFile = v('key');
  return opts;
}

/** The certificate and key files of --cert/--key as an identity; clear errors for unreadable or non-PEM files. */
function readIdentity(certFile: string, keyFile: string): TlsIdentity {
  const read = (file: string, what: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new RangeError(`--${what} ${file}: ${(err as Error).message}`);
    }
  };
  const cert = read(certFile, 'cert');
  const key = read(keyFile, 'key');
  if (!key.includes('PRIVATE KEY-----')) throw new RangeError(`--key ${keyFile}: not a PEM private key`);
  return { cert, key, spkiHash: spkiHashOf(cert) };
}

/**
 * Runs `sprint serve`; resolves to the exit code once the origin is closed by
 * SIGINT/SIGTERM or by `stop` (for tests and embedding).
 */
export async function main(argv: readonly string[], io: CliIo = processIo, stop?: AbortSignal): Promise<number> {
  let opts: ServeOptions;
  try {
    if (parseArgs(argv, SPEC).flags.has('help')) {
      io.stdout.write(USAGE);
      return 0;
    }
    opts = parseServeArgs(argv);
  } catch (err) {
    return reportError('serve', err, io);
  }
  let origin: Origin;
  let spkiHash: string | null = null;
  try {
    if (opts.h2) {
      const { h2: _h2, certFile, keyFile, ...rest } = opts;
      const identity = certFile !== undefined && keyFile !== undefined ? readIdentity(certFile, keyFile) : undefined;
      const h2Origin = await startH2Origin(rest as H2OriginOptions, identity);
      spkiHash = h2Origin.spkiHash;
      origin = h2Origin;
    } else {
      origin = await startOrigin(opts);
    }
  } catch (err) {
    if (err instanceof Error && !(err instanceof RangeError)) {
      io.stderr.write(`sprint serve: ${err.message}\n`);
      return 1;
    }
    return reportError('serve', err, io);
  }
  const o = origin.options;
  io.stdout.write(`${origin.url}/\n`);
  if (spkiHash !== null) {
    io.stdout.write(`spki-sha256 ${spkiHash}\n`);
    io.stdout.write(`chromium flag: ${spkiTrustFlags([spkiHash]).join(' ')}\n`);
  }
  io.stderr.write(`sprint serve: page ${o.pageDir}, player ${o.distDir}, media ${o.mediaDir}, log ${o.logFile ?? '(memory only)'}\n`);

  const closeIdle = (): void => {
    const { open, idle } = origin.closeConnectionsWhenIdle();
    io.stderr.write(`sprint serve: SIGUSR2: closing ${open} open connection(s), ${idle} of them idle now\n`);
  };
  process.on('SIGUSR2', closeIdle);
  await new Promise<void>((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      stop?.removeEventListener('abort', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (stop?.aborted) done();
    else stop?.addEventListener('abort', done);
  });
  process.off('SIGUSR2', closeIdle);
  try {
    await origin.close();
  } catch (err) {
    io.stderr.write(`sprint serve: closing: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  io.stderr.write(`sprint serve: closed (${origin.records().length} requests logged in memory)\n`);
  return 0;
}

runMain(module, 'sprint serve', main);
