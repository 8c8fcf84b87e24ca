// Every fault-injection option of the origin, observed on the socket and in
// the access log: these are the misbehaving servers Sprint's trains must
// survive (keep-alive limits, no keep-alive, HTTP/1.0, a connection cut
// mid-response, no Range, no CORS, late or misordered responses).

import * as net from 'net';
import { startOrigin, type Origin, type OriginOptions } from '../../../demo/server/origin';
import { fetchRaw, makeFixture, RawClient, request, waitForRecords, type Fixture } from './helpers';

let fx: Fixture;
const open: Array<Origin | RawClient> = [];

beforeAll(() => {
  fx = makeFixture();
});
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});
afterAll(() => fx.remove());

async function originWith(faults: OriginOptions): Promise<Origin> {
  const o = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, lingerMs: 300, ...faults });
  open.push(o);
  return o;
}

async function connect(o: Origin): Promise<RawClient> {
  const c = await RawClient.connect(o.port);
  open.push(c);
  return c;
}

const probes = (n: number) => Array.from({ length: n }, () => request('/probe')).join('');

describe('fault injection', () => {
  test('defaults: no fault is on', async () => {
    const o = await originWith({});
    expect(o.options).toMatchObject({
      noRange: false,
      noCors: false,
      maxRequestsPerConnection: Number.POSITIVE_INFINITY,
      closeAfterEachResponse: false,
      http10: false,
      resetAfterBytes: null,
      delayMs: 0,
      latencyMs: 0,
      misorderResponses: false,
    });
  });

  test('noRange: Range ignored, whole body with 200, no Accept-Ranges', async () => {
    const o = await originWith({ noRange: true });
    const r = await fetchRaw(o.port, request('/media/video.m4s', { Range: 'bytes=0-9' }));
    expect(r.status).toBe(200);
    expect(r.body.equals(fx.video)).toBe(true);
    expect(r.headers.has('accept-ranges')).toBe(false);
    expect(r.headers.has('content-range')).toBe(false);
    await waitForRecords(o, 1);
    expect(o.records()[0]).toMatchObject({ range: 'bytes=0-9', rangeOutcome: 'ignored-fault' });
  });

  test('noCors: no CORS headers, preflight included', async () => {
    const o = await originWith({ noCors: true });
    const r = await fetchRaw(o.port, request('/media/video.m4s', { Origin: 'http://x.example' }));
    expect(r.status).toBe(200);
    const pre = await fetchRaw(
      o.port,
      request('/media/video.m4s', { Origin: 'http://x.example', 'Access-Control-Request-Method': 'GET' }, 'OPTIONS'),
      true,
    );
    for (const h of [r.headers, pre.headers]) {
      expect([...h.keys()].filter((k) => k.startsWith('access-control-') || k === 'timing-allow-origin')).toEqual([]);
    }
  });

  test('maxRequestsPerConnection: N answers, the Nth says close, pipelined extras are not answered', async () => {
    const o = await originWith({ maxRequestsPerConnection: 3 });
    const c = await connect(o);
    c.send(probes(5));
    const rs = [await c.readResponse(), await c.readResponse(), await c.readResponse()];
    expect(rs.map((r) => r.headers.get('connection'))).toEqual([undefined, undefined, 'close']);
    await c.waitEnd();
    expect(c.serverEnded).toBe(true);
    expect(c.rest().length).toBe(0);
    await c.close();
    await waitForRecords(o, 5);
    expect(o.records().map((r) => [r.seq, r.status, r.error])).toEqual([
      [0, 200, null],
      [1, 200, null],
      [2, 200, null],
      [3, null, 'not-answered'],
      [4, null, 'not-answered'],
    ]);
    // A new connection starts a new count.
    const again = await connect(o);
    again.send(probes(1));
    expect((await again.readResponse()).headers.get('connection')).toBeUndefined();
  });

  test('closeAfterEachResponse: one response per connection even if more were pipelined', async () => {
    const o = await originWith({ closeAfterEachResponse: true });
    const c = await connect(o);
    c.send(probes(3));
    const r = await c.readResponse();
    expect(r.statusLine).toBe('HTTP/1.1 200 OK');
    expect(r.headers.get('connection')).toBe('close');
    await c.waitEnd();
    expect(c.rest().length).toBe(0);
  });

  test('http10: HTTP/1.0 status line and close, even for a 1.1 keep-alive request', async () => {
    const o = await originWith({ http10: true });
    const c = await connect(o);
    c.send(probes(2));
    const r = await c.readResponse();
    expect(r.statusLine).toBe('HTTP/1.0 200 OK');
    expect(r.headers.get('connection')).toBe('close');
    await c.waitEnd();
    expect(c.rest().length).toBe(0);
  });

  test('resetAfterBytes (fin): exactly N body bytes then EOF, once; other resources untouched', async () => {
    const o = await originWith({ resetAfterBytes: 1000 });
    const c = await connect(o);
    c.send(request('/media/video.m4s') + request('/probe'));
    await c.waitEnd();
    const rest = c.rest().toString('latin1');
    const headEnd = rest.indexOf('\r\n\r\n');
    expect(rest.slice(0, headEnd)).toMatch(/Content-Length: 100000/);
    expect(rest.length - headEnd - 4).toBe(1000);
    expect(
      c
        .rest()
        .subarray(headEnd + 4)
        .equals(fx.video.subarray(0, 1000)),
    ).toBe(true);
    await c.close();
    await waitForRecords(o, 2);
    expect(o.records()[0]).toMatchObject({ bytes: 1000, bodyBytesExpected: 100000, complete: false, error: 'fault-reset-after-bytes' });
    expect(o.records()[1]).toMatchObject({ url: '/probe', error: 'not-answered' });
    // resetCount defaults to 1: the next media response is whole.
    const r = await fetchRaw(o.port, request('/media/video.m4s'));
    expect(r.body.equals(fx.video)).toBe(true);
  });

  test('resetAfterBytes with resetCount every: each media response is cut; bodies shorter than N pass', async () => {
    const o = await originWith({ resetAfterBytes: 600, resetCount: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 2; i += 1) {
      const c = await connect(o);
      c.send(request('/media/video.m4s', { Range: 'bytes=100-99999' }));
      await c.waitEnd();
      const raw = c.rest();
      expect(raw.length - raw.indexOf('\r\n\r\n') - 4).toBe(600);
    }
    const short = await fetchRaw(o.port, request('/media/sub/a.mp4'));
    expect(short.body.length).toBe(500);
    const bulk = await fetchRaw(o.port, request('/bulk?bytes=5000'));
    expect(bulk.body.length).toBe(5000);
  });

  test('resetAfterBytes with resetWith rst: the connection is reset, at most N body bytes arrive', async () => {
    const o = await originWith({ resetAfterBytes: 1000, resetWith: 'rst' });
    // Half-open client: after the server is gone, a write shows whether the socket was reset
    // (Linux reports a reset that arrives behind unread data as EOF on read).
    const socket = net.connect({ port: o.port, host: '127.0.0.1', allowHalfOpen: true });
    const received: Buffer[] = [];
    const errors: string[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    socket.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    try {
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(request('/media/video.m4s'));
      await Promise.race([new Promise((r) => socket.once('end', r)), closed]);
      if (!socket.destroyed) socket.write(request('/probe'));
      await Promise.race([closed, new Promise((r) => setTimeout(r, 5000))]);
      expect(socket.destroyed).toBe(true);
      expect(errors.some((e) => e === 'EPIPE' || e === 'ECONNRESET')).toBe(true);
      const raw = Buffer.concat(received);
      const headEnd = raw.indexOf('\r\n\r\n');
      if (headEnd >= 0) expect(raw.length - headEnd - 4).toBeLessThanOrEqual(1000);
    } finally {
      socket.destroy();
      await closed;
    }
    await waitForRecords(o, 1);
    expect(o.records()[0]).toMatchObject({ complete: false, error: 'fault-reset-after-bytes' });
  });

  test('resetAfterBytes with resetWith stall and faultPath: N body bytes of the matching file, then silence on an open connection; other files whole', async () => {
    const o = await originWith({ resetAfterBytes: 400, resetWith: 'stall', faultPath: 'video', resetCount: Number.POSITIVE_INFINITY });
    // A file whose path does not match is never cut, though longer than N.
    const other = await fetchRaw(o.port, request('/media/sub/a.mp4'));
    expect(other.body.length).toBe(500);
    const c = await connect(o);
    c.send(request('/media/video.m4s'));
    const head = await c.readResponse(true);
    expect(head.headers.get('content-length')).toBe('100000');
    const headBytes = head.rawHead.length + 4;
    await c.waitReceived(headBytes + 400);
    // The origin has logged the cut response; the connection is still open and nothing more came.
    await waitForRecords(o, 2);
    expect(o.records()[1]).toMatchObject({ url: '/media/video.m4s', bytes: 400, complete: false, error: 'fault-stall-after-bytes' });
    expect(c.serverEnded).toBe(false);
    expect(c.received).toBe(headBytes + 400);
    await c.close();
  });

  test('delayMs: each response starts at least that long after it could have', async () => {
    const o = await originWith({ delayMs: 150 });
    const c = await connect(o);
    c.send(probes(2));
    await c.readResponse();
    await c.readResponse();
    await waitForRecords(o, 2);
    const [a, b] = o.records();
    expect(a!.start! - a!.arrival).toBeGreaterThanOrEqual(149);
    expect(b!.start! - a!.end).toBeGreaterThanOrEqual(149);
  });

  test('latencyMs: no response starts before its request arrived that long ago, and pipelined requests wait once, not in series', async () => {
    const latency = 200;
    const o = await originWith({ latencyMs: latency });
    const c = await connect(o);
    c.send(probes(3));
    for (let i = 0; i < 3; i++) expect((await c.readResponse()).body.toString()).toBe('ok');
    await waitForRecords(o, 3);
    const records = o.records();
    expect(records.map((r) => r.seq)).toEqual([0, 1, 2]);
    for (const r of records) expect(r.start! - r.arrival).toBeGreaterThanOrEqual(latency - 1);
    // The last of three requests that arrived together is not held 3 latencies (as a per-response delay would).
    const last = records[2]!;
    expect(last.start! - last.arrival).toBeLessThan(2 * latency);
  });

  test('misorderResponses: the later of two pipelined requests is answered first', async () => {
    const o = await originWith({ misorderResponses: true });
    const c = await connect(o);
    c.send(request('/media/manifest.mpd') + request('/probe'));
    expect((await c.readResponse()).body.toString()).toBe('ok');
    expect((await c.readResponse()).body.toString()).toBe('<MPD/>\n');
    await waitForRecords(o, 2);
    expect(o.records().map((r) => [r.seq, r.url])).toEqual([
      [1, '/probe'],
      [0, '/media/manifest.mpd'],
    ]);
  });

  test.each([
    [{ maxRequestsPerConnection: 0 }, /maxRequestsPerConnection/],
    [{ resetAfterBytes: -1 }, /resetAfterBytes/],
    [{ resetCount: 0 }, /resetCount/],
    [{ resetWith: 'boom' as 'fin' }, /resetWith/],
    [{ delayMs: 1.5 }, /delayMs/],
    [{ latencyMs: -1 }, /latencyMs/],
    [{ port: 70000 }, /port/],
    [{ rateLimitBitsPerSec: 8e6, rateLimitPieceBytes: 10 }, /rateLimitPieceBytes/],
  ])('bad option %j is rejected clearly', async (opts, message) => {
    await expect(startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, ...opts })).rejects.toThrow(message);
  });
});

