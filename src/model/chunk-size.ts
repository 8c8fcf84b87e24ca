// The chunk-size model. Paper §IV-A: Program 1 (`getChunkSize`) and Eq. 1
// (efficiency of a transfer of S bytes, E = S / (r × BDP_f)).
//
// A *chunk* is the amount of video data downloaded as one continuous stream.
// The model counts the round trips TCP spends in its three phases:
//   1. slow start from the initial window (IW × MSS bytes) to the slow-start
//      threshold SST, doubling every round:  r1 = ceil(log2(SST / (IW·MSS))) + 1,
//      b1 = IW·MSS · (2^r1 − 1);
//   2. additive increase from SST to the fair BDP, one MSS per round:
//      r2 = floor((BDP_f − SST) / MSS) + 1, b2 = bytes of those r2 rounds;
//   3. transfer at one fair BDP per round: r3 = ceil((S − (b1 + b2)) / BDP_f).
// Program 1 then picks S so that the first two phases are at most a fraction ε
// of all rounds: r = (r1 + r2) / ε and S = (1 − ε) · r · BDP_f, which makes
// E >= 1 − ε. Like the paper it assumes (i) cwnd falls back to the initial
// window between requests and (ii) SST = 3/4 of the fair BDP.
//
// Units are in the names: bytes, bits per second, seconds. Pure functions, no I/O.

import { requireInteger, requireOpenUnitInterval, requirePositive } from './validate';

/** Paper §IV-A: "in our experience, ε = 0.1 is sufficient". */
export const DEFAULT_EPSILON = 0.1;
/** Ethernet-path TCP maximum segment size, bytes. */
export const DEFAULT_MSS_BYTES = 1460;
/** Initial congestion window in segments (RFC 6928, the paper's "10 packets"). */
export const DEFAULT_INITIAL_WINDOW_SEGMENTS = 10;
/** Program 1 assumption (ii): the slow-start threshold is 3/4 of the fair BDP. */
export const SLOW_START_THRESHOLD_FRACTION = 3 / 4;

/** Network estimates and TCP constants the model works from. */
export interface ChunkModelParams {
  /** Estimated fair-share bandwidth of the video flow, bits per second. */
  readonly bandwidthBitsPerSec: number;
  /** Estimated round-trip time, seconds. */
  readonly rttSec: number;
  /** Allowed shortfall from fair-share throughput, strictly between 0 and 1 (default 0.1). */
  readonly epsilon?: number;
  /** TCP maximum segment size, bytes (default 1460). */
  readonly mssBytes?: number;
  /** TCP initial congestion window, in segments (default 10). */
  readonly initialWindowSegments?: number;
}

/** Program 1's answer and the quantities it is built from. */
export interface ChunkSize {
  /** Fair-share bandwidth × RTT, bytes (not rounded). */
  readonly fairBdpBytes: number;
  /** SST = 3/4 × fair BDP, bytes (not rounded). */
  readonly slowStartThresholdBytes: number;
  /** r1: rounds of slow start up to SST (>= 1). */
  readonly slowStartRounds: number;
  /** r2: rounds of additive increase from SST to the fair BDP (>= 1, an integer). */
  readonly additiveIncreaseRounds: number;
  /** The chunk size S = (1 − ε) · ((r1 + r2) / ε) · BDP_f, bytes, rounded up. */
  readonly chunkBytes: number;
}

/** Round trips per TCP phase for one transfer (Eq. 1). */
export interface TransferRounds {
  /** Rounds spent in slow start (phase 1). */
  readonly r1: number;
  /** Rounds spent in additive increase (phase 2). */
  readonly r2: number;
  /** Rounds spent sending one fair BDP per round (phase 3). */
  readonly r3: number;
  /** r1 + r2 + r3. */
  readonly total: number;
}

/** Eq. 1's prediction for a transfer of a given size. */
export interface TransferPrediction {
  readonly rounds: TransferRounds;
  /** E = S / (total × BDP_f), capped at 1 (see transferEfficiency). */
  readonly efficiency: number;
  /** E × fair-share bandwidth, bits per second. */
  readonly predictedThroughputBitsPerSec: number;
  /** Predicted duration of the transfer: S × 8 / predicted throughput, seconds. */
  readonly predictedSeconds: number;
}

/** Everything both entry points derive from validated parameters. */
interface Phases {
  readonly bandwidthBitsPerSec: number;
  readonly rttSec: number;
  readonly epsilon: number;
  readonly mssBytes: number;
  readonly initialWindowBytes: number;
  readonly fairBdpBytes: number;
  readonly sstBytes: number;
  /** r1 and b1: full slow-start phase. */
  readonly r1: number;
  readonly b1: number;
  /** r2 and b2: full additive-increase phase. */
  readonly r2: number;
  readonly b2: number;
}

