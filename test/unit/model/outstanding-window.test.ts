// Tests for the outstanding window (paper §IV-B1): enough pipelined requests
// to cover a window of response bytes (two fair BDPs by default, the paper's
// minimum is one), at least 2, at most the cap.

import {
  DEFAULT_MAX_OUTSTANDING_REQUESTS,
  DEFAULT_WINDOW_BDPS,
  mayIssueRequest,
  windowBytes,
  outstandingBytes,
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
      const bytesOf = (k: number): number => sizes.slice(0, k).reduce((a, b) => a + b, 0) + Math.max(0, k - sizes.length) * average;
      if (n < cap) expect(bytesOf(n)).toBeGreaterThanOrEqual(bdp * (1 - 1e-12));
      if (n > 2) expect(bytesOf(n - 1)).toBeLessThan(bdp); // minimal, unless the floor of 2 applies
    }
  });
});

describe('outstandingRequests rejects bad input', () => {
  test.each([
    ['coverBytes', () => outstandingRequests(0, 1000)],
    ['coverBytes', () => outstandingRequests(NaN, 1000)],
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

describe('the byte window: mayIssueRequest and outstandingBytes', () => {
  // 4 Mbit/s × 600 ms. Most tests pass it as the window itself (windowBytes(bdp, 1), the paper's one BDP).
  const bdp = 300_000;

  test('fewer than 2 outstanding: always (never sequential downloading), whatever the bytes', () => {
    expect(mayIssueRequest({ requests: 0, unreceivedBytes: 0, arrivingBytes: 0 }, bdp)).toBe(true);
    expect(mayIssueRequest({ requests: 1, unreceivedBytes: 5_000_000, arrivingBytes: 0 }, bdp)).toBe(true);
  });

  test('small segments: more than 2 requests until the unreceived bytes cover a BDP plus the response arriving', () => {
    // 150 KB segments (4 s at the 0.3 Mbit/s rung). One arriving with 50 KB received, one waiting: 250 KB unreceived.
    const two = outstandingBytes([
      { expectedBytes: 150_000, receivedBytes: 50_000 },
      { expectedBytes: 150_000, receivedBytes: 0 },
    ]);
    expect(two).toEqual({ requests: 2, unreceivedBytes: 250_000, arrivingBytes: 150_000 });
    expect(mayIssueRequest(two, bdp)).toBe(true); // 250 KB < 300 KB + 150 KB
    const three = outstandingBytes([
      { expectedBytes: 150_000, receivedBytes: 50_000 },
      { expectedBytes: 150_000, receivedBytes: 0 },
      { expectedBytes: 150_000, receivedBytes: 0 },
    ]);
    expect(mayIssueRequest(three, bdp)).toBe(true); // 400 KB < 450 KB
    const four = outstandingBytes([...Array(4)].map((_, i) => ({ expectedBytes: 150_000, receivedBytes: i === 0 ? 50_000 : 0 })));
    expect(mayIssueRequest(four, bdp)).toBe(false); // 550 KB >= 450 KB
  });

  test('bytes arriving reduce the unreceived total and open the window again before any request completes', () => {
    const before = outstandingBytes([...Array(4)].map((_, i) => ({ expectedBytes: 150_000, receivedBytes: i === 0 ? 50_000 : 0 })));
    const later = outstandingBytes([...Array(4)].map((_, i) => ({ expectedBytes: 150_000, receivedBytes: i === 0 ? 149_000 : 0 })));
    expect(mayIssueRequest(before, bdp)).toBe(false);
    expect(later.requests).toBe(4);
    expect(mayIssueRequest(later, bdp)).toBe(false); // 1 KB + 450 KB = 451 KB >= 450 KB
    const next = outstandingBytes(
      [...Array(4)].map((_, i) => ({ expectedBytes: 150_000, receivedBytes: i === 0 ? 150_000 : i === 1 ? 2_000 : 0 })),
    );
    expect(mayIssueRequest(next, bdp)).toBe(true); // 148 KB + 300 KB = 448 KB < 300 KB + 150 KB
  });

  test('large segments: the minimum of 2 is the window', () => {
    const s = outstandingBytes([
      { expectedBytes: 3_000_000, receivedBytes: 10 },
      { expectedBytes: 3_000_000, receivedBytes: 0 },
    ]);
    expect(mayIssueRequest(s, bdp)).toBe(false);
  });

  test('nothing arriving yet (a train just started): requests up to one BDP of bytes', () => {
    const s = (n: number) => outstandingBytes([...Array(n)].map(() => ({ expectedBytes: 100_000, receivedBytes: 0 })));
    expect(s(2).arrivingBytes).toBe(0);
    expect(mayIssueRequest(s(2), bdp)).toBe(true);
    expect(mayIssueRequest(s(3), bdp)).toBe(false); // 300 KB is not below 300 KB
  });

  test('the arriving response is the oldest with bytes received; received beyond expected counts as its size', () => {
    expect(outstandingBytes([])).toEqual({ requests: 0, unreceivedBytes: 0, arrivingBytes: 0 });
    expect(
      outstandingBytes([
        { expectedBytes: 1000, receivedBytes: 0 },
        { expectedBytes: 2000, receivedBytes: 2500 },
        { expectedBytes: 3000, receivedBytes: 10 },
      ]),
    ).toEqual({ requests: 3, unreceivedBytes: 1000 + 0 + 2990, arrivingBytes: 2500 });
  });

  test('the hard cap binds whatever the bytes', () => {
    const tiny = outstandingBytes([...Array(DEFAULT_MAX_OUTSTANDING_REQUESTS)].map(() => ({ expectedBytes: 1, receivedBytes: 0 })));
    expect(mayIssueRequest(tiny, bdp)).toBe(false);
    expect(mayIssueRequest({ ...tiny, requests: 5 }, bdp, 5)).toBe(false);
    expect(mayIssueRequest({ ...tiny, requests: 4 }, bdp, 5)).toBe(true);
  });

  test('windowBytes: two fair BDPs by default, the given multiple from 1 to 8 otherwise', () => {
    expect(DEFAULT_WINDOW_BDPS).toBe(2);
    expect(windowBytes(bdp)).toBe(600_000);
    expect(windowBytes(bdp, 1)).toBe(bdp);
    expect(windowBytes(bdp, 1.5)).toBe(450_000);
    // the state of the small-segments test: 550 KB unreceived, 150 KB arriving
    const four = outstandingBytes([...Array(4)].map((_, i) => ({ expectedBytes: 150_000, receivedBytes: i === 0 ? 50_000 : 0 })));
    expect(mayIssueRequest(four, windowBytes(bdp, 1))).toBe(false);
    expect(mayIssueRequest(four, windowBytes(bdp))).toBe(true);
    expect(() => windowBytes(bdp, 0.99)).toThrow(/^windowBdps must be a number of fair BDPs in \[1, 8\], got 0.99$/);
    expect(() => windowBytes(bdp, 9)).toThrow(RangeError);
    expect(() => windowBytes(bdp, NaN)).toThrow(RangeError);
    expect(() => windowBytes(0)).toThrow(RangeError);
  });

  test('bad inputs are RangeErrors', () => {
    const ok = { requests: 2, unreceivedBytes: 0, arrivingBytes: 0 };
    expect(() => mayIssueRequest(ok, 0)).toThrow(RangeError);
    expect(() => mayIssueRequest(ok, bdp, 1)).toThrow(RangeError);
    expect(() => mayIssueRequest({ ...ok, unreceivedBytes: -1 }, bdp)).toThrow(RangeError);
    expect(() => mayIssueRequest({ ...ok, requests: 1.5 }, bdp)).toThrow(RangeError);
    expect(() => outstandingBytes([{ expectedBytes: NaN, receivedBytes: 0 }])).toThrow(RangeError);
  });
});
