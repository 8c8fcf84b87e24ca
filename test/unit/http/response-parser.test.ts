// The incremental HTTP/1.1 response parser of Sprint's pipelined trains (paper
// §IV-B1): canned response streams give the same transcript at every split
// point (and byte by byte, and at random 3-way splits); chunked bodies with
// extensions and trailers; 1xx skipped; HEAD, 204, 304; read-until-close;
// keep-alive decisions; a table of malformed streams, each of which must
// produce an error naming the problem at the right byte offset.

import { ResponseParser } from '../../../src/http/response-parser';
import type { RequestMethod } from '../../../src/http/framing';
import { bytes, cutAt, parseParts, prng, recordingParser, type Event } from './helpers';

interface Canned {
  readonly name: string;
  readonly stream: string;
  readonly methods: readonly RequestMethod[];
  readonly finish: 'eof' | 'error' | null;
  readonly expected: readonly Event[];
}

const head = (index: number, status: number, framing: string, keepAlive = true, version = '1.1', interim: number[] = []): Event => ({
  e: 'head',
  index,
  status,
  version,
  keepAlive,
  framing,
  interim,
});
const body = (data: string): Event => ({ e: 'body', data });
const end: Event = { e: 'end' };

const chunked =
  'HTTP/1.1 206 Partial Content\r\nTransfer-Encoding: chunked\r\nContent-Range: bytes 0-15/100\r\n\r\n' +
  '5;name=value;quoted="a;b"\r\nHello\r\n' +
  '000B\r\n, pipelined\r\n' +
  '0;last\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n';

const CANNED: Canned[] = [
  {
    name: 'a train: Content-Length, chunked with extensions and trailers, 1xx, 204, 304, HEAD',
    stream:
      'HTTP/1.1 200 OK\r\ncontent-length: 12\r\nContent-Type: video/mp4\r\n\r\nsegment-one!' +
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n' +
      chunked +
      'HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n' +
      'HTTP/1.1 304 Not Modified\r\nContent-Length: 5000\r\n\r\n' +
      'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n' +
      'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n',
    methods: ['GET', 'GET', 'GET', 'GET', 'HEAD', 'GET'],
    finish: null,
    expected: [
      head(0, 200, 'length'),
      body('segment-one!'),
      end,
      head(1, 206, 'chunked', true, '1.1', [100, 103]),
      body('Hello, pipelined'),
      end,
      head(2, 204, 'none'),
      end,
      head(3, 304, 'none'),
      end,
      head(4, 200, 'none'),
      end,
      head(5, 200, 'length'),
      end,
    ],
  },
  {
    name: 'HTTP/1.0 keep-alive then a body delimited by the server closing',
    stream:
      'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 3\r\n\r\nabcHTTP/1.0 200 OK\r\nServer: old\r\n\r\nuntil the end\r\n\r\n',
    methods: ['GET', 'GET'],
    finish: 'eof',
    expected: [
      head(0, 200, 'length', true, '1.0'),
      body('abc'),
      end,
      head(1, 200, 'until-close', false, '1.0'),
      body('until the end\r\n\r\n'),
      end,
    ],
  },
  {
    name: 'Connection: close on the last response, reason phrase missing',
    stream:
      'HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 404 Not Found\r\nConnection: keep-alive, Close\r\nContent-Length: 4\r\n\r\nnope',
    methods: ['GET', 'GET'],
    finish: null,
    expected: [head(0, 200, 'length'), body('ok'), end, head(1, 404, 'length', false), body('nope'), end],
  },
  {
    name: 'a malformed chunk size after a good response',
    stream: 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n-1\r\n',
    methods: ['GET', 'GET'],
    finish: null,
    expected: [
      head(0, 200, 'length'),
      body('x'),
      end,
      head(1, 200, 'chunked'),
      body('abc'),
      {
        e: 'error',
        code: 'bad-chunk-size',
        offset: 94,
        index: 1,
        message: "chunk-size line starts with '-', not a hex digit (response #1, at byte 94 of the connection)",
      },
    ],
  },
];

