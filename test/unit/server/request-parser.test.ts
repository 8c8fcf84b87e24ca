// The origin's incremental request-head parser: framing of pipelined heads fed
// in arbitrary pieces, arrival stamps, and clear errors for malformed input.

import { hasToken, isParseError, RequestParser, type ParsedRequest, type ParseResult } from '../../../demo/server/request-parser';

function parseAll(parser: RequestParser): ParseResult[] {
  const out: ParseResult[] = [];
  for (let r = parser.next(), n = 0; r !== null && n < 1000; r = parser.next(), n += 1) {
    out.push(r);
    if (isParseError(r)) break;
  }
  return out;
}

function one(text: string): ParseResult {
  const p = new RequestParser();
  p.feed(Buffer.from(text, 'latin1'), 1);
  const r = p.next();
  if (r === null) throw new Error('no result');
  return r;
}

describe('RequestParser', () => {
  test('parses pipelined heads from one buffer in order', () => {
    const p = new RequestParser();
    p.feed(
      Buffer.from('GET /a HTTP/1.1\r\nHost: x\r\n\r\nHEAD /b HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\n\r\nGET /c HTTP/1.0\r\n\r\n'),
      42.5,
    );
    const rs = parseAll(p) as ParsedRequest[];
    expect(rs.map((r) => [r.method, r.target, r.version])).toEqual([
      ['GET', '/a', 'HTTP/1.1'],
      ['HEAD', '/b', 'HTTP/1.1'],
      ['GET', '/c', 'HTTP/1.0'],
    ]);
    expect(rs[1]?.headers.get('range')).toBe('bytes=0-1');
    expect(rs.every((r) => r.arrival === 42.5)).toBe(true);
    expect(p.pendingBytes).toBe(0);
  });

  test('a head split byte by byte completes at the feed of its last byte', () => {
    const p = new RequestParser();
    const text = 'GET /x HTTP/1.1\r\nHost: h\r\n\r\n';
    for (let i = 0; i < text.length; i += 1) {
      p.feed(Buffer.from(text[i] as string), i);
      const r = p.next();
      if (i < text.length - 1) expect(r).toBeNull();
      else expect((r as ParsedRequest).arrival).toBe(text.length - 1);
    }
  });

  test('accepts bare LF line ends, leading empty lines, and joins repeated fields', () => {
    const r = one('\r\n\nGET / HTTP/1.1\nHost: h\nX-A: 1\nx-a:  2 \n\n') as ParsedRequest;
    expect(r.target).toBe('/');
    expect(r.headers.get('x-a')).toBe('1, 2');
  });

  test('declared bodies are reported, not read', () => {
    expect((one('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n') as ParsedRequest).bodyLength).toBe(5);
    expect((one('POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n') as ParsedRequest).bodyLength).toBe('chunked');
    expect((one('GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n') as ParsedRequest).bodyLength).toBe(0);
  });

  test.each([
    ['GET /\r\nHost: h\r\n\r\n', 400, /malformed request line/],
    ['GET  / HTTP/1.1\r\nHost: h\r\n\r\n', 400, /malformed request line/],
    ['G(T / HTTP/1.1\r\nHost: h\r\n\r\n', 400, /malformed method/],
    ['GET / HTTP/x\r\nHost: h\r\n\r\n', 400, /malformed HTTP version/],
    ['GET / HTTP/2.0\r\nHost: h\r\n\r\n', 505, /not supported/],
    ['GET / HTTP/1.1\r\n\r\n', 400, /without a Host/],
    ['GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 400, /more than one Host/],
    ['GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n', 400, /no field name/],
    ['GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n', 400, /invalid header field name/],
    ['GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n', 400, /folding/],
    ['GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\n', 400, /Content-Length/],
    ['GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n', 400, /Content-Length/],
    ['GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n', 400, /invalid character/],
  ])('rejects %j with %i', (text, status, message) => {
    const r = one(text);
    expect(isParseError(r)).toBe(true);
    if (isParseError(r)) {
      expect(r.status).toBe(status);
      expect(r.message).toMatch(message);
    }
  });

  test('errors are sticky: nothing after a malformed head is framed', () => {
    const p = new RequestParser();
    p.feed(Buffer.from('GET /ok HTTP/1.1\r\nHost: h\r\n\r\nBROKEN\r\n\r\nGET /late HTTP/1.1\r\nHost: h\r\n\r\n'), 1);
    const rs = parseAll(p);
    expect(rs).toHaveLength(2);
    expect(isParseError(rs[1] as ParseResult)).toBe(true);
    expect(isParseError(p.next() as ParseResult)).toBe(true);
  });

  test('a head larger than the limit is 431, complete or not', () => {
    const big = 'X-Big: ' + 'a'.repeat(300) + '\r\n';
    const complete = new RequestParser({ maxHeadBytes: 256 });
    complete.feed(Buffer.from(`GET / HTTP/1.1\r\nHost: h\r\n${big}\r\n`), 1);
    expect((complete.next() as { status: number }).status).toBe(431);

    const endless = new RequestParser({ maxHeadBytes: 256 });
    endless.feed(Buffer.from(`GET / HTTP/1.1\r\nHost: h\r\n${big}`), 1);
    expect((endless.next() as { status: number }).status).toBe(431);

    const under = new RequestParser({ maxHeadBytes: 256 });
    under.feed(Buffer.from('GET / HTTP/1.1\r\nHost: h\r\n'), 1);
    expect(under.next()).toBeNull();
  });

  test('rejects a nonsensical limit', () => {
    expect(() => new RequestParser({ maxHeadBytes: 3 })).toThrow(/maxHeadBytes/);
  });

  test('hasToken', () => {
    expect(hasToken('keep-alive, Close', 'close')).toBe(true);
    expect(hasToken('closed', 'close')).toBe(false);
    expect(hasToken(undefined, 'close')).toBe(false);
  });
});
