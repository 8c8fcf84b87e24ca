// Tests for the chunk-size model (paper §IV-A, Program 1 and Eq. 1):
// hand-computed cases, properties over a grid of networks, and rejection of
// degenerate inputs. The round counting is checked against an independent
// round-by-round simulation of the model's three TCP phases.

import { chunkSize, ChunkModelParams, transferEfficiency } from '../../../src/model/chunk-size';

describe('chunkSize: hand-computed cases', () => {
  test("1.5 Mbit/s, 200 ms (the issue's acceptance case)", () => {
    // BDP_f = 1,500,000 b/s × 0.2 s / 8 = 37,500 B
    // SST   = 3/4 × 37,500 = 28,125 B;  IW = 10 × 1460 = 14,600 B
    // r1 = ceil(log2(28,125 / 14,600)) + 1 = ceil(0.946) + 1 = 2
    // r2 = floor((37,500 − 28,125) / 1460) + 1 = floor(6.42) + 1 = 7
    //      (Program 1 without the floor: 7.42)
    // S  = (1 − 0.1) × ((2 + 7) / 0.1) × 37,500 = 0.9 × 90 × 37,500 = 3,037,500 B
    //      (Program 1 without the floor: 0.9 × 94.21 × 37,500 = 3,179,667 B)
    const c = chunkSize({ bandwidthBitsPerSec: 1.5e6, rttSec: 0.2 });
    expect(c).toEqual({
      fairBdpBytes: 37500,
      slowStartThresholdBytes: 28125,
      slowStartRounds: 2,
      additiveIncreaseRounds: 7,
      chunkBytes: 3037500,
    });
  });

  test('10 Mbit/s, 100 ms', () => {
    // BDP = 10e6 × 0.1 / 8 = 125,000 B; SST = 93,750 B; IW = 14,600 B
    // 14,600 × 2^2 = 58,400 < 93,750 <= 14,600 × 2^3 = 116,800  =>  r1 = 3 + 1 = 4
    // r2 = floor(31,250 / 1460) + 1 = floor(21.40) + 1 = 22
    // S  = 0.9 × (26 / 0.1) × 125,000 = 0.9 × 260 × 125,000 = 29,250,000 B
    const c = chunkSize({ bandwidthBitsPerSec: 10e6, rttSec: 0.1 });
    expect(c.slowStartRounds).toBe(4);
    expect(c.additiveIncreaseRounds).toBe(22);
    expect(c.chunkBytes).toBe(29_250_000);
  });

  test('SST exactly a power of two times the initial window, custom MSS', () => {
    // 3.2 Mbit/s × 0.1 s / 8 = 40,000 B; SST = 30,000 B; IW = 10 × 1500 = 15,000 B
    // SST / IW = 2 exactly: log2 = 1 => r1 = 1 + 1 = 2 (no spurious extra round)
    // r2 = floor(10,000 / 1500) + 1 = 6 + 1 = 7
    // S  = 0.9 × 90 × 40,000 = 3,240,000 B
    const c = chunkSize({ bandwidthBitsPerSec: 3.2e6, rttSec: 0.1, mssBytes: 1500 });
    expect([c.slowStartRounds, c.additiveIncreaseRounds, c.chunkBytes]).toEqual([2, 7, 3_240_000]);
  });

  test('(BDP − SST) / MSS an exact integer: floor does not round it down by a hair', () => {
    // 2.336 Mbit/s × 0.1 s / 8 = 29,200 B; BDP − SST = 7,300 = 5 × 1460 => r2 = 5 + 1 = 6
    // SST = 21,900; 14,600 < 21,900 <= 29,200 => r1 = 2
    // S = 0.9 × 80 × 29,200 = 2,102,400 B
    const c = chunkSize({ bandwidthBitsPerSec: 2.336e6, rttSec: 0.1 });
    expect([c.slowStartRounds, c.additiveIncreaseRounds, c.chunkBytes]).toEqual([2, 6, 2_102_400]);
  });

  test('epsilon and initial window are used', () => {
    // ε = 0.5: S = 0.5 × (9 / 0.5) × 37,500 = 337,500 B
    expect(chunkSize({ bandwidthBitsPerSec: 1.5e6, rttSec: 0.2, epsilon: 0.5 }).chunkBytes).toBe(337_500);
    // IW = 1 segment: 1460 × 2^4 = 23,360 < 28,125 <= 46,720 => r1 = 6; r2 = 7
    // S = 0.9 × 130 × 37,500 = 4,387,500 B
    const c = chunkSize({ bandwidthBitsPerSec: 1.5e6, rttSec: 0.2, initialWindowSegments: 1 });
    expect([c.slowStartRounds, c.chunkBytes]).toEqual([6, 4_387_500]);
  });

  test('BDP below the initial window: one slow-start round, model stays conservative', () => {
    // 100 kbit/s × 10 ms / 8 = 125 B; SST = 93.75 B < IW = 14,600 B
    // log2(93.75 / 14,600) < 0 => r1 = max(1, ...) = 1; r2 = floor(31.25 / 1460) + 1 = 1
    // S = 0.9 × (2 / 0.1) × 125 = 2,250 B
    const c = chunkSize({ bandwidthBitsPerSec: 100e3, rttSec: 0.01 });
    expect([c.slowStartRounds, c.additiveIncreaseRounds, c.chunkBytes]).toEqual([1, 1, 2250]);
    // The whole chunk fits in the first flight: 1 round; Eq. 1 would say 18, capped at 1.
    const e = transferEfficiency(c.chunkBytes, { bandwidthBitsPerSec: 100e3, rttSec: 0.01 });
    expect(e.rounds).toEqual({ r1: 1, r2: 0, r3: 0, total: 1 });
    expect(e.efficiency).toBe(1);
    expect(e.predictedThroughputBitsPerSec).toBe(100e3);
  });
});

