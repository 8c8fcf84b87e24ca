// Tests for the bandwidth estimator (paper §IV-A: EWMA over measured
// throughputs that downweights smaller requests; weight by bytes, half-life
// in bytes).

import { BandwidthEstimator } from '../../../src/estimators/bandwidth';

/** Wire time of `bytes` at `bitsPerSec`, seconds. */
const at = (bytes: number, bitsPerSec: number): number => (bytes * 8) / bitsPerSec;

describe('BandwidthEstimator', () => {
  test('no estimate before the first accepted transfer', () => {
    const e = new BandwidthEstimator();
    expect(e.estimateBitsPerSec()).toBeUndefined();
    expect(e.sampleCount).toBe(0);
  });

  test('the first transfer alone gives its own throughput, whatever its size', () => {
    const big = new BandwidthEstimator();
    big.addTransfer(1_000_000, 1);
    expect(big.estimateBitsPerSec()).toBeCloseTo(8e6, 6);
    const small = new BandwidthEstimator();
    small.addTransfer(20_000, 0.02);
    expect(small.estimateBitsPerSec()).toBeCloseTo(8e6, 6);
  });

  test('a transfer that fits in one initial window (10 × 1460 bytes) is skipped: it measures a round trip', () => {
    const e = new BandwidthEstimator();
    const init = e.addTransfer(841, 0.6); // an init segment behind a 600 ms queue
    expect(init.accepted).toBe(false);
    if (!init.accepted) expect(init.reason).toMatch(/initial window/);
    expect(e.estimateBitsPerSec()).toBeUndefined();
    expect(e.addTransfer(14_599, 0.6).accepted).toBe(false);
    expect(e.addTransfer(14_600, 0.1).accepted).toBe(true);
    expect(new BandwidthEstimator({ minBytes: 0 }).addTransfer(100, 0.01).accepted).toBe(true);
  });

  test('hand-computed: a transfer of one half-life has weight 1/2', () => {
    const e = new BandwidthEstimator({ halfLifeBytes: 1_000_000 });
    const first = e.addTransfer(1_000_000, 1); // 8 Mbit/s
    expect(first).toEqual({ accepted: true, sampleBitsPerSec: 8e6, weight: 0.5 });
    e.addTransfer(1_000_000, 2); // 4 Mbit/s
    // weights: latest 1/2, earlier 1/2 × 1/2 = 1/4; normalised by 3/4:
    // (1/4 × 8 + 1/2 × 4) / (3/4) = 4 / 0.75 = 5.333 Mbit/s
    expect(e.estimateBitsPerSec()).toBeCloseTo(16e6 / 3, 3);
    expect(e.sampleCount).toBe(2);
  });

  test('converges to a new steady throughput', () => {
    const e = new BandwidthEstimator();
    e.addTransfer(2_000_000, at(2_000_000, 10e6));
    for (let i = 0; i < 30; i += 1) e.addTransfer(1_000_000, at(1_000_000, 4e6));
    const estimate = e.estimateBitsPerSec() as number;
    expect(Math.abs(estimate - 4e6) / 4e6).toBeLessThan(1e-6);
  });

  test('downweights small transfers: a tiny slow transfer moves the estimate far less than a big one', () => {
    const base = (): BandwidthEstimator => {
      const e = new BandwidthEstimator();
      e.addTransfer(2_000_000, at(2_000_000, 10e6));
      return e;
    };
    const tiny = base();
    tiny.addTransfer(20_000, at(20_000, 1e6)); // 20 KB at 1 Mbit/s
    const big = base();
    big.addTransfer(2_000_000, at(2_000_000, 1e6)); // 2 MB at 1 Mbit/s
    const dropTiny = 10e6 - (tiny.estimateBitsPerSec() as number);
    const dropBig = 10e6 - (big.estimateBitsPerSec() as number);
    expect(dropTiny).toBeGreaterThan(0);
    expect(dropTiny * 40).toBeLessThan(dropBig);
  });

  test('weight is by bytes: two half-size transfers count as one full-size transfer', () => {
    const one = new BandwidthEstimator();
    const two = new BandwidthEstimator();
    for (const e of [one, two]) e.addTransfer(3_000_000, at(3_000_000, 8e6));
    one.addTransfer(1_000_000, at(1_000_000, 2e6));
    two.addTransfer(500_000, at(500_000, 2e6));
    two.addTransfer(500_000, at(500_000, 2e6));
    expect(two.estimateBitsPerSec()! / one.estimateBitsPerSec()!).toBeCloseTo(1, 12);
  });

  test('zero or too-short durations and empty transfers are skipped with a reason, not averaged in', () => {
    const e = new BandwidthEstimator();
    e.addTransfer(1_000_000, 1);
    for (const [bytes, seconds] of [
      [1_000_000, 0],
      [1_000_000, 0.0005],
      [0, 1],
    ] as const) {
      const result = e.addTransfer(bytes, seconds);
      expect(result.accepted).toBe(false);
      if (!result.accepted) expect(result.reason).toMatch(/wire time|no bytes/);
    }
    expect(e.sampleCount).toBe(1);
    expect(e.estimateBitsPerSec()).toBeCloseTo(8e6, 6);
  });

  test('minWireSeconds 0 skips only exactly-zero durations', () => {
    const e = new BandwidthEstimator({ minWireSeconds: 0, minBytes: 0 });
    expect(e.addTransfer(1000, 0).accepted).toBe(false);
    expect(e.addTransfer(1000, 0.0001).accepted).toBe(true);
    expect(e.estimateBitsPerSec()).toBeCloseTo(80e6, 3);
  });

  test.each([
    ['bytes', -1, 1],
    ['bytes', NaN, 1],
    ['bytes', Infinity, 1],
    ['wireSeconds', 1000, -1],
    ['wireSeconds', 1000, NaN],
  ])('rejects invalid %s (%p bytes, %p s)', (name, bytes, seconds) => {
    const e = new BandwidthEstimator();
    expect(() => e.addTransfer(bytes, seconds)).toThrow(RangeError);
    expect(() => e.addTransfer(bytes, seconds)).toThrow(new RegExp(`^${name} `));
    expect(e.sampleCount).toBe(0);
  });

  test.each([{ halfLifeBytes: 0 }, { halfLifeBytes: -5 }, { minWireSeconds: -1 }, { minBytes: -1 }])('rejects options %p', (o) => {
    expect(() => new BandwidthEstimator(o)).toThrow(RangeError);
  });
});
