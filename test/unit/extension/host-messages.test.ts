// Validation of what the native socket host sends the service worker
// (extension/src/worker/host-messages.ts, against extension/host/PROTOCOL.md
// §3–5), and the base64 helpers used on the message hops (including the
// pass-through of the host's base64 for body pieces).

import { parseHelloResult, parseHostMessage, parseOpenResult } from '../../../extension/src/worker/host-messages';
import { decodeBase64, encodeBase64 } from '../../../extension/src/shared/base64';
import { pieceBase64, rememberBase64 } from '../../../extension/src/worker/piece-base64';

describe('parseHostMessage', () => {
  test('replies, data, closed and tcpInfo events', () => {
    expect(parseHostMessage({ id: 7, ok: true, result: { conn: 1 } })).toEqual({
      ok: true,
      value: { kind: 'reply', id: 7, ok: true, result: { conn: 1 } },
    });
    expect(parseHostMessage({ id: null, ok: false, error: { code: 'limit', message: 'too big' } })).toEqual({
      ok: true,
      value: { kind: 'reply', id: null, ok: false, code: 'limit', message: 'too big' },
    });
    expect(parseHostMessage({ event: 'data', conn: 1, offset: 0, n: 3, t: 1.5, data: 'AAEC' })).toEqual({
      ok: true,
      value: { kind: 'data', conn: 1, offset: 0, n: 3, t: 1.5, data: 'AAEC' },
    });
    expect(parseHostMessage({ event: 'closed', conn: 2, reason: 'eof', bytesRead: 10, bytesWritten: 5, t: 2 })).toMatchObject({
      ok: true,
      value: { kind: 'closed', conn: 2, reason: 'eof', message: '', bytesRead: 10 },
    });
    expect(
      parseHostMessage({ event: 'tcpInfo', conn: 2, t: 3, info: { rttUs: 100, minRttUs: 50, bytesReceived: 9, sndCwnd: 10 } }),
    ).toEqual({
      ok: true,
      value: { kind: 'tcpInfo', conn: 2, t: 3, info: { rttUs: 100, minRttUs: 50, bytesReceived: 9 } },
    });
  });
  test.each([
    ['not an object', 'x', /not a JSON object/],
    ['reply id 0', { id: 0, ok: true, result: {} }, /not null or an integer >= 1/],
    ['reply ok missing', { id: 1, result: {} }, /ok is not a boolean/],
    ['reply result array', { id: 1, ok: true, result: [] }, /result is not an object/],
    ['error without code', { id: 1, ok: false, error: { message: 'x' } }, /error is not \{code, message\}/],
    ['event without conn', { event: 'data', offset: 0, n: 1, t: 1, data: 'AA==' }, /conn is not an integer/],
    ['t missing', { event: 'data', conn: 1, offset: 0, n: 1, data: 'AA==' }, /t is not a number/],
    ['n zero', { event: 'data', conn: 1, offset: 0, n: 0, t: 1, data: '' }, /offset\/n out of range/],
    ['n above chunk', { event: 'data', conn: 1, offset: 0, n: 262145, t: 1, data: '' }, /offset\/n out of range/],
    ['data length disagrees with n', { event: 'data', conn: 1, offset: 0, n: 4, t: 1, data: 'AAEC' }, /not the base64 of 4 bytes/],
    ['negative offset', { event: 'data', conn: 1, offset: -3, n: 3, t: 1, data: 'AAEC' }, /out of range/],
    ['closed without bytesRead', { event: 'closed', conn: 1, reason: 'eof', t: 1 }, /bytesRead malformed/],
    ['tcpInfo info missing fields', { event: 'tcpInfo', conn: 1, t: 1, info: { rttUs: 1 } }, /info malformed/],
    ['unknown event', { event: 'boom', conn: 1, t: 1 }, /unknown event "boom"/],
  ])('refuses %s', (_n, msg, reason) => {
    const r = parseHostMessage(msg);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
  test('hello and open results', () => {
    const hello = {
      name: 'sprint-host',
      protocol: 1,
      hostVersion: '0.1.0',
      tcpInfo: true,
      limits: { maxWriteBytes: 16384, maxRequestsPerWrite: 64, maxPendingWrites: 16, maxConnections: 16 },
    };
    expect(parseHelloResult(hello)).toMatchObject({ ok: true, value: { protocol: 1, maxWriteBytes: 16384 } });
    expect(parseHelloResult({ ...hello, limits: { maxWriteBytes: 1 } })).toMatchObject({ ok: false });
    expect(parseOpenResult({ conn: 3, localAddr: '127.0.0.1:5', remoteAddr: '127.0.0.1:80', connectMs: 0.2, t: 1 })).toMatchObject({
      ok: true,
      value: { conn: 3 },
    });
    expect(parseOpenResult({ conn: 0, localAddr: '', remoteAddr: '', connectMs: 0, t: 1 })).toMatchObject({ ok: false });
  });
});

describe('base64', () => {
  test('round trip of every byte value and every length mod 3', () => {
    for (const n of [0, 1, 2, 3, 256, 1000, 262144]) {
      const b = new Uint8Array(n).map((_, i) => (i * 7) & 0xff);
      const s = encodeBase64(b);
      expect(s).toBe(Buffer.from(b).toString('base64'));
      expect(Buffer.from(decodeBase64(s)).equals(Buffer.from(b))).toBe(true);
    }
  });
  test('malformed input is an error naming it', () => {
    expect(() => decodeBase64('AAE')).toThrow(/malformed base64 \(3 characters\)/);
    expect(() => decodeBase64('AA*A')).toThrow(/malformed base64/);
  });
});

describe('pieceBase64', () => {
  test('every sub-range of a remembered chunk encodes exactly as a fresh encoding', () => {
    for (const n of [1, 2, 3, 4, 5, 17, 300]) {
      const chunk = new Uint8Array(n).map((_, i) => (i * 31 + 7) & 0xff);
      const b64 = encodeBase64(chunk);
      const decoded = decodeBase64(b64);
      rememberBase64(decoded, b64);
      for (let a = 0; a < n; a += 1) {
        for (let b = a + 1; b <= n; b += 1) {
          expect(pieceBase64(decoded.subarray(a, b))).toBe(Buffer.from(chunk.subarray(a, b)).toString('base64'));
        }
      }
    }
  });
  test('a piece of an unknown buffer is encoded', () => {
    const bytes = new Uint8Array([1, 2, 3, 4]);
    expect(pieceBase64(bytes.subarray(1))).toBe(Buffer.from([2, 3, 4]).toString('base64'));
  });
});
