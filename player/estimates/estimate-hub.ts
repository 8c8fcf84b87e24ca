/**
 * The estimates both Sprint modes size their chunks from (paper §IV-A), in
 * one place: RTT from one-byte probes each second (rtt-prober.ts) or, with
 * `rttProbes: 'when-quiet'`, from the first byte of media requests sent on
 * an idle connection and a probe when none came for a minute; and, where the
 * transport can read it, from TCP_INFO of the connection carrying the media;
 * bandwidth from the data plane's wire samples and from the video loads left
 * to dash.js (dash-load-sample.ts); Program 1's chunk size on them, with the
 * bootstrap values used before the first sample, the page's fixed chunk size
 * when it set one, and one cap on a chunk. It publishes them to
 * `stats().estimates` and tells the data plane when they changed.
 */
import { BandwidthEstimator } from '../../src/estimators/bandwidth';
import { RttEstimator } from '../../src/estimators/rtt';
import { chunkSize, type ChunkSize } from '../../src/model/chunk-size';
import type { DataPlaneContext } from '../dataplane/data-plane';
import type { DashFragmentRequestLike } from '../dataplane/dash-request';
import { feedDashLoad } from './dash-load-sample';
import { RttProber } from './rtt-prober';
import { MANIFEST_TYPE, MEDIA_SEGMENT_TYPE } from '../dataplane/dash-request';

/** Bandwidth assumed before the first sample, bit/s. */
export const BOOTSTRAP_BANDWIDTH_BITS_PER_SEC = 5e6;
/** RTT assumed before the first measurement, seconds. */
export const BOOTSTRAP_RTT_SEC = 0.1;
/** Upper bound on a chunk, bytes: bounds what one expanded request or train may hold in memory. */
export const MAX_CHUNK_BYTES = 256 * 1024 * 1024;
/** How long after a response's end its Resource Timing entry is looked up, ms. */
const TIMING_ENTRY_DELAY_MS = 50;
/** With `rttProbes: 'when-quiet'`: a probe only after this long without a sample, ms. */
const QUIET_PROBE_MS = 60_000;

export interface EstimateHubOptions {
  /** URL the RTT probes ask one byte of; default the manifest's. */
  probeUrl?: string;
  /** The probes' connection pool: the one the data plane's media requests do not use (rtt-prober.ts); default 'omit'. */
  probeCredentials?: RequestCredentials;
  /** A probe is sent only once no RTT sample came for this long, ms (rtt-prober.ts); default: 0 (each second) or, with `rttProbes: 'when-quiet'`, 60000. */
  probeQuietMs?: number;
  /** Prefix of the hub's counters in `stats().counters` (`<prefix>.probeErrors`). */
  counterPrefix: 'sprint' | 'sprintx';
  /** What the bandwidth samples are, for `stats().estimates.source`. */
  bandwidthSource: string;
  /** Called after the estimates changed and were published. */
  onChange?: () => void;
}

export class EstimateHub {
  readonly bandwidth = new BandwidthEstimator();
  /** RTT from TCP_INFO of the connection carrying the media, when the transport can read it. */
  readonly tcpRtt = new RttEstimator();
  private prober: RttProber | null = null;
  private ctx: DataPlaneContext | null = null;

  constructor(private readonly options: EstimateHubOptions) {}

  /** Starts the probes; estimates are published to `ctx.stats` from now on. */
  install(ctx: DataPlaneContext): void {
    this.ctx = ctx;
    const url = this.options.probeUrl ?? ctx.manifestUrl;
    const prober = new RttProber({
      url,
      type: url === ctx.manifestUrl ? MANIFEST_TYPE : MEDIA_SEGMENT_TYPE,
      requests: ctx.requests,
      credentials: this.options.probeCredentials,
      quietMs: this.options.probeQuietMs ?? (ctx.rttProbes === 'when-quiet' ? QUIET_PROBE_MS : 0),
      onSample: () => this.publish(),
      onError: (m) => {
        ctx.stats.count(`${this.options.counterPrefix}.probeErrors`);
        if (prober.errors <= 3) ctx.log.warn(m);
      },
    });
    this.prober = prober;
    prober.start();
  }

  /** Stops the probes (the estimates stay readable). */
  stop(): void {
    this.prober?.stop();
  }

