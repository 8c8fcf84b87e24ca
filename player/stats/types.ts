/**
 * Shapes of everything the player reports through `SprintPlayer.stats()`.
 *
 * Two views of the data plane, kept apart on purpose:
 *   - `segments`: what dash.js asked for (one record per init/media segment
 *     request, as dash.js sees it);
 *   - `transfers`: what actually went on the wire (in `stock` mode one per
 *     segment; in `sprint-x` one per expanded range request; in `sprint` one
 *     per request of a train). Nothing the data plane fetches is left out.
 * Times are wall-clock epoch milliseconds; sizes are bytes; rates bit/s.
 */
import type { DataPlaneMode, RequestedMode } from '../options';

export type SegmentKind = 'init' | 'media';

export interface SegmentRecord {
  kind: SegmentKind;
  mediaType: string;
  url: string;
  /** Byte range dash.js asked for (`a-b`), or null for a whole file. */
  range: string | null;
  /** Segment index in its representation (NaN for init segments). */
  index: number;
  representationId: string | null;
  /** Nominal bitrate of the representation, bit/s. */
  bandwidth: number | null;
  bytes: number;
  /** When dash.js issued the request. */
  requestMs: number;
  firstByteMs: number | null;
  endMs: number;
  status: 'ok' | 'aborted' | 'error';
  /** Which wire transfer carried the bytes (see `transfers[].id`). */
  transferId: number | null;
}

export interface TransferRecord {
  id: number;
  /** Data plane that made the transfer. */
  via: DataPlaneMode;
  url: string;
  range: string | null;
  startMs: number;
  /** First body byte seen, or null if none arrived. */
  firstByteMs: number | null;
  endMs: number | null;
  bytes: number;
  /** Bytes asked for (range length), if known. */
  expectedBytes: number | null;
  /** bytes*8 over the time bytes were arriving (first to last byte). */
  throughputBitsPerSec: number | null;
  /** The model's chunk size when the transfer was issued (sprint modes). */
  targetChunkBytes: number | null;
  rttEstimateSec: number | null;
  bandwidthEstimateBitsPerSec: number | null;
  /** Segments handed to dash.js from this transfer. */
  segmentsServed: number;
  cancelled: boolean;
  /** Bytes received but never handed to dash.js (cancelled expansions). */
  wastedBytes: number;
  error: string | null;
}

/** One Sprint train (paper §IV-B1): the requests issued from a resume until the chunk size was requested. */
export interface TrainRecord {
  id: number;
  mediaType: string;
  /** The chunk size the train was held to: the model's for the estimates in force, retargeted as they changed. */
  targetBytes: number;
  /** The model's chunk size when the train started. */
  initialTargetBytes: number;
  issuedBytes: number;
  completedBytes: number;
  requests: number;
  /** Outstanding window (requests) in force. */
  window: number;
  startMs: number;
  endMs: number | null;
  /** completedBytes*8 over the time from the first to the last byte of the train. */
  throughputBitsPerSec: number | null;
  /** Nominal bitrates of the segments requested, in order. */
  bitrates: number[];
  rttEstimateSec: number | null;
  bandwidthEstimateBitsPerSec: number | null;
  /** RTT of the train's connection from TCP_INFO, once a second while the train ran (extension transport). */
  rttSamplesSec: number[];
}

export interface PlaybackSample {
  atMs: number;
  currentTimeSec: number;
  videoBufferSec: number;
  audioBufferSec: number;
  videoBitrate: number | null;
  dashThroughputBitsPerSec: number | null;
}

export interface PlaybackStats {
  currentTimeSec: number;
  videoBufferSec: number;
  audioBufferSec: number;
  /** Nominal bitrate of the video representation being played, bit/s. */
  videoBitrate: number | null;
  /** dash.js's own throughput estimate for video, bit/s. */
  dashThroughputBitsPerSec: number | null;
  /** Time from createPlayer() to the first `playing` event, ms. */
  startupDelayMs: number | null;
  rebufferCount: number;
  rebufferMs: number;
  bitrateSwitches: number;
  ended: boolean;
  errors: string[];
}

export interface EstimateStats {
  rttSec: number | null;
  rttSamples: number;
  bandwidthBitsPerSec: number | null;
  bandwidthSamples: number;
  chunkBytes: number | null;
  /** Where the estimates come from (e.g. `probe`, `tcp-info`, `wire-timing`). */
  source: string | null;
  /** RTT from the one-byte probes, seconds (Sprint-x, Sprint). */
  probeRttSec?: number | null;
  /** RTT from TCP_INFO of the train connection, seconds (Sprint on the extension). */
  tcpInfoRttSec?: number | null;
  /** Sprint: outstanding window (requests) in force. */
  outstandingWindow?: number | null;
  /** Sprint: how the train's requests travel (`extension`, `fetch`). */
  transport?: string | null;
}

export interface SprintStats {
  requestedMode: RequestedMode;
  /** Mode in force now (`null` until resolved). */
  mode: DataPlaneMode | null;
  /** Why this mode (and not a better one) is in force. */
  modeReason: string;
  segments: SegmentRecord[];
  transfers: TransferRecord[];
  /** Sprint trains (empty in other modes). */
  trains: TrainRecord[];
  /** Records dropped because the bounded logs were full. */
  droppedRecords: number;
  playback: PlaybackStats;
  samples: PlaybackSample[];
  estimates: EstimateStats;
  /** Data-plane counters (cancellations, wasted bytes, fallbacks...). */
  counters: Record<string, number>;
}
