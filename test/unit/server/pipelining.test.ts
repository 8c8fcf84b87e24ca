// HTTP/1.1 keep-alive and pipelining, observed on raw sockets: responses in
// order with nothing dropped, arrival stamps taken while earlier responses
// still stream (the property Sprint's trains rely on, paper §IV-B1), the
// bounded request queue, Connection: close, HTTP/1.0, and malformed input.

import * as fs from 'fs';
import * as path from 'path';
import { startOrigin, type AccessRecord, type Origin } from '../../../demo/server/origin';
import { makeFixture, patternBytes, RawClient, request, waitForRecords, type Fixture } from './helpers';

let fx: Fixture;
let origin: Origin;
let big: Buffer;
const serverErrors: string[] = [];

beforeAll(async () => {
  fx = makeFixture();
  // Larger than every socket buffer between a paused reader and the origin.
  big = patternBytes(16 * 1024 * 1024, 5);
  fs.writeFileSync(path.join(fx.mediaDir, 'big.m4s'), big);
  origin = await startOrigin({
    mediaDir: fx.mediaDir,
    pageDir: fx.pageDir,
    distDir: fx.distDir,
    maxQueuedRequests: 4,
    lingerMs: 500,
    onServerError: (m) => serverErrors.push(m),
  });
});

afterAll(async () => {
  await origin.close();
  fx.remove();
});

