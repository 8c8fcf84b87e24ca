// Incremental HTTP/1.1 request-head parser for the demo origin (RFC 9112 §2–§6).
//
// The origin is built on raw `net` sockets instead of `http.createServer` so that
// it can stamp every pipelined request with the moment its header block arrived
// (the access log shows a train's request k+1 arriving while response k is still
// streaming, paper §IV-B1) and so the fault options control the connection
// exactly. This parser only frames request heads: bytes go in with `feed()`,
// complete heads come out of `next()` one at a time, so the caller decides how
// many requests it queues (backpressure) and the arrival stamp is the time of the
// `feed()` that completed the head. Request bodies are not read: a head that
// announces one is returned with `bodyLength` set and the caller must refuse it
// and close, because the bytes after it can no longer be framed.

/** One parsed request head. Header names are lower-cased; repeated fields are joined with ", ". */
export interface ParsedRequest {
  readonly method: string;
  /** The request-target exactly as sent (origin-form, absolute-form or "*"). */
  readonly target: string;
  /** "HTTP/1.1" or "HTTP/1.0". */
  readonly version: 'HTTP/1.1' | 'HTTP/1.0';
  readonly headers: ReadonlyMap<string, string>;
  /** Declared request body: 0 for none, a byte count, or "chunked" (any Transfer-Encoding). */
  readonly bodyLength: number | 'chunked';
  /** Epoch milliseconds (sub-ms precision) of the feed that completed this head. */
  readonly arrival: number;
  /** Size of the head in bytes, request line to the empty line inclusive. */
  readonly headBytes: number;
}

/** A request that cannot be framed; the connection must answer `status` and close. */
export interface RequestParseError {
  readonly error: true;
  /** 400 malformed, 431 head too large, 505 unsupported HTTP version. */
  readonly status: 400 | 431 | 505;
  /** What was wrong and where, for the response body and the access log. */
  readonly message: string;
  readonly arrival: number;
  /** Method and target if the request line could be read, for the access log. */
  readonly method: string | null;
  readonly target: string | null;
}

export type ParseResult = ParsedRequest | RequestParseError;

export function isParseError(r: ParseResult): r is RequestParseError {
  return (r as RequestParseError).error === true;
}

export interface RequestParserOptions {
  /** Largest accepted head (request line + fields + empty line), bytes. Default 16384. */
  readonly maxHeadBytes?: number;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TARGET = /^[\x21-\x7e]+$/;
const VERSION = /^HTTP\/(\d)\.(\d)$/;
/** Field values may hold visible ASCII, obs-text, space and tab; never CR, LF or NUL. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const LF = 0x0a;
const CR = 0x0d;

export class RequestParser {
  private readonly maxHeadBytes: number;
  private buffer: Buffer = Buffer.alloc(0);
  /** Start of unparsed bytes in `buffer`. */
  private offset = 0;
  private lastFeedTime = 0;
  private failed: RequestParseError | null = null;

  constructor(options: RequestParserOptions = {}) {
    this.maxHeadBytes = options.maxHeadBytes ?? 16384;
    if (!Number.isInteger(this.maxHeadBytes) || this.maxHeadBytes < 64) {
      throw new RangeError(`maxHeadBytes must be an integer >= 64, got ${String(options.maxHeadBytes)}`);
    }
  }

  /** Appends received bytes; `time` is when they arrived (epoch ms). */
  feed(chunk: Buffer, time: number): void {
    if (this.failed) return;
    const rest = this.buffer.subarray(this.offset);
    this.buffer = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    this.offset = 0;
    this.lastFeedTime = time;
  }

  /** Bytes received but not yet consumed as a complete head. */
  get pendingBytes(): number {
    return this.buffer.length - this.offset;
  }

  /**
   * Returns the next complete request head, a parse error (sticky: the parser
   * stops there), or null when more bytes are needed.
   */
  next(): ParseResult | null {
    if (this.failed) return this.failed;
    // RFC 9112 §2.2: ignore empty lines received before a request line.
    while (this.offset < this.buffer.length) {
      const b = this.buffer[this.offset];
      if (b === LF) this.offset += 1;
      else if (b === CR && this.offset + 1 < this.buffer.length && this.buffer[this.offset + 1] === LF) this.offset += 2;
      else break;
    }
    const end = this.findHeadEnd();
    if (end < 0) {
      if (this.pendingBytes > this.maxHeadBytes) {
        return this.fail(431, `request head exceeds ${this.maxHeadBytes} bytes without ending`, null, null);
      }
      return null;
    }
    const headBytes = end - this.offset;
    if (headBytes > this.maxHeadBytes) {
      return this.fail(431, `request head is ${headBytes} bytes, limit ${this.maxHeadBytes}`, null, null);
    }
    const head = this.buffer.toString('latin1', this.offset, end);
    this.offset = end;
    if (this.offset === this.buffer.length) {
      this.buffer = Buffer.alloc(0);
      this.offset = 0;
    }
    return this.parseHead(head, headBytes);
  }

