// The HTTP/2 demo origin (demo/server/h2-origin.ts) driven by node:http2
// clients over loopback: the same routes as the HTTP/1.1 origin (Range
// 206/416, /bulk, CORS with Timing-Allow-Origin), the access log telling
// sessions (`conn`) and streams apart, a stream the client cancels logged as
// `client-reset` with the bytes sent so far while the session stays up, the
// certificate and its SPKI hash, the bundle's gzip copy to a client that
// accepts gzip, and clear refusals (HTTP/1.1-only options, clients that do
// not offer h2).

import { X509Certificate, createHash } from 'crypto';
import * as fs from 'fs';
import * as http2 from 'http2';
import * as path from 'path';
import * as tls from 'tls';
import { gunzipSync, gzipSync } from 'zlib';
import {
  startH2Origin,
  makeSelfSignedCert,
  spkiHashOf,
  type H2Origin,
  type H2AccessRecord,
  type TlsIdentity,
} from '../../../demo/server/h2-origin';
import { makeFixture, type Fixture } from './helpers';

const WAIT_MS = 10000;

let fx: Fixture;
let identity: TlsIdentity;
beforeAll(() => {
  fx = makeFixture();
  identity = makeSelfSignedCert();
});
afterAll(() => fx.remove());

interface Reply {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
}

function connect(origin: H2Origin): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const s = http2.connect(origin.url, { ca: origin.cert });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

function closeSession(s: http2.ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => {
    if (s.destroyed) return resolve();
    s.close(() => resolve());
  });
}

function get(session: http2.ClientHttp2Session, p: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': p, ':method': method, ...headers });
    const timer = setTimeout(() => reject(new Error(`no complete response to ${p} within ${WAIT_MS} ms`)), WAIT_MS);
    const chunks: Buffer[] = [];
    let head: http2.IncomingHttpHeaders = {};
    req.on('response', (h) => (head = h));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      clearTimeout(timer);
      resolve({ status: Number(head[':status']), headers: head, body: Buffer.concat(chunks) });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    if (method !== 'GET' && method !== 'HEAD') req.end();
  });
}

