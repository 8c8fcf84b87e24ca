// The Sprint data plane's TCP_INFO reader (player/sprint/path-sampler.ts):
// RTTs into the estimates and the running train, the kernel byte counter
// into the bandwidth estimate, and read-timing samples only until it gives one.
import { EstimateHub } from '../../../player/estimates/estimate-hub';
import { PathSampler, type ConnectionNow } from '../../../player/sprint/path-sampler';
import type { PathInfo } from '../../../player/sprint/train-transport';

interface Rig {
  sampler: PathSampler;
  hub: EstimateHub;
  asked: string[];
  errors: Error[];
  readings: Array<PathInfo | Error | null>;
  now: { value: ConnectionNow | null };
}

function rig(): Rig {
  const hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'train wire timing' });
  const asked: string[] = [];
  const errors: Error[] = [];
  const readings: Array<PathInfo | Error | null> = [];
  const now: { value: ConnectionNow | null } = { value: { flowing: true, trainRttSamplesSec: null } };
  const sampler = new PathSampler({
    pathInfo: (origin) => {
      asked.push(origin);
      const next = readings.shift() ?? null;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    estimates: hub,
    connection: () => now.value,
    sampleSpanSec: () => 2,
    onError: (e) => errors.push(e),
  });
  return { sampler, hub, asked, errors, readings, now };
}

/** A reading `atMs` with `bytesReceived` and a 50 ms RTT. */
function reading(atMs: number, bytesReceived: number): PathInfo {
  return { rttSec: 0.05, minRttSec: 0.04, bytesReceived, atMs };
}

describe('PathSampler', () => {
  it('reads nothing before the media origin is known, and the first URL’s origin after', async () => {
    const r = rig();
    await r.sampler.sample();
    expect(r.asked).toEqual([]);
    r.sampler.noteMediaUrl('https://cdn.example/v/seg-1.m4s?token=a');
    r.sampler.noteMediaUrl('https://other.example/v/seg-2.m4s');
    await r.sampler.sample();
    expect(r.asked).toEqual(['https://cdn.example']);
  });

  it('does not read while the data plane does not sample', async () => {
    const r = rig();
    r.sampler.noteMediaUrl('http://127.0.0.1:8000/a.mp4');
    r.now.value = null;
    await r.sampler.sample();
    expect(r.asked).toEqual([]);
  });

  it('adds each RTT to the estimates and to the running train', async () => {
    const r = rig();
    const train: number[] = [];
    r.now.value = { flowing: true, trainRttSamplesSec: train };
    r.sampler.noteMediaUrl('http://127.0.0.1:8000/a.mp4');
    r.readings.push(reading(0, 0), reading(1000, 1_000_000));
    await r.sampler.sample();
    await r.sampler.sample();
    expect(train).toEqual([0.05, 0.05]);
    expect(r.hub.measuredRttSec()).toBeCloseTo(0.05, 6);
  });

  it('takes read-timing samples until the kernel counter gives one, then only the counter', async () => {
    const r = rig();
    r.sampler.noteMediaUrl('http://127.0.0.1:8000/a.mp4');
    r.sampler.addReadSample({ bytes: 4_000_000, seconds: 1 }); // 32 Mbit/s: a bunched read
    expect(r.hub.bandwidthBitsPerSec()).toBeCloseTo(32e6, -5);
    expect(r.sampler.kernelBandwidth).toBe(false);
    // 1.25 MB a second for two seconds: 10 Mbit/s over the 2 s span
    r.readings.push(reading(0, 0), reading(1000, 1_250_000), reading(2000, 2_500_000));
    for (let i = 0; i < 3; i++) await r.sampler.sample();
    expect(r.sampler.kernelBandwidth).toBe(true);
    const withKernel = r.hub.bandwidth.sampleCount;
    expect(withKernel).toBe(2);
    r.sampler.addReadSample({ bytes: 4_000_000, seconds: 1 });
    expect(r.hub.bandwidth.sampleCount).toBe(withKernel);
  });

  it('breaks the span at an idle moment: the interval across it does not count', async () => {
    const r = rig();
    r.sampler.noteMediaUrl('http://127.0.0.1:8000/a.mp4');
    // 10 Mbit/s for a second, then 40 Mbit/s across the idle moment: one 2 s span would read 25
    r.readings.push(reading(0, 0), reading(1000, 1_250_000), reading(2000, 6_250_000));
    await r.sampler.sample();
    await r.sampler.sample();
    r.sampler.markIdle();
    await r.sampler.sample();
    expect(r.hub.bandwidth.sampleCount).toBe(1);
    expect(r.hub.bandwidthBitsPerSec()).toBeCloseTo(10e6, -5);
  });

  it('reports a failed reading and goes on', async () => {
    const r = rig();
    r.sampler.noteMediaUrl('http://127.0.0.1:8000/a.mp4');
    r.readings.push(new Error('host gone'), reading(0, 0));
    await r.sampler.sample();
    await r.sampler.sample();
    expect(r.errors.map((e) => e.message)).toEqual(['host gone']);
    expect(r.hub.measuredRttSec()).toBeCloseTo(0.05, 6);
  });
});
