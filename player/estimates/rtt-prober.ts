/**
 * RTT probes for the chunk-size model (paper §IV-A: "the latency of a 10-byte
 * XHR request that we send to the video server every second").
 *
 * Each probe is a one-byte Range request (`bytes=0-0`) for a media file on
 * the media origin, uncached, so it works against any server that supports
 * Sprint-x at all. While a media transfer occupies one HTTP/1.1 connection the
 * browser sends the probe on another, so the probe measures the path's
 * queueing delay without waiting behind media bytes. Probes must not share a
 * connection pool with the transfers they size: Chromium keeps one pool for
 * credentialed and one for uncredentialed requests, and hands a new request
 * the most recently used idle connection of its pool, which between two
 * transfers is usually a probe's (cwnd of a few packets, not the transfer's).
 * Measured on the testbed at 512 KB: every Sprint-x expanded request started
 * on a connection that had carried only probes. So each data plane names the
 * pool its probes use (`credentials`), the other one from its transfers'. The RTT is the time from
 * sending the request to the first response byte (Resource Timing when the
 * origin allows it, else the fetch's wall time). Reading Resource Timing
 * clears the page's resource timing buffer (it would otherwise fill up with
 * one probe a second); dash.js does not use Resource Timing for the ranged
 * requests Sprint's data planes make.
 */
import { RttEstimator } from '../../src/estimators/rtt';

export interface RttProberOptions {
  url: string;
  /** The probes' connection pool: the one the data plane's transfers do not use. Default 'omit'. */
  credentials?: RequestCredentials;
  intervalMs?: number;
  onSample?: (rttSec: number) => void;
  onError?: (message: string) => void;
}

export class RttProber {
  readonly estimator = new RttEstimator();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private inFlight = false;
  errors = 0;

  constructor(private readonly options: RttProberOptions) {}

  start(): void {
    this.stopped = false;
    void this.probe();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.probe(), this.options.intervalMs ?? 1000);
  }

  /** Sends one probe now; resolves with the RTT in seconds or null on failure. */
  async probe(): Promise<number | null> {
    if (this.inFlight || this.stopped) return null;
    this.inFlight = true;
    const url = `${this.options.url}`;
    const t0 = performance.now();
    try {
      const res = await fetch(url, { headers: { Range: 'bytes=0-0' }, cache: 'no-store', credentials: this.options.credentials ?? 'omit' });
      const t1 = performance.now();
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const rttSec = (this.timingOf(url, t0) ?? t1 - t0) / 1000;
      if (rttSec > 0) {
        this.estimator.addSample(rttSec);
        this.options.onSample?.(rttSec);
      }
      return rttSec;
    } catch (e) {
      this.errors += 1;
      this.options.onError?.(`RTT probe to ${url} failed: ${(e as Error).message}`);
      return null;
    } finally {
      this.inFlight = false;
      this.schedule();
    }
  }

  /** requestStart→responseStart of the newest timing entry for `url` started after t0, in ms. */
  private timingOf(url: string, t0: number): number | null {
    const entries = performance.getEntriesByName(url, 'resource') as PerformanceResourceTiming[];
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i] as PerformanceResourceTiming;
      if (e.startTime < t0 - 1) break;
      if (e.requestStart > 0 && e.responseStart > e.requestStart) {
        performance.clearResourceTimings();
        return e.responseStart - e.requestStart;
      }
    }
    return null;
  }
}
