// Tests for the shared command-line argument parser (src/cli/args.ts).

import { OptionsSpec, parseArgs, parseInteger, parseNumber, UsageError } from '../../../src/cli/args';

const SPEC: OptionsSpec = {
  rtt: { kind: 'value' },
  bandwidth: { kind: 'value' },
  verbose: { kind: 'flag' },
  help: { kind: 'flag', short: 'h' },
};

describe('parseArgs', () => {
  test('--key value, --key=value and flags', () => {
    const a = parseArgs(['--rtt', '200ms', '--bandwidth=1.5mbit', '--verbose'], SPEC);
    expect(Object.fromEntries(a.values)).toEqual({ rtt: '200ms', bandwidth: '1.5mbit' });
    expect([...a.flags]).toEqual(['verbose']);
    expect(a.positionals).toEqual([]);
  });

  test('values may contain "=" and may be empty with the inline form', () => {
    const a = parseArgs(['--rtt=a=b', '--bandwidth='], SPEC);
    expect(a.values.get('rtt')).toBe('a=b');
    expect(a.values.get('bandwidth')).toBe('');
  });

  test('a value starting with a single dash is a value (so "-5ms" is reported as negative later)', () => {
    expect(parseArgs(['--rtt', '-5ms'], SPEC).values.get('rtt')).toBe('-5ms');
  });

  test('short alias', () => {
    expect(parseArgs(['-h'], SPEC).flags.has('help')).toBe(true);
  });

  test('positionals only when allowed; "--" ends the options', () => {
    const a = parseArgs(['x', '--verbose', '--', '--rtt', 'y'], SPEC, { allowPositionals: true });
    expect(a.positionals).toEqual(['x', '--rtt', 'y']);
    expect(a.flags.has('verbose')).toBe(true);
    expect(a.values.has('rtt')).toBe(false);
  });

  test.each([
    [['--frobnicate', '1'], 'unknown option --frobnicate'],
    [['--toString'], 'unknown option --toString'],
    [['--'], null],
    [['-x'], 'unknown option -x'],
    [['--rtt'], 'option --rtt needs a value'],
    [['--rtt', '--verbose'], 'option --rtt needs a value'],
    [['--verbose=yes'], 'option --verbose takes no value'],
    [['--rtt', '1s', '--rtt=2s'], 'option --rtt given more than once'],
    [['stray'], 'unexpected argument "stray"'],
    [['--', 'stray'], 'unexpected argument "stray"'],
    [['--=x'], 'unknown option --'],
  ])('%p -> %p', (argv, message) => {
    if (message === null) {
      expect(() => parseArgs(argv, SPEC)).not.toThrow();
      return;
    }
    expect(() => parseArgs(argv, SPEC)).toThrow(UsageError);
    expect(() => parseArgs(argv, SPEC)).toThrow(message);
  });
});

describe('parseNumber / parseInteger', () => {
  test('numbers', () => {
    expect(parseNumber('0.1', '--epsilon')).toBe(0.1);
    expect(parseNumber('1e-2', '--epsilon')).toBe(0.01);
    expect(parseInteger('10', '--initial-window')).toBe(10);
  });
  test.each(['', 'abc', '0x10', 'NaN', 'Infinity', '1.5.1', '10%'])('parseNumber rejects %p', (text) => {
    expect(() => parseNumber(text, '--epsilon')).toThrow(/^--epsilon: .* is not a number$/);
  });
  test.each(['0', '-1', '2.5', '1e20'])('parseInteger rejects %p', (text) => {
    expect(() => parseInteger(text, '--initial-window')).toThrow(/^--initial-window: .*whole number >= 1/);
  });
});
