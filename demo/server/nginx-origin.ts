// nginx as the demo origin: the same resources as ours (the demo page, the
// player bundle under /dist/, the DASH content under /media/ with Range and
// CORS, a no-store /probe), served by a real server people run, so the A/B
// harness can check that Sprint's pipelined trains and Sprint-x's expanded
// ranges behave against it too ("nginx as an alternative origin").
//
// `nginxConfig` writes the configuration (pure); the CLI runs nginx in the
// foreground with it from a private prefix directory, prints the URL on the
// first stdout line once the port accepts connections (what the testbed's
// origin launcher waits for), and on SIGTERM/SIGINT stops nginx and removes
// the prefix. The player bundle's gzip copies go to clients that accept
// gzip (`gzip_static`), as our origin sends them (nginx does not check
// that a copy matches its file). The access log is nginx's,
// as JSON lines with our origin's field names where nginx has the value
// (conn, seq, method, url, status, bytes, range, end); no /bulk here: bulk
// flows use our origin.
//
//   node dist/demo/server/nginx-origin.js --host 10.201.1.2 --port 8001 [--log FILE] [--nginx PATH]
//
// With `--h2 --cert FILE --key FILE` nginx serves HTTPS with HTTP/2
// (`listen ... ssl http2`, nginx-light has the module) and the URL printed is
// https: the harness's `--origin nginx-h2`, where a page runs Sprint's trains
// on fetch over one HTTP/2 connection. nginx still offers HTTP/1.1 in ALPN;
// Chromium picks h2, and the access log's `version` ("HTTP/2.0") says which.

import { spawn } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as net from 'net';
import { tmpdir, userInfo } from 'os';
import * as path from 'path';
import { OptionsSpec, parseArgs, parseInteger, UsageError } from '../../src/cli/args';
import { resolveOriginOptions } from './options';
import { runMain } from '../../src/cli/run-main';

export const DEFAULT_NGINX = '/usr/sbin/nginx';

