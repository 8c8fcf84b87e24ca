// The CORS check applied before a response reaches the page (extension/src/
// worker/cors.ts), as Fetch does it for a credential-less GET:
// one Access-Control-Allow-Origin equal to "*" or to the page origin, exposed
// headers limited to the safelist plus Access-Control-Expose-Headers, never Set-Cookie.

import { HeaderList } from '../../../src/http/headers';
import { corsCheck, exposedHeaders } from '../../../extension/src/worker/cors';

const pageOrigin = 'https://player.example';
const media = 'https://cdn.example';
const h = (...fields: Array<[string, string]>): HeaderList => new HeaderList(fields);

describe('corsCheck', () => {
  test('same origin needs no header', () => {
    expect(corsCheck(pageOrigin, pageOrigin, h())).toEqual({ ok: true });
  });
  test('"*" or the exact page origin allow', () => {
    expect(corsCheck(pageOrigin, media, h(['Access-Control-Allow-Origin', '*']))).toEqual({ ok: true });
    expect(corsCheck(pageOrigin, media, h(['access-control-allow-origin', pageOrigin]))).toEqual({ ok: true });
  });
  test.each([
    ['no header', h(), /has no Access-Control-Allow-Origin/],
    ['another origin', h(['Access-Control-Allow-Origin', 'https://other.example']), /does not allow https:\/\/player\.example/],
    ['case differs (byte comparison)', h(['Access-Control-Allow-Origin', 'https://Player.example']), /does not allow/],
    ['trailing slash', h(['Access-Control-Allow-Origin', 'https://player.example/']), /does not allow/],
    ['a list', h(['Access-Control-Allow-Origin', `${pageOrigin}, *`]), /does not allow/],
    [
      'two header lines',
      h(['Access-Control-Allow-Origin', '*'], ['Access-Control-Allow-Origin', '*']),
      /has 2 Access-Control-Allow-Origin headers/,
    ],
    ['"null"', h(['Access-Control-Allow-Origin', 'null']), /does not allow/],
  ])('refuses %s', (_n, headers, reason) => {
    const v = corsCheck(pageOrigin, media, headers);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toMatch(reason);
  });
  test('a different port or scheme is another origin', () => {
    expect(corsCheck('http://127.0.0.1:8080', 'http://127.0.0.1:9090', h()).ok).toBe(false);
    expect(corsCheck('https://player.example', 'http://player.example', h()).ok).toBe(false);
  });
});

describe('exposedHeaders', () => {
  const fields = h(
    ['Content-Type', 'video/mp4'],
    ['Content-Length', '10'],
    ['Content-Range', 'bytes 0-9/100'],
    ['Server-Timing', 'cwnd;desc=10'],
    ['Set-Cookie', 'a=b'],
    ['Set-Cookie', 'c=d'],
    ['X-Other', '1'],
    ['Cache-Control', 'no-store'],
    ['Access-Control-Expose-Headers', 'Content-Range, server-timing'],
    ['Access-Control-Allow-Origin', '*'],
  );
  test('cross-origin: safelisted + exposed, names lower-cased, never Set-Cookie', () => {
    expect(exposedHeaders(fields, false)).toEqual({
      'content-type': 'video/mp4',
      'content-length': '10',
      'content-range': 'bytes 0-9/100',
      'server-timing': 'cwnd;desc=10',
      'cache-control': 'no-store',
    });
  });
  test('Access-Control-Expose-Headers: * exposes everything but Set-Cookie', () => {
    const all = exposedHeaders(h(['X-A', '1'], ['Set-Cookie', 'x'], ['Access-Control-Expose-Headers', '*']), false);
    expect(all).toEqual({ 'x-a': '1', 'access-control-expose-headers': '*' });
  });
  test('same origin: everything but Set-Cookie; repeated fields joined', () => {
    const same = exposedHeaders(h(['X-A', '1'], ['x-a', '2'], ['Set-Cookie', 'x'], ['Set-Cookie2', 'y']), true);
    expect(same).toEqual({ 'x-a': '1, 2' });
  });
  test('a header named __proto__ cannot change the result object', () => {
    const r = exposedHeaders(h(['__proto__', 'x'], ['X-A', '1']), true);
    expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
    expect(r).toEqual({ 'x-a': '1' });
  });
});
