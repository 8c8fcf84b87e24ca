// Bandwidth samples from the kernel's count of the bytes a connection has
// received (TCP_INFO `tcpi_bytes_received`), read about once a second.
// Paper §IV-A estimates bandwidth from the throughput of segment downloads;
// this is the same measure taken where the bytes arrive, not where the
// player reads them.
//
// Why: the socket host reads the connection and forwards its bytes to the
// page; when that path backs up (the page or the extension busy), the kernel
// keeps receiving while nothing is read, and the next reads return seconds
// of bytes at once. Timed at the read, the responses completing in that
// burst "arrived" at tens of Mbit/s. Measured on the 3 Mbit/s testbed with a
// 1536 KB queue: four responses (850 KB) completed within 0.2 s, the
// byte-weighted EWMA (bandwidth.ts) went from 1.8 to 31.8 Mbit/s, the fair
// BDP it sized (7.5 MB at a 3.8 s round trip) filled the 32-request window,
// and the backlog behind the full queue ended in timeouts and a 59 s stall.
// The kernel's counter does not bunch: it moves as segments arrive.
//
// A sample covers the interval between two readings when bytes were flowing
// at both (a response of the connection had begun arriving and had not
// ended) and the connection never went idle in between, so the interval
// holds no request round trip and no pause. A counter that went backwards
// is a new connection: no sample, the next interval starts from it.
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

export class KernelByteMeter {
  private last: KernelByteReading | null = null;
  private idleSinceLast = false;

  /** The connection had nothing outstanding at some moment since the last reading: that interval is no sample. */
  markIdle(): void {
    this.idleSinceLast = true;
  }

  /** Takes a reading; returns the sample of the interval since the previous one, or null when that interval is not one. */
  read(reading: KernelByteReading): KernelByteSample | null {
    const prev = this.last;
    const idle = this.idleSinceLast;
    this.last = reading;
    this.idleSinceLast = false;
    if (!prev || idle || !prev.flowing || !reading.flowing) return null;
    const bytes = reading.bytesReceived - prev.bytesReceived;
    const seconds = (reading.atMs - prev.atMs) / 1000;
    if (!Number.isFinite(bytes) || !Number.isFinite(seconds) || bytes <= 0 || seconds <= 0) return null;
    return { bytes, seconds };
  }
}
