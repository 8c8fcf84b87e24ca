// RTT estimator smoothed over probe samples. Paper §IV-A: "the RTT is obtained
// by measuring the latency of a 10-byte XHR request that we send to the video
// server every second". The smoothing is RFC 6298's (SRTT with gain 1/8,
// RTTVAR with gain 1/4); we also keep the minimum and the last sample.
// Seconds throughout. No I/O: the caller times the probe and feeds samples.

import { requireOpenUnitInterval, requirePositive } from '../model/validate';

export interface RttEstimatorOptions {
  /** Gain of the smoothed RTT, in (0, 1); RFC 6298's alpha, default 1/8. */
  readonly alpha?: number;
  /** Gain of the RTT variation, in (0, 1); RFC 6298's beta, default 1/4. */
  readonly beta?: number;
}

export class RttEstimator {
  private readonly alpha: number;
  private readonly beta: number;
  private srtt: number | undefined;
  private rttvar: number | undefined;
  private min: number | undefined;
  private last: number | undefined;
  private count = 0;

  constructor(options: RttEstimatorOptions = {}) {
    this.alpha = options.alpha ?? 1 / 8;
    this.beta = options.beta ?? 1 / 4;
    requireOpenUnitInterval('alpha', this.alpha);
    requireOpenUnitInterval('beta', this.beta);
  }

  /**
   * Adds one measured round trip, seconds. Throws RangeError (and leaves the
   * estimate unchanged) if the sample is not a finite number greater than 0:
   * a zero RTT is a clock-resolution artefact, not a measurement.
   */
  addSample(rttSec: number): void {
    requirePositive('rttSec', rttSec);
    if (this.srtt === undefined || this.rttvar === undefined) {
      this.srtt = rttSec;
      this.rttvar = rttSec / 2;
    } else {
      this.rttvar = (1 - this.beta) * this.rttvar + this.beta * Math.abs(this.srtt - rttSec);
      this.srtt = (1 - this.alpha) * this.srtt + this.alpha * rttSec;
    }
    this.min = this.min === undefined ? rttSec : Math.min(this.min, rttSec);
    this.last = rttSec;
    this.count += 1;
  }

  /** Smoothed RTT (SRTT), seconds; undefined before the first sample. */
  get smoothedSec(): number | undefined {
    return this.srtt;
  }

  /** RTT variation (RTTVAR), seconds; undefined before the first sample. */
  get variationSec(): number | undefined {
    return this.rttvar;
  }

  /** Smallest sample seen, seconds; undefined before the first sample. */
  get minSec(): number | undefined {
    return this.min;
  }

  /** Most recent sample, seconds; undefined before the first sample. */
  get lastSec(): number | undefined {
    return this.last;
  }

  /** Number of samples accepted. */
  get sampleCount(): number {
    return this.count;
  }
}
