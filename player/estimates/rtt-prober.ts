/**
 * RTT samples for the chunk-size model (paper §IV-A measures "the latency of
 * a 10-byte XHR request that we send to the video server every second").
 *
 * A probe goes at start-up, then one whenever no sample came for `quietMs`:
 * with 0, every `intervalMs` (the paper's probe a second). A probe a second
 * costs a CDN more requests than the media itself (a 4 s segment plus audio
 * is about 0.5 request/s), so a page may take the RTT from requests the
 * player makes anyway (`addSample`, `sampleFromTiming`: the first byte of a
 * media request sent on an idle connection, its Resource Timing
 * requestStart→responseStart, which leaves out connection setup) with a
 * quiet period of 60 s. Each probe goes through the request path like every
 * other request (player/dataplane/request-path.ts): a one-byte Range
 * request (`bytes=0-0`), uncached. While a media transfer
 * occupies one HTTP/1.1 connection the browser sends the probe on another.
 * Probes must not share a connection pool with the transfers they size:
 * Chromium keeps one pool for credentialed and one for uncredentialed
 * requests, and hands a new request the most recently used idle connection
 * of its pool (measured on the testbed at 512 KB: every Sprint-x expanded
 * request started on a connection that had carried only probes), so each
 * data plane names the pool its probes use (`credentials`), the other one
 * from its transfers'. Reading Resource Timing clears the page's resource
 * timing buffer (it would otherwise fill up and stop recording); dash.js
 * does not use Resource Timing for the requests Sprint's data planes make.
 */
import { RttEstimator } from '../../src/estimators/rtt';
import { plainRequestPath, type RequestPath } from '../dataplane/request-path';

export interface RttProberOptions {
  url: string;
  /** dash.js's request type of `url` as the page's interceptors see it (`MPD`, `MediaSegment`). */
  type?: string;
  requests?: RequestPath;
  /** The probes' connection pool: the one the data plane's transfers do not use. Default 'omit'. */
  credentials?: RequestCredentials;
  /** How often the prober looks whether a probe is due, ms. Default 1000. */
  intervalMs?: number;
  /** A probe is due once no sample came for this long, ms; 0: every `intervalMs`. Default 60000. */
  quietMs?: number;
  onSample?: (rttSec: number) => void;
  onError?: (message: string) => void;
}

const DEFAULT_QUIET_MS = 60_000;

export class RttProber {
  readonly estimator = new RttEstimator();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private inFlight = false;
  /** When the last sample (probe or media request) came, performance.now() ms. */
  private lastSampleMs = 0;
  errors = 0;

  constructor(private readonly options: RttProberOptions) {}

  /** Sends the start-up probe, then looks for due ones. */
  start(): void {
    this.stopped = false;
    void this.probe();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** An RTT measured some other way (a media request's first byte), seconds. */
  addSample(rttSec: number): void {
    if (!(rttSec > 0)) return;
    this.estimator.addSample(rttSec);
    this.lastSampleMs = performance.now();
    this.options.onSample?.(rttSec);
  }

  /**
   * A sample from the Resource Timing entry of a request to `url` sent at
   * `sentAtMs` (performance.now()) on an idle connection; returns it, or null
   * when the browser recorded none (cross-origin without Timing-Allow-Origin,
   * the extension's sockets).
   */
  sampleFromTiming(url: string, sentAtMs: number): number | null {
    const ms = firstByteAfter(url, sentAtMs);
    if (ms === null) return null;
    this.addSample(ms / 1000);
    return ms / 1000;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (performance.now() - this.lastSampleMs >= (this.options.quietMs ?? DEFAULT_QUIET_MS)) void this.probe();
      else this.schedule();
    }, this.options.intervalMs ?? 1000);
  }

  /** Sends one probe now; resolves with the RTT in seconds or null on failure. */
  async probe(): Promise<number | null> {
    if (this.inFlight || this.stopped) return null;
    this.inFlight = true;
    const requests = this.options.requests ?? plainRequestPath();
    let url = this.options.url;
    const t0 = performance.now();
    try {
      const built = await requests.build({ url, type: this.options.type ?? 'MediaSegment' });
      url = built.url;
      const res = await requests.send('probe', built, { range: { start: 0, end: 0 }, credentials: this.options.credentials ?? 'omit' });
      const t1 = performance.now();
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const rttSec = (firstByteAfter(url, t0) ?? t1 - t0) / 1000;
      this.addSample(rttSec);
      return rttSec;
    } catch (e) {
      this.errors += 1;
      // a failed probe waits the quiet period again: a refusing origin gets one request a minute, not one a second
      this.lastSampleMs = performance.now();
      this.options.onError?.(`RTT probe to ${url} failed: ${(e as Error).message}`);
      return null;
    } finally {
      this.inFlight = false;
      this.schedule();
    }
  }
}

/** requestStart→responseStart of the first timing entry for `url` started at or after t0, in ms (clears the buffer when found). */
function firstByteAfter(url: string, t0: number): number | null {
  if (typeof performance === 'undefined' || typeof performance.getEntriesByName !== 'function') return null;
  const entries = performance.getEntriesByName(url, 'resource') as PerformanceResourceTiming[];
  for (const e of entries) {
    if (e.startTime < t0 - 1) continue;
    if (e.requestStart > 0 && e.responseStart > e.requestStart) {
      performance.clearResourceTimings();
      return e.responseStart - e.requestStart;
    }
  }
  return null;
}
