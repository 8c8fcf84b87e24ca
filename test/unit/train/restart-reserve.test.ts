// Tests for the restart reserve (src/train/restart-reserve.ts): the buffer a
// resume needs is the next segment at the lowest recent restart rate, with
// margin, capped by the request time limit; nothing before a sample.

import { RESTART_SAMPLES, RESTART_TIME_SHARE, RestartReserve } from '../../../src/train/restart-reserve';

describe('RestartReserve', () => {
  test('no sample, no reserve', () => {
    const r = new RestartReserve();
    expect(r.rateBitsPerSec()).toBeNull();
    expect(r.reserveSec(5_000_000)).toBe(0);
  });

  test("the testbed's stall: a 0.35 Mbit/s first segment makes a 1.35 Mbit/s × 4 s segment need more than 14 s", () => {
    const r = new RestartReserve();
    // Train #1's first segment: 168,848 bytes in 3.85 s (0.35 Mbit/s).
    r.record({ bytes: 168_848, seconds: 3.85 });
    const projected = (1_350_000 * 4) / ((168_848 * 8) / 3.85);
    expect(projected).toBeGreaterThan(15); // the 652 KB segment took 15.5 s
    expect(r.reserveSec(1_350_000 * 4)).toBeCloseTo(projected / RESTART_TIME_SHARE, 6);
    expect(r.reserveSec(1_350_000 * 4)).toBeGreaterThan(14); // above dash.js's 18 s - 4 s resume level
  });

  test('follows the lowest of the last RESTART_SAMPLES samples', () => {
    const r = new RestartReserve();
    r.record({ bytes: 100_000, seconds: 8 }); // 0.1 Mbit/s: the slowest, then aged out
    for (let i = 0; i < RESTART_SAMPLES - 1; i++) r.record({ bytes: 1_000_000, seconds: 4 }); // 2 Mbit/s
    expect(r.rateBitsPerSec()).toBeCloseTo(100_000, 6);
    r.record({ bytes: 1_000_000, seconds: 2 }); // 4 Mbit/s
    expect(r.sampleCount).toBe(RESTART_SAMPLES);
    expect(r.rateBitsPerSec()).toBeCloseTo(2_000_000, 6);
  });

  test('capped by the request time limit (past it, the rescue steps down), ignores samples that measure nothing', () => {
    const r = new RestartReserve();
    r.record({ bytes: 0, seconds: 3 });
    r.record({ bytes: 1000, seconds: 0 });
    r.record({ bytes: 1000, seconds: Infinity });
    expect(r.sampleCount).toBe(0);
    r.record({ bytes: 50_000, seconds: 4 }); // 0.1 Mbit/s
    expect(r.reserveSec(4_000_000)).toBeCloseTo(40 / RESTART_TIME_SHARE, 6);
    expect(r.reserveSec(4_000_000, 20)).toBeCloseTo(20 / RESTART_TIME_SHARE, 6);
    expect(r.reserveSec(0, 20)).toBe(0);
  });
});
