// Tests for the restart reserve (src/train/restart-reserve.ts): the buffer a
// resume needs is the next segment at the lowest recent restart rate (one
// initial window per round trip before any sample), with margin, capped by
// the request time limit; which idle gap counts as a pause.

import {
  assumedRestartBitsPerSec,
  RESTART_IDLE_MIN_SEC,
  RESTART_INITIAL_WINDOW_BYTES,
  RESTART_SAMPLES,
  RESTART_TIME_SHARE,
  RestartReserve,
  restartIdleSec,
  RTO_MIN_SEC,
} from '../../../src/train/restart-reserve';

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

  test('before any sample the assumed rate stands in; the first sample replaces it, even a faster one', () => {
    const r = new RestartReserve();
    const assumed = assumedRestartBitsPerSec(0.62) as number;
    expect(assumed).toBeCloseTo((10 * 1460 * 8) / 0.62, 6); // ≈ 0.19 Mbit/s
    // The testbed's 1.2 Mbit/s × 4 s segment: past the 20 s request limit at 0.19 Mbit/s, so the cap.
    expect(r.reserveSec(1_200_000 * 4, 20, assumed)).toBeCloseTo(20 / RESTART_TIME_SHARE, 6);
    expect(r.reserveSec(1_200_000 * 4, 20, null)).toBe(0);
    expect(r.rateBitsPerSec(assumed)).toBe(assumed);
    expect(r.rateBitsPerSec(0)).toBeNull();
    expect(r.reserveSec(1_200_000 * 4, 20, 0)).toBe(0);
    // The first restart measured: 603 KB in 17.0 s (0.28 Mbit/s).
    r.record({ bytes: 603_000, seconds: 17 });
    expect(r.rateBitsPerSec()).toBeCloseTo((603_000 * 8) / 17, 6);
    expect(r.rateBitsPerSec(assumed)).toBeCloseTo((603_000 * 8) / 17, 6);
    expect(r.reserveSec(1_200_000 * 4, 20, assumed)).toBeCloseTo((1_200_000 * 4) / ((603_000 * 8) / 17) / RESTART_TIME_SHARE, 6);
    // A sample faster than the assumption is a measurement, and it wins.
    const fast = new RestartReserve();
    fast.record({ bytes: 1_000_000, seconds: 1 }); // 8 Mbit/s
    expect(fast.reserveSec(8_000_000, 20, assumed)).toBeCloseTo(1 / RESTART_TIME_SHARE, 6);
  });

  test('no assumed rate without a measured round trip or a window', () => {
    expect(RESTART_INITIAL_WINDOW_BYTES).toBe(10 * 1460);
    expect(assumedRestartBitsPerSec(null)).toBeNull();
    expect(assumedRestartBitsPerSec(0)).toBeNull();
    expect(assumedRestartBitsPerSec(Infinity)).toBeNull();
    expect(assumedRestartBitsPerSec(0.5, 0)).toBeNull();
  });

  test('a pause is an idle gap as long as a retransmission timeout can be: a second, or the RTT plus 0.2 s when longer', () => {
    expect(restartIdleSec(null)).toBe(RESTART_IDLE_MIN_SEC);
    expect(restartIdleSec(0.05)).toBe(RESTART_IDLE_MIN_SEC);
    expect(restartIdleSec(1.5)).toBeCloseTo(1.5 + RTO_MIN_SEC, 9);
    expect(restartIdleSec(NaN)).toBe(RESTART_IDLE_MIN_SEC);
  });
});
