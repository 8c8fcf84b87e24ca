// Tests for the outstanding window (paper §IV-B1): enough pipelined requests
// to cover one fair BDP of response bytes, at least 2, at most the cap.

import {
  DEFAULT_MAX_OUTSTANDING_REQUESTS,
  outstandingRequests,
} from '../../../src/model/outstanding-window';

/** Deterministic pseudo-random numbers in [0, 1) (LCG), so failures reproduce. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('outstandingRequests with one typical segment size', () => {
  test.each([
    // [BDP, segment, expected, why]
    [37_500, 750_000, 2, 'one 4 s segment at 1.5 Mbit/s exceeds the BDP: the minimum of 2'],
    [1_000_000, 100_000, 10, '1,000,000 / 100,000 = 10 exactly'],
    [1_000_001, 100_000, 11, 'one byte more needs one more request'],
    [300_000, 100_000, 3, 'exactly three segments'],
    [1_000_000, 1_000, 32, '1000 needed, capped at the default 32'],
  ])('BDP %d B, segments of %d B -> %d (%s)', (bdp, seg, expected) => {
    expect(outstandingRequests(bdp, seg)).toBe(expected);
  });

  test('the cap is a parameter', () => {
    expect(DEFAULT_MAX_OUTSTANDING_REQUESTS).toBe(32);
    expect(outstandingRequests(1_000_000, 1_000, 2000)).toBe(1000);
    expect(outstandingRequests(1_000_000, 1_000, 2)).toBe(2);
  });
});

describe('outstandingRequests with the sizes of the next segments', () => {
  test.each([
    [25_000, [10_000, 20_000, 50_000], 2, '10,000 + 20,000 = 30,000 >= 25,000'],
    [30_000, [10_000, 20_000, 50_000], 2, 'exactly reached after two'],
    [30_001, [10_000, 20_000, 50_000], 3, '80,000 after three'],
    [5_000, [10_000, 20_000], 2, 'one would do: the minimum of 2'],
    [81_000, [10_000, 20_000, 50_000], 4, 'list exhausted at 80,000; 1,000 more at the average 26,667 => 1 more'],
    [200_000, [50_000], 4, 'a single size is extrapolated: 4 × 50,000'],
  ])('BDP %d B, next sizes %p -> %d (%s)', (bdp, sizes, expected) => {
    expect(outstandingRequests(bdp, sizes)).toBe(expected);
  });

  test('property: at least 2, at most the cap, and the window covers the BDP with no request to spare', () => {
    const random = lcg(42);
    for (let trial = 0; trial < 2000; trial += 1) {
      const bdp = 1_000 + random() * 5_000_000;
      const sizes = Array.from({ length: 1 + Math.floor(random() * 40) }, () => 1 + Math.floor(random() * 2_000_000));
      const cap = 2 + Math.floor(random() * 60);
      const n = outstandingRequests(bdp, sizes, cap);
      expect(n).toBeGreaterThanOrEqual(2);
      expect(n).toBeLessThanOrEqual(cap);
      const average = sizes.reduce((a, b) => a + b, 0) / sizes.length;
      const bytesOf = (k: number): number =>
        sizes.slice(0, k).reduce((a, b) => a + b, 0) + Math.max(0, k - sizes.length) * average;
      if (n < cap) expect(bytesOf(n)).toBeGreaterThanOrEqual(bdp * (1 - 1e-12));
      if (n > 2) expect(bytesOf(n - 1)).toBeLessThan(bdp); // minimal, unless the floor of 2 applies
    }
  });
});

describe('outstandingRequests rejects bad input', () => {
  test.each([
    ['fairBdpBytes', () => outstandingRequests(0, 1000)],
    ['fairBdpBytes', () => outstandingRequests(NaN, 1000)],
    ['expectedSegmentBytes', () => outstandingRequests(1000, 0)],
    ['expectedSegmentBytes', () => outstandingRequests(1000, -5)],
    ['expectedSegmentBytes', () => outstandingRequests(1000, Infinity)],
    ['expectedSegmentBytes', () => outstandingRequests(1000, [])],
    ['expectedSegmentBytes\\[1\\]', () => outstandingRequests(1000, [10, 0, 10])],
    ['maxRequests', () => outstandingRequests(1000, 100, 1)],
    ['maxRequests', () => outstandingRequests(1000, 100, 2.5)],
  ])('%s', (name, call) => {
    expect(call).toThrow(RangeError);
    expect(call).toThrow(new RegExp(`^${name} `));
  });
});
