// Bandwidth samples from read timing: the bytes of one connection's
// responses over the time the connection was busy carrying them. Paper §IV-A
// estimates bandwidth from the throughput of segment downloads; with several
// responses pipelined on one connection (a train, §IV-B) a response's own
// throughput is a share of the link, so the sample is the busy period's
// instead: every byte that arrived since the period (or its last sample)
// began, over the time since then. Used where no kernel byte counter is
// available (kernel-bytes.ts): fetch over HTTP/2 in a plain page.
//
// The page reads bytes in bunches, so three rules keep bunches out of the
// samples:
// - While other responses are still arriving, a sample waits until it spans
//   `sampleSpanSec(rtt)` (two round trips, two seconds at least). Measured on
//   fetch over HTTP/2 behind a 1536 KB queue at 3 Mbit/s: a response ending
//   milliseconds after the one before it, with a bunch read in between,
//   read as 151–327 Mbit/s.
// - A response that begins right behind the last one (its bytes could start
//   crossing the wire less than a round trip after the last one ended)
//   continues the busy period instead of starting one of its own. Measured
//   on the same cell: a 64 KB audio segment pipelined behind a video segment
//   and handed over whole in one read 1 ms after it, sampled on its own, read
//   as 430 Mbit/s and lifted the estimate from 1.5 to 20.3 Mbit/s.
// - When the period ends (the connection has nothing outstanding, or the
//   next response begins after a gap), what is left is a sample if it is
//   the period's only one, however short (one short train: its throughput),
//   and dropped if it is a short tail after a sample.
//
// No I/O; milliseconds and bytes in, samples (bytes, seconds) out.

/** A bandwidth sample: bytes that arrived over seconds of a busy period. */
export interface BusySample {
  readonly bytes: number;
  readonly seconds: number;
}

interface Period {
  /** Start of the span the next sample covers, ms. */
  fromMs: number;
  /** Bytes that arrived since fromMs. */
  bytes: number;
  /** The period gave a sample already (what is left is its tail). */
  sampled: boolean;
  /** Nothing is arriving: when the last response ended, ms; null while one is arriving. */
  pausedAtMs: number | null;
}

export class BusyPeriodMeter {
  private period: Period | null = null;

  /**
   * A response's first bytes arrived. `wireStartMs`: when its bytes could
   * begin crossing the wire (ms, one clock for all calls); `othersArriving`:
   * another response on the connection has begun and not ended; `gapMs`: a
   * round trip, ms: a response beginning less than that after the last one
   * ended (or right as it ended) continues its busy period; `spanSec` as in
   * `ended`. Returns the sample of a period that ended before this
   * response, if any.
   */
  began(wireStartMs: number, othersArriving: boolean, gapMs: number, spanSec: number): BusySample | null {
    const p = this.period;
    if (p && p.pausedAtMs !== null) {
      const gap = wireStartMs - p.pausedAtMs;
      if (gap <= 0 || gap < gapMs) {
        p.pausedAtMs = null;
        return null;
      }
      const left = this.leftover(p, spanSec);
      this.period = { fromMs: wireStartMs, bytes: 0, sampled: false, pausedAtMs: null };
      return left;
    }
    // A period with a response "arriving" but none arriving now was left by
    // a response that failed or was aborted: its bytes do not count.
    if (!p || !othersArriving) this.period = { fromMs: wireStartMs, bytes: 0, sampled: false, pausedAtMs: null };
    return null;
  }

  /** Bytes of a response arrived. */
  received(bytes: number): void {
    if (this.period && this.period.pausedAtMs === null) this.period.bytes += bytes;
  }

  /**
   * A response ended at `endMs`. `othersArriving`: another response on the
   * connection is still arriving; `spanSec`: how long a sample should span
   * (sampleSpanSec). Returns a sample once the period since the last one
   * spans that long.
   */
  ended(endMs: number, othersArriving: boolean, spanSec: number): BusySample | null {
    const p = this.period;
    if (!p || p.pausedAtMs !== null) return null;
    const sec = (endMs - p.fromMs) / 1000;
    if (sec < spanSec) {
      if (!othersArriving) p.pausedAtMs = endMs;
      return null;
    }
    this.period = { fromMs: endMs, bytes: 0, sampled: true, pausedAtMs: othersArriving ? null : endMs };
    return p.bytes > 0 ? { bytes: p.bytes, seconds: sec } : null;
  }

  /** The connection has nothing outstanding: the busy period is over. Returns what is left of it as a sample, if it counts. */
  idle(spanSec: number): BusySample | null {
    const p = this.period;
    this.period = null;
    return p && p.pausedAtMs !== null ? this.leftover(p, spanSec) : null;
  }

  /** The end of a period paused since `pausedAtMs`: its only sample, or a short tail that does not count. */
  private leftover(p: Period, spanSec: number): BusySample | null {
    const sec = ((p.pausedAtMs ?? p.fromMs) - p.fromMs) / 1000;
    if (!(sec > 0) || p.bytes <= 0) return null;
    if (p.sampled && sec < spanSec) return null;
    return { bytes: p.bytes, seconds: sec };
  }
}