const clients: RawClient[] = [];
async function connect(): Promise<RawClient> {
  const c = await RawClient.connect(origin.port);
  clients.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** Records of the connection that logged `count` records after index `from`. */
async function recordsFrom(from: number, count: number): Promise<AccessRecord[]> {
  await waitForRecords(origin, from + count);
  return origin.records().slice(from, from + count);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('pipelining', () => {
  test('three requests in one packet: three responses in order, one connection, seq 0..2', async () => {
    const from = origin.records().length;
    const c = await connect();
    c.send(request('/media/manifest.mpd') + request('/media/video.m4s', { Range: 'bytes=0-9' }) + request('/probe'));
    const r = [await c.readResponse(), await c.readResponse(), await c.readResponse()];
    expect(r.map((x) => x.status)).toEqual([200, 206, 200]);
    expect(r[0]?.body.toString()).toBe('<MPD/>\n');
    expect(r[1]?.body.equals(fx.video.subarray(0, 10))).toBe(true);
    expect(r[2]?.body.toString()).toBe('ok');
    const recs = await recordsFrom(from, 3);
    expect(new Set(recs.map((x) => x.conn)).size).toBe(1);
    expect(recs.map((x) => [x.seq, x.url])).toEqual([
      [0, '/media/manifest.mpd'],
      [1, '/media/video.m4s'],
      [2, '/probe'],
    ]);
    expect(recs.every((x) => x.complete && x.error === null)).toBe(true);
  });

  test('a request sent while a large response streams is stamped on arrival, answered after it', async () => {
    const from = origin.records().length;
    const c = await connect();
    c.send(request('/media/big.m4s'));
    await c.waitReceived(100000);
    c.socket.pause(); // a slow reader: the big response cannot finish
    c.send(request('/probe'));
    await sleep(300);
    c.socket.resume();
    const first = await c.readResponse();
    const second = await c.readResponse();
    expect(first.body.equals(big)).toBe(true);
    expect(second.body.toString()).toBe('ok');
    const [a, b] = await recordsFrom(from, 2);
    expect(a?.conn).toBe(b?.conn);
    expect([a?.seq, b?.seq]).toEqual([0, 1]);
    expect(b!.arrival).toBeGreaterThan(a!.start!);
    expect(b!.arrival).toBeLessThan(a!.end);
    expect(b!.start!).toBeGreaterThanOrEqual(a!.end);
    expect(a).toMatchObject({ bytes: big.length, bodyBytesExpected: big.length, complete: true });
  });

  test('requests pipelined behind a large response all arrive before it ends', async () => {
    const from = origin.records().length;
    const c = await connect();
    c.send(request('/media/big.m4s') + request('/probe') + request('/media/manifest.mpd'));
    expect((await c.readResponse()).body.length).toBe(big.length);
    await c.readResponse();
    await c.readResponse();
    const recs = await recordsFrom(from, 3);
    for (const later of recs.slice(1)) expect(later.arrival).toBeLessThan(recs[0]!.end);
  });

  test('a request written byte by byte is answered', async () => {
    const c = await connect();
    c.socket.setNoDelay(true);
    const text = request('/probe');
    for (const ch of text) {
      c.send(ch);
      await sleep(1);
    }
    const r = await c.readResponse();
    expect(r.body.toString()).toBe('ok');
  });

  test('more pipelined requests than the queue bound: the origin stops reading, answers all in order', async () => {
    const from = origin.records().length;
    const n = 200;
    const c = await connect();
    let burst = '';
    for (let i = 0; i < n; i += 1) burst += request(`/bulk?bytes=${i}`);
    c.send(burst);
    for (let i = 0; i < n; i += 1) {
      const r = await c.readResponse();
      expect(r.status).toBe(200);
      expect(r.body.length).toBe(i);
    }
    const recs = await recordsFrom(from, n);
    expect(recs.map((r) => r.seq)).toEqual([...Array(n).keys()]);
    expect(origin.stats().peakQueuedRequests).toBe(4);
  });

  test('Connection: close is honoured; requests pipelined behind it are not answered', async () => {
    const from = origin.records().length;
    const c = await connect();
    c.send(request('/probe', { Connection: 'close' }) + request('/probe'));
    const r = await c.readResponse();
    expect(r.headers.get('connection')).toBe('close');
    await c.waitEnd();
    expect(c.serverEnded).toBe(true);
    expect(c.rest().length).toBe(0);
    await c.close();
    const recs = await recordsFrom(from, 2);
    expect(recs[0]).toMatchObject({ status: 200, connectionClose: true, complete: true });
    expect(recs[1]).toMatchObject({ seq: 1, status: null, error: 'not-answered', start: null });
  });

  test('a client that half-closes after its requests gets every answer', async () => {
    const c = await connect();
    c.send(request('/probe') + request('/media/manifest.mpd'));
    c.socket.end();
    expect((await c.readResponse()).body.toString()).toBe('ok');
    expect((await c.readResponse()).body.toString()).toBe('<MPD/>\n');
    await c.waitEnd();
    expect(c.serverEnded).toBe(true);
  });
});

describe('HTTP/1.0', () => {
  test('answered as 1.0 and closed without keep-alive', async () => {
    const c = await connect();
    c.send(request('/probe', {}, 'GET', 'HTTP/1.0'));
    const r = await c.readResponse();
    expect(r.statusLine).toBe('HTTP/1.0 200 OK');
    expect(r.headers.get('connection')).toBe('close');
    await c.waitEnd();
    expect(c.serverEnded).toBe(true);
  });

  test('kept alive when asked', async () => {
    const c = await connect();
    c.send(request('/probe', { Connection: 'keep-alive' }, 'GET', 'HTTP/1.0'));
    const r = await c.readResponse();
    expect(r.version).toBe('HTTP/1.0');
    expect(r.headers.get('connection')).toBe('keep-alive');
    c.send(request('/probe'));
    const again = await c.readResponse();
    expect(again.statusLine).toBe('HTTP/1.1 200 OK');
  });
});

describe('malformed input', () => {
  test('a malformed request line after a good one: 200, then 400, then close', async () => {
    const from = origin.records().length;
    const c = await connect();
    c.send(`${request('/probe')}NONSENSE\r\n\r\n${request('/probe')}`);
    expect((await c.readResponse()).status).toBe(200);
    const bad = await c.readResponse();
    expect(bad.status).toBe(400);
    expect(bad.body.toString()).toMatch(/malformed request line/);
    expect(bad.headers.get('connection')).toBe('close');
    await c.waitEnd();
    expect(c.rest().length).toBe(0);
    const recs = await recordsFrom(from, 2);
    expect(recs[1]).toMatchObject({ status: 400, method: null, url: null });
  });

  test('a header block over the limit: 431 and close', async () => {
    const c = await connect();
    c.send(request('/probe', { 'X-Big': 'a'.repeat(20000) }));
    const r = await c.readResponse();
    expect(r.status).toBe(431);
    expect(r.headers.get('connection')).toBe('close');
    await c.waitEnd();
  });

  test('an endless header block is cut at the limit', async () => {
    const c = await connect();
    c.send(`GET /probe HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}`);
    const r = await c.readResponse();
    expect(r.status).toBe(431);
    await c.waitEnd();
  });

  test('HTTP/2 preface is refused with 505', async () => {
    const c = await connect();
    c.send('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    const r = await c.readResponse();
    expect(r.status).toBe(505);
    await c.waitEnd();
  });
});

describe('client going away', () => {
  test('a reset mid-response is logged as incomplete with the bytes that went out', async () => {
    const from = origin.records().length;
    const c = await connect();
    c.send(request('/media/big.m4s'));
    await c.waitReceived(200000);
    c.socket.resetAndDestroy();
    const [rec] = await recordsFrom(from, 1);
    expect(rec?.complete).toBe(false);
    expect(['client-reset', 'client-closed']).toContain(rec?.error);
    expect(rec!.bytes).toBeGreaterThan(0);
    expect(rec!.bytes).toBeLessThan(big.length);
    expect(rec!.bodyBytesExpected).toBe(big.length);
  });

  test('a file that shrinks while served: connection cut, logged as body-error, not padded', async () => {
    const file = path.join(fx.mediaDir, 'shrinks.m4s');
    fs.writeFileSync(file, big);
    const from = origin.records().length;
    const c = await connect();
    c.send(request('/media/shrinks.m4s'));
    await c.waitReceived(100000);
    c.socket.pause();
    fs.truncateSync(file, 0);
    c.socket.resume();
    await c.waitEnd();
    const [rec] = await recordsFrom(from, 1);
    expect(rec?.complete).toBe(false);
    expect(rec?.error).toMatch(/^body-error: .*shrinks\.m4s.*truncated/);
    expect(c.received).toBeLessThan(big.length);
    expect(serverErrors.some((m) => /shrinks\.m4s.*truncated/.test(m))).toBe(true);
  });
});
