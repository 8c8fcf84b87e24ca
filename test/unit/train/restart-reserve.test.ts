// Tests for the restart reserve (src/train/restart-reserve.ts): a restart is
// sampled as its delivery curve until the media delivered catches up with
// the time elapsed; the buffer a resume needs is the largest draw-down the
// recent curves would cause at the next bitrate (and, until a few are
// measured, the next segment at one initial window per round trip), with
// margin, capped by the request time limit; which idle gap counts as a pause.

import {
  assumedRestartBitsPerSec,
  projectedDrawDownSec,
  RESERVE_CAP_TIMEOUTS,
  RESTART_IDLE_MIN_SEC,
  RESTART_INITIAL_WINDOW_BYTES,
  RESTART_MAX_POINTS,
  RESTART_SAMPLES,
  RESTART_TIME_SHARE,
  RestartReserve,
  RestartRun,
  restartIdleSec,
  RTO_MIN_SEC,
  type RestartPoint,
} from '../../../src/train/restart-reserve';

/** A run begun at t = 0 with 4 s segments of `bytes` arriving at `atSec` (seconds after the start). */
function run(arrivals: Array<[atSec: number, bytes: number]>, mediaSec = 4): RestartRun {
  const r = new RestartRun(0);
  for (const [atSec, bytes] of arrivals) r.arrived(atSec * 1000, bytes, mediaSec);
  return r;
}

/** A one-segment curve: `bytes` in `seconds`. */
function oneSegment(bytes: number, seconds: number): RestartPoint[] {
  return [{ atSec: seconds, bits: bytes * 8 }];
}

/** A restart whose first segment lands 12.5 s in and the second 20 s in, then one a second: 500 KB segments. */
const LATE_SECOND: Array<[atSec: number, bytes: number]> = [
  [12.5, 500_000],
  [20, 500_000],
  [21, 500_000],
  [22, 500_000],
  [23, 500_000],
  [24, 500_000],
];

describe('RestartRun', () => {
  test('is over once the media delivered catches up with the time elapsed', () => {
    // Over 20 minutes at BW-80 on the testbed: a restart's first two 1.0 Mbit/s segments (500 KB each,
    // requested together) landed 12.5 and 20.0 s after it, then the window opened.
    const r = new RestartRun(1000);
    expect(r.arrived(13_500, 500_000, 4)).toBe(false); // 12.5 s, 4 s of media
    expect(r.arrived(21_000, 500_000, 4)).toBe(false); // 20 s, 8 s
    for (const atMs of [22_000, 23_000, 24_000]) expect(r.arrived(atMs, 500_000, 4)).toBe(false); // 21-23 s, 12-20 s
    expect(r.drawDownSec).toBeCloseTo(20 - 4, 9); // the second segment: 20 s less the 4 s before it
    expect(r.arrived(25_000, 500_000, 4)).toBe(true); // 24 s, 24 s of media: caught up
    expect(r.over).toBe(true);
    expect(r.caughtUpSec).toBe(24);
    expect(r.arrived(26_000, 500_000, 4)).toBe(true); // nothing more goes on the curve
    expect(r.points.map((p) => [p.atSec, p.bits])).toEqual([
      [12.5, 4e6],
      [20, 8e6],
      [21, 12e6],
      [22, 16e6],
      [23, 20e6],
      [24, 24e6],
    ]);
    expect(r.firstBitsPerSec).toBeCloseTo(4e6 / 12.5, 6);
  });

  test('a first segment faster than its media ends it at once; its rate and draw-down are that segment', () => {
    const r = run([[2, 500_000]]);
    expect(r.over).toBe(true);
    expect(r.drawDownSec).toBe(2);
    expect(r.firstBitsPerSec).toBe(2e6);
  });

  test('the delivered rate counts the time since the last arrival, and bits still arriving; none while no time has passed', () => {
    const r = new RestartRun(0);
    expect(r.deliveredBitsPerSec(0)).toBeNull();
    expect(r.deliveredBitsPerSec(5000)).toBe(0); // 5 s and nothing arrived: nothing delivered
    expect(r.deliveredBitsPerSec(5000, 1_000_000)).toBeCloseTo(200_000, 6);
    expect(r.firstBitsPerSec).toBeNull();
    r.arrived(10_000, 250_000, 4); // 2 Mbit in 10 s
    expect(r.deliveredBitsPerSec(10_000)).toBeCloseTo(200_000, 6);
    expect(r.deliveredBitsPerSec(20_000)).toBeCloseTo(100_000, 6);
    expect(r.deliveredBitsPerSec(5000)).toBeCloseTo(200_000, 6); // never before the last arrival
  });

  test('before its first arrival the rate is no more than the planned rate, and the time spent lowers it; after, what it delivered', () => {
    const r = new RestartRun(0);
    expect(r.deliveringBitsPerSec(0, 0, 900_000)).toBe(900_000); // no time yet: the plan
    expect(r.deliveringBitsPerSec(0, 0, null)).toBeNull();
    expect(r.deliveringBitsPerSec(1000, 2_000_000, 900_000)).toBe(900_000); // 2 Mbit/s so far: the plan still bounds it
    expect(r.deliveringBitsPerSec(10_000, 2_000_000, 900_000)).toBeCloseTo(200_000, 6); // 10 s for 2 Mbit: slower than planned
    expect(r.deliveringBitsPerSec(10_000, 2_000_000, null)).toBeCloseTo(200_000, 6);
    r.arrived(10_000, 250_000, 4); // 2 Mbit in 10 s
    // Measured from here on, faster or slower than the plan, bits still arriving included.
    expect(r.deliveringBitsPerSec(10_000, 0, 100_000)).toBeCloseTo(200_000, 6);
    expect(r.deliveringBitsPerSec(20_000, 2_000_000, 900_000)).toBeCloseTo(200_000, 6);
  });

  test('a failed segment adds its bytes and no media; end() stops it; arrivals out of order keep the curve monotone', () => {
    const r = new RestartRun(0);
    r.arrived(8000, 100_000, 4);
    r.arrived(6000, 50_000, 0); // earlier than the last: taken at 8 s
    expect(r.points[1]).toEqual({ atSec: 8, bits: 1_200_000 });
    expect(r.drawDownSec).toBe(8); // the first arrival, 8 s in with no media before it
    r.end();
    expect(r.over).toBe(true);
    expect(r.arrived(9000, 100_000, 4)).toBe(true);
    expect(r.points).toHaveLength(2);
  });

  test('ends after RESTART_MAX_POINTS arrivals even if it never catches up', () => {
    const r = new RestartRun(0);
    let over = false;
    for (let i = 1; i <= RESTART_MAX_POINTS && !over; i++) over = r.arrived(i * 10_000, 10_000, 4);
    expect(over).toBe(true);
    expect(r.points).toHaveLength(RESTART_MAX_POINTS);
    expect(r.caughtUpSec).toBeNull(); // over by the cap, not by catching up
  });
});

