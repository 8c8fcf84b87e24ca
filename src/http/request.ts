// Serialises the GET and HEAD requests of Sprint's pipelined trains (paper
// §IV-B1) to bytes for a connection. The output is exactly what the socket
// host's validator accepts (extension/host/httpreq.go): origin-form target,
// Host, an optional single `Range: bytes=first-last`, `Accept: */*`,
// `Accept-Encoding: identity` (ranges must be byte-exact, so no content
// coding), a caller-supplied User-Agent, an optional Origin (for CORS), and
// `Connection: keep-alive`. Never cookies or credentials: there is no way to
// add another header.
//
// Targets are NOT percent-encoded here: the caller passes the path and query of
// a parsed URL (`URL.pathname + URL.search`, which the URL parser has already
// encoded). A target with a space, CR, LF, '#', a non-ASCII character or a
// malformed '%' escape is rejected rather than encoded, because encoding an
// already-encoded target would change it ('%' → '%25') and silently request a
// different resource.

import { asciiBytes } from './bytes';
import { HttpRequestError } from './errors';
import type { RequestMethod } from './framing';

/** An inclusive byte range [first, last] of the representation. */
export interface ByteRange {
  readonly first: number;
  readonly last: number;
}

export interface HttpRequest {
  /** Default 'GET'. */
  readonly method?: RequestMethod;
  /** Host header: "name", "name:port", "1.2.3.4:port" or "[v6]:port" (lower-cased on the wire). */
  readonly host: string;
  /** Origin-form request target: "/path?query", already percent-encoded. */
  readonly target: string;
  /** Single byte range to request; omitted → the whole representation. */
  readonly range?: ByteRange;
  /** User-Agent value: 1-256 printable ASCII characters, no '"' or '\'. */
  readonly userAgent: string;
  /** Origin header for CORS ("null" or "scheme://host[:port]"); omitted → none. */
  readonly origin?: string;
}

/** Largest serialised request, bytes (the socket host's default per-request limit). */
export const MAX_REQUEST_BYTES = 8192;

const PCHAR_EXTRA = "-._~!$&'()*+,;=:@/?";

/** Throws HttpRequestError unless `target` is an origin-form target we can send byte for byte. */
export function checkTarget(target: string): void {
  if (typeof target !== 'string' || !target.startsWith('/')) {
    throw new HttpRequestError('target', `${JSON.stringify(target)} does not start with '/' (origin-form required)`);
  }
  for (let i = 0; i < target.length; i += 1) {
    const ch = target[i] as string;
    const c = ch.charCodeAt(0);
    const alnum = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    if (alnum || PCHAR_EXTRA.includes(ch)) continue;
    if (ch === '%') {
      if (!/^[0-9A-Fa-f]{2}$/.test(target.slice(i + 1, i + 3))) {
        throw new HttpRequestError('target', `malformed percent escape at index ${i} of ${JSON.stringify(target)}`);
      }
      i += 2;
      continue;
    }
    const what = c === 0x20 ? 'a space' : c === 0x0d ? 'CR' : c === 0x0a ? 'LF' : c > 0x7e ? 'a non-ASCII character' : JSON.stringify(ch);
    throw new HttpRequestError(
      'target',
      `${what} at index ${i} of ${JSON.stringify(target)}; percent-encode the URL first (new URL(...).pathname + search)`,
    );
  }
}

/** Throws unless `host` is a DNS name, IPv4 literal or bracketed IPv6 literal, with an optional port 1-65535. */
export function checkHost(host: string, field = 'host'): void {
  const m = typeof host === 'string' ? /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::([0-9]{1,5}))?$/.exec(host) : null;
  if (!m || host.length > 261) {
    throw new HttpRequestError(field, `${JSON.stringify(host)} is not host[:port] (DNS name, IPv4, or [IPv6])`);
  }
  const name = m[1] as string;
  if (!name.startsWith('[') && (name.startsWith('.') || name.startsWith('-') || name.includes('..'))) {
    throw new HttpRequestError(field, `${JSON.stringify(host)} has an empty or malformed label`);
  }
  if (m[2] !== undefined) {
    const port = Number(m[2]);
    if (m[2].startsWith('0') || port < 1 || port > 65535)
      throw new HttpRequestError(field, `port ${m[2]} of ${JSON.stringify(host)} is not 1-65535`);
  }
}

function checkRange(range: ByteRange): void {
  const { first, last } = range;
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || first < 0 || last < first) {
    throw new HttpRequestError('range', `{first: ${String(first)}, last: ${String(last)}} is not integers with 0 <= first <= last < 2^53`);
  }
}

function checkUserAgent(ua: string): void {
  if (typeof ua !== 'string' || ua.length === 0 || ua.length > 256) {
    throw new HttpRequestError('userAgent', `must be 1-256 characters, got ${typeof ua === 'string' ? ua.length : typeof ua}`);
  }
  for (let i = 0; i < ua.length; i += 1) {
    const c = ua.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
      throw new HttpRequestError(
        'userAgent',
        `character U+${c.toString(16).padStart(4, '0')} at index ${i} is not allowed (printable ASCII except '"' and '\\')`,
      );
    }
  }
  if (ua.trim() !== ua) throw new HttpRequestError('userAgent', 'has leading or trailing spaces');
}

function checkOrigin(origin: string): void {
  if (origin === 'null') return;
  const m = typeof origin === 'string' ? /^https?:\/\/(.+)$/.exec(origin) : null;
  if (!m) throw new HttpRequestError('origin', `${JSON.stringify(origin)} is not "null" or an http(s) origin`);
  checkHost(m[1] as string, 'origin');
  if (origin !== origin.toLowerCase())
    throw new HttpRequestError('origin', `${JSON.stringify(origin)} is not lower case (a serialised origin is)`);
}

/** The `Range` header value for `range`: "bytes=first-last". */
export function rangeHeaderValue(range: ByteRange): string {
  checkRange(range);
  return `bytes=${range.first}-${range.last}`;
}

/** Validates `req` and returns its wire bytes; throws HttpRequestError naming the bad field. */
export function serializeRequest(req: HttpRequest): Uint8Array {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') throw new HttpRequestError('method', `${JSON.stringify(method)} is not GET or HEAD`);
  checkTarget(req.target);
  checkHost(req.host);
  checkUserAgent(req.userAgent);
  const lines = [`${method} ${req.target} HTTP/1.1`, `Host: ${req.host.toLowerCase()}`];
  if (req.range !== undefined) lines.push(`Range: ${rangeHeaderValue(req.range)}`);
  lines.push('Accept: */*', 'Accept-Encoding: identity', `User-Agent: ${req.userAgent}`);
  if (req.origin !== undefined) {
    checkOrigin(req.origin);
    lines.push(`Origin: ${req.origin}`);
  }
  lines.push('Connection: keep-alive');
  const text = `${lines.join('\r\n')}\r\n\r\n`;
  if (text.length > MAX_REQUEST_BYTES) {
    throw new HttpRequestError('target', `request would be ${text.length} bytes, more than ${MAX_REQUEST_BYTES}`);
  }
  return asciiBytes(text);
}

/** Number of body bytes a request for `range` asks for (undefined without a range). */
export function rangeLength(range: ByteRange | undefined): number | undefined {
  return range === undefined ? undefined : range.last - range.first + 1;
}
