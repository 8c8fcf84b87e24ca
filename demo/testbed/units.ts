// Units for the testbed's command line and options: bottleneck rates and queue
// sizes written the way tc writes them ("3mbit", "256kb"), converted to plain
// numbers (bits per second, bytes). Paper §V-A describes links by rate and
// queue size in bytes (e.g. 3 Mbit/s with a 256 KB queue).
//
// Conventions follow tc(8): rate suffixes are decimal (1 mbit = 1 000 000 bit/s),
// size suffixes are binary (1 kb = 1024 bytes), so "256kb" is 262144 bytes.
// Pure functions; bad input throws an Error that quotes the input.

const RATE_MULTIPLIERS: Record<string, number> = {
  bit: 1,
  bps: 1,
  kbit: 1e3,
  mbit: 1e6,
  gbit: 1e9,
};

const SIZE_MULTIPLIERS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1024,
  k: 1024,
  mb: 1024 * 1024,
  m: 1024 * 1024,
};

/** "3mbit" → 3000000 (bits per second). A bare number is bits per second. */
export function parseRate(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? (m[2] ?? '').toLowerCase() : '';
  const mult = unit === '' ? 1 : RATE_MULTIPLIERS[unit];
  if (!m || mult === undefined) {
    throw new Error(`bad rate "${text}": expected a number with bit, kbit, mbit or gbit (e.g. "3mbit")`);
  }
  const value = Number(m[1]) * mult;
  if (!(value > 0)) throw new Error(`bad rate "${text}": must be greater than zero`);
  return Math.round(value);
}

/** "256kb" → 262144 (bytes). A bare number is bytes. */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? (m[2] ?? '').toLowerCase() : '';
  const mult = SIZE_MULTIPLIERS[unit];
  if (!m || mult === undefined) {
    throw new Error(`bad size "${text}": expected a number with b, kb or mb (e.g. "256kb")`);
  }
  const value = Number(m[1]) * mult;
  if (!(value > 0)) throw new Error(`bad size "${text}": must be greater than zero`);
  return Math.round(value);
}

/** 3000000 → "3mbit" style text for logs and tc arguments (whole bits per second). */
export function formatRate(bitsPerSec: number): string {
  return `${Math.round(bitsPerSec)}bit`;
}
