/**
 * Bandwidth samples from the segments dash.js loads on its own network path
 * (stock mode; in a Sprint mode, what it leaves to dash.js), for the
 * project's estimator (src/estimators/bandwidth.ts), so the estimate BW-x
 * reads follows the wire in every mode.
 *
 * A sample is timed from when dash.js sent the request to its last byte: the
 * bytes cannot have crossed the link before the request left, so the sample
 * is never above what the link can have carried (it includes one round
 * trip, so it under-states a small segment, which the estimator weights down
 * by its size). dash.js's own first-byte time is the first XHR progress
 * event, which can come after many bytes were already buffered below the
 * page: timed from it, a sample can exceed the link.
 */
import type { BandwidthEstimator } from '../../src/estimators/bandwidth';
import { MEDIA_SEGMENT_TYPE, timeMs, type DashFragmentRequestLike } from '../dataplane/dash-request';

/**
 * The sample a video media segment dash.js loaded itself gives: its bytes
 * over the time from the request to the last byte; `skip` (with why) for
 * anything else — other media types, init segments, failed or aborted
 * loads, missing timing.
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

/** Feeds `estimator` with a load dash.js made itself (`stockWireSample`); true if it was taken as a sample. */
export function feedDashLoad(estimator: BandwidthEstimator, request: DashFragmentRequestLike, error: unknown): boolean {
  const s = stockWireSample(request, error);
  return !('skip' in s) && estimator.addTransfer(s.bytes, s.seconds).accepted;
}