  destroy(): void {
    this.stop();
    this.ctx = null;
  }

  /** RTT in force: TCP_INFO when available, else the probes, else the bootstrap value. */
  rttSec(): number {
    return this.measuredRttSec() ?? BOOTSTRAP_RTT_SEC;
  }

  /** RTT measured so far (TCP_INFO, else probes), or null before any. */
  measuredRttSec(): number | null {
    return this.tcpRtt.smoothedSec ?? this.prober?.estimator.smoothedSec ?? null;
  }

  /** The smallest RTT measured (probes or TCP_INFO); 0 before any. */
  minRttSec(): number {
    const mins = [this.tcpRtt.minSec, this.prober?.estimator.minSec].filter((v): v is number => v !== undefined && v > 0);
    return mins.length > 0 ? Math.min(...mins) : 0;
  }

  bandwidthBitsPerSec(): number | null {
    return this.bandwidth.estimateBitsPerSec() ?? null;
  }

  /** Program 1 on the current estimates; the chunk is the page's fixed size when it set one, and never above MAX_CHUNK_BYTES. */
  model(): ChunkSize {
    const bw = this.bandwidth.estimateBitsPerSec() ?? BOOTSTRAP_BANDWIDTH_BITS_PER_SEC;
    const m = chunkSize({ bandwidthBitsPerSec: bw, rttSec: this.rttSec(), epsilon: this.ctx?.epsilon ?? 0.1 });
    const chunk = this.ctx?.chunkBytes ?? m.chunkBytes;
    return { ...m, chunkBytes: Math.min(chunk, MAX_CHUNK_BYTES) };
  }

  chunkBytes(): number {
    return this.model().chunkBytes;
  }

  /** A wire sample of the data plane's own transfers; published at once. */
  addWireSample(bytes: number, seconds: number): void {
    this.bandwidth.addTransfer(bytes, seconds);
    this.publish();
  }

  /**
   * A media request to `url` sent at `sentAtMs` (performance.now()) on an
   * idle connection ended: with `rttProbes: 'when-quiet'`, its Resource
   * Timing first byte is an RTT sample (published at once), when the browser
   * recorded one.
   */
  addIdleRequest(url: string, sentAtMs: number): void {
    if (this.ctx?.rttProbes !== 'when-quiet') return;
    // the entry is recorded a little after the body ends
    setTimeout(() => this.prober?.sampleFromTiming(url, sentAtMs), TIMING_ENTRY_DELAY_MS);
  }

  /** An RTT read from TCP_INFO; published at once. */
  addTcpRtt(rttSec: number): void {
    this.tcpRtt.addSample(rttSec);
    this.publish();
  }

  /** A load dash.js made on its own path (audio, declined, after a fallback): video ones are wire samples too. */
  addDashLoad(request: DashFragmentRequestLike, error: unknown): void {
    if (feedDashLoad(this.bandwidth, request, error)) this.publish();
  }

  /** Names what the bandwidth samples are from now on (`stats().estimates.source`). */
  setBandwidthSource(source: string): void {
    this.options.bandwidthSource = source;
  }

  /** Writes the estimates to `stats().estimates` and tells the data plane. */
  publish(): void {
    const ctx = this.ctx;
    if (!ctx) return;
    const e = ctx.stats.estimates;
    const probe = this.prober?.estimator;
    e.rttSec = this.measuredRttSec();
    e.rttSamples = this.tcpRtt.sampleCount + (probe?.sampleCount ?? 0);
    e.probeRttSec = probe?.smoothedSec ?? null;
    e.tcpInfoRttSec = this.tcpRtt.smoothedSec ?? null;
    e.bandwidthBitsPerSec = this.bandwidthBitsPerSec();
    e.bandwidthSamples = this.bandwidth.sampleCount;
    e.chunkBytes = this.chunkBytes();
    const probes = this.ctx?.rttProbes === 'when-quiet' ? 'first bytes of idle media requests, range probes when quiet' : 'range probes';
    e.source = `rtt: ${this.tcpRtt.sampleCount > 0 ? 'tcp-info of the media connection' : probes}; bandwidth: ${this.options.bandwidthSource}`;
    ctx.stats.publishEstimates();
    this.options.onChange?.();
  }
}
