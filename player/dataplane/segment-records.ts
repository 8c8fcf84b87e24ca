/**
 * The segment and transfer records of `stats()` (player/stats/types.ts), built
 * in one place for every mode:
 *  - `recordDashFragment`: a segment dash.js loaded on its own network path
 *    (stock mode, and what a Sprint mode leaves to dash.js), from dash.js's
 *    fragment request;
 *  - `DashFragmentRecorder`: listens to dash.js's fragment events and records
 *    those loads, skipping the ones a data plane answered itself;
 *  - `recordAnsweredSegment`: a segment a Sprint data plane answered (or
 *    failed back, or dash.js aborted), with the data plane's wire figures.
 */
import type { DataPlaneContext } from './data-plane';
import { isSegmentRequest, timeMs, type DashFragmentRequestLike, INIT_SEGMENT_TYPE } from './dash-request';
import type { StatsRecorder } from '../stats/recorder';
import type { SegmentKind, SegmentRecord, TransferRecord } from '../stats/types';

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
  const transfer: TransferRecord = {
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
  };
  stats.addTransfer(transfer);
  stats.endTransfer(transfer);
  recordAnsweredSegment(stats, req, {
    kind: req.type === INIT_SEGMENT_TYPE ? 'init' : 'media',
    url: req.url ?? '',
    bytes,
    requestMs: start,
    firstByteMs: firstByte,
    endMs: end,
    status,
    transferId,
  });
}

/** What a data plane knows of a segment it answered; the rest comes from dash.js's request. */
export interface AnsweredSegment {
  kind?: SegmentKind;
  /** Media type when dash.js's request does not say. */
  mediaType?: string;
  url: string;
  /** Nominal bitrate when dash.js's request does not say. */
  bandwidth?: number | null;
  bytes: number;
  requestMs: number;
  firstByteMs: number | null;
  endMs: number;
  status: SegmentRecord['status'];
  transferId: number | null;
}

/** Records one segment dash.js asked for and what became of it. */
export function recordAnsweredSegment(stats: StatsRecorder, fr: DashFragmentRequestLike | undefined, s: AnsweredSegment): void {
  stats.addSegment({
    kind: s.kind ?? (fr?.type === INIT_SEGMENT_TYPE ? 'init' : 'media'),
    mediaType: fr?.mediaType ?? s.mediaType ?? 'unknown',
    url: s.url,
    range: fr?.range ?? null,
    index: Number.isFinite(fr?.index) ? (fr?.index as number) : NaN,
    representationId: fr?.representation?.id ?? null,
    bandwidth: fr?.representation?.bandwidth ?? s.bandwidth ?? null,
    bytes: s.bytes,
    requestMs: s.requestMs,
    firstByteMs: s.firstByteMs,
    endMs: s.endMs,
    status: s.status,
    transferId: s.transferId,
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

  /**
   * Offers a load to the data plane's `take` and notes who answers it: the data plane, or dash.js's own
   * loader when `take` hands it on through the `handOn` it is given.
   */
  takeLoad(request: object | null | undefined, passOn: (() => void) | undefined, take: (handOn?: () => void) => boolean): boolean {
    const handOn = passOn
      ? (): void => {
          this.noteLoad(request, false);
          passOn();
        }
      : undefined;
    const taken = take(handOn);
    this.noteLoad(request, taken);
    return taken;
  }

  destroy(): void {
    if (!this.ctx) return;
    const ev = this.ctx.dashjs.MediaPlayer.events;
    this.ctx.dash.off(ev.FRAGMENT_LOADING_COMPLETED, this.onCompleted);
    this.ctx.dash.off(ev.FRAGMENT_LOADING_ABANDONED, this.onAbandoned);
    this.ctx = null;
  }
}
