// Incremental HTTP/1.1 response parser for the responses of Sprint's pipelined
// trains (paper §IV-B1): fed arbitrary byte slices as they come off a
// connection (split anywhere, even inside a CRLF or a chunk-size line), it
// emits per response, strictly in order: head, body pieces (views of the input,
// not copies, stamped with the caller's receive time), end; or one error with
// what went wrong and the byte offset. Handles HTTP/1.1 and HTTP/1.0 status
// lines, Content-Length, chunked (extensions ignored, trailers consumed),
// read-until-close bodies, interim 1xx responses (skipped), 204/304 and HEAD.
// The caller tells it, in order, the method of every request written
// (`expect`), since a HEAD response has no body whatever its headers say.
//
// Bytes pushed are aliased by the body pieces emitted: do not modify a buffer
// after pushing it.
//
// One incremental state machine over the byte stream (status line, headers,
// the three body framings, 1xx), kept in one file: splitting it would scatter
// one loop's states.

import { describeByte } from './bytes';
import { HttpParseError, type HttpParseErrorCode } from './errors';
import { decideFraming, type BodyFraming, type RequestMethod } from './framing';
import { parseHead, parseTrailers, type ParsedHead } from './head-parse';

/** A final (non-1xx) response head with the framing decided for it. */
export interface ResponseHead extends ParsedHead {
  /** False when the server will close the connection after this response (RFC 9112 §9.3). */
  readonly keepAlive: boolean;
  readonly framing: BodyFraming;
  /** Content-Length if present (also for HEAD/304 responses, where it delimits nothing). */
  readonly contentLength: number | null;
  /** Method of the request this answers. */
  readonly method: RequestMethod;
  /** 0-based index of this response on the connection. */
  readonly index: number;
  /** Stream offset of the first byte of its status line. */
  readonly offset: number;
  /** Status codes of the interim (1xx) responses skipped before it. */
  readonly interim: readonly number[];
}

export interface ResponseParserEvents {
  /** A final response head arrived (interim 1xx responses are not reported). */
  onHead(head: ResponseHead, atMs: number): void;
  /** A piece of the current response's body (a view of pushed bytes; never empty). */
  onBody(piece: Uint8Array, atMs: number): void;
  /** The current response is complete. */
  onEnd(atMs: number): void;
  /** The stream is malformed or was cut mid-response; the parser is dead afterwards. Reported once. */
  onError(error: HttpParseError): void;
}

export interface ResponseParserOptions {
  /** Largest head (status line + fields + empty line), and largest trailer section, bytes. Default 65536. */
  readonly maxHeadBytes?: number;
  /** Largest chunk-size line including extensions and CRLF, bytes. Default 4096. */
  readonly maxChunkLineBytes?: number;
  /** Most interim (1xx) responses before one final response. Default 16. */
  readonly maxInterim?: number;
}

export type ResponseParserState =
  /** Between responses, no request outstanding: any byte is unsolicited. */
  | 'idle'
  | 'head'
  | 'body-length'
  | 'chunk-size'
  | 'chunk-data'
  | 'chunk-crlf'
  | 'trailers'
  | 'body-until-close'
  /** After a response that closes the connection: any byte is an error. */
  | 'closing'
  /** `finish` was called. */
  | 'ended'
  /** An error was reported. */
  | 'failed';

const CR = 0x0d;
const LF = 0x0a;
const MAX_CHUNK_HEX_DIGITS = 13; // 16^13 = 2^52 < 2^53

/** Thrown inside push to unwind to the single error exit. */
class Stop extends Error {}

export class ResponseParser {
  private readonly events: ResponseParserEvents;
  private readonly maxHeadBytes: number;
  private readonly maxChunkLineBytes: number;
  private readonly maxInterim: number;

  private st: ResponseParserState = 'idle';
  private readonly methods: RequestMethod[] = [];
  private base = 0; // stream offset of the slice being pushed
  private index = 0; // response index on the connection
  private completed = 0;
  private ignored = 0;
  private pushing = false;

  // Line block (head or trailers) being accumulated.
  private blk = new Uint8Array(512);
  private blkLen = 0;
  private blkOffset = 0;
  private lineStart = 0;
  private interim: number[] = [];

  // Current response.
  private head: ResponseHead | null = null;
  private remaining = 0; // body-length / chunk-data bytes left
  private bodyBytes = 0;
  private crlfSeen = 0;

