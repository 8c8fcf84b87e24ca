// The page ↔ extension message validators (player/sprint/extension/
// protocol.ts: every message is validated at each boundary).
// Each malformed shape is refused with a reason that names what is wrong, and
// with the message id when one could be read (so the page can fail that request).

import {
  LIMITS,
  MAX_PIECE_B64,
  checkExtensionMessage,
  checkPageMessage,
  checkSessionMessage,
  isHelloEnvelope,
} from '../../../player/sprint/extension/protocol';

const url = 'https://media.example/v/720p/seg-1.m4s';

describe('isHelloEnvelope', () => {
  test('accepts the v1 hello and other versions (answered unsupported-protocol by the content script)', () => {
    expect(isHelloEnvelope({ sprint: 'v1', type: 'hello', nonce: 'abc' })).toBe(true);
    expect(isHelloEnvelope({ sprint: 'v2', type: 'hello', nonce: '' })).toBe(true);
  });
  test.each([
    ['null', null],
    ['string', 'hello'],
    ['array', [1]],
    ['no namespace', { type: 'hello', nonce: 'a' }],
    ['bad version', { sprint: '1', type: 'hello', nonce: 'a' }],
    ['v0', { sprint: 'v0', type: 'hello', nonce: 'a' }],
    ['other type', { sprint: 'v1', type: 'request', nonce: 'a' }],
    ['extra field', { sprint: 'v1', type: 'hello', nonce: 'a', url }],
    ['long nonce', { sprint: 'v1', type: 'hello', nonce: 'x'.repeat(LIMITS.maxNonceChars + 1) }],
    ['nonce not a string', { sprint: 'v1', type: 'hello', nonce: 5 }],
  ])('refuses %s', (_n, x) => {
    expect(isHelloEnvelope(x)).toBe(false);
  });
});

