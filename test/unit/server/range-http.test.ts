// Range requests against the origin over loopback: the bytes and headers on
// the wire, and what the access log says was done with each Range.

import { startOrigin, type Origin } from '../../../demo/server/origin';
import { fetchRaw, makeFixture, request, waitForRecords, type Fixture } from './helpers';

let fx: Fixture;
let origin: Origin;

beforeAll(async () => {
  fx = makeFixture();
  origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir });
});

afterAll(async () => {
  await origin.close();
  fx.remove();
});

const size = 100000;
/** Records logged before the latest request; `lastRecord` waits for the one after them. */
let logged = 0;

function getRange(range: string, extra: Record<string, string> = {}) {
  logged = origin.records().length;
  return fetchRaw(origin.port, request('/media/video.m4s', { Range: range, ...extra }));
}

async function lastRecord() {
  await waitForRecords(origin, logged + 1);
  return origin.records()[logged];
}

describe('Range over the wire', () => {
  test.each([
    ['bytes=0-99', 0, 99],
    ['bytes=99000-', 99000, size - 1],
    ['bytes=-1000', size - 1000, size - 1],
    ['bytes=65530-70000', 65530, 70000],
    ['bytes=99999-200000', 99999, size - 1],
  ])('%s → 206 with exactly those bytes', async (range, start, end) => {
    const r = await getRange(range);
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
    expect(r.headers.get('content-length')).toBe(String(end - start + 1));
    expect(r.headers.get('accept-ranges')).toBe('bytes');
    expect(r.body.equals(fx.video.subarray(start, end + 1))).toBe(true);
    const rec = await lastRecord();
    expect(rec).toMatchObject({ range, rangeOutcome: 'partial', status: 206, bytes: end - start + 1, complete: true });
  });

  test('unsatisfiable → 416 with Content-Range: bytes */size', async () => {
    const r = await getRange('bytes=100000-');
    expect(r.status).toBe(416);
    expect(r.headers.get('content-range')).toBe(`bytes */${size}`);
    expect((await lastRecord())?.rangeOutcome).toBe('unsatisfiable');
  });

  test('multi-range is refused by sending the whole file with 200', async () => {
    const r = await getRange('bytes=0-1,5-6');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-range')).toBeUndefined();
    expect(r.body.equals(fx.video)).toBe(true);
    expect(await lastRecord()).toMatchObject({ range: 'bytes=0-1,5-6', rangeOutcome: 'ignored-multi', status: 200 });
  });

  test.each(['bytes=5-1', 'bytes=x-y', 'pages=1-2'])('malformed %s is ignored: 200 whole file', async (range) => {
    const r = await getRange(range);
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(size);
  });

  test('HEAD with Range gives the 206 headers without a body', async () => {
    const r = await fetchRaw(origin.port, request('/media/video.m4s', { Range: 'bytes=10-19' }, 'HEAD'), true);
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe(`bytes 10-19/${size}`);
    expect(r.headers.get('content-length')).toBe('10');
    expect(r.body.length).toBe(0);
  });

  test('If-Range: honoured when it matches Last-Modified, otherwise the whole file', async () => {
    const plain = await fetchRaw(origin.port, request('/media/video.m4s'));
    const lastModified = plain.headers.get('last-modified') as string;
    const match = await getRange('bytes=0-9', { 'If-Range': lastModified });
    expect(match.status).toBe(206);
    const stale = await getRange('bytes=0-9', { 'If-Range': '"some-etag"' });
    expect(stale.status).toBe(200);
    expect(stale.body.length).toBe(size);
    expect((await lastRecord())?.rangeOutcome).toBe('ignored-if-range');
  });

  test('zero-length file: int-range 416, suffix range 200 empty', async () => {
    const a = await fetchRaw(origin.port, request('/media/empty.m4s', { Range: 'bytes=0-0' }));
    expect(a.status).toBe(416);
    expect(a.headers.get('content-range')).toBe('bytes */0');
    const b = await fetchRaw(origin.port, request('/media/empty.m4s', { Range: 'bytes=-5' }));
    expect(b.status).toBe(200);
    expect(b.body.length).toBe(0);
  });
});
