// Serialising the GET/HEAD requests of Sprint's trains (paper §IV-B1): the
// exact bytes on the wire, and every way a request could smuggle something
// (CR/LF, spaces, non-ASCII, bad escapes, bad hosts, quotes) is refused with
// an error naming the field.

import { HttpRequestError } from '../../../src/http/errors';
import { MAX_REQUEST_BYTES, serializeRequest, type HttpRequest } from '../../../src/http/request';
import { text } from './helpers';

const base: HttpRequest = { host: '127.0.0.1:8080', target: '/media/v1/seg-3.m4s?x=1', userAgent: 'Sprint/0.1 test' };

describe('serializeRequest', () => {
  test('a ranged GET: exact bytes, no cookies or credentials', () => {
    const wire = text(serializeRequest({ ...base, range: { first: 100, last: 199 } }));
    expect(wire).toBe(
      'GET /media/v1/seg-3.m4s?x=1 HTTP/1.1\r\n' +
        'Host: 127.0.0.1:8080\r\n' +
        'Range: bytes=100-199\r\n' +
        'Accept: */*\r\n' +
        'Accept-Encoding: identity\r\n' +
        'User-Agent: Sprint/0.1 test\r\n' +
        'Connection: keep-alive\r\n\r\n',
    );
    expect(wire).not.toMatch(/cookie|authorization/i);
  });

  test('HEAD without range, with Origin; Host lower-cased', () => {
    const wire = text(
      serializeRequest({
        method: 'HEAD',
        host: 'CDN.Example.com',
        target: '/a%20b/c.mpd',
        userAgent: 'UA',
        origin: 'https://page.example:8443',
      }),
    );
    expect(wire).toBe(
      'HEAD /a%20b/c.mpd HTTP/1.1\r\nHost: cdn.example.com\r\nAccept: */*\r\nAccept-Encoding: identity\r\nUser-Agent: UA\r\nOrigin: https://page.example:8443\r\nConnection: keep-alive\r\n\r\n',
    );
  });

  test('IPv6 host and a single-byte range', () => {
    expect(text(serializeRequest({ ...base, host: '[::1]:9000', range: { first: 0, last: 0 } }))).toContain(
      'Host: [::1]:9000\r\nRange: bytes=0-0\r\n',
    );
  });

  const bad: Array<[string, Partial<HttpRequest>, string, RegExp]> = [
    ['space in path', { target: '/a b' }, 'target', /a space at index 2/],
    ['CRLF injection in path', { target: '/a\r\nX-Evil: 1' }, 'target', /CR at index 2/],
    ['LF in path', { target: '/a\nb' }, 'target', /LF at index 2/],
    ['non-ASCII path', { target: '/vidéo.mp4' }, 'target', /non-ASCII character at index 4/],
    ['fragment', { target: '/a#b' }, 'target', /"#" at index 2/],
    ['malformed escape', { target: '/a%2' }, 'target', /malformed percent escape at index 2/],
    ['absolute-form', { target: 'http://x/a' }, 'target', /does not start with '\/'/],
    ['quote in path', { target: '/a"b' }, 'target', /"\\"" at index 2/],
    ['CRLF injection in host', { host: 'x\r\nCookie: a=b' }, 'host', /is not host\[:port\]/],
    ['space in host', { host: 'a b' }, 'host', /is not host\[:port\]/],
    ['port 0', { host: 'a:0' }, 'host', /port 0 of "a:0" is not 1-65535/],
    ['port too large', { host: 'a:65536' }, 'host', /port 65536/],
    ['empty label', { host: 'a..b' }, 'host', /empty or malformed label/],
    ['userinfo in host', { host: 'user:pw@a' }, 'host', /is not host\[:port\]/],
    ['CRLF in User-Agent', { userAgent: 'UA\r\nCookie: x' }, 'userAgent', /U\+000d at index 2/],
    ['quote in User-Agent', { userAgent: 'UA "x"' }, 'userAgent', /U\+0022/],
    ['non-ASCII User-Agent', { userAgent: 'Ünì' }, 'userAgent', /U\+00dc/],
    ['empty User-Agent', { userAgent: '' }, 'userAgent', /1-256 characters, got 0/],
    ['range first > last', { range: { first: 10, last: 9 } }, 'range', /0 <= first <= last/],
    ['negative range', { range: { first: -1, last: 9 } }, 'range', /0 <= first <= last/],
    ['fractional range', { range: { first: 0.5, last: 9 } }, 'range', /integers/],
    ['unsafe range', { range: { first: 0, last: 2 ** 53 } }, 'range', /< 2\^53/],
    ['method POST', { method: 'POST' as 'GET' }, 'method', /"POST" is not GET or HEAD/],
    ['Origin with a path', { origin: 'https://a/b' }, 'origin', /is not host\[:port\]/],
    ['Origin injection', { origin: 'https://a\r\nCookie: x' }, 'origin', /not "null" or an http\(s\) origin/],
    ['Origin not http', { origin: 'file://a' }, 'origin', /not "null" or an http\(s\) origin/],
    ['Origin upper case', { origin: 'https://A.example' }, 'origin', /not lower case/],
    ['request too large', { target: `/${'a'.repeat(MAX_REQUEST_BYTES)}` }, 'target', /more than 8192/],
  ];
  test.each(bad)('rejects %s', (_name, change, field, says) => {
    let caught: unknown;
    try {
      serializeRequest({ ...base, ...change });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(HttpRequestError);
    expect((caught as HttpRequestError).field).toBe(field);
    expect((caught as HttpRequestError).message).toMatch(says);
  });
});
