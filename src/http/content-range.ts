// Checks that a response answers the request it is matched with, for
// Sprint's pipelined trains (paper §IV-B1). HTTP/1.1 pipelining matches
// responses to requests only by order; a server or intermediary that answers
// out of order would hand a segment the bytes of another. Content-Range
// (RFC 9110 §14.4) lets us catch that for range requests; Content-Encoding
// catches bodies that are not the byte-exact representation we asked for.
// Without Range (segments as separate files) a misordered response cannot be
// told apart from the right one by its headers.

import type { ResponseHead } from './response-parser';
import type { ByteRange } from './request';

/** A parsed `Content-Range: bytes first-last/complete` ("*" complete → null). */
export interface ContentRange {
  readonly first: number;
  readonly last: number;
  readonly complete: number | null;
}

/** Parses a byte-range Content-Range value; null if it is not "bytes first-last/(complete|*)" with first <= last < complete. */
export function parseContentRange(value: string): ContentRange | null {
  const m = /^bytes[ \t]+(\d{1,16})-(\d{1,16})\/(\d{1,16}|\*)$/i.exec(value.trim());
  if (!m) return null;
  const first = Number(m[1]);
  const last = Number(m[2]);
  const complete = m[3] === '*' ? null : Number(m[3]);
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || first > last) return null;
  if (complete !== null && (!Number.isSafeInteger(complete) || last >= complete)) return null;
  return { first, last, complete };
}

export type ResponseMatch =
  /** The response fits the request; `bodyBytes` is the body length it must have, when known. */
  | { readonly kind: 'ok'; readonly bodyBytes: number | null }
  /** The response is for a different request: the pipeline's order is broken. */
  | { readonly kind: 'mismatched'; readonly message: string }
  /** The response belongs to this request but cannot be delivered as the bytes asked for. */
  | { readonly kind: 'unusable'; readonly message: string };

/** Judges a final response head against the request (`range` = the request's Range, if any) it is matched with by order. */
export function matchResponse(range: ByteRange | undefined, head: ResponseHead): ResponseMatch {
  const coding = head.headers.tokens('content-encoding').filter((c) => c !== 'identity');
  if (coding.length > 0) {
    return { kind: 'unusable', message: `Content-Encoding ${JSON.stringify(coding.join(', '))} although identity was requested` };
  }
  const framed = head.framing.kind === 'none' ? 0 : head.framing.kind === 'length' ? head.framing.length : null;
  if (head.status !== 206) return { kind: 'ok', bodyBytes: framed };

  const crValue = head.headers.get('content-range');
  if (range === undefined) {
    return {
      kind: 'mismatched',
      message: `206 Partial Content${crValue ? ` (Content-Range ${JSON.stringify(crValue)})` : ''} answers a request without Range`,
    };
  }
  const asked = `bytes ${range.first}-${range.last}`;
  if (crValue === undefined) {
    return { kind: 'unusable', message: `206 Partial Content without Content-Range for ${asked} (multipart/byteranges is not accepted)` };
  }
  const cr = parseContentRange(crValue);
  if (cr === null) return { kind: 'unusable', message: `Content-Range ${JSON.stringify(crValue)} is not "bytes first-last/length"` };
  const shortened = cr.last < range.last && cr.complete !== null && cr.last === cr.complete - 1;
  if (cr.first !== range.first || (cr.last !== range.last && !shortened)) {
    return { kind: 'mismatched', message: `Content-Range ${JSON.stringify(crValue)} does not answer the request for ${asked}` };
  }
  const length = cr.last - cr.first + 1;
  if (head.framing.kind === 'length' && head.framing.length !== length) {
    return {
      kind: 'unusable',
      message: `Content-Length ${head.framing.length} disagrees with Content-Range ${JSON.stringify(crValue)} (${length} bytes)`,
    };
  }
  return { kind: 'ok', bodyBytes: head.framing.kind === 'none' ? 0 : length };
}
