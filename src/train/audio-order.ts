/**
 * Audio on the train's connection, in presentation order with the video
 * (beyond the paper: §IV-B1 pipelines video only, and a player whose audio
 * has a connection of its own is two flows at the bottleneck).
 *
 * On one HTTP/1.1 connection responses come back in request order, and
 * dash.js has one audio request out at a time. An audio request issued
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
 */

export interface AudioOrderState {
  /** Video buffered ahead of the playhead plus the media time of video requests in flight, seconds. */
  videoAheadSec: number;
  /** The same for audio, seconds. */
  audioAheadSec: number;
  /** Audio buffered ahead of the playhead (appended only), seconds. */
  audioBufferSec: number;
  /** The buffer level dash.js fills audio to, seconds; NaN when unknown (audio then wants to load). */
  audioTargetSec: number;
  /** Media time of the next video segment, seconds. */
  videoSegmentSec: number;
}

/** True when the next video request should wait for audio to ask for its next segment. */
export function holdVideoForAudio(s: AudioOrderState): boolean {
  const audioWants = !(Number.isFinite(s.audioTargetSec) && s.audioBufferSec >= s.audioTargetSec);
  if (!audioWants) return false;
  return s.videoAheadSec - s.audioAheadSec >= allowedLeadSec(s);
}

/** How far video may lead audio (media seconds asked for) before it waits: one segment, or half the audio buffered. */
export function allowedLeadSec(s: Pick<AudioOrderState, 'audioBufferSec' | 'videoSegmentSec'>): number {
  const buffered = Number.isFinite(s.audioBufferSec) && s.audioBufferSec > 0 ? s.audioBufferSec : 0;
  return Math.max(s.videoSegmentSec, buffered / 2, 0.001);
}
