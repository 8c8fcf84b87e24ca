/**
 * The `stock` data plane: dash.js exactly as shipped (one request per
 * segment, one at a time). It only observes dash.js's own fragment events to
 * fill the stats, so stock runs and Sprint runs are measured the same way.
 */
import type { DataPlane, DataPlaneContext } from './data-plane';
import { isSegmentRequest, timeMs, type DashFragmentRequestLike, INIT_SEGMENT_TYPE } from './dash-request';
import type { StatsRecorder } from '../stats/recorder';

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

  private readonly onCompleted = (e: FragmentEvent): void => {
    if (this.ctx && e.request && !this.carried.has(e.request)) recordDashFragment(this.ctx.stats, e.request, false, e.error);
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

export class StockDataPlane implements DataPlane {
  readonly mode = 'stock' as const;
  private readonly recorder = new DashFragmentRecorder();

  install(ctx: DataPlaneContext): void {
    this.recorder.install(ctx);
  }

  destroy(): void {
    this.recorder.destroy();
  }
}
