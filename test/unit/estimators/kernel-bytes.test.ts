// Bandwidth samples from the kernel's byte counter (src/estimators/kernel-bytes.ts):
// only intervals of continuous arrival count, a burst of late reads cannot
// inflate them (the counter moved when the bytes arrived), and consecutive
// intervals are summed over two round trips so that a flow served in turns by
// a deep queue is not read at the rate of its turns.
import { KernelByteMeter, MIN_SAMPLE_SPAN_SEC, sampleSpanSec } from '../../../src/estimators/kernel-bytes';
import { BandwidthEstimator } from '../../../src/estimators/bandwidth';

describe('KernelByteMeter', () => {
  it('samples the bytes received between two readings while bytes flow', () => {
    const m = new KernelByteMeter();
    expect(m.read({ bytesReceived: 1_000_000, atMs: 10_000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 1_187_500, atMs: 11_000, flowing: true })).toEqual({ bytes: 187_500, seconds: 1 });
    expect(m.read({ bytesReceived: 1_562_500, atMs: 13_000, flowing: true })).toEqual({ bytes: 375_000, seconds: 2 });
  });

  it('sums consecutive intervals until the sample spans what it was asked to', () => {
    const m = new KernelByteMeter();
    m.read({ bytesReceived: 0, atMs: 0, flowing: true }, 3);
    expect(m.read({ bytesReceived: 100_000, atMs: 1000, flowing: true }, 3)).toBeNull();
    expect(m.read({ bytesReceived: 100_000, atMs: 2000, flowing: true }, 3)).toBeNull();
    // a second in which nothing arrived while a response was under way counts, as nothing
    expect(m.read({ bytesReceived: 450_000, atMs: 3000, flowing: true }, 3)).toEqual({ bytes: 450_000, seconds: 3 });
    expect(m.read({ bytesReceived: 600_000, atMs: 4000, flowing: true }, 3)).toBeNull();
  });

  it('gives a span that breaks as far as it got, and starts the next one after the break', () => {
    const m = new KernelByteMeter();
    m.read({ bytesReceived: 0, atMs: 0, flowing: true }, 5);
    expect(m.read({ bytesReceived: 150_000, atMs: 1000, flowing: true }, 5)).toBeNull();
    expect(m.read({ bytesReceived: 300_000, atMs: 2000, flowing: true }, 5)).toBeNull();
    // the response ended and no other had begun: the span ends at the last reading that counted
    expect(m.read({ bytesReceived: 350_000, atMs: 3000, flowing: false }, 5)).toEqual({ bytes: 300_000, seconds: 2 });
    expect(m.read({ bytesReceived: 350_000, atMs: 4000, flowing: true }, 5)).toBeNull();
    expect(m.read({ bytesReceived: 530_000, atMs: 5000, flowing: true }, 5)).toBeNull();
    m.markIdle();
    expect(m.read({ bytesReceived: 900_000, atMs: 9000, flowing: true }, 5)).toEqual({ bytes: 180_000, seconds: 1 });
  });

  it('never ends a span on seconds in which nothing arrived (the page may be waiting on bytes the kernel already has)', () => {
    const m = new KernelByteMeter();
    m.read({ bytesReceived: 0, atMs: 0, flowing: true }, 4);
    expect(m.read({ bytesReceived: 200_000, atMs: 1000, flowing: true }, 4)).toBeNull();
    expect(m.read({ bytesReceived: 200_000, atMs: 2000, flowing: true }, 4)).toBeNull();
    expect(m.read({ bytesReceived: 200_000, atMs: 3000, flowing: true }, 4)).toBeNull();
    expect(m.read({ bytesReceived: 200_000, atMs: 4000, flowing: false }, 4)).toEqual({ bytes: 200_000, seconds: 1 });
    // nothing at all before the break: no sample
    m.read({ bytesReceived: 200_000, atMs: 5000, flowing: true }, 4);
    expect(m.read({ bytesReceived: 200_000, atMs: 6000, flowing: true }, 4)).toBeNull();
    m.markIdle();
    expect(m.read({ bytesReceived: 300_000, atMs: 7000, flowing: true }, 4)).toBeNull();
  });

  it('skips an interval that began or ended with nothing arriving (a request round trip, a pause)', () => {
    const m = new KernelByteMeter();
    m.read({ bytesReceived: 0, atMs: 0, flowing: false });
    expect(m.read({ bytesReceived: 50_000, atMs: 1000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 200_000, atMs: 2000, flowing: false })).toBeNull();
    expect(m.read({ bytesReceived: 200_000, atMs: 3000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 380_000, atMs: 4000, flowing: true })).toEqual({ bytes: 180_000, seconds: 1 });
  });

  it('skips an interval in which the connection went idle, even if bytes flow at both ends', () => {
    const m = new KernelByteMeter();
    m.read({ bytesReceived: 0, atMs: 0, flowing: true });
    m.markIdle();
    expect(m.read({ bytesReceived: 300_000, atMs: 5000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 480_000, atMs: 6000, flowing: true })).toEqual({ bytes: 180_000, seconds: 1 });
  });

  it('treats a counter that went backwards as a new connection, and a timeless interval as a break', () => {
    const m = new KernelByteMeter();
    m.read({ bytesReceived: 9_000_000, atMs: 0, flowing: true });
    expect(m.read({ bytesReceived: 100_000, atMs: 1000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 280_000, atMs: 2000, flowing: true })).toEqual({ bytes: 180_000, seconds: 1 });
    expect(m.read({ bytesReceived: 400_000, atMs: 2000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 580_000, atMs: 3000, flowing: true }, 4)).toBeNull();
    expect(m.read({ bytesReceived: 760_000, atMs: 4000, flowing: true }, 4)).toBeNull();
    // a new connection ends the span the old one was building
    expect(m.read({ bytesReceived: 50_000, atMs: 5000, flowing: true }, 4)).toEqual({ bytes: 360_000, seconds: 2 });
  });

  it('spans two round trips, and never less than the floor', () => {
    expect(sampleSpanSec(3.6)).toBeCloseTo(7.2);
    expect(sampleSpanSec(0.3)).toBe(MIN_SAMPLE_SPAN_SEC);
    expect(sampleSpanSec(Number.NaN)).toBe(MIN_SAMPLE_SPAN_SEC);
  });

  it('reads a flow served in turns at its mean rate, where one-second samples read it at the rate of its turns', () => {
    // The media connection behind a 1536 KB queue at 3 Mbit/s: one-second slices alternating between
    // 0.25 and 2.75 Mbit/s in turns of about two seconds (mean 1.5), always a response under way.
    const slices = Array.from({ length: 240 }, (_, i) => (Math.floor(i / 2) % 2 === 0 ? 0.25e6 : 2.75e6) / 8);
    const estimate = (spanSec: number): number => {
      const meter = new KernelByteMeter();
      const est = new BandwidthEstimator();
      let bytes = 0;
      meter.read({ bytesReceived: 0, atMs: 0, flowing: true }, spanSec);
      slices.forEach((b, i) => {
        bytes += b;
        const s = meter.read({ bytesReceived: bytes, atMs: (i + 1) * 1000, flowing: true }, spanSec);
        if (s) est.addTransfer(s.bytes, s.seconds);
      });
      return est.estimateBitsPerSec() ?? 0;
    };
    // one-second samples, weighted by their bytes: (0.25² + 2.75²) / (0.25 + 2.75) = 2.54 Mbit/s
    expect(estimate(0) / 1e6).toBeGreaterThan(2.2);
    // two round trips of 3.6 s: within 10 % of the mean
    expect(Math.abs(estimate(sampleSpanSec(3.6)) / 1e6 - 1.5)).toBeLessThan(0.15);
  });
});
