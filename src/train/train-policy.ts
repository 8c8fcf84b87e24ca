/**
 * Sprint's train policy (paper §IV-B1), per media type, with no I/O:
 *
 *  - A *train* is the run of pipelined segment requests issued from the
 *    moment downloading resumes (nothing outstanding) until the model's chunk
 *    size (§IV-A, Program 1) has been requested. The chunk size is the one
 *    for the *current* estimates (`retarget`): a train that began on the
 *    bootstrap guesses (no transfer measured yet) is held to what the first
 *    measurements say, not to a guess that may be ten times too large.
 *  - While a train runs, requests are issued whenever the *outstanding
 *    window* has room, counted in bytes on the live state of the requests
 *    in flight (src/model/outstanding-window.ts): fewer than 2 outstanding,
 *    or their unreceived bytes below the window (two fair BDPs by default,
 *    `windowBdps`) plus the response arriving — so the server never waits
 *    for a request whatever the segment size, yet the ABR still picks every
 *    segment's bitrate when that segment is requested. The caller asks again
 *    as bytes arrive, not only when a request completes.
 *  - The minimum train is enforced each time downloading resumes, even if
 *    the buffer then exceeds the player's target by up to one train; outside
 *    a train, requests follow the player's own buffer target, or the restart
 *    reserve when it is larger (src/train/restart-reserve.ts: a resume after
 *    a long pause restarts from the initial window). With
 *    `minimumTrain: false` (the paper's "Sprint without MPT", Fig. 11) trains
 *    still pipeline but stop at the player's buffer target (or the restart
 *    reserve: it applies with and without the minimum train).
 *
 * The policy only answers "may another request be issued now?" and keeps
 * the books; the scheduler hook asks dash.js for the request (and so its ABR).
 */
import {
  DEFAULT_MAX_OUTSTANDING_REQUESTS,
  DEFAULT_WINDOW_BDPS,
  mayIssueRequest,
  requireWindowBdps,
  windowBytes,
} from '../model/outstanding-window';

export interface TrainSnapshot {
  id: number;
  targetBytes: number;
  issuedBytes: number;
  issuedRequests: number;
  completedRequests: number;
  completedBytes: number;
  startedAtMs: number;
  endedAtMs: number | null;
  /** Most requests outstanding at once while the train ran (the byte window, in requests). */
  maxOutstanding: number;
  /** The target when the train started (before any retarget). */
  initialTargetBytes: number;
}

export interface TrainPolicyOptions {
  /** Enforce the minimum train past the player's buffer target (§IV-B1). Default true. */
  readonly minimumTrain?: boolean;
  /** Hard cap on outstanding requests. Default DEFAULT_MAX_OUTSTANDING_REQUESTS (32). */
  readonly maxOutstanding?: number;
  /** The byte window in fair BDPs (src/model/outstanding-window.ts). Default DEFAULT_WINDOW_BDPS (2). */
  readonly windowBdps?: number;
}

export interface IssueContext {
  /** Requests issued and not yet completed. */
  outstanding: number;
  /** Bytes the outstanding requests have yet to deliver, now. */
  unreceivedBytes: number;
  /** Expected size of the response arriving now (the oldest outstanding with bytes received), 0 if none. */
  arrivingBytes: number;
  /** One fair BDP on the current estimates, bytes (§IV-A). */
  fairBdpBytes: number;
  /** Seconds of media appended ahead of the playhead. */
  bufferSec: number;
  /** Seconds of media in requests issued and not yet appended. */
  inFlightSec: number;
  /** Duration of the next segment, seconds. */
  segmentSec: number;
  /** The player's buffer target, seconds. */
  bufferTargetSec: number;
  /**
   * The restart reserve (src/train/restart-reserve.ts): seconds of buffer
   * below which downloading goes on even where the player's target would
   * pause it, so a resume from the initial window cannot drain the buffer.
   * 0 or absent: the player's target alone.
   */
  restartReserveSec?: number;
}

export class TrainPolicy {
  private current: TrainSnapshot | null = null;
  private nextId = 1;
  /** Enforce the minimum train past the buffer target; turned off for good after a buffer quota error. */
  minimumTrain: boolean;
  private readonly maxOutstanding: number;
  private readonly windowBdps: number;

