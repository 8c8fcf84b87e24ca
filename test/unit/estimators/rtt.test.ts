// Tests for the RTT estimator (paper §IV-A probes; RFC 6298 smoothing).

import { RttEstimator } from '../../../src/estimators/rtt';

describe('RttEstimator', () => {
  test('empty before the first sample', () => {
    const e = new RttEstimator();
    expect([e.smoothedSec, e.variationSec, e.minSec, e.lastSec, e.sampleCount]).toEqual([undefined, undefined, undefined, undefined, 0]);
  });

  test('first sample sets SRTT = R and RTTVAR = R/2; the second follows RFC 6298', () => {
    const e = new RttEstimator();
    e.addSample(0.2);
    expect([e.smoothedSec, e.variationSec, e.minSec, e.lastSec]).toEqual([0.2, 0.1, 0.2, 0.2]);
    e.addSample(0.1);
    // RTTVAR = 3/4 × 0.1 + 1/4 × |0.2 − 0.1| = 0.075 + 0.025 = 0.1
    // SRTT   = 7/8 × 0.2 + 1/8 × 0.1     = 0.175 + 0.0125 = 0.1875
    expect(e.variationSec).toBeCloseTo(0.1, 12);
    expect(e.smoothedSec).toBeCloseTo(0.1875, 12);
    expect(e.minSec).toBe(0.1);
    expect(e.lastSec).toBe(0.1);
    expect(e.sampleCount).toBe(2);
  });

  test('converges to a new steady RTT and keeps the minimum', () => {
    const e = new RttEstimator();
    e.addSample(1.0);
    for (let i = 0; i < 200; i += 1) e.addSample(0.05);
    expect(e.smoothedSec).toBeCloseTo(0.05, 9);
    expect(e.variationSec).toBeLessThan(1e-6);
    expect(e.minSec).toBe(0.05);
    e.addSample(0.3);
    expect(e.minSec).toBe(0.05);
    expect(e.lastSec).toBe(0.3);
    // one outlier moves SRTT by only 1/8 of the difference
    expect(e.smoothedSec).toBeCloseTo(0.05 + (0.3 - 0.05) / 8, 9);
  });

  test('custom gains', () => {
    const e = new RttEstimator({ alpha: 0.5 });
    e.addSample(0.2);
    e.addSample(0.4);
    expect(e.smoothedSec).toBeCloseTo(0.3, 12);
  });

  test.each([0, -0.01, NaN, Infinity])('rejects sample %p and keeps its state', (bad) => {
    const e = new RttEstimator();
    e.addSample(0.2);
    expect(() => e.addSample(bad)).toThrow(RangeError);
    expect(() => e.addSample(bad)).toThrow(/^rttSec /);
    expect([e.smoothedSec, e.minSec, e.lastSec, e.sampleCount]).toEqual([0.2, 0.2, 0.2, 1]);
  });

  test.each([{ alpha: 0 }, { alpha: 1 }, { beta: -1 }, { beta: NaN }])('rejects options %p', (options) => {
    expect(() => new RttEstimator(options)).toThrow(RangeError);
  });
});
