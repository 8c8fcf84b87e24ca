// Decides how a response body is delimited and whether the connection stays
// open after it (RFC 9112 §6.3 message body length, §9.3 persistence), for the
// responses of Sprint's pipelined trains (paper §IV-B1). Anything ambiguous is
// an error, never a guess: Content-Length that is not a decimal number, lists
// with different values, both Content-Length and Transfer-Encoding, a transfer
// coding other than exactly "chunked" (we always ask for identity), or
// Transfer-Encoding in an HTTP/1.0 response.

import { HttpParseError } from './errors';
import type { ParsedHead } from './head-parse';

export type RequestMethod = 'GET' | 'HEAD';

export type BodyFraming =
  /** No body: HEAD responses, 1xx, 204, 304. */
  | { readonly kind: 'none' }
  /** Exactly `length` body bytes (Content-Length). */
  | { readonly kind: 'length'; readonly length: number }
  /** Chunked transfer coding. */
  | { readonly kind: 'chunked' }
  /** No length given: the body is everything until the server closes (HTTP/1.0 style). */
  | { readonly kind: 'until-close' };

export interface FramingDecision {
  readonly framing: BodyFraming;
  /** False when the connection will close after this response (RFC 9112 §9.3). */
  readonly keepAlive: boolean;
  /** The Content-Length value if present and valid (also for HEAD/304, where it does not delimit a body). */
  readonly contentLength: number | null;
}

/** Whether a response with this status to this method can carry a body. */
export function statusHasBody(status: number, method: RequestMethod): boolean {
  return !(method === 'HEAD' || status < 200 || status === 204 || status === 304);
}

/** The single Content-Length value, or null if absent; throws HttpParseError if malformed or conflicting. */
export function contentLengthOf(head: ParsedHead, offset: number, responseIndex: number): number | null {
  const raw = head.headers.getAll('content-length');
  if (raw.length === 0) return null;
  const at = head.headers.offsetOf('content-length') ?? offset;
  let value: number | null = null;
  for (const field of raw) {
    for (const part of field.split(',')) {
      const t = part.trim();
      const shown = JSON.stringify(t);
      if (/^-\d+$/.test(t)) throw new HttpParseError('bad-content-length', at, responseIndex, `Content-Length ${shown} is negative`);
      if (!/^\d+$/.test(t))
        throw new HttpParseError('bad-content-length', at, responseIndex, `Content-Length ${shown} is not a decimal number`);
      const n = Number(t);
      if (t.replace(/^0+(?=\d)/, '').length > 16 || !Number.isSafeInteger(n)) {
        throw new HttpParseError('bad-content-length', at, responseIndex, `Content-Length ${shown} overflows (more than 2^53-1)`);
      }
      if (value !== null && value !== n) {
        throw new HttpParseError(
          'conflicting-content-length',
          at,
          responseIndex,
          `Content-Length given with different values (${JSON.stringify(raw.join(', '))})`,
        );
      }
      value = n;
    }
  }
  return value;
}

/**
 * Decides framing and persistence for a final (non-1xx) response head that
 * starts at stream byte `offset`. Errors point at the offending field line.
 */
export function decideFraming(head: ParsedHead, method: RequestMethod, offset: number, responseIndex: number): FramingDecision {
  const contentLength = contentLengthOf(head, offset, responseIndex);
  const connection = head.headers.tokens('connection');
  let keepAlive = connection.includes('close') ? false : head.httpVersion === '1.1' || connection.includes('keep-alive');

  let framing: BodyFraming;
  if (!statusHasBody(head.status, method)) {
    framing = { kind: 'none' };
  } else if (head.headers.has('transfer-encoding')) {
    const te = head.headers.get('transfer-encoding') as string;
    const at = head.headers.offsetOf('transfer-encoding') ?? offset;
    if (head.httpVersion === '1.0') {
      throw new HttpParseError(
        'bad-transfer-encoding',
        at,
        responseIndex,
        `Transfer-Encoding ${JSON.stringify(te)} in an HTTP/1.0 response`,
      );
    }
    if (contentLength !== null) {
      throw new HttpParseError(
        'length-and-chunked',
        at,
        responseIndex,
        `both Content-Length (${contentLength}) and Transfer-Encoding (${JSON.stringify(te)}) are present`,
      );
    }
    const codings = head.headers.tokens('transfer-encoding');
    if (codings.length !== 1 || codings[0] !== 'chunked') {
      throw new HttpParseError(
        'bad-transfer-encoding',
        at,
        responseIndex,
        `Transfer-Encoding ${JSON.stringify(te)} is not exactly "chunked" (only chunked is decoded; identity content was requested)`,
      );
    }
    framing = { kind: 'chunked' };
  } else if (contentLength !== null) {
    framing = { kind: 'length', length: contentLength };
  } else {
    framing = { kind: 'until-close' };
    keepAlive = false;
  }
  return { framing, keepAlive, contentLength };
}
