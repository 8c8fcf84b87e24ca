// Range header decisions (RFC 9110 §14), table-driven.

import { evaluateRange } from '../../../demo/server/range';

describe('evaluateRange', () => {
  test.each([
    [undefined, 1000, { outcome: 'none' }],
    ['bytes=0-99', 1000, { outcome: 'partial', start: 0, end: 99 }],
    ['bytes=500-', 1000, { outcome: 'partial', start: 500, end: 999 }],
    ['bytes=-100', 1000, { outcome: 'partial', start: 900, end: 999 }],
    ['bytes=-5000', 1000, { outcome: 'partial', start: 0, end: 999 }],
    ['bytes=990-5000', 1000, { outcome: 'partial', start: 990, end: 999 }],
    ['bytes=999-999', 1000, { outcome: 'partial', start: 999, end: 999 }],
    ['BYTES=1-2', 1000, { outcome: 'partial', start: 1, end: 2 }],
    ['bytes=1-2,', 1000, { outcome: 'partial', start: 1, end: 2 }],
    ['bytes=0-99999999999999999999', 1000, { outcome: 'partial', start: 0, end: 999 }],
    ['bytes=1000-', 1000, { outcome: 'unsatisfiable' }],
    ['bytes=1000-2000', 1000, { outcome: 'unsatisfiable' }],
    ['bytes=99999999999999999999-', 1000, { outcome: 'unsatisfiable' }],
    ['bytes=-0', 1000, { outcome: 'unsatisfiable' }],
    ['bytes=0-0', 0, { outcome: 'unsatisfiable' }],
    ['bytes=-5', 0, { outcome: 'ignored-empty' }],
    ['bytes=0-1,5-6', 1000, { outcome: 'ignored-multi' }],
    ['bytes=0-1, 2000-3000', 1000, { outcome: 'ignored-multi' }],
    ['bytes=5-1', 1000, { outcome: 'ignored-malformed' }],
    ['bytes=abc', 1000, { outcome: 'ignored-malformed' }],
    ['bytes=-', 1000, { outcome: 'ignored-malformed' }],
    ['bytes=', 1000, { outcome: 'ignored-malformed' }],
    ['bytes 0-1', 1000, { outcome: 'ignored-malformed' }],
    ['bytes=0-1,x', 1000, { outcome: 'ignored-malformed' }],
    ['=0-1', 1000, { outcome: 'ignored-malformed' }],
    ['items=0-1', 1000, { outcome: 'ignored-unit' }],
  ])('%j on %i bytes', (header, size, expected) => {
    expect(evaluateRange(header, size)).toEqual(expected);
  });

  test('rejects a bad size', () => {
    expect(() => evaluateRange('bytes=0-1', -1)).toThrow(/size/);
  });
});
