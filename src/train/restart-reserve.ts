/**
 * The restart reserve: how much buffer Sprint keeps when downloading pauses,
 * so that resuming cannot stall playback (paper §IV-B1, the paused regime).
 *
 * After an idle period longer than its retransmission timeout a server
 * restarts the connection from the initial window, and into a queue kept
 * full by a competing flow the restarted flow can stay far below its share
 * for seconds. A train that begins after such an idle period (restartIdleSec)
 * records its delivery curve (RestartRun): the video bits delivered by each
 * segment's arrival until the media delivered catches up with the time
 * elapsed. The reserve is the largest draw-down the last RESTART_SAMPLES
 * curves would cause at the bitrate the ABR chose last, over
 * RESTART_TIME_SHARE for margin, at most RESERVE_CAP_TIMEOUTS request time
 * limits; until RESTART_SAMPLES are measured, at least the next segment at
 * one initial window per round trip. The run's first train is no restart,
 * and a restart's first segment alone is not enough: both were measured to
 * leave the buffer short. Timing only: the ABR still picks every bitrate.
 *
 * The measurements and the rule's limits: docs/design/02-restart-reserve.md.
 */

import { DEFAULT_INITIAL_WINDOW_SEGMENTS, DEFAULT_MSS_BYTES } from '../model/chunk-size';

/** Restart samples kept: the reserve follows the slowest of the last few, and the assumed rate stands in until there are this many. */
export const RESTART_SAMPLES = 4;
/** Share of the reserve the projected draw-down may take (the rest is margin). */
export const RESTART_TIME_SHARE = 0.8;
/** Shortest idle period that counts as a pause, seconds (Linux's initial retransmission timeout). */
export const RESTART_IDLE_MIN_SEC = 1;
/** Linux's minimum retransmission timeout over the RTT, seconds (TCP_RTO_MIN). */
export const RTO_MIN_SEC = 0.2;
/** The projected draw-down is capped at this many request time limits. */
export const RESERVE_CAP_TIMEOUTS = 2;
/** Arrivals one restart records at most; a restart still below its bitrate after this many ends there. */
export const RESTART_MAX_POINTS = 64;

/**
 * Idle seconds after which a train samples a restart: as long as the
 * server's retransmission timeout can be (at least the RTT plus
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
 * The restart rate assumed until enough are measured, bit/s: one initial
 * window per round trip (null without a measured RTT or a window).
 */
export function assumedRestartBitsPerSec(rttSec: number | null, initialWindowBytes = RESTART_INITIAL_WINDOW_BYTES): number | null {
  if (!(initialWindowBytes > 0) || rttSec === null || !(rttSec > 0) || !Number.isFinite(rttSec)) return null;
  return (initialWindowBytes * 8) / rttSec;
}

/** One arrival of a restart's delivery curve: the video media bits delivered by `atSec` after the restart began (cumulative). */
export interface RestartPoint {
  readonly atSec: number;
  readonly bits: number;
}

/**
 * One restart as it happens: the train's first request at `startMs`, then
 * each video media segment's arrival. Over once the media delivered
 * catches up with the time elapsed (the buffer is back at its level when
 * the train began), or after RESTART_MAX_POINTS arrivals.
 */
export class RestartRun {
  private readonly curve: RestartPoint[] = [];
  private mediaSec = 0;
  private worstSec = 0;
  private caughtUpAtSec: number | null = null;
  private done = false;

  constructor(readonly startMs: number) {}