describe('every split gives the same transcript', () => {
  for (const c of CANNED) {
    test(c.name, () => {
      const stream = bytes(c.stream);
      const whole = parseParts([stream], c.methods, c.finish);
      expect(whole).toEqual(c.expected);
      // One cut at every position, including 0 and the end (empty slices).
      for (let k = 0; k <= stream.length; k += 1) {
        expect({ k, t: parseParts(cutAt(stream, [k]), c.methods, c.finish) }).toEqual({ k, t: whole });
      }
      // Byte by byte.
      const single = Array.from({ length: stream.length }, (_, i) => stream.subarray(i, i + 1));
      expect(parseParts(single, c.methods, c.finish)).toEqual(whole);
      // 300 random 3-way cuts (seeded).
      const rnd = prng(stream.length);
      for (let r = 0; r < 300; r += 1) {
        const cuts = [Math.floor(rnd() * (stream.length + 1)), Math.floor(rnd() * (stream.length + 1))];
        expect({ cuts, t: parseParts(cutAt(stream, cuts), c.methods, c.finish) }).toEqual({ cuts, t: whole });
      }
    });
  }

  test('every pair of cuts in a chunked response', () => {
    const stream = bytes(chunked);
    const whole = parseParts([stream], ['GET']);
    expect(whole).toEqual([head(0, 206, 'chunked'), body('Hello, pipelined'), end]);
    for (let a = 0; a <= stream.length; a += 1) {
      for (let b = a; b <= stream.length; b += 1) {
        const t = parseParts(cutAt(stream, [a, b]), ['GET']);
        if (JSON.stringify(t) !== JSON.stringify(whole)) expect({ a, b, t }).toEqual({ a, b, t: whole });
      }
    }
  });
});

describe('body pieces', () => {
  test('are views of the pushed bytes (no copy) stamped with the push time', () => {
    const { parser, pieces } = recordingParser(['GET']);
    const first = bytes('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123');
    const second = bytes('456789');
    parser.push(first, 1000.5);
    parser.push(second, 1002.25);
    expect(pieces.map((p) => [Buffer.from(p.piece).toString('latin1'), p.atMs])).toEqual([
      ['0123', 1000.5],
      ['456789', 1002.25],
    ]);
    expect(pieces[0]?.piece.buffer).toBe(first.buffer);
    expect(pieces[0]?.piece.byteOffset).toBe(first.length - 4);
    expect(pieces[1]?.piece.buffer).toBe(second.buffer);
  });

  test('head carries headers case-insensitively, repeated fields joined', () => {
    let seen: import('../../../src/http/response-parser').ResponseHead | null = null;
    const p = new ResponseParser({
      onHead: (h) => (seen = h),
      onBody: () => undefined,
      onEnd: () => undefined,
      onError: (e) => {
        throw e;
      },
    });
    p.expect('GET');
    p.push(bytes('HTTP/1.1 200 Fine Thanks\r\nX-A: 1\r\nx-a:2 \r\nContent-Length:   0\r\nContent-Length: 0\r\n\r\n'), 0);
    const h = seen as unknown as import('../../../src/http/response-parser').ResponseHead;
    expect(h.reason).toBe('Fine Thanks');
    expect(h.headers.get('X-a')).toBe('1, 2');
    expect(h.headers.getAll('x-A')).toEqual(['1', '2']);
    expect(h.contentLength).toBe(0);
    expect(h.offset).toBe(0);
    expect(p.state).toBe('idle');
    expect(p.responsesCompleted).toBe(1);
  });
});