describe('rateLimitBitsPerSec (loopback bottleneck for e2e tests)', () => {
  it('never sends bodies faster than the limit, as the access log shows', async () => {
    const { startOrigin } = await import('../../../demo/server/origin');
    const origin = await startOrigin({ rateLimitBitsPerSec: 8e6 });
    try {
      const http = await import('http');
      const length = await new Promise<number>((resolve, reject) => {
        http
          .get(`${origin.url}/bulk?bytes=1000000`, { agent: false }, (res) => {
            let n = 0;
            res.on('data', (d: Buffer) => (n += d.length));
            res.on('end', () => resolve(n));
            res.on('error', reject);
          })
          .on('error', reject);
      });
      expect(length).toBe(1_000_000);
      await new Promise((r) => setTimeout(r, 50));
      const rec = origin.records().find((r) => r.url?.startsWith('/bulk'));
      expect(rec).toBeDefined();
      // 1 MB at 8 Mbit/s cannot take less than ~1 s (pacing is a lower bound, not a speed claim)
      expect((rec?.end as number) - (rec?.start as number)).toBeGreaterThan(800);
    } finally {
      await origin.close();
    }
  });
});

describe('rateLimitPieceBytes (a smoother paced link)', () => {
  it('serves the same body in smaller paced writes', async () => {
    const o = await startOrigin({
      mediaDir: fx.mediaDir,
      pageDir: fx.pageDir,
      distDir: fx.distDir,
      rateLimitBitsPerSec: 50e6,
      rateLimitPieceBytes: 4096,
    });
    try {
      const r = await fetchRaw(o.port, request('/media/video.m4s'));
      const fs = await import('fs');
      const path = await import('path');
      expect(r.body.equals(fs.readFileSync(path.join(fx.mediaDir, 'video.m4s')))).toBe(true);
    } finally {
      await o.close();
    }
  });
});