  /**
   * A media segment of `bytes` and `mediaSec` arrived at `atMs` (a segment
   * that failed: the bytes it had, and 0 media). Returns whether the run is
   * over. Arrivals before the start or out of order are taken at the latest
   * time seen.
   */
  arrived(atMs: number, bytes: number, mediaSec: number): boolean {
    if (this.done) return true;
    const last = this.curve[this.curve.length - 1];
    const atSec = Math.max((atMs - this.startMs) / 1000, last?.atSec ?? 0, 0);
    const bits = (last?.bits ?? 0) + (bytes > 0 && Number.isFinite(bytes) ? bytes * 8 : 0);
    this.curve.push({ atSec, bits });
    this.worstSec = Math.max(this.worstSec, atSec - this.mediaSec);
    if (mediaSec > 0 && Number.isFinite(mediaSec)) this.mediaSec += mediaSec;
    if (this.mediaSec > 0 && this.mediaSec >= atSec) this.caughtUpAtSec = atSec;
    this.done = this.caughtUpAtSec !== null || this.curve.length >= RESTART_MAX_POINTS;
    return this.done;
  }

  /** Ends the run where it is (its train ended, a segment failed for good). */
  end(): void {
    this.done = true;
  }

  get over(): boolean {
    return this.done;
  }

  /** The delivery curve so far. */
  get points(): readonly RestartPoint[] {
    return this.curve;
  }

  /** When the media delivered caught up with the time elapsed, seconds after the start (null: not, or not yet). */
  get caughtUpSec(): number | null {
    return this.caughtUpAtSec;
  }

  /** The draw-down measured: the largest of each arrival's time less the media that arrived before it, seconds. */
  get drawDownSec(): number {
    return this.worstSec;
  }

  /** The first segment's rate, bit/s (null before it arrived). */
  get firstBitsPerSec(): number | null {
    return firstRate(this.curve);
  }

  /**
   * Video media bits delivered since the start over the time since, at
   * `nowMs`, counting `arrivingBits` of segments still arriving (null while
   * no time has passed).
   */
  deliveredBitsPerSec(nowMs: number, arrivingBits = 0): number | null {
    const last = this.curve[this.curve.length - 1];
    const sec = Math.max((nowMs - this.startMs) / 1000, last?.atSec ?? 0);
    const bits = (last?.bits ?? 0) + (arrivingBits > 0 && Number.isFinite(arrivingBits) ? arrivingBits : 0);
    return sec > 0 ? bits / sec : null;
  }

  /**
   * The rate this restart is delivering video at, bit/s, at `nowMs`
   * (`arrivingBits`: bits of its segments still arriving): what it has
   * delivered over its time so far; before its first segment has arrived,
   * no more than `plannedBitsPerSec` (the rate the reserve plans on), which
   * the time already spent can only lower. Null when neither is known.
   * The time spent counts before the first arrival because a plan from an
   * earlier, faster restart outlives the evidence: measured, it let video
   * lead audio until audio ran dry (docs/design/02-restart-reserve.md).
   */
  deliveringBitsPerSec(nowMs: number, arrivingBits: number, plannedBitsPerSec: number | null): number | null {
    const soFar = this.deliveredBitsPerSec(nowMs, arrivingBits);
    const planned = plannedBitsPerSec !== null && plannedBitsPerSec > 0 && Number.isFinite(plannedBitsPerSec) ? plannedBitsPerSec : null;
    if (this.curve.length > 0 || planned === null) return soFar;
    return soFar === null ? planned : Math.min(soFar, planned);
  }
}

function firstRate(curve: readonly RestartPoint[]): number | null {
  const first = curve[0];
  return first && first.atSec > 0 && first.bits > 0 ? first.bits / first.atSec : null;
}

/** When `curve` had delivered `bits`, seconds: linear between arrivals, at the curve's average rate past its end. */
function timeToBits(curve: readonly RestartPoint[], bits: number): number {
  let prev: RestartPoint = { atSec: 0, bits: 0 };
  for (const p of curve) {
    if (p.bits >= bits) {
      const span = p.bits - prev.bits;
      return span > 0 ? prev.atSec + ((bits - prev.bits) * (p.atSec - prev.atSec)) / span : p.atSec;
    }
    prev = p;
  }
  return prev.bits > 0 ? (bits * prev.atSec) / prev.bits : Infinity;
}