/**
 * Rounds a positive quantity up to an integer, ignoring floating-point noise
 * of a billionth of its size, so that an exact hand-computed 90.0 rounds to 90
 * and not to 91 when the floating-point result is 90.00000000000001.
 */
function ceilIgnoringNoise(x: number): number {
  return Math.ceil(x - 1e-9 * Math.max(1, Math.abs(x)));
}

/** Same for rounding down. */
function floorIgnoringNoise(x: number): number {
  return Math.floor(x + 1e-9 * Math.max(1, Math.abs(x)));
}

/** Bytes sent in the first k rounds of slow start: IW·MSS · (2^k − 1). */
function slowStartBytes(initialWindowBytes: number, k: number): number {
  return initialWindowBytes * (2 ** k - 1);
}

/**
 * Bytes sent in the first m rounds of additive increase, where round j
 * (j = 0 .. m−1) carries SST + j·MSS: m·SST + MSS·m(m−1)/2.
 *
 * The paper prints b2 = r2·SST + MSS(r2 − 1); that drops the arithmetic-series
 * factor and contradicts its own description ("cwnd increases by one MSS every
 * RTT"), so we sum the series the text describes, as it does for b1 ("via a
 * geometric series"). This only changes b2, i.e. r3 and E; Program 1's chunk
 * size does not use b2.
 */
function additiveIncreaseBytes(sstBytes: number, mssBytes: number, m: number): number {
  return m * sstBytes + (mssBytes * m * (m - 1)) / 2;
}

function resolvePhases(p: ChunkModelParams): Phases {
  if (p === null || typeof p !== 'object') {
    throw new TypeError(`chunk model parameters must be an object, got ${String(p)}`);
  }
  const epsilon = p.epsilon ?? DEFAULT_EPSILON;
  const mssBytes = p.mssBytes ?? DEFAULT_MSS_BYTES;
  const initialWindowSegments = p.initialWindowSegments ?? DEFAULT_INITIAL_WINDOW_SEGMENTS;
  requirePositive('bandwidthBitsPerSec', p.bandwidthBitsPerSec);
  requirePositive('rttSec', p.rttSec);
  requireOpenUnitInterval('epsilon', epsilon);
  requireInteger('mssBytes', mssBytes);
  requireInteger('initialWindowSegments', initialWindowSegments);

  const fairBdpBytes = (p.bandwidthBitsPerSec * p.rttSec) / 8;
  if (!Number.isFinite(fairBdpBytes)) {
    throw new RangeError(`bandwidthBitsPerSec × rttSec overflows: ${p.bandwidthBitsPerSec} × ${p.rttSec}`);
  }
  const sstBytes = fairBdpBytes * SLOW_START_THRESHOLD_FRACTION;
  const initialWindowBytes = initialWindowSegments * mssBytes;

  // r1 = ceil(log2(SST / IW)) + 1, at least 1. Computed as "the smallest k >= 0
  // with IW·2^k >= SST, plus one", which is the same number without log2's
  // rounding error at exact powers of two. When the fair BDP is so small that
  // SST < IW, log2 is negative and Program 1's max(1, ...) applies: k = 0,
  // r1 = 1, i.e. the first flight (the whole initial window) is the only
  // slow-start round. The model is then conservative: it still charges the
  // additive-increase rounds from SST up to the BDP although cwnd starts at
  // the initial window, which already exceeds SST (and, for a tiny BDP, the
  // BDP itself), so the chunk comes out larger than needed, never smaller.
  // (The loop is bounded: SST is finite, so k < 1100.)
  let k = 0;
  while (initialWindowBytes * 2 ** k < sstBytes) k += 1;
  const r1 = k + 1;

  // r2: we follow the §IV-A text, floor((BDP_f − SST) / MSS) + 1, not
  // Program 1's unfloored (BDP_f − SST) / MSS + 1. Reasons:
  //  - Eq. 1 counts whole round trips (r1 and r3 are rounded up too); a
  //    fractional round has no meaning there, and transferEfficiency uses the
  //    same integer r2, so chunk size and prediction are one model;
  //  - the paper asks for the *minimum* chunk size that reaches 1 − ε. The
  //    guarantee E >= 1 − ε holds for the floored value (the bound only needs
  //    b1 + b2 >= BDP_f, and b1 + b2 >= 2·SST = 1.5·BDP_f), so Program 1's
  //    extra fraction of a round buys nothing under the model, while it adds
  //    up to (1 − ε)/ε · BDP_f bytes (9 BDP at ε = 0.1) that the ABR rule
  //    cannot re-decide. At 1.5 Mbit/s and 200 ms that is 3,037,500 B instead
  //    of Program 1's 3,179,667 B (4.5% smaller).
  // BDP_f − SST = BDP_f/4 > 0, so r2 >= 1.
  const r2 = floorIgnoringNoise((fairBdpBytes - sstBytes) / mssBytes) + 1;

  return {
    bandwidthBitsPerSec: p.bandwidthBitsPerSec,
    rttSec: p.rttSec,
    epsilon,
    mssBytes,
    initialWindowBytes,
    fairBdpBytes,
    sstBytes,
    r1,
    b1: slowStartBytes(initialWindowBytes, r1),
    r2,
    b2: additiveIncreaseBytes(sstBytes, mssBytes, r2),
  };
}