export interface NginxConfigOptions {
  readonly host: string;
  readonly port: number;
  /** Private directory for the pid file, temp files and the error log. */
  readonly prefix: string;
  readonly mediaDir: string;
  readonly pageDir: string;
  readonly distDir: string;
  /** Access log file (JSON lines), or null for none. */
  readonly logPath: string | null;
  /**
   * User the workers run as when nginx starts as root (else nginx's default,
   * nobody, which cannot read a checkout under a private home or temp
   * directory): the wrapper passes its own user, root under the A/B
   * harness. Omitted: nginx's default.
   */
  readonly workerUser?: string;
  /** Serve HTTPS + HTTP/2 with this certificate and key (PEM files); absent: plain HTTP/1.1. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
}

/** Characters that would end a quoted nginx string or a directive. */
function quote(value: string): string {
  if (/["\\;{}\n\r$]/.test(value)) throw new Error(`nginx origin: unsupported character in ${JSON.stringify(value)}`);
  return `"${value}"`;
}

/** Directory path with one trailing slash (nginx `alias` for a prefix location needs it). */
function dirSlash(dir: string): string {
  return quote(`${dir.replace(/\/+$/, '')}/`);
}

/** The nginx.conf that serves the demo resources on host:port. */
export function nginxConfig(o: NginxConfigOptions): string {
  if (net.isIP(o.host) === 0) throw new Error(`nginx origin: host must be an IP address, got ${JSON.stringify(o.host)}`);
  if (!Number.isInteger(o.port) || o.port < 1 || o.port > 65535) throw new Error(`nginx origin: bad port ${String(o.port)}`);
  const p = (name: string): string => quote(path.join(o.prefix, name));
  const cors = [
    'add_header Access-Control-Allow-Origin "*" always;',
    'add_header Access-Control-Expose-Headers "Content-Range, Content-Length, Accept-Ranges" always;',
    // Resource Timing details (nextHopProtocol, sizes) for a page on another origin.
    'add_header Timing-Allow-Origin "*" always;',
  ];
  const logFormat =
    `'{"conn":$connection,"seq":$connection_requests,"remote":"$remote_addr:$remote_port","method":"$request_method",` +
    `"url":"$request_uri","version":"$server_protocol","range":"$http_range","status":$status,"bytes":$body_bytes_sent,` +
    `"end":$msec,"requestTimeS":$request_time,"server":"nginx"}'`;
  return [
    '# Written by demo/server/nginx-origin.ts for one origin process.',
    'daemon off;',
    ...(o.workerUser === undefined ? [] : [`user ${quote(o.workerUser)};`]),
    'worker_processes 1;',
    `pid ${p('nginx.pid')};`,
    `error_log ${p('error.log')} warn;`,
    'events { worker_connections 512; }',
    'http {',
    '  types { text/html html; application/javascript js; application/json json; application/dash+xml mpd; application/vnd.apple.mpegurl m3u8; video/mp4 mp4 m4s; audio/mp4 m4a; text/plain txt map; }',
    '  default_type application/octet-stream;',
    `  client_body_temp_path ${p('body')};`,
    `  proxy_temp_path ${p('proxy')};`,
    `  fastcgi_temp_path ${p('fastcgi')};`,
    `  uwsgi_temp_path ${p('uwsgi')};`,
    `  scgi_temp_path ${p('scgi')};`,
    `  log_format sprint escape=json ${logFormat};`,
    o.logPath === null ? '  access_log off;' : `  access_log ${quote(o.logPath)} sprint;`,
    '  sendfile on;',
    '  keepalive_requests 100000;',
    '  keepalive_timeout 120s;',
    '  keepalive_time 24h;',
    '  server_tokens off;',
    '  server {',
    `    listen ${o.host.includes(':') ? `[${o.host}]` : o.host}:${o.port}${o.tls ? ' ssl http2' : ''};`,
    ...(o.tls
      ? [
          `    ssl_certificate ${quote(o.tls.certFile)};`,
          `    ssl_certificate_key ${quote(o.tls.keyFile)};`,
          '    ssl_protocols TLSv1.2 TLSv1.3;',
          // A train keeps its outstanding window of streams open; the default 128 is plenty, say so.
          '    http2_max_concurrent_streams 128;',
        ]
      : []),
    '    location = /probe {',
    '      add_header Cache-Control "no-store" always;',
    ...cors.map((l) => `      ${l}`),
    '      default_type text/plain;',
    '      return 200 "ok";',
    '    }',
    '    location = / {',
    `      root ${quote(o.pageDir)};`,
    '      try_files /index.html =404;',
    '    }',
    '    location /dist/ {',
    `      alias ${dirSlash(o.distDir)};`,
    // the build's gzip copies (<name>.gz) to clients that accept gzip, as our origin does (routes.ts)
    '      gzip_static on;',
    '      gzip_vary on;',
    '    }',
    '    location /media/ {',
    `      alias ${dirSlash(o.mediaDir)};`,
    '      add_header Cache-Control "no-store" always;',
    ...cors.map((l) => `      ${l}`),
    '      if ($request_method = OPTIONS) {',
    '        add_header Access-Control-Allow-Origin "*" always;',
    '        add_header Access-Control-Allow-Headers "Range" always;',
    '        add_header Access-Control-Allow-Methods "GET, HEAD, OPTIONS" always;',
    '        return 204;',
    '      }',
    '    }',
    '    location / {',
    `      root ${quote(o.pageDir)};`,
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

const SPEC: OptionsSpec = {
  host: { kind: 'value' },
  port: { kind: 'value', short: 'p' },
  log: { kind: 'value' },
  media: { kind: 'value' },
  page: { kind: 'value' },
  dist: { kind: 'value' },
  nginx: { kind: 'value' },
  h2: { kind: 'flag' },
  cert: { kind: 'value' },
  key: { kind: 'value' },
  help: { kind: 'flag', short: 'h' },
};

export const USAGE = `Usage: node dist/demo/server/nginx-origin.js [options]

Runs nginx (foreground, private prefix) serving the demo page, /dist/, /media/
(Range, CORS) and /probe like sprint serve; prints the URL when it accepts
connections; SIGTERM or Ctrl-C stops it and removes its files.

Options:
  --host ADDR     address to bind (default 127.0.0.1)
  -p, --port N    port (default 8080; nginx needs a fixed one)
  --log FILE      access log, JSON lines
  --media DIR     content root for /media/ (default <repo>/demo/media)
  --page DIR      demo page directory (default <repo>/demo/page)
  --dist DIR      player bundle for /dist/ (default <repo>/dist/player)
  --nginx PATH    the nginx binary (default ${DEFAULT_NGINX})
  --h2            HTTPS + HTTP/2 (needs --cert and --key, PEM files)
  --cert FILE     certificate for --h2
  --key FILE      private key for --h2
`;

/** Resolves once host:port accepts a TCP connection, or rejects after timeoutMs. */
function waitForPort(host: string, port: number, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      if (!alive()) return reject(new Error('nginx exited before accepting connections'));
      const s = net.connect({ host, port }, () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`nginx did not accept connections on ${host}:${port} within ${timeoutMs} ms`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export async function main(argv: readonly string[]): Promise<number> {
  let host = '127.0.0.1';
  let port = 8080;
  let logPath: string | null = null;
  let nginx = DEFAULT_NGINX;
  let dirs: { mediaDir: string; pageDir: string; distDir: string };
  let tls: NginxConfigOptions['tls'];
  try {
    const args = parseArgs(argv, SPEC);
    if (args.flags.has('help')) {
      process.stdout.write(USAGE);
      return 0;
    }
    host = args.values.get('host') ?? host;
    if (args.values.has('port')) port = parseInteger(args.values.get('port') as string, '--port', 1);
    if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
    logPath = args.values.has('log') ? path.resolve(args.values.get('log') as string) : null;
    nginx = args.values.get('nginx') ?? nginx;
    const cert = args.values.get('cert');
    const key = args.values.get('key');
    if (args.flags.has('h2')) {
      if (cert === undefined || key === undefined) throw new UsageError('--h2 needs --cert FILE and --key FILE');
      for (const f of [cert, key]) if (!existsSync(f)) throw new UsageError(`${f} not found`);
      tls = { certFile: path.resolve(cert), keyFile: path.resolve(key) };
    } else if (cert !== undefined || key !== undefined) {
      throw new UsageError('--cert and --key need --h2');
    }
    const resolved = resolveOriginOptions({
      mediaDir: args.values.get('media'),
      pageDir: args.values.get('page'),
      distDir: args.values.get('dist'),
    });
    dirs = { mediaDir: resolved.mediaDir, pageDir: resolved.pageDir, distDir: resolved.distDir };
  } catch (err) {
    process.stderr.write(`nginx-origin: ${(err as Error).message}\n${err instanceof UsageError ? USAGE : ''}`);
    return 2;
  }
  if (!existsSync(nginx)) {
    process.stderr.write(`nginx-origin: ${nginx} not found: install nginx (apt-get install nginx-light) or pass --nginx PATH\n`);
    return 1;
  }
  const prefix = mkdtempSync(path.join(tmpdir(), 'sprint-nginx-'));
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(prefix, d));
  const conf = path.join(prefix, 'nginx.conf');
  const cleanup = (): void => rmSync(prefix, { recursive: true, force: true });
  try {
    // As root (the A/B harness), the workers run as root too, so they can read the checkout wherever it is.
    const workerUser = process.getuid?.() === 0 ? userInfo().username : undefined;
    writeFileSync(conf, nginxConfig({ host, port, prefix, logPath, workerUser, ...(tls ? { tls } : {}), ...dirs }));
  } catch (err) {
    cleanup();
    process.stderr.write(`nginx-origin: ${(err as Error).message}\n`);
    return 2;
  }
  const child = spawn(nginx, ['-p', prefix, '-c', conf, '-e', path.join(prefix, 'error.log')], { stdio: ['ignore', 'inherit', 'inherit'] });
  let exited: number | null = null;
  const exit = new Promise<number>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = code ?? (signal ? 128 : 1);
      resolve(exited);
    });
    child.once('error', (err) => {
      process.stderr.write(`nginx-origin: cannot run ${nginx}: ${err.message}\n`);
      exited = 1;
      resolve(1);
    });
  });
  // Every SIGTERM/SIGINT stops nginx (never leaving it behind); the prefix goes when it has exited.
  const stop = (): void => {
    if (exited === null) child.kill('SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    await waitForPort(host, port, 10_000, () => exited === null);
    process.stdout.write(`${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}/\n`);
  } catch (err) {
    stop();
    await exit;
    let log = '';
    try {
      log = readFileSync(path.join(prefix, 'error.log'), 'utf8');
    } catch {
      // no error log
    }
    cleanup();
    process.stderr.write(`nginx-origin: ${(err as Error).message}\n${log.trim()}\n`);
    return 1;
  }
  const code = await exit;
  cleanup();
  return code === 0 || code === 128 ? 0 : code;
}

runMain(module, 'nginx-origin', main);