/**
 * The draw-down a restart delivering as `curve` did would cause with
 * segments of `segmentBits` and `segmentSec`: the largest of the j-th
 * segment's arrival less the (j−1) segments' media before it, over the
 * segments the curve delivered (at least the first), seconds. 0 without a
 * curve or a segment.
 */
export function projectedDrawDownSec(curve: readonly RestartPoint[], segmentBits: number, segmentSec: number): number {
  const last = curve[curve.length - 1];
  if (!last || !(last.bits > 0) || !(segmentBits > 0) || !Number.isFinite(segmentBits)) return 0;
  const mediaSec = segmentSec > 0 && Number.isFinite(segmentSec) ? segmentSec : 0;
  const segments = Math.min(Math.max(1, Math.floor(last.bits / segmentBits)), RESTART_MAX_POINTS);
  let worst = 0;
  for (let j = 1; j <= segments; j++) worst = Math.max(worst, timeToBits(curve, j * segmentBits) - (j - 1) * mediaSec);
  return worst;
}

/** What the reserve is planned for. */
export interface ReservePlan {
  /** Bits of the next segment: the ABR's last bitrate times its duration. */
  segmentBits: number;
  /** Media seconds of the next segment. */
  segmentSec: number;
  /** dash.js's request time limit, seconds (Infinity: none). */
  timeoutSec?: number;
  /** The assumed restart rate, bit/s (assumedRestartBitsPerSec; null: none). */
  assumedBitsPerSec?: number | null;
}

export class RestartReserve {
  private readonly samples: (readonly RestartPoint[])[] = [];

  /** Records a finished restart's delivery curve; ignores one that measured nothing. */
  record(curve: readonly RestartPoint[]): void {
    const last = curve[curve.length - 1];
    if (!last || !(last.bits > 0) || !(last.atSec > 0) || !Number.isFinite(last.atSec)) return;
    this.samples.push(curve.map((p) => ({ atSec: p.atSec, bits: p.bits })));
    if (this.samples.length > RESTART_SAMPLES) this.samples.shift();
  }

  /**
   * The lowest first-segment rate of the recent restarts, bit/s; before any
   * sample, `assumedBitsPerSec` when it is a rate (null: neither).
   */
  rateBitsPerSec(assumedBitsPerSec: number | null = null): number | null {
    const rates = this.samples.map(firstRate).filter((r): r is number => r !== null);
    if (rates.length === 0) return assumedBitsPerSec !== null && assumedBitsPerSec > 0 ? assumedBitsPerSec : null;
    return Math.min(...rates);
  }

  /**
   * Seconds of buffer a resume needs: the largest projected draw-down of the
   * recent restarts (capped at RESERVE_CAP_TIMEOUTS time limits) and, while
   * fewer than RESTART_SAMPLES are measured, the next segment at the assumed
   * rate (capped at one time limit); over RESTART_TIME_SHARE. 0 without a
   * segment size, or with neither a sample nor an assumed rate.
   */
  reserveSec(plan: ReservePlan): number {
    if (!(plan.segmentBits > 0) || !Number.isFinite(plan.segmentBits)) return 0;
    const timeoutSec = plan.timeoutSec !== undefined && plan.timeoutSec > 0 ? plan.timeoutSec : Infinity;
    let need = 0;
    for (const curve of this.samples) need = Math.max(need, projectedDrawDownSec(curve, plan.segmentBits, plan.segmentSec));
    need = Math.min(need, RESERVE_CAP_TIMEOUTS * timeoutSec);
    const assumed = plan.assumedBitsPerSec ?? null;
    if (this.samples.length < RESTART_SAMPLES && assumed !== null && assumed > 0)
      need = Math.max(need, Math.min(plan.segmentBits / assumed, timeoutSec));
    return need / RESTART_TIME_SHARE;
  }

  get sampleCount(): number {
    return this.samples.length;
  }
}