/**
 * Program 1 (paper §IV-A): the minimum chunk size, in bytes, for which a
 * transfer reaches at least 1 − ε of the fair-share throughput.
 *
 * Throws RangeError for a non-finite, zero or negative bandwidth or RTT, an ε
 * outside (0, 1), or an MSS / initial window that is not a positive integer.
 */
export function chunkSize(p: ChunkModelParams): ChunkSize {
  const m = resolvePhases(p);
  const totalRounds = (m.r1 + m.r2) / m.epsilon;
  const chunkBytes = ceilIgnoringNoise((1 - m.epsilon) * totalRounds * m.fairBdpBytes);
  return {
    fairBdpBytes: m.fairBdpBytes,
    slowStartThresholdBytes: m.sstBytes,
    slowStartRounds: m.r1,
    additiveIncreaseRounds: m.r2,
    chunkBytes,
  };
}

/**
 * Eq. 1 (paper §IV-A): the predicted efficiency and throughput of one
 * transfer of `sizeBytes` bytes that starts from the initial window.
 *
 * Rounds are counted honestly for transfers that end early: a transfer that
 * ends inside slow start uses only the slow-start rounds it needs (r2 = r3 = 0),
 * one that ends inside additive increase uses all of r1 and only the
 * additive-increase rounds it needs (r3 = 0). Otherwise r3 =
 * ceil((S − (b1 + b2)) / BDP_f).
 *
 * The efficiency is capped at 1: a round is one RTT, and when the model's
 * window for a round exceeds the fair BDP (a tiny BDP below the initial
 * window, or the last slow-start round overshooting SST) Eq. 1 would claim
 * more than the fair share, which the bottleneck does not deliver.
 */
export function transferEfficiency(sizeBytes: number, p: ChunkModelParams): TransferPrediction {
  requirePositive('sizeBytes', sizeBytes);
  const m = resolvePhases(p);

  let r1: number;
  let r2 = 0;
  let r3 = 0;
  if (sizeBytes <= m.b1) {
    // Ends inside slow start: smallest k with IW·(2^k − 1) >= S (k <= m.r1).
    r1 = 1;
    while (slowStartBytes(m.initialWindowBytes, r1) < sizeBytes) r1 += 1;
  } else if (sizeBytes <= m.b1 + m.b2) {
    // Ends inside additive increase: smallest j with j·SST + MSS·j(j−1)/2 >= S − b1.
    // Solve the quadratic, then correct the floating-point estimate by a step.
    r1 = m.r1;
    const rest = sizeBytes - m.b1;
    const half = m.mssBytes / 2;
    const lin = m.sstBytes - half;
    let j = Math.max(1, Math.ceil((-lin + Math.sqrt(lin * lin + 4 * half * rest)) / (2 * half)));
    while (j > 1 && additiveIncreaseBytes(m.sstBytes, m.mssBytes, j - 1) >= rest) j -= 1;
    while (additiveIncreaseBytes(m.sstBytes, m.mssBytes, j) < rest) j += 1;
    r2 = Math.min(j, m.r2);
  } else {
    r1 = m.r1;
    r2 = m.r2;
    r3 = ceilIgnoringNoise((sizeBytes - (m.b1 + m.b2)) / m.fairBdpBytes);
  }

  const total = r1 + r2 + r3;
  const efficiency = Math.min(1, sizeBytes / (total * m.fairBdpBytes));
  const predictedThroughputBitsPerSec = efficiency * m.bandwidthBitsPerSec;
  return {
    rounds: { r1, r2, r3, total },
    efficiency,
    predictedThroughputBitsPerSec,
    predictedSeconds: (sizeBytes * 8) / predictedThroughputBitsPerSec,
  };
}
