/**
 * The hold that keeps audio riding the train's connection in presentation
 * order with the video (src/train/audio-order.ts decides when to hold): a
 * video request waits while audio's request is in flight (it comes right
 * after the video response ahead of it) and, once that is in, until audio
 * asks again. If audio, with nothing in flight, has not asked within
 * AUDIO_IDLE_MAX_MS, it has stopped on its own (end of stream, an error):
 * holds stop until it asks again, and video goes on.
 * Why there is no limit while audio is in flight: docs/design/03-audio-order.md.
 */

/** How long video waits for audio that has nothing in flight to ask for its next segment, ms. */
export const AUDIO_IDLE_MAX_MS = 1000;

/** Counters the hold reports (`stats().counters`). */
export type AudioHoldCounter = 'sprint.audioHolds' | 'sprint.audioHoldTimeouts';

export class AudioHold {
  /** Since when a video request has been held (null: not held). */
  private since: number | null = null;
  /** Since when, during a hold, audio has had nothing in flight (null: busy, or not held). */
  private idleSince: number | null = null;
  private suspendedUntilAudioAsks = false;

  constructor(
    private readonly count: (counter: AudioHoldCounter) => void,
    private readonly idleMaxMs = AUDIO_IDLE_MAX_MS,
  ) {}

  /** A hold timed out and audio has not asked since: no holds. */
  get suspended(): boolean {
    return this.suspendedUntilAudioAsks;
  }

  /** Audio asked for a segment: holds may begin again. */
  audioAsked(): void {
    this.suspendedUntilAudioAsks = false;
  }

  /**
   * Whether video waits now. `hold`: the audio order asks for a hold;
   * `expected`: waiting is expected (audio has a request, or it is at its
   * target until the video in flight lands), so it has no time limit.
   */
  decide(hold: boolean, expected: boolean, nowMs: number): boolean {
    if (this.suspendedUntilAudioAsks || !hold) return this.release();
    if (this.since === null) {
      this.since = nowMs;
      this.count('sprint.audioHolds');
    }
    if (expected) {
      this.idleSince = null;
      return true;
    }
    this.idleSince ??= nowMs;
    if (nowMs - this.idleSince <= this.idleMaxMs) return true;
    this.count('sprint.audioHoldTimeouts');
    this.suspendedUntilAudioAsks = true;
    return this.release();
  }

  /** Ends a hold, if one runs. */
  release(): false {
    this.since = null;
    this.idleSince = null;
    return false;
  }
}
