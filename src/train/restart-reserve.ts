/**
 * The restart reserve: how much buffer Sprint keeps when downloading pauses,
 * so that resuming cannot stall playback (paper §IV-B1, the paused regime).
 *
 * Sprint's minimum train makes pauses long: a train overflows the buffer by
 * up to one chunk, then the connection idles until the buffer falls back to
 * the player's target. After an idle period longer than its retransmission
 * timeout, a Linux server restarts the connection from the initial window
 * (slow start after idle); into a bottleneck queue kept full by a competing
 * flow, an early loss can hold the restarted flow far below its share for
 * several seconds. Measured on the 3 Mbit/s × 256 KB testbed under BW-80
 * (README, "The paused regime"): after 45 s idle the first segment of a
 * train (652 KB) took 15.5 s at 0.34 Mbit/s while 14 s were buffered (dash.js
 * resumes at its 18 s target minus one 4 s segment) — a stall. The first
 * segment of the run's first train, also a restart from the initial window
 * into the full queue, had arrived at 0.35 Mbit/s: the restart rate is
 * measurable before it bites.
 *
 * So each train's first media segment is a sample of the *restart rate*
 * (its bytes over the time from its request to its last byte); the reserve
 * is the time the next segment (at the bitrate the ABR chose last) takes at
 * the lowest recent restart rate — at most the request timeout (past it, the
 * rescue step-down takes over: player/abr/rescue.ts) — over
 * RESTART_TIME_SHARE for margin. Downloading resumes once the buffer falls
 * below the larger of the player's own level and this reserve, with or
 * without the minimum train. It is timing only: the ABR still picks every
 * bitrate. A sample is taken from the request (the segment may queue behind
 * the init segment or audio on the connection: the buffer waits for those
 * too), and a probe that fails after some bytes still counts.
 */

/** Restart samples kept: the reserve follows the lowest of the last few. */
export const RESTART_SAMPLES = 4;
/** Share of the reserve the projected restart may take (the rest is margin). */
export const RESTART_TIME_SHARE = 0.8;

export interface RestartSample {
  /** Bytes of the train's first media segment. */
  bytes: number;
  /** From its request to its last byte, seconds. */
  seconds: number;
}

export class RestartReserve {
  private readonly samples: RestartSample[] = [];

  /** Records a train's first media segment; ignores samples that measure nothing. */
  record(sample: RestartSample): void {
    if (!(sample.bytes > 0) || !(sample.seconds > 0) || !Number.isFinite(sample.seconds)) return;
    this.samples.push({ bytes: sample.bytes, seconds: sample.seconds });
    if (this.samples.length > RESTART_SAMPLES) this.samples.shift();
  }

  /** The lowest restart rate of the recent samples, bit/s (null: none yet). */
  rateBitsPerSec(): number | null {
    if (this.samples.length === 0) return null;
    return Math.min(...this.samples.map((s) => (s.bytes * 8) / s.seconds));
  }

  /**
   * Seconds of buffer a resume needs: `nextSegmentBits` at the restart rate,
   * capped at `timeoutSec`, over RESTART_TIME_SHARE. 0 before any sample or
   * without a segment size.
   */
  reserveSec(nextSegmentBits: number, timeoutSec = Infinity): number {
    const rate = this.rateBitsPerSec();
    if (rate === null || !(nextSegmentBits > 0)) return 0;
    const cap = timeoutSec > 0 ? timeoutSec : Infinity;
    return Math.min(nextSegmentBits / rate, cap) / RESTART_TIME_SHARE;
  }

  get sampleCount(): number {
    return this.samples.length;
  }
}