describe('transferEfficiency: hand-computed cases (1.5 Mbit/s, 200 ms)', () => {
  const net = { bandwidthBitsPerSec: 1.5e6, rttSec: 0.2 };
  // IW = 14,600; SST = 28,125; BDP = 37,500; r1 = 2, r2 = 7
  // b1 = 14,600 × (2^2 − 1) = 43,800
  // b2 = 7 × 28,125 + 1460 × 7 × 6 / 2 = 196,875 + 30,660 = 227,535;  b1 + b2 = 271,335
  test.each([
    [1, { r1: 1, r2: 0, r3: 0, total: 1 }],
    [14_600, { r1: 1, r2: 0, r3: 0, total: 1 }], // exactly the initial window
    [14_601, { r1: 2, r2: 0, r3: 0, total: 2 }],
    [43_800, { r1: 2, r2: 0, r3: 0, total: 2 }], // exactly b1
    [43_801, { r1: 2, r2: 1, r3: 0, total: 3 }],
    [71_925, { r1: 2, r2: 1, r3: 0, total: 3 }], // b1 + SST
    [71_926, { r1: 2, r2: 2, r3: 0, total: 4 }],
    [271_335, { r1: 2, r2: 7, r3: 0, total: 9 }], // exactly b1 + b2
    [271_336, { r1: 2, r2: 7, r3: 1, total: 10 }],
  ])('%d bytes', (size, rounds) => {
    expect(transferEfficiency(size, net).rounds).toEqual(rounds);
  });

  test('a transfer of exactly the chunk size', () => {
    // r3 = ceil((3,037,500 − 271,335) / 37,500) = ceil(73.76) = 74; total = 83
    // E = 3,037,500 / (83 × 37,500) = 3,037,500 / 3,112,500 = 0.97590...
    const e = transferEfficiency(3_037_500, net);
    expect(e.rounds).toEqual({ r1: 2, r2: 7, r3: 74, total: 83 });
    expect(e.efficiency).toBeCloseTo(3_037_500 / 3_112_500, 12);
    expect(e.predictedThroughputBitsPerSec).toBeCloseTo(1.5e6 * (3_037_500 / 3_112_500), 6);
    expect(e.predictedSeconds).toBeCloseTo(83 * 0.2, 9); // one RTT per round
  });

  test('a small transfer is inefficient: one 4 s segment at 300 kbit/s (150,000 B)', () => {
    // 150,000 − 43,800 = 106,200 into additive increase:
    // rounds carry 28,125, 29,585, 31,045 (cum 88,755), 32,505 (cum 121,260) => r2 = 4
    // E = 150,000 / (6 × 37,500) = 0.667
    const e = transferEfficiency(150_000, net);
    expect(e.rounds).toEqual({ r1: 2, r2: 4, r3: 0, total: 6 });
    expect(e.efficiency).toBeCloseTo(150_000 / 225_000, 12);
  });
});

