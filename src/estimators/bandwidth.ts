// Bandwidth estimator. Paper §IV-A: "Bandwidth is estimated by taking an EWMA
// over the measured throughputs of video segment downloads while downweighting
// smaller requests."
//
// Choice: the EWMA's gain is set per sample by the sample's size in bytes, with
// a half-life in bytes. A transfer of `bytes` gets weight
//     w = 1 − 0.5^(bytes / halfLifeBytes),
// so a transfer of one half-life moves the estimate halfway to its own
// throughput, two transfers of half that size together move it as far as one
// of the full size, and a tiny transfer barely moves it. Small transfers are
// the ones whose throughput is dominated by slow start and the request's round
// trip (§IV-A, Eq. 1), so they under-state the available bandwidth; weighting
// by bytes is what makes them count less. (Weighting by duration, as hls.js
// does, would do the opposite for a small *slow* transfer.)
// The estimate starts from zero and is divided by the total weight so far
// (1 − 0.5^(totalBytes / halfLifeBytes)), so early estimates are not biased
// toward zero; the first sample alone gives its own throughput.
// A transfer that fits in TCP's initial window (10 × 1460 bytes by default)
// is not a sample at all: it arrives in one round trip whatever the
// bandwidth, so its "throughput" measures the RTT. Without this rule the
// first such transfer (an init segment of a few hundred bytes) would, being
// alone, *be* the estimate: measured on a 3 Mbit/s testbed as 10 kbit/s,
// which sized the first chunks at a few kilobytes.
//
// Units: bytes, seconds in; bits per second out. No I/O.

import { DEFAULT_INITIAL_WINDOW_SEGMENTS, DEFAULT_MSS_BYTES } from '../model/chunk-size';
import { requireNonNegative, requirePositive } from '../model/validate';

/** Default half-life: about one 4-second segment at 2 Mbit/s, bytes. */
export const DEFAULT_HALF_LIFE_BYTES = 1_000_000;

/**
 * Default shortest wire time accepted, seconds. Browsers coarsen their clocks
 * (performance.now to 0.1 ms or worse) and event-loop delays are of the order
 * of a millisecond, so a shorter duration says nothing about the network and
 * would turn into an absurd throughput.
 */
export const DEFAULT_MIN_WIRE_SECONDS = 0.001;

/** Default smallest transfer accepted: one initial congestion window, bytes. */
export const DEFAULT_MIN_BYTES = DEFAULT_INITIAL_WINDOW_SEGMENTS * DEFAULT_MSS_BYTES;

export interface BandwidthEstimatorOptions {
  /** Bytes after which a sample's influence has halved (> 0). */
  readonly halfLifeBytes?: number;
  /** Transfers with a shorter wire time are skipped, seconds (>= 0). */
  readonly minWireSeconds?: number;
  /** Transfers of fewer bytes are skipped (>= 0; default one initial window, 14,600). */
  readonly minBytes?: number;
}

/** What happened to one transfer given to addTransfer. */
export type TransferSampleResult =
  | {
      readonly accepted: true;
      /** Throughput of this transfer, bits per second. */
      readonly sampleBitsPerSec: number;
      /** EWMA gain this transfer received, in (0, 1]. */
      readonly weight: number;
    }
  | { readonly accepted: false; readonly reason: string };

export class BandwidthEstimator {
  private readonly halfLifeBytes: number;
  private readonly minWireSeconds: number;
  private readonly minBytes: number;
  /** Zero-started EWMA of throughput, bits per second (not yet bias-corrected). */
  private ewmaBitsPerSec = 0;
  private totalBytes = 0;
  private count = 0;

  constructor(options: BandwidthEstimatorOptions = {}) {
    this.halfLifeBytes = options.halfLifeBytes ?? DEFAULT_HALF_LIFE_BYTES;
    this.minWireSeconds = options.minWireSeconds ?? DEFAULT_MIN_WIRE_SECONDS;
    this.minBytes = options.minBytes ?? DEFAULT_MIN_BYTES;
    requirePositive('halfLifeBytes', this.halfLifeBytes);
    requireNonNegative('minWireSeconds', this.minWireSeconds);
    requireNonNegative('minBytes', this.minBytes);
  }

  /**
   * Adds one measured transfer: `bytes` of response body received in
   * `wireSeconds` (best measured from the first to the last byte; timing from
   * the request includes a round trip and under-states small transfers).
   *
   * Throws RangeError for negative or non-finite inputs. Skips, with a reason
   * and without changing the estimate, a transfer of zero bytes or fewer than
   * minBytes, or one whose wire time is zero or below minWireSeconds.
   */
  addTransfer(bytes: number, wireSeconds: number): TransferSampleResult {
    requireNonNegative('bytes', bytes);
    requireNonNegative('wireSeconds', wireSeconds);
    if (bytes === 0) {
      return { accepted: false, reason: 'no bytes transferred' };
    }
    if (bytes < this.minBytes) {
      return { accepted: false, reason: `${bytes} bytes fit in one initial window (< ${this.minBytes}): the time measures a round trip` };
    }
    if (wireSeconds === 0 || wireSeconds < this.minWireSeconds) {
      return {
        accepted: false,
        reason: `wire time ${wireSeconds} s is below the ${this.minWireSeconds} s clock resolution`,
      };
    }
    const sampleBitsPerSec = (bytes * 8) / wireSeconds;
    // w = 1 − 0.5^(bytes / halfLife), computed with expm1 so tiny transfers keep precision.
    const weight = -Math.expm1((bytes / this.halfLifeBytes) * Math.log(0.5));
    this.ewmaBitsPerSec = weight * sampleBitsPerSec + (1 - weight) * this.ewmaBitsPerSec;
    this.totalBytes += bytes;
    this.count += 1;
    return { accepted: true, sampleBitsPerSec, weight };
  }

  /** The bandwidth estimate, bits per second; undefined before the first accepted transfer. */
  estimateBitsPerSec(): number | undefined {
    if (this.count === 0) return undefined;
    const totalWeight = -Math.expm1((this.totalBytes / this.halfLifeBytes) * Math.log(0.5));
    return this.ewmaBitsPerSec / totalWeight;
  }

  /** Number of transfers accepted (skipped ones are not counted). */
  get sampleCount(): number {
    return this.count;
  }
}