  constructor(events: ResponseParserEvents, options: ResponseParserOptions = {}) {
    this.events = events;
    this.maxHeadBytes = positiveInt('maxHeadBytes', options.maxHeadBytes, 65536);
    this.maxChunkLineBytes = positiveInt('maxChunkLineBytes', options.maxChunkLineBytes, 4096);
    this.maxInterim = positiveInt('maxInterim', options.maxInterim, 16);
  }

  get state(): ResponseParserState {
    return this.st;
  }

  /** Bytes pushed so far (the stream offset of the next byte). */
  get bytesReceived(): number {
    return this.base;
  }

  /** Responses expected and not yet complete (including the one being parsed). */
  get pending(): number {
    return this.methods.length;
  }

  /** Responses completed. */
  get responsesCompleted(): number {
    return this.completed;
  }

  /** Bytes pushed in push() calls after the parser ended or failed (not parsed). */
  get bytesIgnored(): number {
    return this.ignored;
  }

  /** Announces one more response to parse, for a request with `method`, in the order the requests were written. */
  expect(method: RequestMethod): void {
    if (method !== 'GET' && method !== 'HEAD')
      throw new TypeError(`ResponseParser.expect: method must be GET or HEAD, got ${String(method)}`);
    this.methods.push(method);
    if (this.st === 'idle') this.startHead();
  }

  /** Parses the next bytes of the stream, received at `atMs` (caller's clock, ms). Ignored after an error or finish. */
  push(bytes: Uint8Array, atMs: number): void {
    if (this.pushing) throw new Error('ResponseParser.push called from inside one of its own event handlers');
    if (this.st === 'failed' || this.st === 'ended') {
      this.ignored += bytes.length;
      return;
    }
    this.pushing = true;
    let i = 0;
    try {
      while (i < bytes.length) i = this.step(bytes, i, atMs);
    } catch (err) {
      if (!(err instanceof Stop)) {
        this.st = 'failed'; // a handler threw: the parser cannot be trusted any more
        throw err;
      }
    } finally {
      this.base += bytes.length;
      this.pushing = false;
    }
  }

  /**
   * The connection ended: `eof` = the server closed cleanly (ends a
   * read-until-close body), `error` = reset or transport error. A response
   * cut in the middle is reported as a `truncated` error; a connection that
   * ends between responses ends the parser silently (the caller knows which
   * requests were not answered from `pending`).
   */
  finish(how: 'eof' | 'error', atMs: number, detail = ''): void {
    if (this.st === 'failed' || this.st === 'ended') return;
    const why = `connection ${how === 'eof' ? 'closed by the server' : 'failed'}${detail ? ` (${detail})` : ''}`;
    const at = this.base;
    try {
      switch (this.st) {
        case 'idle':
        case 'closing':
          break;
        case 'head':
          if (this.blkLen > 0 || this.interim.length > 0) {
            this.fail('truncated', at, `${why} inside a response head after ${this.blkLen} bytes`);
          }
          break;
        case 'body-until-close':
          if (how === 'eof') {
            this.endResponse(atMs);
            break;
          }
          this.fail(
            'truncated',
            at,
            `${why} during a body delimited by the connection closing, after ${this.bodyBytes} bytes: completeness unknown`,
          );
          break;
        case 'body-length': {
          const total = this.bodyBytes + this.remaining;
          this.fail('truncated', at, `${why} after ${this.bodyBytes} of ${total} body bytes`);
          break;
        }
        default:
          this.fail('truncated', at, `${why} inside a chunked body after ${this.bodyBytes} body bytes`);
      }
    } catch (err) {
      if (!(err instanceof Stop)) {
        this.st = 'failed';
        throw err;
      }
      return;
    }
    this.st = 'ended';
  }

  // ---- internals ----

