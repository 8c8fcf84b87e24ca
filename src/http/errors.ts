// Errors of the HTTP/1.1 layer used by Sprint's pipelined trains (paper §IV-B1).
// A parse error says what is wrong and at which byte offset of the connection's
// received stream (0 = first byte the server sent), and which response of the
// connection it belongs to, so a log line alone locates the defect.

/** What went wrong while parsing a response stream. */
export type HttpParseErrorCode =
  | 'bad-status-line'
  | 'unsupported-version'
  | 'bad-status-code'
  | 'bare-lf'
  | 'bad-header'
  | 'folded-header'
  | 'headers-too-large'
  | 'too-many-interim'
  | 'unexpected-101'
  | 'bad-content-length'
  | 'conflicting-content-length'
  | 'length-and-chunked'
  | 'bad-transfer-encoding'
  | 'bad-chunk-size'
  | 'chunk-line-too-long'
  | 'bad-chunk-terminator'
  | 'bad-trailer'
  | 'trailers-too-large'
  | 'unsolicited-bytes'
  | 'bytes-after-close'
  | 'truncated';

/** A defect in the bytes a server sent. `offset` is a byte offset in the connection's received stream. */
export class HttpParseError extends Error {
  override readonly name = 'HttpParseError';
  constructor(
    readonly code: HttpParseErrorCode,
    /** Byte offset in the connection's received stream where the defect was found. */
    readonly offset: number,
    /** 0-based index of the response on the connection (interim 1xx responses not counted). */
    readonly responseIndex: number,
    detail: string,
  ) {
    super(`${detail} (response #${responseIndex}, at byte ${offset} of the connection)`);
  }
}

/** A request that cannot be serialised safely (bad path, header injection, bad range...). `field` names the culprit. */
export class HttpRequestError extends Error {
  override readonly name = 'HttpRequestError';
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`invalid request ${field}: ${detail}`);
  }
}
