// The primer: one more bulk download that fills the bottleneck queue before
// the run's flows start and leaves once they have opened their connections,
// so every connection of the run opens behind a full queue (`sprint ab
// --primer 30s[:20s]`: 30 s alone, gone 20 s after the last of the run's
// flows started, i.e. 20 s into the schedule's `both` phase; `sprint ab
// --primer 30s:playing+20s`: gone 20 s after every player has started
// playing, which behind a multi-second queue is long after its flow started,
// and at the latest `primerSettleS` before measuring begins).
//
// Why: Linux cubic evaluates its window curve at the time since the last
// loss plus delay_min, the least RTT the connection has measured (kept
// until a retransmission timeout resets it). A
// connection that opened on an idle link keeps delay_min ≈ 0 for the whole
// run, one opened behind a full queue keeps ≈ the queue's delay, and through
// the same standing queue the latter aims its window further along the curve
// and takes 5–20 points more than its share (demo/results/README.md, "Which connection
// once saw an empty queue": a second plain bulk flow started 30 s after the first
// took 114 %). Which player opens first then decides a cell as much as its
// data plane does. With the primer no flow of the run ever sees an empty
// queue: the queue holds the primer's window when they open, and two flows'
// windows after it has left (cubic backs off to 0.7 of its window, so the
// queue never drains while both send), and their histories match.
//
// The primer is not a flow of the run: its own origin and port (PRIMER_PORT),
// left out of the flows, the fair share and the report; it must have left
// before measuring begins (overlap < warm-up; run-summary.ts checks the times
// it actually ran). Pure: parsing and the stop time's arithmetic; run.ts
// starts and stops it.
//
// Why a stop that waits for playback: behind a multi-second queue a player's
// page, bundle and first segments take tens of seconds (measured at
// 1.5 Mbit/s × 512 KB, a 2.8 s queue: Sprint's train connection opened 31 s
// and, after its first segment timed out, 63 s into the schedule), so a
// fixed overlap left the queue while media connections were still to open,
// and they opened in the dip the primer's departure leaves. A player has
// its media connection open once it plays.

import { UsageError } from '../../src/cli/args';
import { parseSeconds } from '../../src/units';
import type { Schedule } from './schedule';

/** The primer's server port (the run's flows use 8001+ and 9001+). */
export const PRIMER_PORT = 9900;
/** How long the primer stays once the run's flows have started when `--primer` gives no overlap, seconds. */
export const DEFAULT_PRIMER_OVERLAP_S = 20;

/** Seconds the run's flows have at least, after the primer left, before measuring begins (see `primerSettleS`). */
export const PRIMER_MIN_SETTLE_S = 10;
/** …and in round trips through the full queue. */
export const PRIMER_SETTLE_QUEUE_DELAYS = 3;

export interface PrimerSettings {
  /** Seconds the primer runs alone before the schedule starts. */
  readonly leadS: number;
  /** Seconds after the last of the run's flows started (the `both` phase's start), or with `until: 'playing'` after every player started playing, at which the primer stops. */
  readonly overlapS: number;
  /** 'playing': the overlap counts from when the last player started playing (never before the `both` phase's start); absent: from the `both` phase's start (the key is left out so older folders' plans still match on --resume). */
  readonly until?: 'playing';
}

/**
 * When the primer stops, seconds from the schedule's start: OVERLAP after
 * the `both` phase begins, the moment the later kind of flow (video or
 * bulk) has started, so that with a staggered schedule (`video:60s,both`)
 * the later flows also open behind its queue.
 */
export function primerStopOffsetS(schedule: Pick<Schedule, 'both'>, primer: PrimerSettings): number {
  return schedule.both.fromS + primer.overlapS;
}

/**
 * Seconds the run's flows get between the primer's stop and the start of
 * measuring when the stop waits for playback: three of the full queue's
 * delays (each flow's window has to grow into the room the primer left),
 * at least PRIMER_MIN_SETTLE_S.
 */
export function primerSettleS(queueBytes: number, rateBitsPerSec: number): number {
  return Math.max(PRIMER_MIN_SETTLE_S, PRIMER_SETTLE_QUEUE_DELAYS * queueFillS(queueBytes, rateBitsPerSec));
}

/** The latest the primer may stop when it waits for playback, seconds from the schedule's start: the settling time before measuring begins. */
export function primerLatestStopOffsetS(
  schedule: Pick<Schedule, 'both'>,
  warmupS: number,
  condition: { queueBytes: number; rateBitsPerSec: number },
): number {
  return schedule.both.fromS + warmupS - primerSettleS(condition.queueBytes, condition.rateBitsPerSec);
}

/**
 * What stopped a primer that waits for playback: OVERLAP after the last
 * player started playing ('playing'); OVERLAP after the flows started, the
 * players playing by then ('schedule'); or its latest time, a player not
 * playing OVERLAP before it ('latest').
 */
export type PrimerStoppedBy = 'playing' | 'schedule' | 'latest';

export interface PrimerPlaybackState {
  /** The run's players. */
  readonly players: number;
  /** Per player window opened so far: when the harness first saw it playing (epoch seconds), or null. */
  readonly playingSinceS: ReadonlyArray<number | null>;
  /** Epoch seconds. */
  readonly scheduleStartS: number;
  readonly nowS: number;
}

export interface PrimerPlaybackDecision {
  /** When the last player started playing (epoch seconds); null while one has not, and in a run without players. */
  readonly lastPlayingS: number | null;
  /** Stop the primer now, and why; null: not yet. */
  readonly stop: PrimerStoppedBy | null;
}