describe('projectedDrawDownSec', () => {
  const sampled = run(LATE_SECOND);
  const curve = sampled.points;

  test('at the bitrate sampled it is the draw-down measured', () => {
    expect(projectedDrawDownSec(curve, 500_000 * 8, 4)).toBeCloseTo(sampled.drawDownSec, 9);
    expect(sampled.drawDownSec).toBeCloseTo(16, 9);
  });

  test('half the bitrate: segments of half the bits, the curve interpolated between arrivals', () => {
    // The j-th 2 Mbit segment arrives at 6.25, 12.5, 16.25, 20, 20.5, 21, ... s; less the media before
    // it (0, 4, 8, 12, 16, 20, ... s): 6.25, 8.5, 8.25, 8, 4.5, 1, ... — the second is the worst.
    expect(projectedDrawDownSec(curve, 250_000 * 8, 4)).toBeCloseTo(8.5, 9);
  });

  test('a larger segment than the curve delivered is projected at its average rate', () => {
    const short = oneSegment(100_000, 5); // 0.16 Mbit/s
    expect(projectedDrawDownSec(short, 1_000_000 * 8, 4)).toBeCloseTo(50, 9);
  });

  test('nothing without a curve or a segment', () => {
    expect(projectedDrawDownSec([], 1e6, 4)).toBe(0);
    expect(projectedDrawDownSec(curve, 0, 4)).toBe(0);
    expect(projectedDrawDownSec(curve, NaN, 4)).toBe(0);
  });
});

