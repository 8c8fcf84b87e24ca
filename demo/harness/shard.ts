// Splitting an A/B plan across machines (`sprint ab --shard K/N`): the K-th
// of N disjoint slices of the full plan, so that N machines (a Kubernetes
// Indexed Job, a Slurm job array — demo/harness/recipes/) together make every
// run of the plan exactly once, and `sprint report --out MERGED DIR1 DIR2 …`
// (merge.ts) folds their results folders back into one.
//
// The unit of assignment is a *group*: one network condition × one repeat,
// i.e. every variant of that repeat (each player alone, the together run and
// the bulk-vs-bulk control). plan.ts interleaves the variants inside a repeat
// so that slow drift of the machine affects them alike; keeping a group on
// one machine keeps that property across machines — a player is never
// compared with a control measured on another machine. Group g (its position
// in the full plan's canonical order: conditions in the order given, repeats
// 1…R) goes to shard (g mod N) + 1. The assignment depends only on the full
// plan and N, never on which machine asks or in what order.
// Pure: no I/O.

import { createHash } from 'crypto';
import { UsageError } from '../../src/cli/args';
import type { Plan, RunSpec } from './plan';

/** One slice of a plan: index from 1 to count. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** Recorded in ab.json when a results folder holds one shard of a larger plan. */
export interface ShardRecord extends Shard {
  /** planHash of the full plan (every shard of one evaluation has the same). */
  readonly planHash: string;
  /** Runs in the full plan. */
  readonly planRuns: number;
  /** How runs were assigned (a later scheme would get another name). */
  readonly unit: 'condition-repeat';
}

/** Upper bound on N: more slices than this is a typo, not a cluster. */
export const MAX_SHARDS = 10000;

/** "K/N" (1-based K) → shard; UsageError with the reason otherwise. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new UsageError(`--shard: ${JSON.stringify(text)} should be K/N, e.g. 1/4 (the first of 4 slices; K counts from 1)`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1) throw new UsageError(`--shard ${text}: N must be at least 1`);
  if (count > MAX_SHARDS) throw new UsageError(`--shard ${text}: at most ${MAX_SHARDS} shards`);
  if (index < 1) throw new UsageError(`--shard ${text}: K counts from 1 (the first slice is 1/${count}, not 0/${count})`);
  if (index > count) throw new UsageError(`--shard ${text}: K must be between 1 and ${count}`);
  return { index, count };
}

/** "K/N". */
export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/** A stable hash of the full plan: its settings, its variants (players with mode and ABR) and every run's directory. */
export function planHash(plan: Pick<Plan, 'settings' | 'variants' | 'runs'>): string {
  const variants = plan.variants.map((v) => ({ kind: v.kind, name: v.name, players: v.players.map((p) => [p.label, p.mode, p.abr]) }));
  const canonical = JSON.stringify({ settings: plan.settings, variants, runs: plan.runs.map((r) => r.dir) });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** Position of a run's group (condition × repeat) in the full plan's canonical order, from 0. */
export function groupIndex(plan: Pick<Plan, 'conditions' | 'repeats'>, run: Pick<RunSpec, 'condition' | 'repeat'>): number {
  const c = plan.conditions.findIndex((x) => x.key === run.condition.key);
  if (c < 0) throw new Error(`run condition ${run.condition.key} is not in the plan`);
  return c * plan.repeats + (run.repeat - 1);
}

/** Number of groups (condition × repeat) of a plan: the most shards that all get work. */
export function groupCount(plan: Pick<Plan, 'conditions' | 'repeats'>): number {
  return plan.conditions.length * plan.repeats;
}

/** The shard (1-based) a run belongs to. */
export function shardOf(plan: Pick<Plan, 'conditions' | 'repeats'>, run: Pick<RunSpec, 'condition' | 'repeat'>, count: number): number {
  return (groupIndex(plan, run) % count) + 1;
}

/** The runs of the full plan that shard K/N makes, in plan order (each keeps its full-plan index and directory). */
export function shardRuns(plan: Plan, shard: Shard): RunSpec[] {
  return plan.runs.filter((r) => shardOf(plan, r, shard.count) === shard.index);
}

/**
 * The plan a shard runs: the full plan's settings, conditions, variants and
 * repeats with only the shard's runs, and the record for ab.json. Refuses a
 * shard that would get no run (N larger than the plan's groups).
 */
export function shardPlan(plan: Plan, shard: Shard): { plan: Plan; record: ShardRecord } {
  const groups = groupCount(plan);
  if (shard.count > groups) {
    throw new UsageError(
      `--shard ${formatShard(shard)}: the plan has only ${groups} slice(s) to share out (${plan.conditions.length} condition(s) × ${plan.repeats} repeat(s); ` +
        `every variant of one repeat stays on one machine), so some shards would run nothing: use N <= ${groups}`,
    );
  }
  const runs = shardRuns(plan, shard);
  return {
    plan: { ...plan, runs },
    record: { index: shard.index, count: shard.count, planHash: planHash(plan), planRuns: plan.runs.length, unit: 'condition-repeat' },
  };
}