  private step(bytes: Uint8Array, i: number, atMs: number): number {
    const at = this.base + i;
    switch (this.st) {
      case 'idle':
        return this.fail('unsolicited-bytes', at, `byte ${describeByte(bytes[i] as number)} arrived while no response was expected`);
      case 'closing':
        return this.fail(
          'bytes-after-close',
          at,
          `byte ${describeByte(bytes[i] as number)} arrived after response #${this.index - 1}, which closes the connection`,
        );
      case 'head':
        return this.feedHead(bytes, i, atMs);
      case 'body-length': {
        const n = Math.min(this.remaining, bytes.length - i);
        this.remaining -= n;
        this.bodyBytes += n;
        this.events.onBody(bytes.subarray(i, i + n), atMs);
        if (this.remaining === 0) this.endResponse(atMs);
        return i + n;
      }
      case 'chunk-data': {
        const n = Math.min(this.remaining, bytes.length - i);
        this.remaining -= n;
        this.bodyBytes += n;
        if (this.remaining === 0) {
          this.st = 'chunk-crlf';
          this.crlfSeen = 0;
        }
        this.events.onBody(bytes.subarray(i, i + n), atMs);
        return i + n;
      }
      case 'body-until-close': {
        const piece = bytes.subarray(i);
        this.bodyBytes += piece.length;
        this.events.onBody(piece, atMs);
        return bytes.length;
      }
      case 'chunk-crlf': {
        const b = bytes[i] as number;
        const want = this.crlfSeen === 0 ? CR : LF;
        if (b !== want) {
          this.fail('bad-chunk-terminator', at, `chunk data is followed by ${describeByte(b)} where CRLF was expected`);
        }
        this.crlfSeen += 1;
        if (this.crlfSeen === 2) this.startChunkLine();
        return i + 1;
      }
      case 'chunk-size':
        return this.feedChunkLine(bytes, i);
      case 'trailers':
        return this.feedTrailers(bytes, i, atMs);
      default:
        throw new Error(`ResponseParser: unexpected state ${this.st}`);
    }
  }

  private startHead(): void {
    this.st = 'head';
    this.blkLen = 0;
    this.lineStart = 0;
    this.interim = [];
  }

  private startChunkLine(): void {
    this.st = 'chunk-size';
    this.blkLen = 0;
    this.lineStart = 0;
  }

  /**
   * Appends bytes to the line block until an empty line (CRLF CRLF, or a CRLF
   * at the start of the block) completes it. Returns the index after what was
   * consumed and whether the block is complete.
   */
  private feedBlock(bytes: Uint8Array, i: number, limit: number, what: string, tooLarge: HttpParseErrorCode): [number, boolean] {
    if (this.blkLen === 0) this.blkOffset = this.base + i;
    while (i < bytes.length) {
      const b = bytes[i] as number;
      if (this.blkLen >= limit) {
        this.fail(tooLarge, this.base + i, `${what} is larger than ${limit} bytes`);
      }
      if (this.blkLen === this.blk.length) {
        const bigger = new Uint8Array(Math.min(limit, this.blk.length * 2));
        bigger.set(this.blk);
        this.blk = bigger;
      }
      this.blk[this.blkLen] = b;
      this.blkLen += 1;
      i += 1;
      if (b === LF) {
        if (this.blkLen < 2 || this.blk[this.blkLen - 2] !== CR) {
          this.fail('bare-lf', this.base + i - 1, `${what} has a line ending in LF without CR`);
        }
        if (this.blkLen - this.lineStart === 2) return [i, true];
        this.lineStart = this.blkLen;
      }
    }
    return [i, false];
  }

  private feedHead(bytes: Uint8Array, i: number, atMs: number): number {
    const [next, done] = this.feedBlock(bytes, i, this.maxHeadBytes, 'response head', 'headers-too-large');
    if (!done) return next;
    const offset = this.blkOffset;
    if (this.blkLen === 2) this.fail('bad-status-line', offset, 'empty line where a status line was expected');
    const method = this.methods[0] as RequestMethod;
    let parsed: ParsedHead;
    let decision: ReturnType<typeof decideFraming> | null = null;
    try {
      parsed = parseHead(this.blk.subarray(0, this.blkLen - 2), offset, this.index);
      if (parsed.status >= 200) decision = decideFraming(parsed, method, offset, this.index);
    } catch (err) {
      if (err instanceof HttpParseError) return this.failWith(err);
      throw err;
    }
    if (decision === null) {
      // Interim response (RFC 9110 §15.2): skip it, the final response follows.
      if (parsed.status === 101) {
        this.fail('unexpected-101', offset, '101 Switching Protocols to a request that did not ask to upgrade');
      }
      this.interim.push(parsed.status);
      if (this.interim.length > this.maxInterim) {
        this.fail('too-many-interim', offset, `more than ${this.maxInterim} interim (1xx) responses before a final response`);
      }
      this.blkLen = 0;
      this.lineStart = 0;
      return next;
    }
    const head: ResponseHead = {
      ...parsed,
      keepAlive: decision.keepAlive,
      framing: decision.framing,
      contentLength: decision.contentLength,
      method,
      index: this.index,
      offset,
      interim: this.interim,
    };
    this.head = head;
    this.bodyBytes = 0;
    switch (head.framing.kind) {
      case 'none':
        this.st = 'body-length';
        this.remaining = 0;
        break;
      case 'length':
        this.st = 'body-length';
        this.remaining = head.framing.length;
        break;
      case 'chunked':
        this.startChunkLine();
        break;
      case 'until-close':
        this.st = 'body-until-close';
        break;
    }
    this.events.onHead(head, atMs);
    if (this.st === 'body-length' && this.remaining === 0) this.endResponse(atMs);
    return next;
  }

