// Bandwidth samples from the kernel's count of the bytes a connection has
// received (TCP_INFO `tcpi_bytes_received`), read about once a second.
// Paper §IV-A estimates bandwidth from the throughput of segment downloads;
// this is the same measure taken where the bytes arrive, not where the
// player reads them: when the path from the socket host to the page backs
// up, reads bunch and timed at the read responses "arrive" at tens of Mbit/s,
// while the kernel's counter moves as segments arrive.
//
// An interval between two readings counts when bytes were flowing at both
// and the connection never went idle in between (no request round trip, no
// pause); one in which nothing arrived while a response was under way counts
// as nothing; a counter that went backwards is a new connection and does not
// count. Consecutive counted intervals are summed into one sample until it
// spans `sampleSpanSec(rtt)` (two round trips, at least 2 s), or as far as it
// got when the span breaks: behind a deep drop-tail queue one-second slices
// of a flow are not alike, and the estimator weights samples by their bytes.
// The measurements: docs/design/05-throughput-estimates.md.
//
// No I/O; bytes and milliseconds in, a sample (bytes, seconds) out.

/** One reading of the connection's kernel byte counter. */
export interface KernelByteReading {
  /** tcpi_bytes_received of the connection, bytes. */
  readonly bytesReceived: number;
  /** When it was read, ms (one clock for all readings). */
  readonly atMs: number;
  /** Bytes were flowing at that moment: a response on the connection had begun arriving and had not ended. */
  readonly flowing: boolean;
}

/** A bandwidth sample: bytes received over seconds of continuous arrival. */
export interface KernelByteSample {
  readonly bytes: number;
  readonly seconds: number;
}

/** Shortest span of a sample, seconds, whatever the round trip. */
export const MIN_SAMPLE_SPAN_SEC = 2;

/** How long a sample should span at a round trip of `rttSec`: two round trips, at least MIN_SAMPLE_SPAN_SEC. */
export function sampleSpanSec(rttSec: number): number {
  return Math.max(MIN_SAMPLE_SPAN_SEC, Number.isFinite(rttSec) && rttSec > 0 ? 2 * rttSec : 0);
}

/** A span of arrival with nothing in it yet. */
function emptySpan(): { bytes: number; seconds: number; tailSec: number } {
  return { bytes: 0, seconds: 0, tailSec: 0 };
}

export class KernelByteMeter {
  private last: KernelByteReading | null = null;
  private idleSinceLast = false;
  /**
   * Counted intervals summed since the last sample (one unbroken span of arrival), up to the last
   * interval in which bytes arrived; `tailSec`: the seconds of nothing since then.
   */
  private pending = emptySpan();

  /** The connection had nothing outstanding at some moment since the last reading (or may have changed): the span breaks there. */
  markIdle(): void {
    this.idleSinceLast = true;
  }

  /**
   * Takes a reading; returns a sample when the unbroken span of arrival it extends has reached
   * `spanSec`, or when that span broke before this reading (then the span as far as it got), else
   * null. A span never ends on seconds in which nothing arrived: they may be the page still waiting
   * on bytes the kernel had all received (a backed-up path), so they count only once bytes follow.
   */
  read(reading: KernelByteReading, spanSec = 0): KernelByteSample | null {
    const prev = this.last;
    const idle = this.idleSinceLast;
    this.last = reading;
    this.idleSinceLast = false;
    const bytes = prev ? reading.bytesReceived - prev.bytesReceived : NaN;
    const seconds = prev ? (reading.atMs - prev.atMs) / 1000 : NaN;
    const counted =
      prev !== null &&
      !idle &&
      prev.flowing &&
      reading.flowing &&
      Number.isFinite(bytes) &&
      Number.isFinite(seconds) &&
      bytes >= 0 &&
      seconds > 0;
    const span = this.pending;
    if (!counted) {
      this.pending = emptySpan();
      return span.bytes > 0 ? { bytes: span.bytes, seconds: span.seconds } : null;
    }
    if (bytes === 0) {
      span.tailSec += seconds;
      return null;
    }
    span.bytes += bytes;
    span.seconds += span.tailSec + seconds;
    span.tailSec = 0;
    if (span.seconds < spanSec) return null;
    this.pending = emptySpan();
    return { bytes: span.bytes, seconds: span.seconds };
  }
}