/** Independent round-by-round simulation of the model: bytes carried by round i (0-based). */
function roundsBySimulation(sizeBytes: number, p: Required<ChunkModelParams>): number {
  const bdp = (p.bandwidthBitsPerSec * p.rttSec) / 8;
  const sst = 0.75 * bdp;
  const iw = p.initialWindowSegments * p.mssBytes;
  const c = chunkSize(p);
  let sent = 0;
  for (let round = 0; round < 1_000_000; round += 1) {
    let carried: number;
    if (round < c.slowStartRounds) carried = iw * 2 ** round;
    else if (round < c.slowStartRounds + c.additiveIncreaseRounds) {
      carried = sst + (round - c.slowStartRounds) * p.mssBytes;
    } else carried = bdp;
    sent += carried;
    if (sent >= sizeBytes - 1e-6) return round + 1;
  }
  throw new Error('simulation did not finish');
}

const BANDWIDTHS = [64e3, 300e3, 1.5e6, 3e6, 6e6, 25e6, 100e6, 1e9];
const RTTS = [0.001, 0.01, 0.05, 0.2, 0.65, 2];
const GRID = BANDWIDTHS.flatMap((bandwidthBitsPerSec) => RTTS.map((rttSec) => ({ bandwidthBitsPerSec, rttSec })));

describe('properties', () => {
  test('the chunk size depends only on the BDP and never decreases as the BDP grows', () => {
    // Dense geometric sweep of the BDP from 10 B to 1 GB crosses every r1 and r2 step.
    let previous = 0;
    for (let i = 0; i <= 4000; i += 1) {
      const bdpBytes = 10 * 10 ** (i / 500);
      const c = chunkSize({ bandwidthBitsPerSec: bdpBytes * 8, rttSec: 1 });
      expect(c.chunkBytes).toBeGreaterThanOrEqual(previous);
      previous = c.chunkBytes;
    }
    // Over the grid, sorted by BDP; equal BDPs from different (bandwidth, RTT) agree.
    const sorted = GRID.map((net) => ({ net, c: chunkSize(net) })).sort((a, b) => a.c.fairBdpBytes - b.c.fairBdpBytes);
    for (let i = 1; i < sorted.length; i += 1) {
      expect(sorted[i]!.c.chunkBytes).toBeGreaterThanOrEqual(sorted[i - 1]!.c.chunkBytes);
    }
    expect(chunkSize({ bandwidthBitsPerSec: 3e6, rttSec: 0.1 }).chunkBytes).toBe(
      chunkSize({ bandwidthBitsPerSec: 1.5e6, rttSec: 0.2 }).chunkBytes,
    );
  });

  test('a transfer of exactly chunkBytes reaches efficiency >= 1 − ε', () => {
    let cases = 0;
    for (const net of GRID) {
      for (const epsilon of [0.01, 0.05, 0.1, 0.25, 0.5, 0.9]) {
        for (const [mssBytes, initialWindowSegments] of [
          [1460, 10],
          [536, 4],
          [8960, 1],
        ] as const) {
          const p = { ...net, epsilon, mssBytes, initialWindowSegments };
          const c = chunkSize(p);
          const e = transferEfficiency(c.chunkBytes, p);
          if (e.efficiency < 1 - epsilon) {
            throw new Error(`efficiency ${e.efficiency} < ${1 - epsilon} for ${JSON.stringify(p)}`);
          }
          expect(e.predictedThroughputBitsPerSec).toBeLessThanOrEqual(net.bandwidthBitsPerSec);
          cases += 1;
        }
      }
    }
    expect(cases).toBe(GRID.length * 18);
  });

  test('smaller ε gives a larger chunk', () => {
    for (const net of GRID) {
      const sizes = [0.5, 0.25, 0.1, 0.05, 0.01].map((epsilon) => chunkSize({ ...net, epsilon }).chunkBytes);
      for (let i = 1; i < sizes.length; i += 1) expect(sizes[i]!).toBeGreaterThan(sizes[i - 1]!);
    }
  });

  test('round counts match a round-by-round simulation, for sizes around every phase boundary', () => {
    for (const net of [
      { bandwidthBitsPerSec: 1.5e6, rttSec: 0.2 },
      { bandwidthBitsPerSec: 25e6, rttSec: 0.05 },
      { bandwidthBitsPerSec: 100e3, rttSec: 0.01 },
    ]) {
      const p = { ...net, epsilon: 0.1, mssBytes: 1460, initialWindowSegments: 10 };
      const chunk = chunkSize(p).chunkBytes;
      let previousTotal = 0;
      for (let i = 0; i <= 600; i += 1) {
        const size = Math.max(1, Math.round((chunk * 1.2 * i) / 600));
        const total = transferEfficiency(size, p).rounds.total;
        expect(total).toBe(roundsBySimulation(size, p));
        expect(total).toBeGreaterThanOrEqual(previousTotal); // more bytes never take fewer rounds
        previousTotal = total;
      }
    }
  });

  test('larger BDP lowers the efficiency of a fixed-size transfer (§IV-A)', () => {
    const size = 1_250_000;
    const e = [0.02, 0.05, 0.1, 0.2, 0.5].map((rttSec) => transferEfficiency(size, { bandwidthBitsPerSec: 2e6, rttSec }).efficiency);
    for (let i = 1; i < e.length; i += 1) expect(e[i]!).toBeLessThan(e[i - 1]!);
  });
});

