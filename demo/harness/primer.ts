// The primer: one more bulk download that fills the bottleneck queue before
// the run's flows start and leaves once they have opened their connections,
// so every connection of the run opens behind a full queue (`sprint ab
// --primer 30s[:20s]`: 30 s alone, gone 20 s after the last of the run's
// flows started, i.e. 20 s into the schedule's `both` phase).
//
// Why: Linux cubic evaluates its window curve at the time since the last
// loss plus delay_min, the least RTT the connection has measured (kept
// until a retransmission timeout resets it). A
// connection that opened on an idle link keeps delay_min ≈ 0 for the whole
// run, one opened behind a full queue keeps ≈ the queue's delay, and through
// the same standing queue the latter aims its window further along the curve
// and takes 5–20 points more than its share (README, "Which connection once
// saw an empty queue": a second plain bulk flow started 30 s after the first
// took 114 %). Which player opens first then decides a cell as much as its
// data plane does. With the primer no flow of the run ever sees an empty
// queue: the queue holds the primer's window when they open, and two flows'
// windows after it has left (cubic backs off to 0.7 of its window, so the
// queue never drains while both send), and their histories match.
//
// The primer is not a flow of the run: its own origin and port (PRIMER_PORT),
// left out of the flows, the fair share and the report; it must have left
// before measuring begins (overlap < warm-up; run-summary.ts checks the times
// it actually ran). Pure: parsing only; run.ts starts and stops it.

import { UsageError } from '../../src/cli/args';
import { parseSeconds } from '../../src/units';
import type { Schedule } from './schedule';

/** The primer's server port (the run's flows use 8001+ and 9001+). */
export const PRIMER_PORT = 9900;
/** How long the primer stays once the run's flows have started when `--primer` gives no overlap, seconds. */
export const DEFAULT_PRIMER_OVERLAP_S = 20;

export interface PrimerSettings {
  /** Seconds the primer runs alone before the schedule starts. */
  readonly leadS: number;
  /** Seconds after the last of the run's flows started (the `both` phase's start) at which the primer stops. */
  readonly overlapS: number;
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

/** Seconds a queue of `queueBytes` takes to fill at `rateBitsPerSec` (the primer's lead must cover it twice, slow start included). */
export function queueFillS(queueBytes: number, rateBitsPerSec: number): number {
  return (queueBytes * 8) / rateBitsPerSec;
}

/** A usage problem when the lead cannot fill the largest queue of the plan's conditions (twice its fill time), else null. */
export function primerLeadProblem(
  primer: PrimerSettings,
  conditions: ReadonlyArray<{ key: string; queueBytes: number; rateBitsPerSec: number }>,
): string | null {
  for (const c of conditions) {
    const need = 2 * queueFillS(c.queueBytes, c.rateBitsPerSec);
    if (primer.leadS < need)
      return `--primer: a ${primer.leadS} s lead may not fill the queue of ${c.key} (it takes ${need.toFixed(1)} s with slow start); give a longer lead`;
  }
  return null;
}

/** Parses `--primer LEAD[:OVERLAP]` (e.g. "30s", "30s:20s"); the overlap must end before the warm-up does. */
export function parsePrimer(text: string, warmupS: number): PrimerSettings {
  const parts = text.split(':');
  if (parts.length > 2 || parts.some((p) => p.trim() === '')) {
    throw new UsageError(`--primer: ${JSON.stringify(text)} must be LEAD or LEAD:OVERLAP, e.g. 30s or 30s:20s`);
  }
  const secs = (part: string, name: string): number => {
    try {
      return parseSeconds(part.trim(), { name });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  };
  const leadS = secs(parts[0] as string, '--primer lead');
  const overlapS = parts.length === 2 ? secs(parts[1] as string, '--primer overlap') : DEFAULT_PRIMER_OVERLAP_S;
  if (!(leadS >= 5)) throw new UsageError(`--primer: a lead of ${leadS} s cannot fill the queue; give at least 5 s`);
  if (!(overlapS >= 1))
    throw new UsageError(`--primer: an overlap of ${overlapS} s leaves before the flows have opened; give at least 1 s`);
  if (!(overlapS < warmupS)) {
    throw new UsageError(
      `--primer: the primer would still run when measuring begins (overlap ${overlapS} s, warm-up ${warmupS} s); give a shorter overlap or a longer --warmup`,
    );
  }
  return { leadS, overlapS };
}

/** "primer: a bulk flow fills the queue 30 s before the flows start and stops 20 s after the last of them started (…)" — plan and report headers. */
export function describePrimer(p: PrimerSettings): string {
  return `primer: a bulk flow fills the queue ${+p.leadS.toFixed(3)} s before the flows start and stops ${+p.overlapS.toFixed(3)} s after the last of them started (every connection opens behind a full queue)`;
}