describe('RestartReserve', () => {
  test('no sample and no assumed rate, no reserve', () => {
    const r = new RestartReserve();
    expect(r.rateBitsPerSec()).toBeNull();
    expect(r.reserveSec({ segmentBits: 5_000_000, segmentSec: 4 })).toBe(0);
  });

  test("the testbed's stall: a 0.35 Mbit/s first segment makes a 1.35 Mbit/s × 4 s segment need more than 14 s", () => {
    const r = new RestartReserve();
    // Train #1's first segment: 168,848 bytes in 3.85 s (0.35 Mbit/s).
    r.record(oneSegment(168_848, 3.85));
    const projected = (1_350_000 * 4) / ((168_848 * 8) / 3.85);
    expect(projected).toBeGreaterThan(15); // the 652 KB segment took 15.5 s
    expect(r.reserveSec({ segmentBits: 1_350_000 * 4, segmentSec: 4 })).toBeCloseTo(projected / RESTART_TIME_SHARE, 6);
  });

  test("the 20-minute BW-80 stall: the reserve covers the second segment's arrival, not only the first's", () => {
    const r = new RestartReserve();
    r.record(run(LATE_SECOND).points);
    // On the first segment alone it would be 12.5 s / 0.8 (15.6 s, and the buffer ran out at 16 s);
    // the second lands 20 s in with 4 s of media before it.
    expect(r.reserveSec({ segmentBits: 500_000 * 8, segmentSec: 4, timeoutSec: 20 })).toBeCloseTo(16 / RESTART_TIME_SHARE, 9);
  });

  test('the largest of the last RESTART_SAMPLES draw-downs; the rate is the lowest first segment', () => {
    const r = new RestartReserve();
    r.record(oneSegment(100_000, 8)); // 0.1 Mbit/s: the slowest, then aged out
    for (let i = 0; i < RESTART_SAMPLES - 1; i++) r.record(oneSegment(1_000_000, 4)); // 2 Mbit/s
    expect(r.rateBitsPerSec()).toBeCloseTo(100_000, 6);
    expect(r.reserveSec({ segmentBits: 8e6, segmentSec: 4 })).toBeCloseTo(80 / RESTART_TIME_SHARE, 6);
    r.record(oneSegment(1_000_000, 2)); // 4 Mbit/s
    expect(r.sampleCount).toBe(RESTART_SAMPLES);
    expect(r.rateBitsPerSec()).toBeCloseTo(2_000_000, 6);
    expect(r.reserveSec({ segmentBits: 8e6, segmentSec: 4 })).toBeCloseTo(4 / RESTART_TIME_SHARE, 6);
  });

  test('capped at RESERVE_CAP_TIMEOUTS request time limits; ignores curves that measure nothing', () => {
    const r = new RestartReserve();
    r.record([]);
    r.record([{ atSec: 3, bits: 0 }]);
    r.record([{ atSec: 0, bits: 1000 }]);
    r.record([{ atSec: Infinity, bits: 1000 }]);
    expect(r.sampleCount).toBe(0);
    r.record(oneSegment(50_000, 4)); // 0.1 Mbit/s
    expect(r.reserveSec({ segmentBits: 4_000_000, segmentSec: 4 })).toBeCloseTo(40 / RESTART_TIME_SHARE, 6);
    expect(r.reserveSec({ segmentBits: 4_000_000, segmentSec: 4, timeoutSec: 15 })).toBeCloseTo(
      (RESERVE_CAP_TIMEOUTS * 15) / RESTART_TIME_SHARE,
      6,
    );
    expect(r.reserveSec({ segmentBits: 0, segmentSec: 4, timeoutSec: 20 })).toBe(0);
  });

  test('until RESTART_SAMPLES restarts are measured the assumed rate is a floor, capped at one time limit', () => {
    const r = new RestartReserve();
    const assumed = assumedRestartBitsPerSec(0.62) as number;
    expect(assumed).toBeCloseTo((10 * 1460 * 8) / 0.62, 6); // ≈ 0.19 Mbit/s
    const plan = { segmentBits: 1_200_000 * 4, segmentSec: 4, timeoutSec: 20, assumedBitsPerSec: assumed };
    // The testbed's 1.2 Mbit/s × 4 s segment: past the 20 s request limit at 0.19 Mbit/s, so the cap.
    expect(r.reserveSec(plan)).toBeCloseTo(20 / RESTART_TIME_SHARE, 6);
    expect(r.reserveSec({ ...plan, assumedBitsPerSec: null })).toBe(0);
    expect(r.reserveSec({ ...plan, assumedBitsPerSec: 0 })).toBe(0);
    expect(r.rateBitsPerSec(assumed)).toBe(assumed);
    expect(r.rateBitsPerSec(0)).toBeNull();
    // Over 20 minutes at BW-100 a first restart of 0.96 Mbit/s (after a 5 s pause) planned 7 s, and the next, at 0.47, stalled:
    // a fast sample does not lift the floor while there are few.
    r.record(oneSegment(600_000, 5)); // 0.96 Mbit/s
    expect(r.rateBitsPerSec(assumed)).toBeCloseTo(960_000, 6);
    expect(r.reserveSec(plan)).toBeCloseTo(20 / RESTART_TIME_SHARE, 6);
    // Once RESTART_SAMPLES are measured, the samples alone.
    for (let i = 1; i < RESTART_SAMPLES; i++) r.record(oneSegment(600_000, 5));
    expect(r.reserveSec(plan)).toBeCloseTo(5 / RESTART_TIME_SHARE, 6);
    // A sample slower than the floor counts in full (up to the cap of two time limits).
    const slow = new RestartReserve();
    slow.record(oneSegment(300_000, 30)); // 80 kbit/s
    expect(slow.reserveSec(plan)).toBeCloseTo(40 / RESTART_TIME_SHARE, 6);
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
