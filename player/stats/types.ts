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
  /** Most requests outstanding at once while the train ran (the outstanding window counts bytes, §IV-B1). */
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
  /** Video buffered ahead of playback when the train began, seconds. */
  resumeBufferSec: number | null;
  /**
   * The restart reserve when the train began, seconds (0: none — no RTT
   * measured or no bitrate chosen yet, or after a buffer quota error or a
   * fallback; src/train/restart-reserve.ts). Where it is above the player's own resume
   * level (buffer target minus one segment), downloading resumed once the
   * buffer fell below it; below that level it changed nothing.
   */
  restartReserveSec: number;
  /**
   * A train after a pause: the restart's draw-down, seconds — the largest of
   * each video segment's arrival (from the train's first request) less the
   * media that arrived before it, until the media delivered caught up with
   * the time elapsed (src/train/restart-reserve.ts). null: no restart
   * sampled (the run's first train, a short gap, a seek), or not over yet.
   */
  restartDrawDownSec: number | null;
}

/**
 * A bitrate switch Sprint-x held back (paper §IV-B2 with our `after-chunk`
 * policy): the ABR asked for another representation while an expanded
 * request on the old one had not yet delivered its chunk (or held old
 * segments dash.js had not taken). The ABR is asked again at every segment;
 * this record spans its wishes until the switch took effect or was dropped.
 */
export interface DeferredSwitchRecord {
  mediaType: string;
  fromRepresentationId: string | null;
  /** The representation the ABR asked for last. */
  toRepresentationId: string | null;
  /** When the ABR first asked. */
  askedMs: number;
  /** How many times the ABR asked while the switch was held. */
  wishes: number;
  /** When the hold ended, or null while it lasts. */
  endedMs: number | null;
  /**
   * `applied`: the switch went ahead (see `why`); `withdrawn`: the ABR stopped
   * asking; `superseded`: the transfer it protected ended another way (seek, error).
   */
  outcome: 'applied' | 'withdrawn' | 'superseded' | null;
  /** Why the hold ended (`chunk delivered`, `buffer below safety level`, ...). */
  why: string | null;
  /** The expanded transfer the hold protected (`transfers[].id`). */
  transferId: number;
  /** Bytes of the old representation that transfer received while the switch was held. */
  oldBytesMeanwhile: number;
}

/**
 * A segment that could not arrive and the lower rung it was asked again at
 * (player/abr/rescue.ts): the player steps down instead of retrying the same
 * rung until dash.js gives up.
 */
export interface RescueRecord {
  /** When the failure was seen. */
  atMs: number;
  mediaType: string;
  /** `timed out after N bytes` or `cut after N bytes`. */
  reason: string;
  url: string;
  range: string | null;
  /** Segment index in its representation. */
  index: number;
  /** Media duration of the segment, seconds. */
  segmentSec: number | null;
  fromRepresentationId: string | null;
  /** Nominal bitrate of the rung that failed, bit/s. */
  fromBandwidth: number | null;
  /** Body bytes that arrived before the failure. */
  bytesLoaded: number;
  /** When the failed load started. */
  requestMs: number;
  /** Those bytes over the time they took (first byte to failure), bit/s; null if none arrived. */
  measuredBitsPerSec: number | null;
  /** Video buffered when the lower rung was chosen, seconds. */
  bufferSec: number | null;
  /** The rung the segment was asked again at (null until the ABR's next decision). */
  toRepresentationId: string | null;
  toBandwidth: number | null;
  appliedMs: number | null;
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
  /** Rebuffer time so far, ms, including the stall in progress (if any) up to now. */
  rebufferMs: number;
  /** When the stall in progress began (it is already counted in `rebufferCount`), or null while playing. */
  stallStartMs: number | null;
  bitrateSwitches: number;
  ended: boolean;
  /** The last 100 dash.js errors, oldest first. */
  errors: string[];
  /** dash.js errors since the start (not capped: the difference between two snapshots is what happened between them). */
  errorCount: number;
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
  /** Sprint: requests outstanding right after the last one was issued (the window counts bytes, §IV-B1). */
  outstandingWindow?: number | null;
  /** Sprint: how the train's requests travel (`extension`, `fetch`). */
  transport?: string | null;
  /**
   * Sprint: nominal bitrate of the audio riding the train's connection, bit/s
   * (null or absent: audio on a connection of its own). Its bytes are in
   * `bandwidthBitsPerSec`, the connection's rate (the chunk-size model's
   * input); BW-x budgets video from that rate less this (player/abr/bw-x-rule.ts).
   */
  sharedAudioBitsPerSec?: number | null;
  /** Sprint: the lowest recent restart rate, bit/s — the first segment of a train after a pause; null before one, while the reserve assumes one initial window per round trip (src/train/restart-reserve.ts). */
  restartBitsPerSec?: number | null;
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
  /** Bitrate switches Sprint-x held until its chunk was in (empty in other modes). */
  deferredSwitches: DeferredSwitchRecord[];
  /** Segments that could not arrive and the lower rung each was asked again at (every mode). */
  rescues: RescueRecord[];
  /** Records dropped because the bounded logs were full. */
  droppedRecords: number;
  playback: PlaybackStats;
  samples: PlaybackSample[];
  estimates: EstimateStats;
  /** Data-plane counters (cancellations, wasted bytes, fallbacks...). */
  counters: import('./counters').Counters;
  /**
   * What the player changed that the page may not expect, in words: dash.js
   * settings a mode needs and set over the page's or dash.js's own value
   * (player/dash/train-settings.ts). Empty when nothing was.
   */
  warnings: string[];
}
