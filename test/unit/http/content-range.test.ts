// Matching a response to the request at the head of the pipeline by its
// Content-Range (paper §IV-B1: responses are matched to requests only by
// order, so a misordering server must be caught), and refusing bodies that are
// not the byte-exact representation asked for.

import { matchResponse, parseContentRange } from '../../../src/http/content-range';
import type { ResponseHead } from '../../../src/http/response-parser';
import { bytes } from './helpers';
import { ResponseParser } from '../../../src/http/response-parser';

function headOf(raw: string, method: 'GET' | 'HEAD' = 'GET'): ResponseHead {
  let h: ResponseHead | null = null;
  const p = new ResponseParser({
    onHead: (x) => (h = x),
    onBody: () => undefined,
    onEnd: () => undefined,
    onError: (e) => {
      throw e;
    },
  });
  p.expect(method);
  p.push(bytes(raw), 0);
  if (h === null) throw new Error('no head parsed');
  return h;
}

const r206 = (cr: string, cl: number | null = 10, extra = '') =>
  headOf(
    `HTTP/1.1 206 Partial Content\r\nContent-Range: ${cr}\r\n${cl === null ? 'Transfer-Encoding: chunked' : `Content-Length: ${cl}`}\r\n${extra}\r\n`,
  );

describe('parseContentRange', () => {
  test.each([
    ['bytes 0-9/100', { first: 0, last: 9, complete: 100 }],
    ['bytes 5-5/*', { first: 5, last: 5, complete: null }],
    ['BYTES 1-2/3', { first: 1, last: 2, complete: 3 }],
    ['bytes 9-0/100', null],
    ['bytes 0-100/100', null],
    ['bytes */100', null],
    ['items 0-1/2', null],
    ['bytes 0-1', null],
    ['bytes 99999999999999999-99999999999999999/*', null],
  ])('%s', (v, want) => expect(parseContentRange(v)).toEqual(want));
});

describe('matchResponse', () => {
  const range = { first: 100, last: 109 };
  test('the requested range: ok with its length', () => {
    expect(matchResponse(range, r206('bytes 100-109/1000'))).toEqual({ kind: 'ok', bodyBytes: 10 });
  });
  test('a range cut at the end of the representation: ok', () => {
    expect(matchResponse({ first: 100, last: 200 }, r206('bytes 100-109/110'))).toEqual({ kind: 'ok', bodyBytes: 10 });
  });
  test('chunked 206: length from Content-Range', () => {
    expect(matchResponse(range, r206('bytes 100-109/*', null))).toEqual({ kind: 'ok', bodyBytes: 10 });
  });
  test('another range: mismatched', () => {
    const m = matchResponse(range, r206('bytes 110-119/1000'));
    expect(m).toEqual({ kind: 'mismatched', message: 'Content-Range "bytes 110-119/1000" does not answer the request for bytes 100-109' });
  });
  test('shorter range with unknown length: mismatched', () => {
    expect(matchResponse({ first: 100, last: 200 }, r206('bytes 100-109/*')).kind).toBe('mismatched');
  });
  test('206 to a request without Range: mismatched', () => {
    expect(matchResponse(undefined, r206('bytes 0-9/10'))).toMatchObject({
      kind: 'mismatched',
      message: expect.stringMatching(/answers a request without Range/),
    });
  });
  test('206 without Content-Range: unusable', () => {
    const h = headOf('HTTP/1.1 206 Partial Content\r\nContent-Type: multipart/byteranges; boundary=x\r\nContent-Length: 10\r\n\r\n');
    expect(matchResponse(range, h)).toMatchObject({ kind: 'unusable', message: expect.stringMatching(/without Content-Range/) });
  });
  test('Content-Length disagreeing with Content-Range: unusable', () => {
    expect(matchResponse(range, r206('bytes 100-109/1000', 11))).toMatchObject({
      kind: 'unusable',
      message: expect.stringMatching(/Content-Length 11 disagrees/),
    });
  });
  test('gzip content coding: unusable', () => {
    expect(matchResponse(range, r206('bytes 100-109/1000', 10, 'Content-Encoding: gzip\r\n'))).toMatchObject({
      kind: 'unusable',
      message: expect.stringMatching(/Content-Encoding "gzip"/),
    });
  });
  test('200 to a Range request (server ignored Range): ok, full length', () => {
    expect(matchResponse(range, headOf('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n'))).toEqual({ kind: 'ok', bodyBytes: 1000 });
  });
  test('304 and HEAD: no body whatever Content-Length says', () => {
    expect(matchResponse(undefined, headOf('HTTP/1.1 304 Not Modified\r\nContent-Length: 1000\r\n\r\n'))).toEqual({
      kind: 'ok',
      bodyBytes: 0,
    });
    expect(
      matchResponse(
        range,
        headOf('HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 100-109/1000\r\nContent-Length: 10\r\n\r\n', 'HEAD'),
      ),
    ).toEqual({ kind: 'ok', bodyBytes: 0 });
  });
});