describe('checkPageMessage', () => {
  test('well-formed messages pass through unchanged (and only their own fields)', () => {
    expect(checkPageMessage({ type: 'request', id: 1, url })).toEqual({ ok: true, value: { type: 'request', id: 1, url } });
    expect(checkPageMessage({ type: 'request', id: 2 ** 53 - 1, url, range: { start: 0, end: 99 } })).toEqual({
      ok: true,
      value: { type: 'request', id: 2 ** 53 - 1, url, range: { start: 0, end: 99 } },
    });
    expect(checkPageMessage({ type: 'cancel', id: 3 })).toEqual({ ok: true, value: { type: 'cancel', id: 3 } });
    expect(checkPageMessage({ type: 'stats', id: 4 })).toEqual({ ok: true, value: { type: 'stats', id: 4 } });
    expect(checkPageMessage({ type: 'pathInfo', id: 5, origin: 'https://media.example' })).toEqual({
      ok: true,
      value: { type: 'pathInfo', id: 5, origin: 'https://media.example' },
    });
    expect(checkPageMessage({ type: 'close' })).toEqual({ ok: true, value: { type: 'close' } });
    expect(checkPageMessage(Object.assign(Object.create(null), { type: 'close' }))).toMatchObject({ ok: true });
  });

  const cases: Array<[string, unknown, RegExp, number | null]> = [
    ['a string', 'request', /not a plain object/, null],
    ['null', null, /not a plain object/, null],
    ['an array', [{ type: 'request' }], /not a plain object/, null],
    ['a class instance', new Date(), /not a plain object/, null],
    ['unknown type', { type: 'post', id: 1, url }, /unknown message type "post"/, 1],
    ['type not a string', { type: 7 }, /unknown message type number/, null],
    ['a method field (non-GET)', { type: 'request', id: 1, url, method: 'POST' }, /unknown field "method"/, 1],
    ['headers field', { type: 'request', id: 1, url, headers: { Cookie: 'a' } }, /unknown field "headers"/, 1],
    ['body field', { type: 'request', id: 1, url, body: 'x' }, /unknown field "body"/, 1],
    ['missing url', { type: 'request', id: 1 }, /missing field "url"/, 1],
    ['url not a string', { type: 'request', id: 1, url: { href: url } }, /url must be a string/, 1],
    ['empty url', { type: 'request', id: 1, url: '' }, /url must be 1\.\.4096/, 1],
    ['url too long', { type: 'request', id: 1, url: `${url}?${'a'.repeat(LIMITS.maxUrlLength)}` }, /url must be 1\.\.4096/, 1],
    ['id zero', { type: 'request', id: 0, url }, /id must be an integer/, null],
    ['id fractional', { type: 'request', id: 1.5, url }, /id must be an integer/, null],
    ['id string', { type: 'request', id: '1', url }, /id must be an integer/, null],
    ['id beyond 2^53', { type: 'request', id: 2 ** 53, url }, /id must be an integer/, null],
    ['range reversed', { type: 'request', id: 1, url, range: { start: 10, end: 9 } }, /end 9 is before start 10/, 1],
    ['range negative', { type: 'request', id: 1, url, range: { start: -1, end: 9 } }, /integers >= 0/, 1],
    ['range fractional', { type: 'request', id: 1, url, range: { start: 0.5, end: 9 } }, /integers >= 0/, 1],
    ['range as string', { type: 'request', id: 1, url, range: 'bytes=0-9' }, /must be an object/, 1],
    ['range extra field', { type: 'request', id: 1, url, range: { start: 0, end: 9, unit: 'bytes' } }, /unknown field "unit"/, 1],
    ['range too long', { type: 'request', id: 1, url, range: { start: 0, end: LIMITS.maxResponseBytes } }, /longer than/, 1],
    ['cancel extra field', { type: 'cancel', id: 1, url }, /unknown field "url"/, 1],
    ['pathInfo origin too long', { type: 'pathInfo', id: 1, origin: 'x'.repeat(301) }, /origin must be a string/, 1],
    ['close with id', { type: 'close', id: 1 }, /unknown field "id"/, null],
    [
      'many fields',
      Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]).concat([['type', 'request']])),
      /unknown field "k0"/,
      null,
    ],
  ];
  test.each(cases)('refuses %s', (_name, msg, reason, id) => {
    const r = checkPageMessage(msg);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toMatch(reason);
    expect(r.id).toBe(id);
  });

  test('consumed (back-pressure): a cumulative byte count, nothing else', () => {
    expect(checkPageMessage({ type: 'consumed', bytes: 0 })).toEqual({ ok: true, value: { type: 'consumed', bytes: 0 } });
    expect(checkPageMessage({ type: 'consumed', bytes: 2 ** 40 })).toEqual({ ok: true, value: { type: 'consumed', bytes: 2 ** 40 } });
    for (const bad of [
      { type: 'consumed' },
      { type: 'consumed', bytes: -1 },
      { type: 'consumed', bytes: 1.5 },
      { type: 'consumed', bytes: '5' },
      { type: 'consumed', bytes: 5, id: 1 },
    ]) {
      expect(checkPageMessage(bad)).toMatchObject({ ok: false, reason: expect.stringMatching(/^consumed: /) });
    }
  });

  test('the session hello is accepted only between content script and worker', () => {
    expect(checkSessionMessage({ type: 'hello', protocol: 1 })).toEqual({ ok: true, value: { type: 'hello', protocol: 1 } });
    expect(checkSessionMessage({ type: 'hello', protocol: '1' })).toMatchObject({ ok: false });
    expect(checkSessionMessage({ type: 'hello', protocol: 1, origin: 'https://evil.example' })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/unknown field "origin"/),
    });
    expect(checkPageMessage({ type: 'hello', protocol: 1 })).toMatchObject({ ok: false });
    expect(checkSessionMessage({ type: 'request', id: 1, url })).toMatchObject({ ok: true });
  });
});