  /** Index just past the empty line ending the head at `offset`, or -1. Accepts bare LF line ends. */
  private findHeadEnd(): number {
    const buf = this.buffer;
    let i = buf.indexOf(LF, this.offset);
    while (i >= 0) {
      // Line end at i; the next line is empty if it is "\n" or "\r\n".
      if (i + 1 < buf.length && buf[i + 1] === LF) return i + 2;
      if (i + 2 < buf.length && buf[i + 1] === CR && buf[i + 2] === LF) return i + 3;
      if (i - this.offset > this.maxHeadBytes) return -1;
      i = buf.indexOf(LF, i + 1);
    }
    return -1;
  }

  private fail(status: RequestParseError['status'], message: string, method: string | null, target: string | null): RequestParseError {
    this.failed = { error: true, status, message, arrival: this.lastFeedTime, method, target };
    this.buffer = Buffer.alloc(0);
    this.offset = 0;
    return this.failed;
  }

  private parseHead(head: string, headBytes: number): ParseResult {
    const lines = head.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    // The split leaves two empty strings for the final empty line.
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    const requestLine = lines[0] ?? '';
    const parts = requestLine.split(' ');
    if (parts.length !== 3) {
      return this.fail(
        400,
        `malformed request line ${JSON.stringify(requestLine.slice(0, 200))}: expected "METHOD target HTTP/1.x"`,
        null,
        null,
      );
    }
    const [method, target, versionText] = parts as [string, string, string];
    if (!TOKEN.test(method)) {
      return this.fail(400, `malformed method ${JSON.stringify(method.slice(0, 50))} in request line`, null, null);
    }
    if (!TARGET.test(target)) {
      return this.fail(400, `malformed request-target ${JSON.stringify(target.slice(0, 200))}`, method, null);
    }
    const v = VERSION.exec(versionText);
    if (!v) {
      return this.fail(400, `malformed HTTP version ${JSON.stringify(versionText.slice(0, 50))} in request line`, method, target);
    }
    if (v[1] !== '1') {
      return this.fail(505, `HTTP version ${versionText} is not supported (HTTP/1.0 and HTTP/1.1 are)`, method, target);
    }
    const version = v[2] === '0' ? 'HTTP/1.0' : 'HTTP/1.1';

    const headers = new Map<string, string>();
    const counts = new Map<string, number>();
    for (let i = 1; i < lines.length; i += 1) {
      const line = lines[i] as string;
      if (line.startsWith(' ') || line.startsWith('\t')) {
        return this.fail(400, `obsolete line folding in header line ${i + 1}`, method, target);
      }
      const colon = line.indexOf(':');
      if (colon <= 0) {
        return this.fail(400, `header line ${i + 1} has no field name and colon: ${JSON.stringify(line.slice(0, 100))}`, method, target);
      }
      const name = line.slice(0, colon);
      if (!TOKEN.test(name)) {
        return this.fail(400, `invalid header field name ${JSON.stringify(name.slice(0, 100))} on line ${i + 1}`, method, target);
      }
      const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
      if (!FIELD_VALUE.test(value)) {
        return this.fail(400, `invalid character in value of header ${name} on line ${i + 1}`, method, target);
      }
      const key = name.toLowerCase();
      const prev = headers.get(key);
      headers.set(key, prev === undefined ? value : `${prev}, ${value}`);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }

    // RFC 9112 §3.2: a 1.1 request must carry exactly one Host field.
    const hostCount = counts.get('host') ?? 0;
    if (version === 'HTTP/1.1' && hostCount === 0) {
      return this.fail(400, 'HTTP/1.1 request without a Host header', method, target);
    }
    if (hostCount > 1) {
      return this.fail(400, 'more than one Host header', method, target);
    }

    let bodyLength: number | 'chunked' = 0;
    if (headers.has('transfer-encoding')) {
      bodyLength = 'chunked';
    } else if (headers.has('content-length')) {
      const values = (headers.get('content-length') as string).split(',').map((s) => s.trim());
      const first = values[0] as string;
      if (!/^\d{1,15}$/.test(first) || values.some((s) => s !== first)) {
        return this.fail(400, `invalid Content-Length ${JSON.stringify(headers.get('content-length'))}`, method, target);
      }
      bodyLength = Number(first);
    }
    return { method, target, version, headers, bodyLength, arrival: this.lastFeedTime, headBytes };
  }
}

/** True if the comma-separated header value contains `token` (case-insensitive), e.g. Connection: close. */
export function hasToken(value: string | undefined, token: string): boolean {
  if (value === undefined) return false;
  const want = token.toLowerCase();
  return value.split(',').some((t) => t.trim().toLowerCase() === want);
}