  constructor(options: TrainPolicyOptions = {}) {
    this.minimumTrain = options.minimumTrain ?? true;
    this.windowBdps = options.windowBdps ?? DEFAULT_WINDOW_BDPS;
    requireWindowBdps(this.windowBdps);
    this.maxOutstanding = options.maxOutstanding ?? DEFAULT_MAX_OUTSTANDING_REQUESTS;
    if (!Number.isInteger(this.maxOutstanding) || this.maxOutstanding < 2) {
      throw new RangeError(`maxOutstanding must be an integer >= 2, got ${this.maxOutstanding}`);
    }
  }

  /** Starts a new train when downloading resumes; returns it. */
  begin(targetBytes: number, atMs: number): TrainSnapshot {
    if (!(targetBytes > 0)) throw new RangeError(`train target must be positive, got ${targetBytes}`);
    this.current = {
      id: this.nextId++,
      targetBytes,
      issuedBytes: 0,
      issuedRequests: 0,
      completedRequests: 0,
      completedBytes: 0,
      startedAtMs: atMs,
      endedAtMs: null,
      maxOutstanding: 0,
      initialTargetBytes: targetBytes,
    };
    return this.current;
  }

  /**
   * Holds the running train to a new chunk size (the estimates changed).
   * A train that has already requested that much is spent from now on.
   * Returns false (and changes nothing) when no train is running.
   */
  retarget(targetBytes: number): boolean {
    if (!(targetBytes > 0)) throw new RangeError(`train target must be positive, got ${targetBytes}`);
    if (!this.current || this.current.endedAtMs !== null) return false;
    this.current.targetBytes = targetBytes;
    return true;
  }

  get train(): TrainSnapshot | null {
    return this.current;
  }

  /** True while the running train has not yet requested its target bytes. */
  get trainUnspent(): boolean {
    return this.current !== null && this.current.endedAtMs === null && this.current.issuedBytes < this.current.targetBytes;
  }

  /** True while requests may go past the player's buffer target: the minimum train is enforced and unspent. */
  get overridesBufferTarget(): boolean {
    return this.minimumTrain && this.trainUnspent;
  }

  /** A request of the running train was issued; `outstandingAfter` counts it. */
  onIssued(expectedBytes: number, outstandingAfter = 0): void {
    if (!this.current) return;
    this.current.issuedRequests += 1;
    this.current.issuedBytes += Math.max(0, expectedBytes);
    this.current.maxOutstanding = Math.max(this.current.maxOutstanding, outstandingAfter);
  }

  onCompleted(bytes: number, atMs: number, outstandingAfter: number): void {
    if (!this.current) return;
    this.current.completedRequests += 1;
    this.current.completedBytes += bytes;
    if (outstandingAfter === 0 && !this.trainUnspent) this.current.endedAtMs = atMs;
  }

  /** Ends the running train (downloading paused before the train was spent, or a seek). */
  end(atMs: number): void {
    if (this.current && this.current.endedAtMs === null) this.current.endedAtMs = atMs;
  }

  /**
   * May another request be issued now? Never beyond the outstanding window
   * (in bytes, on the live outstanding state: `mayIssueRequest`); within it,
   * while the train is unspent (even past the buffer target, by at most one
   * train, unless the minimum train is off), or while the buffer plus what is
   * in flight stays below the request level (`requestLevelSec`).
   */
  mayIssue(c: IssueContext): boolean {
    const window = {
      requests: c.outstanding,
      unreceivedBytes: Math.max(0, c.unreceivedBytes),
      arrivingBytes: Math.max(0, c.arrivingBytes),
    };
    if (!mayIssueRequest(window, windowBytes(Math.max(c.fairBdpBytes, 1), this.windowBdps), this.maxOutstanding)) return false;
    if (this.overridesBufferTarget) return true;
    return c.bufferSec + c.inFlightSec < requestLevelSec(c);
  }
}

/**
 * The buffer level (seconds, counting media in flight) below which requests
 * go out outside a train: the player's own level — its target minus the next
 * segment, as dash.js's schedule loop has it — or the restart reserve when
 * that is larger.
 */
export function requestLevelSec(c: Pick<IssueContext, 'bufferTargetSec' | 'segmentSec' | 'restartReserveSec'>): number {
  return Math.max(c.bufferTargetSec - c.segmentSec, c.restartReserveSec ?? 0);
}
