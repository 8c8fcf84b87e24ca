/**
 * Audio on the train's connection, in presentation order with the video
 * (beyond the paper: §IV-B1 pipelines video only, and a player whose audio
 * has a connection of its own is two flows at the bottleneck).
 *
 * On one HTTP/1.1 connection responses come back in request order, and
 * dash.js, left to itself, has one audio request out at a time. An audio request issued
 * behind a full video window waits for all of it, and the next audio
 * request is issued only once that one is in: audio then gets one segment
 * per window's worth of video and falls behind the playhead, however much
 * video is buffered. Requesting in presentation order — v(i), a(i),
 * v(i+1), a(i+1), … — makes each audio response wait for about one video
 * response, so audio keeps pace with video.
 *
 * The rule, with no I/O: hold the next video request while the video
 * already asked for (buffered plus in flight) leads the audio asked for by
 * at least the allowed lead, and audio still wants to load (below its
 * buffer target). The allowed lead is one video segment, or half the audio
 * buffered, whichever is more. Audio's next request waits behind at most
 * the lead's worth of video, so with audio buffered at twice the lead it
 * cannot run dry unless video arrives at under half its bitrate. A lead of
 * one segment only tied video to one segment per audio round trip: on
 * HTTP/2 at a 512 KB queue (RTT ~1.2 s) the window sat at one request with
 * 26 s of audio buffered, and the player got 90 % of its fair share. The
 * caller bounds how long one hold may last.
 *
 * Two refinements for a train that resumes after a pause (README, "Paper
 * Fig. 11"): the connection restarts from its initial window and video
 * arrives far below its bitrate (0.29–0.34 Mbit/s for 1.35 Mbit/s
 * segments on the testbed), and dash.js asks for audio late — its audio
 * target is the video buffered plus 1 s, so audio that ended the last
 * train one segment ahead asks only once the first video of the new train
 * is appended. Measured: three video segments (2 MB) went on the wire
 * before that audio request, it waited 14 s behind them with 9 s of audio
 * buffered, and playback stalled. So:
 *   - the allowed lead shrinks with the rate video is expected to arrive at
 *     over its bitrate (below 1): half the audio buffered, in media time,
 *     is only safe while video arrives at its bitrate or faster;
 *   - audio counts as wanting to load when it will once the video in
 *     flight lands (its target then rises by that video's media time), and
 *     while it waits for that landing its silence is expected, not a stall
 *     of dash.js's audio loop (`awaitingVideo`).
 *
 * Audio is pipelined too (`audioMayPipeline`): dash.js asks for its next
 * audio segment only once the previous one is appended, so one audio
 * segment per round trip at best, and video, held to audio's pace by the
 * rule above, follows. Once the round trip nears the segment duration that
 * is slower than playback. Measured on the 3 Mbit/s testbed with a
 * 1536 KB queue (a 3.5 s round trip behind the bulk flow's full queue,
 * 4 s segments): one audio and one video request on the connection at a
 * time, 0.32 Mbit/s (22 % of the fair share), the lowest rung throughout
 * and 34 stalls in 5 minutes, while the window would have allowed a fair
 * BDP (620 KB, four segments). So a further audio request may go while one
 * is in flight, as long as the audio asked for, with that segment, does not
 * pass the video asked for: the order stays v(i), a(i), v(i+1), a(i+1), …
 * with as many of each on the way as the connection's window holds.
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