/**
 * Whether a primer that waits for playback (`--primer LEAD:playing+OVERLAP`)
 * stops now: OVERLAP after the last player started playing, never before
 * OVERLAP after the `both` phase began (a run without players stops there),
 * and never after `latestS` (seconds from the schedule's start).
 */
export function primerPlaybackDecision(
  schedule: Pick<Schedule, 'both'>,
  primer: PrimerSettings,
  latestS: number,
  state: PrimerPlaybackState,
): PrimerPlaybackDecision {
  const earliest = primerStopOffsetS(schedule, primer);
  const all = state.playingSinceS.length >= state.players && state.playingSinceS.every((p) => p !== null);
  const lastPlayingS = state.players > 0 && all ? Math.max(...(state.playingSinceS as number[])) : null;
  // seconds from the schedule's start; a run without players counts from the `both` phase
  const playingAt = state.players === 0 ? schedule.both.fromS : lastPlayingS === null ? null : lastPlayingS - state.scheduleStartS;
  const wanted = playingAt === null ? Number.POSITIVE_INFINITY : playingAt + primer.overlapS;
  const due = Math.min(latestS, Math.max(earliest, wanted));
  if (state.nowS - state.scheduleStartS < due) return { lastPlayingS, stop: null };
  const stop: PrimerStoppedBy = wanted > latestS ? 'latest' : wanted > earliest ? 'playing' : 'schedule';
  return { lastPlayingS, stop };
}

/** Seconds a queue of `queueBytes` takes to fill at `rateBitsPerSec` (the primer's lead must cover it twice, slow start included). */
export function queueFillS(queueBytes: number, rateBitsPerSec: number): number {
  return (queueBytes * 8) / rateBitsPerSec;
}

/**
 * A usage problem when the lead cannot fill the largest queue of the plan's
 * conditions (twice its fill time), or when a primer that waits for playback
 * could not even leave OVERLAP after the flows started and still give them
 * their settling time before measuring; else null.
 */
export function primerLeadProblem(
  primer: PrimerSettings,
  conditions: ReadonlyArray<{ key: string; queueBytes: number; rateBitsPerSec: number }>,
  warmupS: number,
): string | null {
  for (const c of conditions) {
    const need = 2 * queueFillS(c.queueBytes, c.rateBitsPerSec);
    if (primer.leadS < need)
      return `--primer: a ${primer.leadS} s lead may not fill the queue of ${c.key} (it takes ${need.toFixed(1)} s with slow start); give a longer lead`;
    const settle = primerSettleS(c.queueBytes, c.rateBitsPerSec);
    if (primer.until === 'playing' && primer.overlapS + settle > warmupS)
      return `--primer: at ${c.key} the flows need ${settle.toFixed(1)} s after the primer left before measuring begins, which with an overlap of ${primer.overlapS} s does not fit a ${warmupS} s warm-up; give a longer --warmup`;
  }
  return null;
}

/** Parses `--primer LEAD[:[playing+]OVERLAP]` (e.g. "30s", "30s:20s", "30s:playing+20s"); the overlap must end before the warm-up does. */
export function parsePrimer(text: string, warmupS: number): PrimerSettings {
  const parts = text.split(':');
  if (parts.length > 2 || parts.some((p) => p.trim() === '')) {
    throw new UsageError(
      `--primer: ${JSON.stringify(text)} must be LEAD or LEAD:OVERLAP or LEAD:playing+OVERLAP, e.g. 30s, 30s:20s or 30s:playing+20s`,
    );
  }
  // LEAD:playing+OVERLAP counts the overlap from playback
  const overlapText = parts[1]?.replace(/^\s*playing\s*\+/, '');
  const playing = overlapText !== parts[1];
  if (overlapText?.trim() === '')
    throw new UsageError(`--primer: ${JSON.stringify(text)} gives no overlap after "playing+", e.g. 30s:playing+20s`);
  const secs = (part: string, name: string): number => {
    try {
      return parseSeconds(part.trim(), { name });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  };
  const leadS = secs(parts[0] as string, '--primer lead');
  const overlapS = overlapText !== undefined ? secs(overlapText, '--primer overlap') : DEFAULT_PRIMER_OVERLAP_S;
  if (!(leadS >= 5)) throw new UsageError(`--primer: a lead of ${leadS} s cannot fill the queue; give at least 5 s`);
  if (!(overlapS >= 1))
    throw new UsageError(`--primer: an overlap of ${overlapS} s leaves before the flows have opened; give at least 1 s`);
  if (!(overlapS < warmupS)) {
    throw new UsageError(
      `--primer: the primer would still run when measuring begins (overlap ${overlapS} s, warm-up ${warmupS} s); give a shorter overlap or a longer --warmup`,
    );
  }
  return playing ? { leadS, overlapS, until: 'playing' } : { leadS, overlapS };
}

/** "primer: a bulk flow fills the queue 30 s before the flows start and stops 20 s after the last of them started (…)" — plan and report headers. */
export function describePrimer(p: PrimerSettings): string {
  const after =
    p.until === 'playing'
      ? `every player started playing (at the latest ${PRIMER_SETTLE_QUEUE_DELAYS} queue delays, at least ${PRIMER_MIN_SETTLE_S} s, before measuring begins)`
      : 'the last of them started';
  return `primer: a bulk flow fills the queue ${+p.leadS.toFixed(3)} s before the flows start and stops ${+p.overlapS.toFixed(3)} s after ${after} (every connection opens behind a full queue)`;
}
