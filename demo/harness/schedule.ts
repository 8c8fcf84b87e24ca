// The schedule of one A/B run: which flows are active when. Paper Fig. 12
// runs the video alone, then video and file download together, then the file
// download alone, and measures fair share only while both compete; the
// harness writes that as `video:60s,both:300s,bulk:60s`. Phases:
//   video — only the video flows (the players, or the control's stand-in bulk);
//   both  — video and bulk flows compete (exactly one, where measuring happens);
//   bulk  — only the bulk flows.
// Each kind of flow must be active over one contiguous stretch (a flow is
// started once and stopped once). A `both` phase without a length lasts
// warm-up + measured duration. Pure functions; bad input throws a UsageError
// that quotes the text.

import { UsageError } from '../../src/cli/args';
import { parseSeconds } from '../../src/units';

export type PhaseName = 'video' | 'both' | 'bulk';
export const PHASE_NAMES: readonly PhaseName[] = ['video', 'both', 'bulk'];

export interface Phase {
  readonly name: PhaseName;
  /** Length, seconds. */
  readonly durationS: number;
}

/** A parsed `--schedule` before the both-phase length is known. */
export interface ScheduleSpec {
  readonly phases: ReadonlyArray<{ readonly name: PhaseName; readonly durationS: number | null }>;
}

/** Offsets (seconds from the run's start) of one kind of flow's active stretch. */
export interface ActiveSpan {
  readonly fromS: number;
  readonly toS: number;
}

export interface Schedule {
  readonly phases: readonly Phase[];
  /** Total length, seconds. */
  readonly totalS: number;
  /** Offsets of the `both` phase. */
  readonly both: ActiveSpan;
  /** When the video flows run (null if never). */
  readonly video: ActiveSpan;
  /** When the bulk flows run. */
  readonly bulk: ActiveSpan;
}

/** The default: everything starts together and runs for warm-up + duration. */
export const DEFAULT_SCHEDULE_TEXT = 'both';

/** Parses "video:60s,both:300s,bulk:60s" (lengths optional for `both` only). */
export function parseSchedule(text: string): ScheduleSpec {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) throw new UsageError(`--schedule: ${JSON.stringify(text)} has an empty phase`);
  const phases: Array<{ name: PhaseName; durationS: number | null }> = [];
  for (const part of parts) {
    const colon = part.indexOf(':');
    const name = (colon < 0 ? part : part.slice(0, colon)).toLowerCase();
    if (!(PHASE_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(`--schedule: unknown phase ${JSON.stringify(name)} in ${JSON.stringify(text)}; phases are video, both, bulk`);
    }
    if (phases.some((p) => p.name === name)) throw new UsageError(`--schedule: phase "${name}" appears twice in ${JSON.stringify(text)}`);
    let durationS: number | null = null;
    if (colon >= 0) {
      try {
        durationS = parseSeconds(part.slice(colon + 1), { name: `--schedule ${name}` });
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    } else if (name !== 'both') {
      throw new UsageError(`--schedule: phase "${name}" needs a length (e.g. ${name}:60s)`);
    }
    phases.push({ name: name as PhaseName, durationS });
  }
  if (!phases.some((p) => p.name === 'both')) {
    throw new UsageError(`--schedule: ${JSON.stringify(text)} has no "both" phase; fair share is measured while video and bulk compete`);
  }
  // Each kind must be active over one contiguous stretch.
  const active = (kind: 'video' | 'bulk'): boolean[] => phases.map((p) => p.name === 'both' || p.name === kind);
  for (const kind of ['video', 'bulk'] as const) {
    const a = active(kind);
    const first = a.indexOf(true);
    const last = a.lastIndexOf(true);
    if (a.slice(first, last + 1).includes(false)) {
      throw new UsageError(
        `--schedule: the ${kind} flows would stop and start again in ${JSON.stringify(text)}; each kind of flow runs over one stretch`,
      );
    }
  }
  return { phases };
}

/**
 * Fixes the `both` phase length from warm-up and measured duration. When the
 * schedule gives `both` a length, the measured duration is that length minus
 * the warm-up (and must agree with `measureS` if that was given too).
 */
export function resolveSchedule(spec: ScheduleSpec, warmupS: number, measureS: number | null): { schedule: Schedule; measureS: number } {
  if (!(warmupS >= 0)) throw new UsageError(`--warmup must be >= 0 s, got ${warmupS}`);
  const both = spec.phases.find((p) => p.name === 'both');
  if (!both) throw new UsageError('schedule has no "both" phase');
  let measured: number;
  let bothS: number;
  if (both.durationS === null) {
    if (measureS === null) throw new UsageError('--duration is needed (how long to measure after the warm-up)');
    measured = measureS;
    bothS = warmupS + measureS;
  } else {
    bothS = both.durationS;
    measured = bothS - warmupS;
    if (!(measured > 0)) throw new UsageError(`--schedule: both:${bothS}s leaves nothing to measure after a ${warmupS} s warm-up`);
    if (measureS !== null && Math.abs(measureS - measured) > 1e-9) {
      throw new UsageError(
        `--duration ${measureS}s disagrees with --schedule both:${bothS}s minus --warmup ${warmupS}s (= ${measured}s); give one of them`,
      );
    }
  }
  if (!(measured > 0)) throw new UsageError(`--duration must be > 0, got ${measured}`);
  const phases: Phase[] = spec.phases.map((p) => ({ name: p.name, durationS: p.name === 'both' ? bothS : (p.durationS as number) }));
  return { schedule: scheduleFromPhases(phases), measureS: measured };
}

/** Offsets of every phase and of each kind's active stretch. */
export function scheduleFromPhases(phases: readonly Phase[]): Schedule {
  let t = 0;
  const offsets = phases.map((p) => {
    const span = { fromS: t, toS: t + p.durationS };
    t += p.durationS;
    return { phase: p, span };
  });
  const spanOf = (kind: 'video' | 'bulk'): ActiveSpan => {
    const mine = offsets.filter((o) => o.phase.name === 'both' || o.phase.name === kind);
    return { fromS: Math.min(...mine.map((o) => o.span.fromS)), toS: Math.max(...mine.map((o) => o.span.toS)) };
  };
  const both = offsets.find((o) => o.phase.name === 'both');
  if (!both) throw new Error('schedule has no "both" phase');
  return { phases: [...phases], totalS: t, both: both.span, video: spanOf('video'), bulk: spanOf('bulk') };
}

/** "video:60s,both:390s,bulk:60s" — the resolved schedule written back as text. */
export function formatSchedule(schedule: Schedule): string {
  return schedule.phases.map((p) => `${p.name}:${+p.durationS.toFixed(3)}s`).join(',');
}