describe('keep-alive decision (RFC 9112 §9.3)', () => {
  const cases: Array<[string, string, boolean]> = [
    ['HTTP/1.1 default', 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', true],
    ['HTTP/1.1 Connection: close', 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', false],
    ['HTTP/1.0 default', 'HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', false],
    ['HTTP/1.0 keep-alive', 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n', true],
    ['HTTP/1.1 no length: until close', 'HTTP/1.1 200 OK\r\n\r\n', false],
  ];
  test.each(cases)('%s', (_name, raw, keepAlive) => {
    const t = parseParts([bytes(raw)], ['GET']);
    expect(t[0]).toMatchObject({ e: 'head', keepAlive });
  });
});

interface Bad {
  readonly name: string;
  readonly stream: string;
  readonly methods?: readonly RequestMethod[];
  readonly finish?: 'eof' | 'error';
  readonly code: string;
  readonly says: RegExp;
  readonly offset?: number;
  readonly options?: ConstructorParameters<typeof ResponseParser>[1];
}

const OK = 'HTTP/1.1 200 OK\r\n';
const BAD: Bad[] = [
  { name: 'status line not HTTP', stream: 'ICY 200 OK\r\n\r\n', code: 'bad-status-line', says: /does not start with "HTTP\/"/, offset: 0 },
  { name: 'status code not digits', stream: 'HTTP/1.1 2OO OK\r\n\r\n', code: 'bad-status-line', says: /no 3-digit status code/, offset: 9 },
  { name: 'status code glued to reason', stream: 'HTTP/1.1 200OK\r\n\r\n', code: 'bad-status-line', says: /3-digit status code/ },
  { name: 'HTTP/2.0', stream: 'HTTP/2.0 200 OK\r\n\r\n', code: 'unsupported-version', says: /version 2\.0 is not 1\.0 or 1\.1/ },
  { name: 'no minor version', stream: 'HTTP/2 200 OK\r\n\r\n', code: 'bad-status-line', says: /HTTP\/x\.y/ },
  { name: 'status 600', stream: 'HTTP/1.1 600 What\r\n\r\n', code: 'bad-status-code', says: /600 is outside 100-599/ },
  {
    name: 'empty line before the status line',
    stream: '\r\nHTTP/1.1 200 OK\r\n\r\n',
    code: 'bad-status-line',
    says: /empty line where a status line/,
    offset: 0,
  },
  { name: 'bare LF', stream: 'HTTP/1.1 200 OK\nContent-Length: 0\n\n', code: 'bare-lf', says: /LF without CR/, offset: 15 },
  {
    name: 'control byte in reason',
    stream: 'HTTP/1.1 200 O\x01K\r\n\r\n',
    code: 'bad-status-line',
    says: /0x01 is not allowed in the reason/,
    offset: 14,
  },
  {
    name: 'folded header',
    stream: `${OK}X-A: 1\r\n  continued\r\nContent-Length: 0\r\n\r\n`,
    code: 'folded-header',
    says: /obs-fold/,
    offset: 25,
  },
  {
    name: 'header without colon',
    stream: `${OK}Content-Length 0\r\n\r\n`,
    code: 'bad-header',
    says: /whitespace inside or after the field name "Content-Length"/,
  },
  { name: 'header name without colon or space', stream: `${OK}Garbage\r\n\r\n`, code: 'bad-header', says: /has no ':'/, offset: 17 },
  {
    name: 'space before colon',
    stream: `${OK}Content-Length : 0\r\n\r\n`,
    code: 'bad-header',
    says: /whitespace inside or after the field name/,
    offset: 31,
  },
  { name: 'empty field name', stream: `${OK}: x\r\n\r\n`, code: 'bad-header', says: /empty field name/ },
  {
    name: 'NUL in a value',
    stream: `${OK}X-A: a\x00b\r\nContent-Length: 0\r\n\r\n`,
    code: 'bad-header',
    says: /0x00 is not allowed in the value of "X-A"/,
    offset: 23,
  },
  { name: 'lone CR in a value', stream: `${OK}X-A: a\rb\r\nContent-Length: 0\r\n\r\n`, code: 'bad-header', says: /'\\r' is not allowed/ },
  {
    name: 'head larger than the bound',
    stream: `${OK}X-Big: ${'a'.repeat(1100)}\r\n\r\n`,
    options: { maxHeadBytes: 1024 },
    code: 'headers-too-large',
    says: /response head is larger than 1024 bytes/,
    offset: 1024,
  },
  {
    name: 'Content-Length not a number',
    stream: `${OK}Content-Length: 12abc\r\n\r\n`,
    code: 'bad-content-length',
    says: /"12abc" is not a decimal number/,
    offset: 17,
  },
  { name: 'Content-Length negative', stream: `${OK}Content-Length: -5\r\n\r\n`, code: 'bad-content-length', says: /"-5" is negative/ },
  { name: 'Content-Length empty', stream: `${OK}Content-Length:\r\n\r\n`, code: 'bad-content-length', says: /"" is not a decimal number/ },
  {
    name: 'Content-Length overflows',
    stream: `${OK}Content-Length: 99999999999999999999\r\n\r\n`,
    code: 'bad-content-length',
    says: /overflows/,
  },
  {
    name: 'Content-Length just above 2^53-1',
    stream: `${OK}Content-Length: 9007199254740992\r\n\r\n`,
    code: 'bad-content-length',
    says: /overflows/,
  },
  {
    name: 'Content-Length twice, different',
    stream: `${OK}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello`,
    code: 'conflicting-content-length',
    says: /different values \("5, 6"\)/,
  },
  {
    name: 'Content-Length list, different',
    stream: `${OK}Content-Length: 5, 6\r\n\r\nhello`,
    code: 'conflicting-content-length',
    says: /different values/,
  },
  {
    name: 'malformed Content-Length on a HEAD response',
    stream: `${OK}Content-Length: x\r\n\r\n`,
    methods: ['HEAD'],
    code: 'bad-content-length',
    says: /not a decimal number/,
  },
  {
    name: 'Content-Length and Transfer-Encoding',
    stream: `${OK}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    code: 'length-and-chunked',
    says: /both Content-Length \(5\) and Transfer-Encoding \("chunked"\)/,
    offset: 36,
  },
  {
    name: 'gzip transfer coding',
    stream: `${OK}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`,
    code: 'bad-transfer-encoding',
    says: /"gzip, chunked" is not exactly "chunked"/,
    offset: 17,
  },
  {
    name: 'Transfer-Encoding in HTTP/1.0',
    stream: 'HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    code: 'bad-transfer-encoding',
    says: /in an HTTP\/1\.0 response/,
  },
  {
    name: 'chunk size not hex',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\nzz\r\n`,
    code: 'bad-chunk-size',
    says: /starts with 'z', not a hex digit/,
    offset: 47,
  },
  {
    name: 'chunk size empty',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n\r\n`,
    code: 'bad-chunk-size',
    says: /starts with the end of the line/,
  },
  {
    name: 'junk after chunk size',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n5 x\r\nhello\r\n0\r\n\r\n`,
    code: 'bad-chunk-size',
    says: /followed by 'x', not ';'/,
    offset: 49,
  },
  {
    name: 'chunk size overflows',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n1ffffffffffffff\r\n`,
    code: 'bad-chunk-size',
    says: /more than 13 significant hex digits/,
  },
  {
    name: 'chunk-size line too long',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n5;${'e'.repeat(300)}\r\nhello\r\n0\r\n\r\n`,
    options: { maxChunkLineBytes: 256 },
    code: 'chunk-line-too-long',
    says: /longer than 256 bytes/,
    offset: 47 + 256,
  },
  {
    name: 'chunk data not followed by CRLF',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n`,
    code: 'bad-chunk-terminator',
    says: /followed by 'd' where CRLF was expected/,
    offset: 53,
  },
  {
    name: 'chunk size line with bare LF',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n3\nabc\r\n`,
    code: 'bare-lf',
    says: /chunk-size line ends in LF without CR/,
    offset: 48,
  },
  {
    name: 'NUL in a chunk extension',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n3;a\x00\r\nabc\r\n`,
    code: 'bad-chunk-size',
    says: /0x00 in a chunk extension/,
  },
  {
    name: 'folded trailer',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n folded\r\n\r\n`,
    code: 'bad-trailer',
    says: /trailer section: .*obs-fold/,
  },
  {
    name: 'trailer without colon',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n0\r\nnope\r\n\r\n`,
    code: 'bad-trailer',
    says: /trailer section: field line "nope" has no ':'/,
  },
  {
    name: 'trailers larger than the bound',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n0\r\nX-T: ${'t'.repeat(1100)}\r\n\r\n`,
    options: { maxHeadBytes: 1024 },
    code: 'trailers-too-large',
    says: /trailer section is larger than 1024 bytes/,
  },
  {
    name: 'bytes after the expected responses',
    stream: `${OK}Content-Length: 2\r\n\r\nokX`,
    code: 'unsolicited-bytes',
    says: /byte 'X' arrived while no response was expected/,
    offset: 40,
  },
  {
    name: 'extra CRLF after a body',
    stream: `${OK}Content-Length: 2\r\n\r\nok\r\n`,
    code: 'unsolicited-bytes',
    says: /'\\r' arrived while no response was expected/,
    offset: 40,
  },
  {
    name: 'bytes after a Connection: close response',
    stream: `${OK}Connection: close\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n`,
    methods: ['GET', 'GET'],
    code: 'bytes-after-close',
    says: /'H' arrived after response #0, which closes the connection/,
    offset: 59,
  },
  {
    name: '101 Switching Protocols',
    stream: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n',
    code: 'unexpected-101',
    says: /did not ask to upgrade/,
  },
  {
    name: 'too many interim responses',
    stream: 'HTTP/1.1 100 Continue\r\n\r\n'.repeat(17),
    code: 'too-many-interim',
    says: /more than 16 interim/,
  },
  {
    name: 'cut inside a Content-Length body',
    stream: `${OK}Content-Length: 10\r\n\r\nabc`,
    finish: 'eof',
    code: 'truncated',
    says: /closed by the server \(test\) after 3 of 10 body bytes/,
    offset: 42,
  },
  { name: 'cut inside a head', stream: `${OK}Content-Le`, finish: 'eof', code: 'truncated', says: /inside a response head after 27 bytes/ },
  {
    name: 'cut inside a chunked body',
    stream: `${OK}Transfer-Encoding: chunked\r\n\r\n5\r\nab`,
    finish: 'error',
    code: 'truncated',
    says: /connection failed \(test\) inside a chunked body after 2 body bytes/,
  },
  {
    name: 'reset during a read-until-close body',
    stream: `${OK}\r\nsome`,
    finish: 'error',
    code: 'truncated',
    says: /completeness unknown/,
  },
];

describe('malformed responses are errors naming the problem and the byte', () => {
  test.each(BAD.map((b) => [b.name, b] as const))('%s', (_name, b) => {
    const stream = bytes(b.stream);
    const t = parseParts([stream], b.methods ?? ['GET'], b.finish ?? null, b.options);
    const err = t[t.length - 1];
    expect(err).toMatchObject({ e: 'error', code: b.code });
    expect((err as { message: string }).message).toMatch(b.says);
    expect((err as { message: string }).message).toMatch(/\(response #\d+, at byte \d+ of the connection\)$/);
    if (b.offset !== undefined) expect((err as { offset: number }).offset).toBe(b.offset);
    expect(t.filter((x) => x.e === 'error')).toHaveLength(1);
    // Never a completed response that contains the defect: no 'end' after the last good one.
    // Same error at every split point.
    for (let k = 0; k <= stream.length; k += 1) {
      expect(parseParts(cutAt(stream, [k]), b.methods ?? ['GET'], b.finish ?? null, b.options)).toEqual(t);
    }
  });

  test('identical Content-Length values (repeated or listed) are accepted', () => {
    const t = parseParts([bytes(`${OK}Content-Length: 2\r\nContent-Length: 2, 2\r\n\r\nok`)], ['GET']);
    expect(t).toEqual([head(0, 200, 'length'), body('ok'), end]);
  });

  test('after an error the parser ignores further bytes and finish()', () => {
    const { parser, events } = recordingParser(['GET']);
    parser.push(bytes('HTTP/9.9 200 OK\r\n\r\n'), 0);
    parser.push(bytes('more'), 1);
    parser.finish('eof', 2);
    expect(events).toHaveLength(1);
    expect(parser.state).toBe('failed');
    expect(parser.bytesIgnored).toBe(4);
  });

  test('a connection closing between responses is not a parse error (the caller sees `pending`)', () => {
    const { parser, events } = recordingParser(['GET', 'GET']);
    parser.push(bytes(`${OK}Content-Length: 2\r\n\r\nok`), 0);
    parser.finish('eof', 1);
    expect(events.map((e) => e.e)).toEqual(['head', 'body', 'end']);
    expect(parser.pending).toBe(1);
    expect(parser.state).toBe('ended');
  });

  test('an exception thrown by a handler propagates and kills the parser', () => {
    const p = new ResponseParser({
      onHead: () => {
        throw new Error('handler bug');
      },
      onBody: () => undefined,
      onEnd: () => undefined,
      onError: () => undefined,
    });
    p.expect('GET');
    expect(() => p.push(bytes(`${OK}Content-Length: 0\r\n\r\n`), 0)).toThrow('handler bug');
    expect(p.state).toBe('failed');
  });

  test('bad options are rejected', () => {
    const noop = { onHead: () => undefined, onBody: () => undefined, onEnd: () => undefined, onError: () => undefined };
    expect(() => new ResponseParser(noop, { maxHeadBytes: 0 })).toThrow(/maxHeadBytes must be a positive integer/);
    expect(() => new ResponseParser(noop).expect('POST' as RequestMethod)).toThrow(/GET or HEAD/);
  });
});