  private feedChunkLine(bytes: Uint8Array, i: number): number {
    if (this.blkLen === 0) this.blkOffset = this.base + i;
    while (i < bytes.length) {
      const b = bytes[i] as number;
      if (this.blkLen >= this.maxChunkLineBytes) {
        this.fail('chunk-line-too-long', this.base + i, `chunk-size line is longer than ${this.maxChunkLineBytes} bytes`);
      }
      if (this.blkLen === this.blk.length) {
        const bigger = new Uint8Array(this.blk.length * 2);
        bigger.set(this.blk);
        this.blk = bigger;
      }
      this.blk[this.blkLen] = b;
      this.blkLen += 1;
      i += 1;
      if (b === LF) {
        if (this.blkLen < 2 || this.blk[this.blkLen - 2] !== CR) {
          this.fail('bare-lf', this.base + i - 1, 'chunk-size line ends in LF without CR');
        }
        this.chunkLineDone();
        return i;
      }
    }
    return i;
  }

  private chunkLineDone(): void {
    const at = this.blkOffset;
    const end = this.blkLen - 2;
    let p = 0;
    let size = 0;
    let significant = 0;
    while (p < end && isHex(this.blk[p] as number)) {
      const d = hexValue(this.blk[p] as number);
      if (significant > 0 || d !== 0) significant += 1;
      if (significant > MAX_CHUNK_HEX_DIGITS) {
        this.fail('bad-chunk-size', at + p, `chunk size has more than ${MAX_CHUNK_HEX_DIGITS} significant hex digits (overflows 2^52)`);
      }
      size = size * 16 + d;
      p += 1;
    }
    if (p === 0) {
      const b = end > 0 ? describeByte(this.blk[0] as number) : 'the end of the line';
      this.fail('bad-chunk-size', at, `chunk-size line starts with ${b}, not a hex digit`);
    }
    // Optional BWS then chunk extensions (";..."), which we ignore but check for control bytes.
    let q = p;
    while (q < end && (this.blk[q] === 0x20 || this.blk[q] === 0x09)) q += 1;
    if (q < end && this.blk[q] !== 0x3b) {
      this.fail(
        'bad-chunk-size',
        at + q,
        `chunk size is followed by ${describeByte(this.blk[q] as number)}, not ';' or the end of the line`,
      );
    }
    for (let k = q; k < end; k += 1) {
      const b = this.blk[k] as number;
      if ((b < 0x20 && b !== 0x09) || b === 0x7f) this.fail('bad-chunk-size', at + k, `byte ${describeByte(b)} in a chunk extension`);
    }
    this.blkLen = 0;
    this.lineStart = 0;
    if (size === 0) {
      this.st = 'trailers';
    } else {
      this.st = 'chunk-data';
      this.remaining = size;
    }
  }

  private feedTrailers(bytes: Uint8Array, i: number, atMs: number): number {
    const [next, done] = this.feedBlock(bytes, i, this.maxHeadBytes, 'trailer section', 'trailers-too-large');
    if (!done) return next;
    if (this.blkLen > 2) {
      try {
        parseTrailers(this.blk.subarray(0, this.blkLen - 2), this.blkOffset, this.index);
      } catch (err) {
        if (err instanceof HttpParseError) return this.failWith(err);
        throw err;
      }
    }
    this.endResponse(atMs);
    return next;
  }

  private endResponse(atMs: number): void {
    const keepAlive = this.head?.keepAlive ?? false;
    this.methods.shift();
    this.head = null;
    this.index += 1;
    this.completed += 1;
    if (!keepAlive) this.st = 'closing';
    else if (this.methods.length > 0) this.startHead();
    else this.st = 'idle';
    this.events.onEnd(atMs);
  }

  private fail(code: HttpParseErrorCode, offset: number, detail: string): never {
    return this.failWith(new HttpParseError(code, offset, this.index, detail));
  }

  private failWith(err: HttpParseError): never {
    this.st = 'failed';
    this.events.onError(err);
    throw new Stop();
  }
}

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
}

function hexValue(b: number): number {
  if (b <= 0x39) return b - 0x30;
  if (b <= 0x46) return b - 0x41 + 10;
  return b - 0x61 + 10;
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1)
    throw new RangeError(`ResponseParser option ${name} must be a positive integer, got ${String(value)}`);
  return v;
}
