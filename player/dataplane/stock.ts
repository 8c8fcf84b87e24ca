/**
 * The `stock` data plane: dash.js exactly as shipped (one request per
 * segment, one at a time). It only observes dash.js's own fragment events to
 * fill the stats, so stock runs and Sprint runs are measured the same way,
 * and feeds the project's bandwidth estimator (src/estimators/bandwidth.ts)
 * with dash.js's video segment loads, as the Sprint modes feed theirs with
 * their wire samples: the estimate the BW-x rule reads in every mode.
 *
 * A stock sample is timed from when dash.js sent the request to its last
 * byte (`stockWireSample`): the bytes cannot have crossed the link before
 * the request left, so the sample is never above what the link can have
 * carried (it includes one round trip, so it under-states a small segment,
 * which the estimator weights down by its size). dash.js's own first-byte
 * time is the first XHR progress event, which can come after many bytes were
 * already buffered below the page: timed from it, a sample can exceed the link.
 */
import type { DataPlane, DataPlaneContext } from './data-plane';
import { isSegmentRequest, timeMs, type DashFragmentRequestLike, INIT_SEGMENT_TYPE } from './dash-request';
import type { StatsRecorder } from '../stats/recorder';
import { BandwidthEstimator } from '../../src/estimators/bandwidth';
import { MEDIA_SEGMENT_TYPE } from './dash-request';

interface FragmentEvent {
  request?: DashFragmentRequestLike;
  error?: unknown;
}

/** Records a segment request dash.js completed on its own network path. */
export function recordDashFragment(stats: StatsRecorder, req: DashFragmentRequestLike, aborted: boolean, error: unknown): void {
  if (!isSegmentRequest(req)) return;
  const now = Date.now();
  const start = timeMs(req.startDate) ?? now;
  const firstByte = timeMs(req.firstByteDate);
  const end = timeMs(req.endDate) ?? now;
  const bytes = Number.isFinite(req.bytesLoaded) ? (req.bytesLoaded as number) : 0;
  const status = aborted ? 'aborted' : error ? 'error' : 'ok';
  const transferId = stats.allocateTransferId();
  const wireMs = firstByte !== null ? end - firstByte : end - start;
  stats.addTransfer({
    id: transferId,
    via: 'stock',
    url: req.url ?? '',
    range: req.range ?? null,
    startMs: start,
    firstByteMs: firstByte,
    endMs: end,
    bytes,
    expectedBytes: null,
    throughputBitsPerSec: wireMs > 0 && bytes > 0 ? (bytes * 8 * 1000) / wireMs : null,
    targetChunkBytes: null,
    rttEstimateSec: null,
    bandwidthEstimateBitsPerSec: null,
    segmentsServed: status === 'ok' ? 1 : 0,
    cancelled: aborted,
    wastedBytes: status === 'ok' ? 0 : bytes,
    error: error ? String((error as { message?: string }).message ?? error) : null,
  });
  stats.addSegment({
    kind: req.type === INIT_SEGMENT_TYPE ? 'init' : 'media',
    mediaType: req.mediaType ?? 'unknown',
    url: req.url ?? '',
    range: req.range ?? null,
    index: Number.isFinite(req.index) ? (req.index as number) : NaN,
    representationId: req.representation?.id ?? null,
    bandwidth: req.representation?.bandwidth ?? null,
    bytes,
    requestMs: start,
    firstByteMs: firstByte,
    endMs: end,
    status,
    transferId,
  });
}

/**
 * Records, from dash.js's fragment events, every segment dash.js loads on its
 * own network path: all of them in stock mode; in a Sprint mode, the ones
 * the data plane left to dash.js (audio, requests it declined, everything
 * after a fallback). A data plane tells it which loads it answered itself
 * (`noteLoad`): those it records with its own wire figures, so nothing is
 * recorded twice.
 */
export class DashFragmentRecorder {
  private ctx: DataPlaneContext | null = null;
  /** Requests the data plane answered. dash.js retries a failed request with the same object. */
  private readonly carried = new WeakSet<object>();

