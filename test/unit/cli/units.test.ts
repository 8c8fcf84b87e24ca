// Tests for src/units.ts: bit rates, byte counts and durations with units,
// and the errors for missing, unknown, negative, zero, bare and NaN values.

import { parseBitsPerSecond, parseBytes, parseSeconds } from '../../../src/units';

describe('parseBitsPerSecond', () => {
  test.each([
    ['1.5mbit', 1.5e6],
    ['300kbit', 300e3],
    ['2gbit', 2e9],
    ['800bit', 800],
    ['1.5Mbit', 1.5e6],
    ['1.5MBIT', 1.5e6],
    ['6mbit/s', 6e6],
    ['6 Mbit/s', 6e6],
    [' 25mbit ', 25e6],
    ['.5mbit', 0.5e6],
    ['1e3kbit', 1e6],
  ])('%p -> %d bit/s', (text, expected) => {
    expect(parseBitsPerSecond(text)).toBe(expected);
  });

  test.each([
    ['1.5Mbps', /ambiguous.*1\.5mbit/],
    ['300kbps', /ambiguous.*300kbit/],
    ['100bps', /ambiguous/],
    ['1.5', /no unit; write e\.g\. 1\.5mbit/],
    ['1.5mb', /unknown unit "mb"; use one of bit, kbit, mbit, gbit/],
    ['fast', /not a number with a unit/],
    ['NaN', /not a number with a unit/],
    ['Infinitymbit', /not a number with a unit/],
    ['', /missing value/],
    ['   ', /missing value/],
    ['-1mbit', /negative/],
    ['0mbit', /must be greater than zero/],
    ['1e400mbit', /too large/],
    ['1.5.2mbit', /not a number with a unit/],
  ])('%p is rejected (%p)', (text, message) => {
    expect(() => parseBitsPerSecond(text, { name: '--bandwidth' })).toThrow(RangeError);
    expect(() => parseBitsPerSecond(text, { name: '--bandwidth' })).toThrow(message);
    expect(() => parseBitsPerSecond(text, { name: '--bandwidth' })).toThrow(/^--bandwidth: /);
  });

  test('zero can be allowed', () => {
    expect(parseBitsPerSecond('0kbit', { allowZero: true })).toBe(0);
  });

  test('undefined is reported as missing', () => {
    expect(() => parseBitsPerSecond(undefined as unknown as string, { name: '--bandwidth' })).toThrow(/^--bandwidth: missing value/);
  });
});

describe('parseBytes (binary multiples, as in tc)', () => {
  test.each([
    ['1460', 1460],
    ['1460b', 1460],
    ['256kb', 262_144],
    ['256KB', 262_144],
    ['256KiB', 262_144],
    ['1.5kb', 1536],
    ['2mb', 2 * 1024 * 1024],
    ['1gb', 1024 ** 3],
  ])('%p -> %d bytes', (text, expected) => {
    expect(parseBytes(text)).toBe(expected);
  });

  test.each([
    ['0.1kb', /not a whole number of bytes/], // 102.4
    ['1.5', /not a whole number of bytes/],
    ['10kbit', /unknown unit "kbit"; use one of b, kb/],
    ['-5kb', /negative/],
    ['0', /must be greater than zero/],
    ['lots', /not a number with a unit/],
  ])('%p is rejected (%p)', (text, message) => {
    expect(() => parseBytes(text, { name: '--mss' })).toThrow(message);
    expect(() => parseBytes(text, { name: '--mss' })).toThrow(/^--mss: /);
  });

  test('zero can be allowed', () => {
    expect(parseBytes('0', { allowZero: true })).toBe(0);
  });
});

describe('parseSeconds', () => {
  test.each([
    ['200ms', 0.2],
    ['0.2s', 0.2],
    ['10m', 600],
    ['1h', 3600],
    ['650MS', 0.65],
    ['1.5 s', 1.5],
  ])('%p -> %d s', (text, expected) => {
    expect(parseSeconds(text)).toBe(expected);
  });

  test.each([
    ['200', /no unit; write e\.g\. 200ms or 200s/],
    ['0', /must be greater than zero/],
    ['0ms', /must be greater than zero/],
    ['-0ms', /must be greater than zero/],
    ['-200ms', /negative/],
    ['5parsecs', /unknown unit "parsecs"; use one of ms, s, m, h/],
    ['200us', /unknown unit "us"/],
    ['NaNms', /not a number with a unit/],
  ])('%p is rejected (%p)', (text, message) => {
    expect(() => parseSeconds(text, { name: '--rtt' })).toThrow(message);
    expect(() => parseSeconds(text, { name: '--rtt' })).toThrow(/^--rtt: /);
  });

  test('zero can be allowed, but never a negative', () => {
    expect(parseSeconds('0s', { allowZero: true })).toBe(0);
    expect(() => parseSeconds('-1s', { allowZero: true })).toThrow(/negative/);
  });
});
