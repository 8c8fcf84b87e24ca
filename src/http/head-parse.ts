// Parses one complete response head (status line and header fields, RFC 9112
// §4 and §5) of Sprint's pipelined responses (paper §IV-B1). Strict on
// purpose: only HTTP/1.0 and HTTP/1.1, status 100-599, token field names with
// no space before the colon, no obs-fold, no control characters in values.
// Errors carry the byte offset of the defect in the connection's stream.

import { describeByte, latin1 } from './bytes';
import { HttpParseError, type HttpParseErrorCode } from './errors';
import { HeaderList } from './headers';

export interface ParsedHead {
  readonly httpVersion: '1.0' | '1.1';
  readonly status: number;
  readonly reason: string;
  readonly headers: HeaderList;
}

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HTAB = 0x09;

/** tchar of RFC 9110 §5.6.2. */
function isTchar(b: number): boolean {
  if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)) return true;
  return b < 0x80 && "!#$%&'*+-.^_`|~".includes(String.fromCharCode(b));
}

/** Field-value octets: VCHAR, SP, HTAB, obs-text. */
function isFieldByte(b: number): boolean {
  return b === HTAB || (b >= SP && b !== 0x7f);
}

/**
 * Parses `block`, the bytes of a head from the first byte of the status line
 * up to and including the CRLF that ends the last field line (the empty line
 * is not included). Every line must end in CRLF (the caller has rejected bare
 * LF already). `offset` is the stream offset of block[0].
 */
export function parseHead(block: Uint8Array, offset: number, responseIndex: number): ParsedHead {
  const fail = failAt(offset, responseIndex);
  const lines = splitLines(block, fail);
  if (lines.length === 0) fail('bad-status-line', 0, 'empty head');
  const [statusStart, statusEnd] = lines[0] as [number, number];
  const statusLine = parseStatusLine(block, statusStart, statusEnd, fail);
  const fieldLines = lines.slice(1);
  return {
    ...statusLine,
    headers: new HeaderList(
      parseFieldLines(block, fieldLines, fail),
      fieldLines.map(([s]) => offset + s),
    ),
  };
}

/**
 * Parses a trailer section (RFC 9112 §7.1.2): field lines only, same rules as
 * header fields. `block` ends with the CRLF of the last field line.
 */
export function parseTrailers(block: Uint8Array, offset: number, responseIndex: number): HeaderList {
  const fail: Fail = (code, at, detail) => {
    throw new HttpParseError(code === 'bare-lf' ? code : 'bad-trailer', offset + at, responseIndex, `trailer section: ${detail}`);
  };
  return new HeaderList(parseFieldLines(block, splitLines(block, fail), fail));
}

type Fail = (code: HttpParseErrorCode, at: number, detail: string) => never;

function failAt(offset: number, responseIndex: number): Fail {
  return (code, at, detail) => {
    throw new HttpParseError(code, offset + at, responseIndex, detail);
  };
}

/** [start, end) of each CRLF-terminated line (CRLF excluded). */
function splitLines(block: Uint8Array, fail: Fail): Array<[number, number]> {
  const lines: Array<[number, number]> = [];
  let start = 0;
  for (let i = 0; i < block.length; i += 1) {
    if (block[i] === LF) {
      if (i === 0 || block[i - 1] !== CR) fail('bare-lf', i, 'line ends in LF without CR');
      lines.push([start, i - 1]);
      start = i + 1;
    }
  }
  if (start !== block.length) fail('bad-header', start, 'last line does not end in CRLF');
  return lines;
}

function parseFieldLines(block: Uint8Array, lines: ReadonlyArray<[number, number]>, fail: Fail): Array<readonly [string, string]> {
  const fields: Array<readonly [string, string]> = [];
  for (const [s, e] of lines) {
    const first = block[s] as number;
    if (s === e) fail('bad-header', s, 'empty field line inside the section');
    if (first === SP || first === HTAB) {
      fail('folded-header', s, 'field line starts with whitespace (obs-fold line folding is rejected)');
    }
    let colon = -1;
    for (let i = s; i < e; i += 1) {
      const b = block[i] as number;
      if (b === 0x3a) {
        colon = i;
        break;
      }
      if (b === SP || b === HTAB) {
        fail('bad-header', i, `whitespace inside or after the field name ${JSON.stringify(latin1(block, s, i))}`);
      }
      if (!isTchar(b)) fail('bad-header', i, `byte ${describeByte(b)} is not allowed in a field name`);
    }
    if (colon < 0) fail('bad-header', s, `field line ${JSON.stringify(latin1(block, s, Math.min(e, s + 60)))} has no ':'`);
    if (colon === s) fail('bad-header', s, 'field line has an empty field name');
    let vs = colon + 1;
    let ve = e;
    for (let i = vs; i < ve; i += 1) {
      const b = block[i] as number;
      if (!isFieldByte(b)) {
        fail('bad-header', i, `byte ${describeByte(b)} is not allowed in the value of ${JSON.stringify(latin1(block, s, colon))}`);
      }
    }
    while (vs < ve && (block[vs] === SP || block[vs] === HTAB)) vs += 1;
    while (ve > vs && (block[ve - 1] === SP || block[ve - 1] === HTAB)) ve -= 1;
    fields.push([latin1(block, s, colon), latin1(block, vs, ve)]);
  }
  return fields;
}

function parseStatusLine(block: Uint8Array, s: number, e: number, fail: Fail): Omit<ParsedHead, 'headers'> {
  const text = latin1(block, s, e);
  const shown = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
  if (!text.startsWith('HTTP/')) fail('bad-status-line', s, `status line ${shown} does not start with "HTTP/"`);
  const m = /^HTTP\/(\d)\.(\d) /.exec(text) ?? /^HTTP\/(\d)\.(\d)$/.exec(text);
  if (!m) fail('bad-status-line', s, `status line ${shown} is not "HTTP/x.y SP status SP reason"`);
  const version = `${(m as RegExpExecArray)[1]}.${(m as RegExpExecArray)[2]}`;
  if (version !== '1.0' && version !== '1.1') fail('unsupported-version', s, `HTTP version ${version} is not 1.0 or 1.1`);
  const codeText = text.slice(9, 12);
  if (!/^\d{3}$/.test(codeText) || (text.length > 12 && text[12] !== ' ')) {
    fail('bad-status-line', s + 9, `status line ${shown} has no 3-digit status code`);
  }
  const status = Number(codeText);
  if (status < 100 || status > 599) fail('bad-status-code', s + 9, `status code ${status} is outside 100-599`);
  for (let i = s + 13; i < e; i += 1) {
    const b = block[i] as number;
    if (!isFieldByte(b)) fail('bad-status-line', i, `byte ${describeByte(b)} is not allowed in the reason phrase`);
  }
  return { httpVersion: version as '1.0' | '1.1', status, reason: text.length > 13 ? text.slice(13) : '' };
}