  /** `onDashLoad`: each load dash.js completed on its own network path (the data plane's wire sample source for those). */
  constructor(private readonly onDashLoad?: (request: DashFragmentRequestLike, error: unknown) => void) {}

  private readonly onCompleted = (e: FragmentEvent): void => {
    if (this.ctx && e.request && !this.carried.has(e.request)) {
      recordDashFragment(this.ctx.stats, e.request, false, e.error);
      this.onDashLoad?.(e.request, e.error);
    }
  };

  private readonly onAbandoned = (e: FragmentEvent): void => {
    if (this.ctx && e.request && !this.carried.has(e.request)) recordDashFragment(this.ctx.stats, e.request, true, null);
  };

  install(ctx: DataPlaneContext): void {
    this.ctx = ctx;
    const ev = ctx.dashjs.MediaPlayer.events;
    ctx.dash.on(ev.FRAGMENT_LOADING_COMPLETED, this.onCompleted);
    ctx.dash.on(ev.FRAGMENT_LOADING_ABANDONED, this.onAbandoned);
  }

  /** The data plane answered this load itself (`answered`), or left it to dash.js. */
  noteLoad(request: object | null | undefined, answered: boolean): void {
    if (!request) return;
    if (answered) this.carried.add(request);
    else this.carried.delete(request);
  }

  destroy(): void {
    if (!this.ctx) return;
    const ev = this.ctx.dashjs.MediaPlayer.events;
    this.ctx.dash.off(ev.FRAGMENT_LOADING_COMPLETED, this.onCompleted);
    this.ctx.dash.off(ev.FRAGMENT_LOADING_ABANDONED, this.onAbandoned);
    this.ctx = null;
  }
}

/**
 * The sample a video media segment dash.js loaded itself gives the bandwidth
 * estimator: its bytes over the time from the request to the last byte; null
 * (with why) for anything else — other media types, init segments, failed or
 * aborted loads, missing timing.
 */
export function stockWireSample(req: DashFragmentRequestLike, error: unknown): { bytes: number; seconds: number } | { skip: string } {
  if (req.mediaType !== 'video' || req.type !== MEDIA_SEGMENT_TYPE) return { skip: 'not a video media segment' };
  if (error) return { skip: 'failed' };
  const bytes = Number.isFinite(req.bytesLoaded) ? (req.bytesLoaded as number) : 0;
  const start = timeMs(req.startDate);
  const end = timeMs(req.endDate);
  if (bytes <= 0 || start === null || end === null || !(end > start)) return { skip: 'no bytes or no timing' };
  return { bytes, seconds: (end - start) / 1000 };
}

/**
 * Feeds `estimator` with a load dash.js made itself (`stockWireSample`);
 * true if it was taken as a sample. The Sprint modes use it for the video
 * loads they leave to dash.js (after a fallback), so the estimate BW-x reads
 * keeps following the wire.
 */
export function feedDashLoad(estimator: BandwidthEstimator, request: DashFragmentRequestLike, error: unknown): boolean {
  const s = stockWireSample(request, error);
  return !('skip' in s) && estimator.addTransfer(s.bytes, s.seconds).accepted;
}

export class StockDataPlane implements DataPlane {
  readonly mode = 'stock' as const;
  private readonly bandwidth = new BandwidthEstimator();
  private ctx: DataPlaneContext | null = null;
  private readonly recorder = new DashFragmentRecorder((request, error) => {
    const ctx = this.ctx;
    if (!ctx || !feedDashLoad(this.bandwidth, request, error)) return;
    const est = ctx.stats.estimates;
    est.bandwidthBitsPerSec = this.bandwidth.estimateBitsPerSec() ?? null;
    est.bandwidthSamples = this.bandwidth.sampleCount;
    est.source = 'dash.js loads, request to last byte';
  });

  install(ctx: DataPlaneContext): void {
    this.ctx = ctx;
    this.recorder.install(ctx);
  }

  destroy(): void {
    this.recorder.destroy();
    this.ctx = null;
  }
}
