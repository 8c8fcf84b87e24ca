/**
 * End-to-end: the Sprint extension and its socket host in headless Chromium
 * against the demo origin on 127.0.0.1 (pipelined trains, faults,
 * security). Every assertion is on what happened on the wire (the origin's
 * access log, raw request bytes) or on the bytes that reached the page
 * (SHA-256 against the files on disk).
 */
import { createHash, randomBytes } from 'crypto';
import { spawnSync } from 'child_process';
import { mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'fs';
import * as https from 'https';
import * as net from 'net';
import { join } from 'path';
import type { Page } from 'puppeteer-core';
import { startOrigin, type AccessRecord, type Origin, type OriginOptions } from '../../../demo/server/origin';
import { buildArtifacts, launchExtBrowser, type Artifacts, type ExtBrowser } from './support/ext-stack';
import type { ReqResult } from './page/test-page';

const FILE_BYTES = 1_000_000;
let art: Artifacts;
const files: Record<string, Buffer> = {};

function sha(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

beforeAll(async () => {
  art = await buildArtifacts();
  for (const name of ['s1.m4s', 's2.m4s', 's3.m4s', 's4.m4s']) {
    files[name] = randomBytes(FILE_BYTES);
    writeFileSync(join(art.mediaDir, name), files[name] as Buffer);
  }
}, 180_000);

afterAll(() => art?.close());

type Api = {
  detect(timeoutMs: number, handshakeTimeoutMs?: number): Promise<{ ok: boolean; code?: string; reason?: string; info?: string }>;
  run(reqs: Array<{ url: string; range?: { start: number; end: number } }>, timeoutMs?: number): Promise<ReqResult[]>;
  stats(): Promise<{
    origins: Array<{
      origin: string;
      mode: string;
      unsafeReason: string | null;
      connectionsOpened: number;
      reissued: number;
      withheld: number;
    }>;
  }>;
  pathInfo(origin: string): Promise<{ rttSec: number; minRttSec: number | null; bytesReceived: number; atMs: number } | null>;
  state(): { state: string; reason: string; reconnects: number; log: string[] };
  holdSessions(n: number): Promise<string[]>;
  releaseSessions(): Promise<void>;
  raw(
    messages: unknown[],
    waitMs: number,
  ): Promise<{ ok: boolean; code?: string; reason?: string; replies: Array<Record<string, unknown>> }>;
};

async function onPage<T>(page: Page, fn: string, ...args: unknown[]): Promise<T> {
  return page.evaluate(
    (f: string, a: unknown[]) => {
      const api = (window as unknown as { sprintExtTest: Record<string, (...x: unknown[]) => unknown> }).sprintExtTest;
      return api[f]!(...a);
    },
    fn,
    args,
  ) as Promise<T>;
}

const api = (page: Page) =>
  new Proxy({} as Api, {
    get:
      (_t, name: string) =>
      (...args: unknown[]) =>
        onPage(page, name, ...args),
  });

async function openTestPage(b: ExtBrowser, origin: Origin): Promise<Page> {
  const page = await b.newPage();
  await page.goto(`${origin.url}/`, { waitUntil: 'load' });
  await page.waitForFunction(() => document.title === 'sprint-ext-test ready', { timeout: 10_000 });
  return page;
}

function mediaRecords(origin: Origin): AccessRecord[] {
  return origin.records().filter((r) => r.url !== null && r.url.startsWith('/media/'));
}

/** Waits until the origin logged `n` media records (they are written when a response ends or its connection dies). */
async function waitForRecords(origin: Origin, n: number, timeoutMs = 10_000): Promise<AccessRecord[]> {
  const deadline = Date.now() + timeoutMs;
  while (mediaRecords(origin).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return mediaRecords(origin);
}

interface TlsFiles {
  ca: string;
  key: Buffer;
  cert: Buffer;
  strangerKey: Buffer;
  strangerCert: Buffer;
}

/** A test CA, a leaf for IP 127.0.0.1 signed by it, and a self-signed leaf nobody trusts (openssl, EC P-256). */
function makeTlsFiles(dir: string): TlsFiles {
  mkdirSync(dir);
  const ssl = (...args: string[]): void => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.error || r.status !== 0)
      throw new Error(`openssl ${args[0]} failed (the TLS test needs the openssl CLI): ${r.error?.message ?? ''}${r.stderr}`);
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  writeFileSync(join(dir, 'leaf.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=Sprint test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  ssl('req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=127.0.0.1');
  ssl(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.pem',
    '-days',
    '2',
    '-extfile',
    'leaf.ext',
  );
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'stranger.key',
    '-out',
    'stranger.pem',
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  );
  const read = (f: string): Buffer => readFileSync(join(dir, f));
  return {
    ca: join(dir, 'ca.pem'),
    key: read('leaf.key'),
    cert: read('leaf.pem'),
    strangerKey: read('stranger.key'),
    strangerCert: read('stranger.pem'),
  };
}

/** An HTTPS origin on 127.0.0.1 serving `body` at every path, readable cross-origin. */
async function startTlsOrigin(
  key: Buffer,
  cert: Buffer,
  body: Buffer,
): Promise<{ url: string; requests: string[]; clientPorts: Set<number>; close(): Promise<void> }> {
  const requests: string[] = [];
  const clientPorts = new Set<number>();
  const server = https.createServer({ key, cert }, (req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.origin ?? ''}`);
    clientPorts.add(req.socket.remotePort as number);
    res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': body.length, 'Access-Control-Allow-Origin': '*' });
    res.end(body);
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    clientPorts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** PIDs of running socket hosts built from `binary` (a path in this test's temp dir). */
function hostPids(binary: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readlinkSync(`/proc/${d}/exe`) === binary) out.push(Number(d));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

function expectBytes(r: ReqResult | undefined, expected: Buffer): void {
  expect(r).toBeDefined();
  expect({ error: r!.error, violations: r!.violations }).toEqual({ error: null, violations: [] });
  expect(r!.bytes).toBe(expected.length);
  expect(r!.sha256).toBe(sha(expected));
}

describe('Sprint extension with its socket host', () => {
  let b: ExtBrowser;
  let tls: TlsFiles;
  const origins: Origin[] = [];
  const start = async (o: OriginOptions = {}): Promise<Origin> => {
    const origin = await startOrigin({
      mediaDir: art.mediaDir,
      pageDir: art.pageDir,
      distDir: art.pageDir,
      onServerError: () => undefined,
      ...o,
    });
    origins.push(origin);
    return origin;
  };

  beforeAll(async () => {
    tls = makeTlsFiles(join(art.dir, 'tls'));
    // The host trusts the test CA in addition to the system roots (PROTOCOL.md §10); there is no "skip verification".
    b = await launchExtBrowser(art, { env: { SPRINT_HOST_EXTRA_CA: tls.ca } });
  });
  afterAll(async () => {
    await b?.close();
  });
  afterEach(async () => {
    for (const o of origins.splice(0)) await o.close();
  });

  test('loads under the ID derived from the manifest key, and detectExtension finds the host', async () => {
    const worker = await b.browser.waitForTarget((t) => t.type() === 'service_worker' && t.url().startsWith('chrome-extension://'), {
      timeout: 10_000,
    });
    expect(worker.url()).toBe(`chrome-extension://${art.extensionId}/background.js`);
    const origin = await start();
    const page = await openTestPage(b, origin);
    // the content script marked the document before the page's scripts ran
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-sprint-extension'))).toBe('v1');
    const found = await api(page).detect(1500);
    expect(found).toMatchObject({ ok: true });
    expect(found.info).toMatch(/^extension 0\.1\.0, socket host \S+/);
    await page.close();
  });

  test('a train of 4 requests rides ONE connection, request k+1 arriving before response k ends; bytes intact', async () => {
    const origin = await start({ rateLimitBitsPerSec: 80e6 });
    const page = await openTestPage(b, origin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const names = ['s1.m4s', 's2.m4s', 's3.m4s', 's4.m4s'];
    const results = await api(page).run(names.map((n) => ({ url: `${origin.url}/media/${n}` })));
    names.forEach((n, i) => expectBytes(results[i], files[n] as Buffer));
    const recs = (await waitForRecords(origin, 4)).sort((x, y) => x.seq - y.seq);
    expect(recs.map((r) => r.url)).toEqual(names.map((n) => `/media/${n}`));
    expect(new Set(recs.map((r) => r.conn)).size).toBe(1);
    for (let k = 0; k + 1 < recs.length; k += 1) expect((recs[k + 1] as AccessRecord).arrival).toBeLessThan((recs[k] as AccessRecord).end);
    // Responses came back in request order, each piece well under the 1 MB messaging limit.
    const ends = results.map((r) => r.endT as number);
    expect([...ends].sort((x, y) => x - y)).toEqual(ends);
    for (const r of results) expect(r.maxPiece).toBeLessThanOrEqual(256 * 1024);
    const stats = await api(page).stats();
    expect(stats.origins[0]).toMatchObject({ origin: origin.url, mode: 'pipelined', connectionsOpened: 1 });
    // One client address in the origin's log; the page is not told it (stats carry no local address).
    expect(new Set(recs.map((r) => r.remote)).size).toBe(1);
    expect(stats.origins[0]).not.toHaveProperty('localAddr');
    const path = await api(page).pathInfo(origin.url);
    expect(path).not.toBeNull();
    expect(path!.bytesReceived).toBeGreaterThanOrEqual(4 * FILE_BYTES);
    expect(path!.rttSec).toBeGreaterThan(0);
    await page.close();
  });

  test('keep-alive request limit (2 per connection): all 4 delivered over 2 connections, unanswered ones re-issued', async () => {
    const origin = await start({ maxRequestsPerConnection: 2, rateLimitBitsPerSec: 80e6 });
    const page = await openTestPage(b, origin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const names = ['s1.m4s', 's2.m4s', 's3.m4s', 's4.m4s'];
    const results = await api(page).run(names.map((n) => ({ url: `${origin.url}/media/${n}` })));
    names.forEach((n, i) => expectBytes(results[i], files[n] as Buffer));
    const answered = (await waitForRecords(origin, 4)).filter((r) => r.complete);
    expect(answered.map((r) => r.url).sort()).toEqual(names.map((n) => `/media/${n}`));
    expect(new Set(answered.map((r) => r.conn)).size).toBe(2);
    const stats = await api(page).stats();
    expect(stats.origins[0]).toMatchObject({ mode: 'pipelined', connectionsOpened: 2, reissued: 2 });
    await page.close();
  });

  test.each([
    ['http10', { http10: true }, /http-1\.0/],
    ['closeAfterEachResponse', { closeAfterEachResponse: true }, /closes-after-each-response/],
  ] as const)('%s: correct data, and the origin is switched to sequential requests', async (_name, opts, why) => {
    const origin = await start(opts);
    const page = await openTestPage(b, origin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const names = ['s1.m4s', 's2.m4s', 's3.m4s', 's4.m4s'];
    const results = await api(page).run(names.map((n) => ({ url: `${origin.url}/media/${n}` })));
    names.forEach((n, i) => expectBytes(results[i], files[n] as Buffer));
    const stats = await api(page).stats();
    expect(stats.origins[0]?.mode).toBe('sequential');
    expect(stats.origins[0]?.unsafeReason).toMatch(why);
    await page.close();
  });

  test('misordered responses are detected by Content-Range: correct data, origin sequential', async () => {
    const origin = await start({ misorderResponses: true, rateLimitBitsPerSec: 80e6 });
    const page = await openTestPage(b, origin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const f = files['s1.m4s'] as Buffer;
    const ranges = [0, 1, 2, 3].map((k) => ({ start: k * 200_000, end: k * 200_000 + 199_999 }));
    const results = await api(page).run(ranges.map((range) => ({ url: `${origin.url}/media/s1.m4s`, range })));
    ranges.forEach((r, i) => {
      expectBytes(results[i], f.subarray(r.start, r.end + 1));
      expect(results[i]?.status).toBe(206);
    });
    const stats = await api(page).stats();
    expect(stats.origins[0]).toMatchObject({ mode: 'sequential' });
    expect(stats.origins[0]?.unsafeReason).toMatch(/mismatched-response/);
    await page.close();
  });

  test('server cuts the connection mid-response: the cut request fails retryable, those behind it are re-issued', async () => {
    const origin = await start({ resetAfterBytes: 300_000, resetCount: 1, rateLimitBitsPerSec: 80e6 });
    const page = await openTestPage(b, origin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const names = ['s1.m4s', 's2.m4s', 's3.m4s'];
    const results = await api(page).run(names.map((n) => ({ url: `${origin.url}/media/${n}` })));
    expect(results[0]).toMatchObject({ status: 200, retryable: true, endT: null });
    expect(results[0]?.error).toMatch(/^connection-lost: /);
    expect(results[0]?.bytes).toBeLessThanOrEqual(300_000);
    expectBytes(results[1], files['s2.m4s'] as Buffer);
    expectBytes(results[2], files['s3.m4s'] as Buffer);
    // The player re-issues the failed one.
    const again = await api(page).run([{ url: `${origin.url}/media/s1.m4s` }]);
    expectBytes(again[0], files['s1.m4s'] as Buffer);
    const recs = await waitForRecords(origin, 5);
    expect(recs.filter((r) => r.error === 'fault-reset-after-bytes')).toHaveLength(1);
    const stats = await api(page).stats();
    expect(stats.origins[0]).toMatchObject({ mode: 'pipelined', reissued: 2 });
    await page.close();
  });

  test('HTTPS origin: verified TLS (test CA given to the host), pipelined; an untrusted certificate is refused', async () => {
    const pageOrigin = await start();
    const body = files['s4.m4s'] as Buffer;
    const good = await startTlsOrigin(tls.key, tls.cert, body);
    const stranger = await startTlsOrigin(tls.strangerKey, tls.strangerCert, body);
    try {
      const page = await openTestPage(b, pageOrigin);
      expect((await api(page).detect(1500)).ok).toBe(true);
      const results = await api(page).run([{ url: `${good.url}/a.m4s` }, { url: `${good.url}/b.m4s` }, { url: `${stranger.url}/c.m4s` }]);
      expectBytes(results[0], body);
      expectBytes(results[1], body);
      expect(good.requests).toEqual([`GET /a.m4s ${pageOrigin.url}`, `GET /b.m4s ${pageOrigin.url}`]);
      expect(good.clientPorts.size).toBe(1);
      expect(results[2]).toMatchObject({ status: null, bytes: 0, retryable: false });
      expect(results[2]?.error).toMatch(/^unreachable: the origin could not be reached/);
      expect(stranger.requests).toEqual([]);
      await page.close();
    } finally {
      await good.close();
      await stranger.close();
    }
  });

  test('cross-origin without CORS: response withheld, no byte reaches the page', async () => {
    const pageOrigin = await start();
    const media = await start({ noCors: true });
    const page = await openTestPage(b, pageOrigin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const results = await api(page).run([
      { url: `${media.url}/media/s1.m4s` },
      { url: `${media.url}/media/s2.m4s`, range: { start: 0, end: 999 } },
    ]);
    for (const r of results) {
      expect(r).toMatchObject({ status: null, bytes: 0, pieces: 0, retryable: false, violations: [] });
      expect(r.error).toBe("cors: the response is not readable by this page (CORS) (details in the Sprint extension's service worker log)");
    }
    expect((await api(page).stats()).origins[0]).toMatchObject({ origin: media.url, withheld: 2 });
    // The same origin with CORS (Access-Control-Allow-Origin: *) is readable.
    const open = await start();
    const ok = await api(page).run([{ url: `${open.url}/media/s1.m4s` }]);
    expectBytes(ok[0], files['s1.m4s'] as Buffer);
    await page.close();
  });

  test('request bytes on the wire: Origin sent cross-origin, no cookies; exposed headers and ACAO checked exactly', async () => {
    const pageOrigin = await start();
    const seen: string[] = [];
    const server = net.createServer((sock) => {
      let buf = '';
      sock.on('data', (d) => {
        buf += d.toString('latin1');
        for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
          const head = buf.slice(0, end + 4);
          buf = buf.slice(end + 4);
          seen.push(head);
          const path = head.split(' ')[1];
          const acao =
            path === '/ok'
              ? [`Access-Control-Allow-Origin: ${pageOrigin.url}`]
              : path === '/two'
                ? ['Access-Control-Allow-Origin: *', 'Access-Control-Allow-Origin: *']
                : ['Access-Control-Allow-Origin: http://example.com'];
          sock.write(
            [
              'HTTP/1.1 200 OK',
              'Content-Length: 5',
              'Content-Type: text/plain',
              ...acao,
              'Access-Control-Expose-Headers: X-Exposed',
              'X-Exposed: yes',
              'X-Hidden: no',
              'Set-Cookie: a=b',
              '',
              'hello',
            ].join('\r\n'),
          );
        }
      });
      sock.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const page = await openTestPage(b, pageOrigin);
      await page.evaluate(() => {
        document.cookie = 'sprintsecret=1; path=/';
      });
      expect((await api(page).detect(1500)).ok).toBe(true);
      const base = `http://127.0.0.1:${port}`;
      const results = await api(page).run([
        { url: `${base}/ok` },
        { url: `${base}/wrong` },
        { url: `${base}/two` },
        { url: `${base}/ok#fragment` },
      ]);
      expect(results[0]).toMatchObject({ status: 200, bytes: 5, error: null });
      expect(results[0]?.headers).toEqual({ 'content-length': '5', 'content-type': 'text/plain', 'x-exposed': 'yes' });
      // Code only: another site's Access-Control-Allow-Origin value is not the page's to read.
      expect(results[1]?.error).toMatch(/^cors: the response is not readable by this page \(CORS\)/);
      expect(results[1]?.error).not.toContain('example.com');
      expect(results[2]?.error).toMatch(/^cors: the response is not readable by this page \(CORS\)/);
      expect(results[3]).toMatchObject({ status: 200, bytes: 5, error: null });
      expect(seen).toHaveLength(4);
      for (const head of seen) {
        const lines = head.split('\r\n').filter((l) => l !== '');
        expect(lines[0]).toMatch(/^GET \/(ok|wrong|two) HTTP\/1\.1$/);
        const names = lines.slice(1).map((l) => l.slice(0, l.indexOf(':')).toLowerCase());
        expect(names).toEqual(['host', 'accept', 'accept-encoding', 'user-agent', 'origin', 'connection']);
        expect(lines).toContain(`Origin: ${pageOrigin.url}`);
        expect(lines).toContain(`Host: 127.0.0.1:${port}`);
      }
      expect(seen.join('')).not.toMatch(/cookie|authorization|sprintsecret/i);
      await page.close();
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  test('loopback/private/reserved addresses are refused before any connection unless the page is served from that host', async () => {
    const origin = await start();
    const page = await openTestPage(b, origin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const port = origin.port;
    const refused = [
      'http://10.0.0.1/media/s1.m4s',
      'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${port}/media/s1.m4s`,
      `http://[::1]:${port}/media/s1.m4s`,
      `http://0.0.0.0:${port}/media/s1.m4s`,
      `http://[::ffff:127.0.0.1]:${port}/media/s1.m4s`,
    ];
    const results = await api(page).run(refused.map((url) => ({ url })));
    results.forEach((r, i) => {
      expect({ url: refused[i], error: r.error, bytes: r.bytes }).toEqual({
        url: refused[i],
        error: expect.stringMatching(
          /^forbidden-address: .* is a loopback, private or reserved address and the page \(http:\/\/127\.0\.0\.1:\d+\) is not served from it/,
        ),
        bytes: 0,
      });
    });
    expect(mediaRecords(origin)).toHaveLength(0);
    // The page's own host is allowed (it is served from it).
    const own = await api(page).run([{ url: `http://127.0.0.1:${port}/media/s1.m4s` }]);
    expectBytes(own[0], files['s1.m4s'] as Buffer);
    await page.close();
  });

  test('malformed and forbidden messages are rejected at the boundary and never reach a server', async () => {
    const origin = await start();
    const page = await openTestPage(b, origin);
    const good = `${origin.url}/media/s1.m4s`;
    const r = await api(page).raw(
      [
        { type: 'request', id: 1, url: good, method: 'POST' },
        { type: 'request', id: 2, url: `ftp://127.0.0.1:${origin.port}/media/s1.m4s` },
        { type: 'request', id: 3, url: `http://user:pw@127.0.0.1:${origin.port}/media/s1.m4s` },
        { type: 'request', id: 4, url: `${good}?${'x'.repeat(5000)}` },
        { type: 'request', id: 5.5, url: good },
        { type: 'request', id: 6, url: good, range: { start: 10, end: 5 } },
        'not an object',
        { type: 'bogus', id: 7 },
        { type: 'request', id: 8, url: 'javascript:alert(1)' },
        { type: 'request', id: 9, url: `http://127.0.0.1:${origin.port}/media/s1 .m4s` },
        { type: 'request', id: 10, url: good, headers: { Cookie: 'a=b' } },
        { type: 'request', id: 11, url: good, range: { start: 0, end: 9 } },
      ],
      1500,
    );
    expect(r.ok).toBe(true);
    const byId = (id: number | null, type: string) => r.replies.filter((m) => m.id === id && m.type === type);
    expect(byId(1, 'rejected')[0]?.reason).toMatch(/unknown field "method"/);
    expect(byId(2, 'error')[0]).toMatchObject({ code: 'forbidden-url', retryable: false });
    expect(byId(3, 'error')[0]).toMatchObject({ code: 'forbidden-url' });
    expect(byId(3, 'error')[0]?.reason).toMatch(/credentials/);
    expect(byId(4, 'rejected')[0]?.reason).toMatch(/url must be 1\.\.4096 characters/);
    expect(byId(null, 'rejected').map((m) => m.reason)).toEqual([expect.stringMatching(/id must be an integer/), 'not a plain object']);
    expect(byId(7, 'rejected')[0]?.reason).toMatch(/unknown message type "bogus"/);
    expect(byId(6, 'rejected')[0]?.reason).toMatch(/end 5 is before start 10/);
    expect(byId(8, 'error')[0]).toMatchObject({ code: 'forbidden-url' });
    expect(byId(9, 'error')[0]).toMatchObject({ code: 'forbidden-url' });
    expect(byId(10, 'rejected')[0]?.reason).toMatch(/unknown field "headers"/);
    // Only the one well-formed request reached the origin.
    expect(byId(11, 'end')[0]).toMatchObject({ bodyBytes: 10 });
    const recs = await waitForRecords(origin, 1);
    expect(recs.map((x) => [x.method, x.url, x.range])).toEqual([['GET', '/media/s1.m4s', 'bytes=0-9']]);
    await page.close();
  });

  test('bounds: 33rd outstanding request refused; 5th session of a document and 17th of the browser refused; a response announcing more than 256 MB is refused unread', async () => {
    const origin = await start({ rateLimitBitsPerSec: 8e6 });
    const page = await openTestPage(b, origin);
    const msgs = Array.from({ length: 33 }, (_, i) => ({ type: 'request', id: i + 1, url: `${origin.url}/media/s${(i % 4) + 1}.m4s` }));
    const r = await api(page).raw(msgs, 800);
    const errors = r.replies.filter((m) => m.type === 'error');
    expect(errors).toEqual([expect.objectContaining({ id: 33, code: 'too-many-requests' })]);
    // Sessions are bounded per document (4), per tab (4) and per browser (16); closing them frees the slots.
    const sessions = await api(page).holdSessions(5);
    expect(sessions.slice(0, 4)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(sessions[4]).toMatch(/^too-many-sessions: at most 4 Sprint sessions per document/);
    const others = [];
    for (let i = 0; i < 3; i += 1) {
      const other = await openTestPage(b, origin);
      expect(await api(other).holdSessions(4)).toEqual(['ok', 'ok', 'ok', 'ok']);
      others.push(other);
    }
    const third = await openTestPage(b, origin);
    const seventeenth = await api(third).holdSessions(1);
    expect(seventeenth[0]).toMatch(/^too-many-sessions: at most 16 Sprint sessions may be open at once/);
    for (const other of others) {
      await api(other).releaseSessions();
      await other.close();
    }
    await api(page).releaseSessions();
    // The worker learns of the closed ports asynchronously: a slot frees up within a bounded wait.
    let again: string[] = [];
    for (let i = 0; i < 25 && again[0] !== 'ok'; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      again = await api(third).holdSessions(1);
    }
    expect(again).toEqual(['ok']);
    await api(third).releaseSessions();
    await third.close();
    const big = await start();
    expect((await api(page).detect(1500)).ok).toBe(true);
    const res = await api(page).run([{ url: `${big.url}/bulk?bytes=300000000` }]);
    expect(res[0]).toMatchObject({ status: null, bytes: 0, retryable: false });
    expect(res[0]?.error).toMatch(/^too-large: the response announces 300000000 body bytes/);
    await page.close();
  });

  test('throughput host → page (figure printed, not asserted)', async () => {
    const origin = await start();
    const page = await openTestPage(b, origin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const n = 64 * 1024 * 1024;
    const res = await api(page).run([{ url: `${origin.url}/bulk?bytes=${n}` }], 120_000);
    const expected = Buffer.alloc(n);
    for (let i = 0; i < n; i += 1) expected[i] = i & 0xff;
    expectBytes(res[0], expected);
    const r = res[0] as ReqResult;
    const pageSec = ((r.pageEndMs as number) - (r.pageFirstDataMs as number)) / 1000;
    const hostSec = ((r.endT as number) - (r.headT as number)) / 1000;
    console.log(
      `[sprint extension] ${n / 1e6} MB over loopback: page received at ${(n / 1e6 / pageSec).toFixed(1)} MB/s ` +
        `(host read at ${(n / 1e6 / hostSec).toFixed(1)} MB/s), ${r.pieces} pieces, largest ${r.maxPiece} bytes`,
    );
    await page.close();
  });

  test('socket host crash mid-train: the partly delivered response fails retryable, the rest completes on a restarted host', async () => {
    const origin = await start({ rateLimitBitsPerSec: 16e6 });
    const page = await openTestPage(b, origin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const running = api(page).run([{ url: `${origin.url}/media/s1.m4s` }, { url: `${origin.url}/media/s2.m4s` }]);
    // Wait until the first response is streaming, then kill the host this test's browser started (found by its binary, in our temp dir).
    const deadline = Date.now() + 10_000;
    while (origin.stats().connectionsOpen === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    const pids = hostPids(art.hostBinary);
    expect(pids.length).toBeGreaterThanOrEqual(1);
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    const results = await running;
    expect(results[0]).toMatchObject({ status: 200, retryable: true, endT: null });
    expect(results[0]?.error).toMatch(/^connection-lost: /);
    expectBytes(results[1], files['s2.m4s'] as Buffer);
    const again = await api(page).run([{ url: `${origin.url}/media/s1.m4s` }]);
    expectBytes(again[0], files['s1.m4s'] as Buffer);
    expect(hostPids(art.hostBinary).some((p) => !pids.includes(p))).toBe(true);
    await page.close();
  });

  // Last in this browser: it stops the service worker.
  test('service worker stopped by the browser: in-flight request fails retryable, the page re-handshakes with a new worker', async () => {
    const origin = await start({ rateLimitBitsPerSec: 8e6 });
    const page = await openTestPage(b, origin);
    expect((await api(page).detect(1500)).ok).toBe(true);
    const before = (await api(page).stats()) as unknown as { sessionId: number; workerStartedAt: number };
    const slow = api(page).run([{ url: `${origin.url}/media/s1.m4s` }, { url: `${origin.url}/media/s2.m4s` }]);
    await new Promise((r) => setTimeout(r, 300));
    const cdp = await b.browser.target().createCDPSession();
    const { targetInfos } = (await cdp.send('Target.getTargets')) as {
      targetInfos: Array<{ type: string; url: string; targetId: string }>;
    };
    const sw = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${art.extensionId}/`));
    expect(sw).toBeDefined();
    const stoppedAt = Date.now();
    await cdp.send('Target.closeTarget', { targetId: sw!.targetId });
    await cdp.detach();
    const results = await slow;
    for (const res of results) {
      expect(res).toMatchObject({ retryable: true, endT: null });
      expect(res.error).toMatch(/^extension-disconnected: worker-disconnected: /);
    }
    // The transport re-handshakes on its own; a new request then succeeds.
    await page.waitForFunction(
      () => (window as unknown as { sprintExtTest: { state(): { state: string } } }).sprintExtTest.state().state !== 'reconnecting',
      { timeout: 20_000 },
    );
    const st = await api(page).state();
    console.log(
      `[sprint extension] worker stopped → page session open again after ${Date.now() - stoppedAt} ms (${st.reconnects} re-handshake)`,
    );
    expect(st).toMatchObject({ state: 'open', reconnects: 1 });
    const after = (await api(page).stats()) as unknown as { sessionId: number; workerStartedAt: number };
    expect(after.workerStartedAt).toBeGreaterThan(before.workerStartedAt);
    expect(after.sessionId).toBe(1);
    const again = await api(page).run([{ url: `${origin.url}/media/s3.m4s` }]);
    expectBytes(again[0], files['s3.m4s'] as Buffer);
    await page.close();
  });
});

describe('Sprint extension without its socket host', () => {
  test("detectExtension reports the host missing, with Chrome's reason", async () => {
    const b = await launchExtBrowser(art, { hostManifest: false });
    const origin = await startOrigin({ mediaDir: art.mediaDir, pageDir: art.pageDir, distDir: art.pageDir });
    try {
      const page = await openTestPage(b, origin);
      const found = await api(page).detect(1500);
      expect(found).toMatchObject({ ok: false, code: 'host-missing' });
      expect(found.reason).toMatch(/Specified native messaging host not found/);
    } finally {
      await b.close();
      await origin.close();
    }
  });
});

describe('browser without the Sprint extension', () => {
  test('detectExtension reports no extension without waiting its timeout: the document carries no mark', async () => {
    const b = await launchExtBrowser(art, { extension: false });
    const origin = await startOrigin({ mediaDir: art.mediaDir, pageDir: art.pageDir, distDir: art.pageDir });
    try {
      const page = await openTestPage(b, origin);
      const found = await api(page).detect(1500);
      expect(found).toMatchObject({ ok: false, code: 'no-extension' });
      expect(await page.evaluate(() => document.documentElement.hasAttribute('data-sprint-extension'))).toBe(false);
      expect(found.reason).toMatch(/not in this page \(no data-sprint-extension mark, no answer within 100 ms/);
    } finally {
      await b.close();
      await origin.close();
    }
  });
});
