// Parsing of quantities with units, for the command line and configuration:
// bit rates, byte counts and durations. The spellings follow Linux `tc`, which
// the testbed uses (`rate 3mbit`, `burst 5kb`), with two deliberate choices:
//
// Bit rates (result in bits per second), decimal multiples, case-insensitive,
// optionally with "/s": bit, kbit (1e3), mbit (1e6), gbit (1e9); e.g. "1.5mbit",
// "300kbit", "2Gbit/s", "800bit".
//   "bps", "kbps", "mbps", "gbps" are REJECTED: common usage reads "Mbps" as
//   megabits per second but tc reads it as megabytes per second, a factor of 8
//   apart. The error says to write "mbit".
//
// Byte counts (result in bytes), binary multiples as in tc, case-insensitive:
// b, kb (1024), mb (1024²), gb (1024³); also kib, mib, gib as aliases. So
// "256kb" = "256KB" = 262144 bytes. A bare number is a count of bytes (the
// option it belongs to says "bytes", e.g. --mss 1460). The result must be a
// whole number of bytes.
//
// Durations (result in seconds): ms, s, m (minutes), h; e.g. "200ms", "0.2s",
// "10m", "1h".
//
// A bare number is rejected for bit rates and durations: "200" could be ms or
// s, "1.5" kbit or mbit, and a silent factor of 1000 is worse than an error.
// Zero is rejected unless the caller allows it; negative numbers, NaN,
// Infinity, missing values and unknown units are always rejected. Errors are
// RangeErrors whose message names the quantity (e.g. "--rtt") and the text.

export interface UnitParseOptions {
  /** What is being parsed, for error messages, e.g. "--rtt". Default "value". */
  readonly name?: string;
  /** Accept a value of zero (default false: zero is an error). */
  readonly allowZero?: boolean;
}

const BIT_RATE_UNITS: Readonly<Record<string, number>> = {
  bit: 1,
  kbit: 1e3,
  mbit: 1e6,
  gbit: 1e9,
};

const AMBIGUOUS_RATE_UNITS: Readonly<Record<string, string>> = {
  bps: 'bit',
  kbps: 'kbit',
  mbps: 'mbit',
  gbps: 'gbit',
};

const BYTE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/** An optional sign, a decimal number (optionally with exponent), optional spaces, a unit. */
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(e[+-]?\d+)?\s*([a-z/]*)$/i;

interface Split {
  readonly magnitude: number;
  readonly negative: boolean;
  /** Lower-cased unit; "" for a bare number. */
  readonly unit: string;
}

function describe(text: string): string {
  return JSON.stringify(text);
}

function split(text: unknown, name: string, example: string): Split {
  if (text === undefined || text === null) {
    throw new RangeError(`${name}: missing value (e.g. ${example})`);
  }
  if (typeof text !== 'string') {
    throw new RangeError(`${name}: expected text such as ${example}, got ${String(text)}`);
  }
  const trimmed = text.trim();
  if (trimmed === '') {
    throw new RangeError(`${name}: missing value (e.g. ${example})`);
  }
  const match = QUANTITY.exec(trimmed);
  if (match === null) {
    throw new RangeError(`${name}: ${describe(text)} is not a number with a unit (e.g. ${example})`);
  }
  const magnitude = Number(match[2] + (match[3] ?? ''));
  if (!Number.isFinite(magnitude)) {
    throw new RangeError(`${name}: ${describe(text)} is too large`);
  }
  return { magnitude, negative: match[1] === '-', unit: (match[4] ?? '').toLowerCase() };
}

function checkSign(s: Split, text: string, options: UnitParseOptions, name: string): void {
  if (s.negative && s.magnitude !== 0) {
    throw new RangeError(`${name}: ${describe(text)} is negative`);
  }
  if (s.magnitude === 0 && options.allowZero !== true) {
    throw new RangeError(`${name}: ${describe(text)} must be greater than zero`);
  }
}

function unknownUnit(name: string, text: string, unit: string, table: object): RangeError {
  return new RangeError(`${name}: ${describe(text)} has unknown unit ${describe(unit)}; use one of ${Object.keys(table).join(', ')}`);
}

/** Parses a bit rate such as "1.5mbit" into bits per second. */
export function parseBitsPerSecond(text: string, options: UnitParseOptions = {}): number {
  const name = options.name ?? 'value';
  const s = split(text, name, '1.5mbit');
  checkSign(s, text, options, name);
  if (s.unit === '') {
    throw new RangeError(`${name}: ${describe(text)} has no unit; write e.g. ${s.magnitude}mbit or ${s.magnitude}kbit`);
  }
  const unit = s.unit.endsWith('/s') ? s.unit.slice(0, -2) : s.unit;
  const better = AMBIGUOUS_RATE_UNITS[unit];
  if (better !== undefined) {
    throw new RangeError(
      `${name}: ${describe(text)} is ambiguous ("${unit}" is bits per second to most people but bytes per second to tc); write ${s.magnitude}${better} for bits per second`,
    );
  }
  const factor = BIT_RATE_UNITS[unit];
  if (factor === undefined) throw unknownUnit(name, text, s.unit, BIT_RATE_UNITS);
  return s.magnitude * factor;
}

/** Parses a byte count such as "256kb" (262144) or "1460" into bytes. */
export function parseBytes(text: string, options: UnitParseOptions = {}): number {
  const name = options.name ?? 'value';
  const s = split(text, name, '256kb');
  checkSign(s, text, options, name);
  const factor = s.unit === '' ? 1 : BYTE_UNITS[s.unit];
  if (factor === undefined) throw unknownUnit(name, text, s.unit, BYTE_UNITS);
  const bytes = s.magnitude * factor;
  if (!Number.isSafeInteger(bytes)) {
    throw new RangeError(`${name}: ${describe(text)} is not a whole number of bytes`);
  }
  return bytes;
}

/** Parses a duration such as "200ms" or "0.2s" into seconds. */
export function parseSeconds(text: string, options: UnitParseOptions = {}): number {
  const name = options.name ?? 'value';
  const s = split(text, name, '200ms');
  checkSign(s, text, options, name);
  if (s.unit === '') {
    throw new RangeError(`${name}: ${describe(text)} has no unit; write e.g. ${s.magnitude}ms or ${s.magnitude}s`);
  }
  const factor = DURATION_UNITS[s.unit];
  if (factor === undefined) throw unknownUnit(name, text, s.unit, DURATION_UNITS);
  // Divide rather than multiply by 1e-3 so "200ms" is exactly the double 0.2.
  return s.unit === 'ms' ? s.magnitude / 1000 : s.magnitude * factor;
}
