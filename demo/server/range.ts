// Range header evaluation for the demo origin (RFC 9110 §14.1–§14.4).
//
// The unchunked demo layout addresses segments as byte ranges of one file per
// representation, and Sprint's trains may ask for larger ranges, so the origin
// must get single ranges exactly right. Decisions, each visible in the access
// log's `rangeOutcome` field:
// - one satisfiable range  → 206 with Content-Range (`partial`);
// - no satisfiable range   → 416 with `Content-Range: bytes */size` (`unsatisfiable`);
// - several ranges (`bytes=0-1,5-6`) → the whole representation with 200
//   (`ignored-multi`). RFC 9110 §14.2 lets a server ignore Range; answering 200
//   is an unambiguous refusal that every client handles, whereas a
//   multipart/byteranges body would be a second response format for clients to
//   parse and nobody in this project sends multi-range requests;
// - a syntactically invalid header or another unit → ignored, 200 (`ignored-malformed`,
//   `ignored-unit`), as §14.2 requires for a Range the server cannot parse.
// - a suffix range of a zero-length representation → 200 with the empty body
//   (`ignored-empty`): there is no byte to put in a 206.
// The router adds `ignored-if-range` (If-Range not matching Last-Modified,
// §13.1.5) and `ignored-fault` (the `noRange` fault option).

export type RangeOutcome =
  | 'none'
  | 'partial'
  | 'unsatisfiable'
  | 'ignored-multi'
  | 'ignored-malformed'
  | 'ignored-unit'
  | 'ignored-empty'
  | 'ignored-if-range'
  | 'ignored-fault';

export type RangeDecision =
  | { readonly outcome: 'partial'; readonly start: number; readonly end: number /* inclusive */ }
  | { readonly outcome: Exclude<RangeOutcome, 'partial'> };

/** A first-pos or last-pos longer than this many digits is beyond any file we serve. */
const MAX_DIGITS = 15;

function toPosition(digits: string): number {
  return digits.length > MAX_DIGITS ? Number.POSITIVE_INFINITY : Number(digits);
}

/**
 * Decides how to answer a request with Range header `header` (undefined if
 * absent) for a representation of `size` bytes.
 */
export function evaluateRange(header: string | undefined, size: number): RangeDecision {
  if (!Number.isInteger(size) || size < 0) {
    throw new RangeError(`representation size must be an integer >= 0, got ${size}`);
  }
  if (header === undefined) return { outcome: 'none' };
  const eq = header.indexOf('=');
  if (eq <= 0) return { outcome: 'ignored-malformed' };
  const unit = header.slice(0, eq).trim();
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(unit)) return { outcome: 'ignored-malformed' };
  if (unit.toLowerCase() !== 'bytes') return { outcome: 'ignored-unit' };

  // 1#range-spec: comma-separated, optional whitespace, empty elements allowed.
  const specs = header
    .slice(eq + 1)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (specs.length === 0) return { outcome: 'ignored-malformed' };

  const parsed: Array<{ first: number | null; last: number | null }> = [];
  for (const spec of specs) {
    const m = /^(\d*)-(\d*)$/.exec(spec);
    if (!m) return { outcome: 'ignored-malformed' };
    const firstText = m[1] ?? '';
    const lastText = m[2] ?? '';
    if (firstText === '' && lastText === '') return { outcome: 'ignored-malformed' };
    const first = firstText === '' ? null : toPosition(firstText);
    const last = lastText === '' ? null : toPosition(lastText);
    // int-range with last-pos < first-pos is invalid (§14.1.1).
    if (first !== null && last !== null && last < first) return { outcome: 'ignored-malformed' };
    parsed.push({ first, last });
  }
  if (parsed.length > 1) return { outcome: 'ignored-multi' };

  const { first, last } = parsed[0]!;
  if (first === null) {
    // suffix-range: the last N bytes; satisfiable if N > 0 (§14.1.1).
    const n = last as number;
    if (n === 0) return { outcome: 'unsatisfiable' };
    // A zero-length representation has nothing to send in a 206: serve it whole.
    if (size === 0) return { outcome: 'ignored-empty' };
    return { outcome: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  // int-range: satisfiable if first-pos < size; last-pos is clamped to size - 1.
  if (first >= size) return { outcome: 'unsatisfiable' };
  const end = last === null ? size - 1 : Math.min(last, size - 1);
  return { outcome: 'partial', start: first, end };
}
