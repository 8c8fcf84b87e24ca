// Unit tests of the evaluation metrics (demo/testbed/metrics.ts, paper §V-A):
// fair share over a window after warm-up, % of fair share, √(1−JFI), summaries.

import {
  bytesInWindow,
  fairShare,
  FlowSeries,
  firstActiveS,
  jainIndex,
  lastActiveEndS,
  measurementWindow,
  meetTimeS,
  smoothedThroughput,
  summarize,
  throughputSeries,
  unfairness,
} from '../../../demo/testbed/metrics';

// 10 bins of 0.1 s from t=1000 s. Flow "a" starts at bin 2, flow "b" at bin 0.
const series: FlowSeries = {
  t0S: 1000,
  binS: 0.1,
  bytes: {
    a: [0, 0, 100, 100, 100, 100, 100, 100, 100, 100],
    b: [300, 300, 300, 300, 300, 300, 300, 300, 300, 300],
  },
};

describe('throughput series', () => {
  it('converts bytes per bin to bits per second', () => {
    const t = throughputSeries(series, 'b');
    expect(t).toHaveLength(10);
    expect(t[0]).toEqual({ tS: 1000, bitsPerSec: 24000 });
    expect(t[3]?.tS).toBeCloseTo(1000.3, 9);
  });

  it('averages over non-overlapping spans when smoothing', () => {
    const s = smoothedThroughput(series, 'a', 0.5);
    expect(s.map((x) => x.bitsPerSec)).toEqual([(300 * 8) / 0.5, (500 * 8) / 0.5]);
  });

  it('names the missing flow', () => {
    expect(() => throughputSeries(series, 'zz')).toThrow(/no flow "zz"/);
  });
});

describe('windows', () => {
  it('finds first and last activity and the meeting time', () => {
    expect(firstActiveS(series, 'a')).toBeCloseTo(1000.2, 9);
    expect(firstActiveS(series, 'b')).toBe(1000);
    expect(lastActiveEndS(series, 'a')).toBeCloseTo(1001.0, 9);
    expect(meetTimeS(series, ['a', 'b'])).toBeCloseTo(1000.2, 9);
    expect(meetTimeS({ ...series, bytes: { ...series.bytes, c: new Array(10).fill(0) } }, ['a', 'c'])).toBeNull();
  });

  it('starts the measurement window a warm-up after the flows meet', () => {
    const w = measurementWindow(series, ['a', 'b'], 0.3);
    expect(w.fromS).toBeCloseTo(1000.5, 9);
    expect(w.toS).toBeCloseTo(1001.0, 9);
    expect(bytesInWindow(series, 'a', w)).toBe(500);
    expect(() => measurementWindow(series, ['a', 'b'], 5)).toThrow(/window is empty/);
  });

  it('counts only whole bins inside the window', () => {
    expect(bytesInWindow(series, 'b', { fromS: 1000.05, toS: 1000.35 })).toBe(600);
  });
});

describe('fair share (paper §V-A)', () => {
  it('divides the total by the number of active flows', () => {
    const r = fairShare(series, { fromS: 1000.2, toS: 1001 });
    // a: 800 B, b: 2400 B over 0.8 s → 8000 and 24000 bit/s; total 32000; fair 16000.
    expect(r.durationS).toBeCloseTo(0.8, 9);
    expect(r.totalBitsPerSec).toBeCloseTo(32000, 6);
    expect(r.fairShareBitsPerSec).toBeCloseTo(16000, 6);
    expect(r.flows['a']?.percentOfFairShare).toBeCloseTo(50, 6);
    expect(r.flows['b']?.percentOfFairShare).toBeCloseTo(150, 6);
    expect(r.activeFlows).toEqual(['a', 'b']);
  });

  it('leaves a flow that moved nothing out of the divisor', () => {
    const r = fairShare(series, { fromS: 1000, toS: 1000.2 });
    expect(r.activeFlows).toEqual(['b']);
    expect(r.flows['b']?.percentOfFairShare).toBeCloseTo(100, 6);
    expect(r.flows['a']?.percentOfFairShare).toBe(0);
  });

  it('rejects series whose flows disagree in length', () => {
    expect(() => fairShare({ t0S: 0, binS: 0.1, bytes: { a: [1, 2], b: [1] } }, { fromS: 0, toS: 0.2 })).toThrow(/has 1 bins/);
  });
});

describe('Jain index and unfairness', () => {
  it('is 1 and 0 for equal shares', () => {
    expect(jainIndex([5, 5, 5])).toBeCloseTo(1, 12);
    expect(unfairness([5, 5, 5])).toBeCloseTo(0, 6);
  });

  it('matches the closed form for one flow taking everything', () => {
    // n flows, one with all: JFI = 1/n.
    expect(jainIndex([10, 0, 0, 0])).toBeCloseTo(0.25, 12);
    expect(unfairness([10, 0, 0, 0])).toBeCloseTo(Math.sqrt(0.75), 12);
  });

  it('rejects negative and empty input', () => {
    expect(() => jainIndex([])).toThrow(/no values/);
    expect(() => jainIndex([1, -1])).toThrow(/>= 0/);
  });
});

describe('summaries over repeats', () => {
  it('gives median, min and max', () => {
    expect(summarize([3, 1, 2])).toEqual({ n: 3, median: 2, min: 1, max: 3 });
    expect(summarize([4, 1, 3, 2])).toEqual({ n: 4, median: 2.5, min: 1, max: 4 });
    expect(() => summarize([])).toThrow(/no values/);
  });
});
