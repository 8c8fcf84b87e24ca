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
 * resumes at its 18 s target minus one 4 s segment) — a stall.
 *
 * The run's first train is not a restart: it opens the connection while the
 * competing flow may still be filling the queue. On the same testbed, once
 * the page started 3–4 s sooner (a smaller bundle, the manifest fetched
 * once), the first train's first segment arrived at 0.69–0.82 Mbit/s and the
 * first restart at 0.28–0.29 Mbit/s: a reserve taken from the first train
 * was 7–9 s, under dash.js's own level, and both runs stalled (README,
 * Fig. 11). So only a train that begins after the connection idled — an
 * earlier train ended, and nothing arrived for longer than a retransmission
 * timeout could be (restartIdleSec) — samples the restart. Until one has,
 * the reserve assumes the restart delivers one initial window per round trip
 * (assumedRestartBitsPerSec): slow start from the initial window, held there
 * by an early loss into the full queue (0.19 Mbit/s at 10 × 1460 bytes per
 * 0.62 s, below the 0.28 measured).
 *
 * So the first media segment of each train after a pause is a sample of the
 * *restart rate* (its bytes over the time from its request to its last
 * byte); the reserve is the time the next segment (at the bitrate the ABR
 * chose last) takes at the lowest recent restart rate (the assumed one before
 * any sample) — at most the request timeout (past it, the
 * rescue step-down takes over: player/abr/rescue.ts) — over
 * RESTART_TIME_SHARE for margin. Downloading resumes once the buffer falls
 * below the larger of the player's own level and this reserve, with or
 * without the minimum train. It is timing only: the ABR still picks every
 * bitrate. A sample is taken from the request (the segment may queue behind
 * the init segment or audio on the connection: the buffer waits for those
 * too), and a probe that fails after some bytes still counts.
 *
 * Limits. Linux halves the window once per retransmission timeout of idle,
 * down to the initial window: a gap of one to a few timeouts leaves it partly
 * decayed, and such a sample is faster than a full restart (the lowest of
 * the last few and the margin absorb some of that; requiring full decay
 * would leave paths with long round trips, a server's think time among them,
 * with no sample at all). The idle clock is the train's connection (video,
 * and audio when it rides): audio dash.js loads itself on a connection the
 * browser shares with the train (HTTP/2) keeps that window warm unseen.
 */

import { DEFAULT_INITIAL_WINDOW_SEGMENTS, DEFAULT_MSS_BYTES } from '../model/chunk-size';

/** Restart samples kept: the reserve follows the lowest of the last few. */
export const RESTART_SAMPLES = 4;
/** Share of the reserve the projected restart may take (the rest is margin). */
export const RESTART_TIME_SHARE = 0.8;
/** Shortest idle period that counts as a pause, seconds (Linux's initial retransmission timeout). */
export const RESTART_IDLE_MIN_SEC = 1;
/** Linux's minimum retransmission timeout over the RTT, seconds (TCP_RTO_MIN). */
export const RTO_MIN_SEC = 0.2;

/**
 * Idle seconds after which a train's first segment samples a restart: as
 * long as the server's retransmission timeout can be (at least the RTT plus
 * RTO_MIN_SEC, and at least RESTART_IDLE_MIN_SEC). A shorter gap leaves the
 * congestion window as it was, and a sample of it would promise a restart
 * faster than a real one.
 */
export function restartIdleSec(rttSec: number | null): number {
  const rtt = rttSec !== null && rttSec > 0 && Number.isFinite(rttSec) ? rttSec : 0;
  return Math.max(RESTART_IDLE_MIN_SEC, rtt + RTO_MIN_SEC);
}

/** The initial window Program 1 assumes (src/model/chunk-size.ts), bytes: the Linux default of 10 segments. */
export const RESTART_INITIAL_WINDOW_BYTES = DEFAULT_INITIAL_WINDOW_SEGMENTS * DEFAULT_MSS_BYTES;

/**
 * The restart rate assumed before any sample, bit/s: one initial window per
 * round trip (null without a measured RTT or a window).
 */
export function assumedRestartBitsPerSec(rttSec: number | null, initialWindowBytes = RESTART_INITIAL_WINDOW_BYTES): number | null {
  if (!(initialWindowBytes > 0) || rttSec === null || !(rttSec > 0) || !Number.isFinite(rttSec)) return null;
  return (initialWindowBytes * 8) / rttSec;
}

export interface RestartSample {
  /** Bytes of the train's first media segment. */
  bytes: number;
  /** From its request to its last byte, seconds. */
  seconds: number;
}

export class RestartReserve {
  private readonly samples: RestartSample[] = [];

  /** Records the first media segment of a train after a pause; ignores samples that measure nothing. */
  record(sample: RestartSample): void {
    if (!(sample.bytes > 0) || !(sample.seconds > 0) || !Number.isFinite(sample.seconds)) return;
    this.samples.push({ bytes: sample.bytes, seconds: sample.seconds });
    if (this.samples.length > RESTART_SAMPLES) this.samples.shift();
  }

  /**
   * The lowest restart rate of the recent samples, bit/s; before any sample,
   * `assumedBitsPerSec` when it is a rate (null: neither).
   */
  rateBitsPerSec(assumedBitsPerSec: number | null = null): number | null {
    if (this.samples.length === 0) return assumedBitsPerSec !== null && assumedBitsPerSec > 0 ? assumedBitsPerSec : null;
    return Math.min(...this.samples.map((s) => (s.bytes * 8) / s.seconds));
  }

  /**
   * Seconds of buffer a resume needs: `nextSegmentBits` at the restart rate
   * (`assumedBitsPerSec` before any sample), capped at `timeoutSec`, over
   * RESTART_TIME_SHARE. 0 without a rate or a segment size.
   */
  reserveSec(nextSegmentBits: number, timeoutSec = Infinity, assumedBitsPerSec: number | null = null): number {
    const rate = this.rateBitsPerSec(assumedBitsPerSec);
    if (rate === null || !(nextSegmentBits > 0)) return 0;
    const cap = timeoutSec > 0 ? timeoutSec : Infinity;
    return Math.min(nextSegmentBits / rate, cap) / RESTART_TIME_SHARE;
  }

  get sampleCount(): number {
    return this.samples.length;
  }
}