describe('degenerate inputs are rejected with a RangeError naming the parameter and value', () => {
  const ok = { bandwidthBitsPerSec: 1.5e6, rttSec: 0.2 };
  test.each([
    ['bandwidthBitsPerSec', { ...ok, bandwidthBitsPerSec: 0 }, '0'],
    ['bandwidthBitsPerSec', { ...ok, bandwidthBitsPerSec: -1 }, '-1'],
    ['bandwidthBitsPerSec', { ...ok, bandwidthBitsPerSec: NaN }, 'NaN'],
    ['bandwidthBitsPerSec', { ...ok, bandwidthBitsPerSec: Infinity }, 'Infinity'],
    ['rttSec', { ...ok, rttSec: 0 }, '0'],
    ['rttSec', { ...ok, rttSec: -0.2 }, '-0.2'],
    ['rttSec', { ...ok, rttSec: NaN }, 'NaN'],
    ['epsilon', { ...ok, epsilon: 0 }, '0'],
    ['epsilon', { ...ok, epsilon: 1 }, '1'],
    ['epsilon', { ...ok, epsilon: -0.1 }, '-0.1'],
    ['epsilon', { ...ok, epsilon: 1.5 }, '1.5'],
    ['epsilon', { ...ok, epsilon: NaN }, 'NaN'],
    ['mssBytes', { ...ok, mssBytes: 0 }, '0'],
    ['mssBytes', { ...ok, mssBytes: 1460.5 }, '1460.5'],
    ['initialWindowSegments', { ...ok, initialWindowSegments: 0 }, '0'],
    ['initialWindowSegments', { ...ok, initialWindowSegments: -10 }, '-10'],
  ])('%s = %p', (name, params, shown) => {
    for (const call of [() => chunkSize(params), () => transferEfficiency(1000, params)]) {
      expect(call).toThrow(RangeError);
      expect(call).toThrow(new RegExp(`^${name} .*${shown.replace('.', '\\.')}$`));
    }
  });

  test('overflowing BDP', () => {
    expect(() => chunkSize({ bandwidthBitsPerSec: 1e308, rttSec: 100 })).toThrow(/overflows/);
  });

  test.each([0, -1, NaN, Infinity])('transfer size %p', (size) => {
    expect(() => transferEfficiency(size, ok)).toThrow(RangeError);
    expect(() => transferEfficiency(size, ok)).toThrow(/^sizeBytes /);
  });
});
