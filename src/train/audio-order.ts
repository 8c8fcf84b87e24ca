/**
 * Audio on the train's connection, in presentation order with the video
 * (beyond the paper: §IV-B1 pipelines video only, and a player whose audio
 * has a connection of its own is two flows at the bottleneck).
 *
 * On one HTTP/1.1 connection responses come back in request order, and
 * dash.js has one audio request out at a time: an audio request issued
 * behind a full video window waits for all of it, and audio falls behind
 * the playhead however much video is buffered. Requesting in presentation
 * order — v(i), a(i), v(i+1), a(i+1), … — makes each audio response wait
 * for about one video response.
 *
 * The rule, with no I/O: hold the next video request while the video asked
 * for (buffered plus in flight) leads the audio asked for by at least the
 * allowed lead, and audio still wants to load. The allowed lead is one video
 * segment or half the audio buffered, whichever is more, shrunk by the rate
 * video is expected to arrive at over its bitrate (a restart after a pause
 * arrives far below it). Audio counts as wanting to load when it will once
 * the video in flight lands (`awaitingVideo`), and audio may pipeline
 * (`audioMayPipeline`) while the audio asked for does not pass the video
 * asked for. The caller bounds how long one hold may last.
 *
 * The stalls each part answers: docs/design/03-audio-order.md.
 */

export interface AudioOrderState {
  /** Video buffered ahead of the playhead plus the media time of video requests in flight, seconds. */
  videoAheadSec: number;
  /** The same for audio, seconds. */
  audioAheadSec: number;
  /** Audio buffered ahead of the playhead (appended only), seconds. */
  audioBufferSec: number;
  /** The buffer level dash.js fills audio to now, seconds; NaN when unknown (audio then wants to load). */
  audioTargetSec: number;
  /** Media time of the next video segment, seconds. */
  videoSegmentSec: number;
  /**
   * Media time of the video requests in flight, seconds (part of
   * videoAheadSec): dash.js's audio target follows the video buffered, so it
   * rises by this much once they land. 0 or absent: audio's target as it is.
   */
  videoInFlightSec?: number;
  /** The rate video is expected to arrive at over its bitrate; NaN or absent: unknown (taken as 1). */
  videoRateRatio?: number;
}

/**
 * A lead within this share of the allowed lead counts as reaching it. Audio
 * segments are not exactly as long as video's (1024-sample AAC frames), so
 * "one whole segment ahead" must not hang on a few milliseconds: on the
 * testbed a restart with two video segments in flight and audio one
 * segment ahead in the buffer led by 4.00 s against a 4 s allowance, and
 * whether the third video request waited was a matter of rounding.
 */
export const LEAD_TOLERANCE = 0.05;

export interface AudioOrderDecision {
  /** The next video request should wait for audio to ask for its next segment. */
  readonly hold: boolean;
  /** Audio is at dash.js's target now and will ask only once the video in flight lands: its silence is expected. */
  readonly awaitingVideo: boolean;
}

/** Whether the next video request should wait for audio, and whether audio is silent only until the video in flight lands. */
export function audioOrder(s: AudioOrderState): AudioOrderDecision {
  const inFlight = s.videoInFlightSec !== undefined && s.videoInFlightSec > 0 ? s.videoInFlightSec : 0;
  const known = Number.isFinite(s.audioTargetSec);
  const atTargetNow = known && s.audioBufferSec >= s.audioTargetSec;
  const wantsOnceLanded = !known || s.audioBufferSec < s.audioTargetSec + inFlight;
  const hold = wantsOnceLanded && s.videoAheadSec - s.audioAheadSec >= allowedLeadSec(s) * (1 - LEAD_TOLERANCE);
  return { hold, awaitingVideo: hold && atTargetNow };
}

/**
 * How far video may lead audio (media seconds asked for) before it waits:
 * one segment, or half the audio buffered scaled by the expected rate over
 * the bitrate when that is below 1, whichever is more.
 */
export function allowedLeadSec(s: Pick<AudioOrderState, 'audioBufferSec' | 'videoSegmentSec' | 'videoRateRatio'>): number {
  const buffered = Number.isFinite(s.audioBufferSec) && s.audioBufferSec > 0 ? s.audioBufferSec : 0;
  const ratio = s.videoRateRatio;
  const pace = ratio !== undefined && Number.isFinite(ratio) && ratio >= 0 ? Math.min(1, ratio) : 1;
  return Math.max(s.videoSegmentSec, (buffered / 2) * pace, 0.001);
}

/** What `audioMayPipeline` reads: media seconds asked for (buffered plus in flight) and the next audio segment's duration. */
export interface AudioPipelineState {
  /** Video buffered ahead of the playhead plus the media time of video requests in flight, seconds. */
  videoAheadSec: number;
  /** The same for audio, seconds. */
  audioAheadSec: number;
  /** Media time of the next audio segment, seconds. */
  audioSegmentSec: number;
}

/**
 * May audio ask for its next segment while one of its requests is still in
 * flight? Yes while that segment would not end past the video asked for
 * (within LEAD_TOLERANCE of a segment: audio segments are not exactly as
 * long as video's), so audio never leads video on the connection. The
 * caller also holds it to the connection's outstanding window.
 */
export function audioMayPipeline(s: AudioPipelineState): boolean {
  const segment = Number.isFinite(s.audioSegmentSec) && s.audioSegmentSec > 0 ? s.audioSegmentSec : 0;
  if (!Number.isFinite(s.videoAheadSec) || !Number.isFinite(s.audioAheadSec)) return false;
  return s.audioAheadSec + segment <= s.videoAheadSec + segment * LEAD_TOLERANCE;
}