async function waitFor<T>(what: string, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('HTTP/2 origin', () => {
  let origin: H2Origin;
  let logFile: string;
  beforeAll(async () => {
    logFile = path.join(fx.root, 'h2.jsonl');
    origin = await startH2Origin(
      { mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, logFile, onServerError: () => undefined },
      identity,
    );
  });
  afterAll(async () => {
    await origin?.close();
  });

  test('serves over https with the given certificate', () => {
    expect(origin.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(origin.spkiHash).toBe(identity.spkiHash);
    expect(origin.cert).toBe(identity.cert);
  });

  test('Range: 206 with Content-Range, 416 outside the file, CORS and Timing-Allow-Origin, no-store', async () => {
    const s = await connect(origin);
    try {
      const part = await get(s, '/media/video.m4s', { range: 'bytes=100-1099' });
      expect(part.status).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 100-1099/${fx.video.length}`);
      expect(part.headers['content-length']).toBe('1000');
      expect(part.body.equals(fx.video.subarray(100, 1100))).toBe(true);
      expect(part.headers['cache-control']).toBe('no-store');
      expect(part.headers['access-control-allow-origin']).toBe('*');
      expect(part.headers['timing-allow-origin']).toBe('*');

      const beyond = await get(s, '/media/video.m4s', { range: `bytes=${fx.video.length}-` });
      expect(beyond.status).toBe(416);
      expect(beyond.headers['content-range']).toBe(`bytes */${fx.video.length}`);

      const whole = await get(s, '/media/video.m4s');
      expect(whole.status).toBe(200);
      expect(whole.body.equals(fx.video)).toBe(true);

      const page = await get(s, '/');
      expect(page.status).toBe(200);
      expect(page.body.toString()).toContain('<title>demo</title>');
      expect((await get(s, '/dist/sprint.js')).body.toString()).toContain('window.Sprint');
      expect((await get(s, '/probe')).body.toString()).toBe('ok');
      expect((await get(s, '/media/nope.m4s')).status).toBe(404);
      const head = await get(s, '/media/video.m4s', {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(String(fx.video.length));
      expect(head.body.length).toBe(0);
      const pre = await get(
        s,
        '/media/video.m4s',
        { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
        'OPTIONS',
      );
      expect(pre.status).toBe(204);
      expect(pre.headers['access-control-allow-headers']).toMatch(/Range/);
    } finally {
      await closeSession(s);
    }
    const rec = await waitFor('the 416 record', () => origin.records().find((r) => r.status === 416));
    expect(rec.rangeOutcome).toBe('unsatisfiable');
    expect(rec.protocol).toBe('h2');
    expect(rec.version).toBe('HTTP/2');
  });

  test("a page file's gzip copy goes to a client that accepts gzip, on the same session", async () => {
    const bundle = Buffer.from(`window.Sprint={};${'/* the player */'.repeat(200)}\n`);
    fs.writeFileSync(path.join(fx.distDir, 'h2-player.js'), bundle);
    fs.writeFileSync(path.join(fx.distDir, 'h2-player.js.gz'), gzipSync(bundle, { level: 9 }));
    const s = await connect(origin);
    try {
      const zipped = await get(s, '/dist/h2-player.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect(zipped.status).toBe(200);
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers['vary']).toBe('Accept-Encoding');
      expect(gunzipSync(zipped.body).equals(bundle)).toBe(true);
      const plain = await get(s, '/dist/h2-player.js');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.equals(bundle)).toBe(true);
    } finally {
      await closeSession(s);
    }
  });

  test('/bulk?bytes=N: N bytes, byte i = i mod 256, ranges too', async () => {
    const s = await connect(origin);
    try {
      const n = 300_000;
      const r = await get(s, `/bulk?bytes=${n}`);
      expect(r.status).toBe(200);
      expect(r.body.length).toBe(n);
      for (const i of [0, 1, 255, 256, 65535, 65536, 299_999]) expect(r.body[i]).toBe(i % 256);
      const part = await get(s, '/bulk?bytes=1000', { range: 'bytes=500-509' });
      expect(part.status).toBe(206);
      expect([...part.body]).toEqual([...Array(10).keys()].map((k) => (500 + k) % 256));
      expect((await get(s, '/bulk?bytes=x')).status).toBe(400);
    } finally {
      await closeSession(s);
    }
  });

  test('concurrent requests on one session are streams of one conn; another session is another conn', async () => {
    const before = origin.records().length;
    const a = await connect(origin);
    const b = await connect(origin);
    try {
      const ranges = [0, 10_000, 20_000, 30_000].map((o) => `bytes=${o}-${o + 9999}`);
      const replies = await Promise.all(ranges.map((range) => get(a, '/media/video.m4s', { range })));
      for (const r of replies) expect(r.status).toBe(206);
      await get(b, '/probe');
    } finally {
      await closeSession(a);
      await closeSession(b);
    }
    const recs = await waitFor('5 records', () => {
      const r = origin.records().slice(before);
      return r.length >= 5 ? r : undefined;
    });
    const onA = recs.filter((r) => r.url === '/media/video.m4s');
    expect(onA).toHaveLength(4);
    expect(new Set(onA.map((r) => r.conn)).size).toBe(1);
    expect(new Set(onA.map((r) => r.stream)).size).toBe(4);
    for (const r of onA) expect(r.stream % 2).toBe(1);
    expect(onA.map((r) => r.seq).sort()).toEqual([0, 1, 2, 3]);
    for (const r of onA) {
      expect(r.complete).toBe(true);
      expect(r.error).toBeNull();
      expect(r.bytes).toBe(10_000);
    }
    const onB = recs.find((r) => r.url === '/probe') as H2AccessRecord;
    expect(onB.conn).not.toBe(onA[0]?.conn);
    // The JSON-lines file has the same records (written asynchronously: wait, bounded, for the fourth).
    const read = (): H2AccessRecord[] =>
      fs
        .readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as H2AccessRecord);
    const onAInFile = (): H2AccessRecord[] => read().filter((r) => r.conn === onA[0]?.conn && r.url === '/media/video.m4s');
    await waitFor('4 records in the log file', () => (onAInFile().length >= 4 ? true : undefined));
    const lines = read();
    expect(onAInFile()).toHaveLength(4);
    expect(lines.every((r) => r.protocol === 'h2' && typeof r.stream === 'number')).toBe(true);
  });

  test('a stream the client cancels (RST_STREAM) is logged as client-reset with the bytes sent; the session stays up', async () => {
    const s = await connect(origin);
    try {
      const total = 200_000_000;
      const received = await new Promise<number>((resolve, reject) => {
        const req = s.request({ ':path': `/bulk?bytes=${total}` });
        let got = 0;
        const timer = setTimeout(() => reject(new Error('no body bytes within the wait')), WAIT_MS);
        req.on('data', (c: Buffer) => {
          got += c.length;
          if (got >= 1_000_000 && !req.closed) {
            clearTimeout(timer);
            req.close(http2.constants.NGHTTP2_CANCEL);
            resolve(got);
          }
        });
        req.on('error', () => undefined);
      });
      const rec = await waitFor('the cancelled record', () => origin.records().find((r) => r.url === `/bulk?bytes=${total}`));
      expect(rec.complete).toBe(false);
      expect(rec.error).toBe('client-reset');
      expect(rec.status).toBe(200);
      expect(rec.bytes).toBeGreaterThanOrEqual(received - 65536);
      expect(rec.bytes).toBeLessThan(total);
      expect(rec.bodyBytesExpected).toBe(total);
      // Same session, next stream: the cancel did not cost the connection.
      expect((await get(s, '/probe')).status).toBe(200);
      const next = await waitFor('the probe after the cancel', () =>
        origin.records().find((r) => r.url === '/probe' && r.seq === rec.seq + 1 && r.conn === rec.conn),
      );
      expect(next.complete).toBe(true);
    } finally {
      await closeSession(s);
    }
  });

  test('a client that does not offer h2 in ALPN is refused in the handshake', async () => {
    const err = await new Promise<Error | null>((resolve) => {
      const sock = tls.connect({ host: '127.0.0.1', port: origin.port, ca: origin.cert, ALPNProtocols: ['http/1.1'] }, () => {
        // Some TLS stacks complete the handshake before the alert arrives: then the server closes at once.
        sock.once('close', () => resolve(sock.alpnProtocol === 'h2' ? null : new Error(`closed, ALPN ${String(sock.alpnProtocol)}`)));
      });
      const timer = setTimeout(() => resolve(null), WAIT_MS);
      sock.once('error', (e) => {
        clearTimeout(timer);
        resolve(e);
      });
      sock.once('close', () => clearTimeout(timer));
    });
    expect(err).not.toBeNull();
  });
});

describe('HTTP/2 origin options and certificate', () => {
  test('HTTP/1.1 connection options are refused with a clear message', async () => {
    await expect(startH2Origin({ maxRequestsPerConnection: 5 } as never, identity)).rejects.toThrow(
      /maxRequestsPerConnection is an HTTP\/1.1 connection option/,
    );
  });

  test('a port in use is a clear error', async () => {
    const first = await startH2Origin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir }, identity);
    try {
      await expect(startH2Origin({ port: first.port, mediaDir: fx.mediaDir }, identity)).rejects.toThrow(
        /HTTP\/2 origin cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/,
      );
    } finally {
      await first.close();
    }
  });

  test('pacing option is accepted and bodies still arrive whole', async () => {
    const origin = await startH2Origin(
      { mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, rateLimitBitsPerSec: 50e6 },
      identity,
    );
    try {
      const s = await connect(origin);
      try {
        const r = await get(s, '/media/video.m4s');
        expect(r.body.equals(fx.video)).toBe(true);
      } finally {
        await closeSession(s);
      }
    } finally {
      await origin.close();
    }
  });

  test('spkiHashOf (openssl) equals the SHA-256 of the certificate key Node reads', () => {
    const spki = new X509Certificate(identity.cert).publicKey.export({ type: 'spki', format: 'der' });
    expect(spkiHashOf(identity.cert)).toBe(createHash('sha256').update(spki).digest('base64'));
    expect(identity.spkiHash).toBe(spkiHashOf(identity.cert));
    expect(new X509Certificate(identity.cert).subjectAltName).toMatch(/IP Address:127\.0\.0\.1/);
  });

  test('makeSelfSignedCert refuses a host that is not a name or address', () => {
    expect(() => makeSelfSignedCert({ hosts: ['a b'] })).toThrow(/not an IP address or DNS name/);
    expect(() => spkiHashOf('nope')).toThrow(/PEM certificate/);
  });

  test('closeConnectionsWhenIdle (sprint serve SIGUSR2): an open session gets GOAWAY and closes; a later one is served', async () => {
    const o = await startH2Origin(
      { mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, onServerError: () => undefined },
      identity,
    );
    try {
      const s = await connect(o);
      const goaway = new Promise<void>((resolve) => s.once('goaway', () => resolve()));
      const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
      try {
        expect((await get(s, '/probe')).status).toBe(200);
        // (idle is 1 unless the server has not yet seen the stream close: a race of no interest here)
        expect(o.closeConnectionsWhenIdle().open).toBe(1);
        await goaway;
        await closed;
        await waitFor('the session to leave the origin', () => (o.stats().connectionsOpen === 0 ? true : undefined));
      } finally {
        await closeSession(s);
      }
      const later = await connect(o);
      try {
        expect((await get(later, '/probe')).status).toBe(200);
        expect((await get(later, '/probe')).status).toBe(200);
        expect(later.closed || later.destroyed).toBe(false);
        expect(o.stats().connectionsOpen).toBe(1);
      } finally {
        await closeSession(later);
      }
    } finally {
      await o.close();
    }
  });

  test('without an identity a fresh certificate is made and closing leaves no open session', async () => {
    const origin = await startH2Origin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir });
    const s = await connect(origin);
    expect((await get(s, '/probe')).status).toBe(200);
    expect(origin.stats().connectionsOpen).toBe(1);
    await origin.close();
    expect(origin.stats().connectionsOpen).toBe(0);
    await waitFor('the client session to see the close', () => (s.destroyed || s.closed ? true : undefined));
    expect(origin.spkiHash).toBe(spkiHashOf(origin.cert));
  });
});