describe('checkExtensionMessage', () => {
  const head = { type: 'head', id: 1, status: 206, headers: { 'content-range': 'bytes 0-9/100' }, t: 1.5 };
  test('well-formed messages of each hop pass', () => {
    const good: unknown[] = [
      { type: 'ack', extensionVersion: '0.1.0' },
      {
        type: 'welcome',
        protocol: 1,
        extensionVersion: '0.1.0',
        hostVersion: '0.1.0',
        tcpInfo: true,
        limits: { maxOutstanding: 32, maxResponseBytes: 1, maxUrlLength: 4096 },
      },
      { type: 'unavailable', code: 'host-missing', reason: 'Specified native messaging host not found.' },
      head,
      { type: 'end', id: 1, t: 2, bodyBytes: 10 },
      { type: 'error', id: 1, code: 'cors', reason: 'withheld', retryable: false },
      { type: 'result', id: 2, value: { anything: true } },
      { type: 'rejected', id: null, reason: 'x' },
      { type: 'closed', code: 'worker-disconnected', reason: 'gone' },
    ];
    for (const m of good) {
      expect(checkExtensionMessage(m, 'b64')).toMatchObject({ ok: true });
      expect(checkExtensionMessage(m, 'bytes')).toMatchObject({ ok: true });
    }
    expect(checkExtensionMessage({ type: 'data', id: 1, t: 3, b64: 'AAEC' }, 'b64')).toMatchObject({ ok: true });
    expect(checkExtensionMessage({ type: 'data', id: 1, t: 3, bytes: new ArrayBuffer(3) }, 'bytes')).toMatchObject({ ok: true });
  });

  const bad: Array<[string, unknown, 'b64' | 'bytes', RegExp]> = [
    ['data with bytes on the b64 hop', { type: 'data', id: 1, t: 3, bytes: new ArrayBuffer(3) }, 'b64', /unknown field "bytes"/],
    ['data with b64 on the page hop', { type: 'data', id: 1, t: 3, b64: 'AAEC' }, 'bytes', /unknown field "b64"/],
    ['empty piece', { type: 'data', id: 1, t: 3, bytes: new ArrayBuffer(0) }, 'bytes', /non-empty ArrayBuffer/],
    [
      'piece over 256 KiB',
      { type: 'data', id: 1, t: 3, bytes: new ArrayBuffer(LIMITS.maxPieceBytes + 1) },
      'bytes',
      /at most 262144 bytes/,
    ],
    ['b64 over one piece', { type: 'data', id: 1, t: 3, b64: 'A'.repeat(MAX_PIECE_B64 + 4) }, 'b64', /at most one piece/],
    ['b64 unpadded length', { type: 'data', id: 1, t: 3, b64: 'AAE' }, 'b64', /padded base64/],
    ['bytes as a typed array', { type: 'data', id: 1, t: 3, bytes: new Uint8Array(3) }, 'bytes', /ArrayBuffer/],
    ['t not finite', { ...head, t: Number.NaN }, 'bytes', /malformed id, status or t/],
    ['status 99', { ...head, status: 99 }, 'bytes', /malformed id, status or t/],
    ['header value not a string', { ...head, headers: { a: 1 } }, 'bytes', /not a string/],
    ['header name upper case', { ...head, headers: { 'Content-Type': 'x' } }, 'bytes', /lower-case token/],
    [
      'too many headers',
      { ...head, headers: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`h${i}`, 'v'])) },
      'bytes',
      /more than 100/,
    ],
    ['headers too long', { ...head, headers: { a: 'x'.repeat(LIMITS.maxHeaderChars) } }, 'bytes', /exceed/],
    ['unknown error code', { type: 'error', id: 1, code: 'oops', reason: 'x', retryable: true }, 'bytes', /malformed fields/],
    ['retryable not boolean', { type: 'error', id: 1, code: 'cors', reason: 'x', retryable: 'no' }, 'bytes', /malformed fields/],
    [
      'reason too long',
      { type: 'error', id: 1, code: 'cors', reason: 'x'.repeat(LIMITS.maxReasonChars + 1), retryable: false },
      'bytes',
      /malformed fields/,
    ],
    ['unknown unavailable code', { type: 'unavailable', code: 'nope', reason: 'x' }, 'bytes', /malformed code/],
    [
      'welcome limits missing',
      { type: 'welcome', protocol: 1, extensionVersion: '1', hostVersion: '1', tcpInfo: true, limits: {} },
      'bytes',
      /malformed limits/,
    ],
    ['unknown type', { type: 'boom' }, 'bytes', /unknown message type "boom"/],
  ];
  test.each(bad)('refuses %s', (_n, msg, hop, reason) => {
    const r = hop === 'b64' ? checkExtensionMessage(msg, 'b64') : checkExtensionMessage(msg, 'bytes');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});
