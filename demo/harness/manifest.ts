// ab.json: the top of a results folder — the exact command, the plan (every
// run with its condition, variant and repeat) and the settings shared by all
// runs. `sprint report DIR` rebuilds everything else from it and the run
// directories; `sprint ab --resume` checks it to continue a plan.

import { existsSync, readFileSync, writeFileSync } from 'fs';
import * as path from 'path';
import type { Plan } from './plan';
import type { ShardRecord } from './shard';

export const MANIFEST_FILE = 'ab.json';
export const MANIFEST_FORMAT = 'sprint-ab';
export const MANIFEST_VERSION = 1;

export interface AbManifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly version: typeof MANIFEST_VERSION;
  /** `sprint ab …` as typed (after the command name). */
  readonly argv: readonly string[];
  readonly createdAt: string;
  readonly plan: Plan;
  readonly defaultAbr: string;
  readonly pageQuery: string;
  readonly chromiumArgs: readonly string[];
  /** Hash of the full plan (shard.ts planHash); every shard of one evaluation has the same. Absent in folders written before sharding existed. */
  readonly planHash?: string;
  /** Present when the folder holds one slice of a larger plan (`sprint ab --shard K/N`); `plan.runs` then lists only the slice's runs. */
  readonly shard?: ShardRecord;
  /** The source the harness ran from when the folder was started (host-info.ts). */
  readonly source?: SourceVersion;
  /** Runs made at once (`sprint ab --parallel P`), when more than 1. */
  readonly parallel?: number;
  /** Present when a resume grew --repeat (ab.ts prepareResultsDir): each earlier command, its repeats and source, and when it was extended. */
  readonly extendedFrom?: ReadonlyArray<{
    readonly argv: readonly string[];
    readonly repeats: number;
    readonly source: SourceVersion | null;
    readonly at: string;
  }>;
  /** Present in a folder made by `sprint report --out DIR DIR1 DIR2 …` (merge.ts): where its runs came from and what the merge noticed. */
  readonly merged?: MergeRecord;
}

/** The commit of the checkout the harness ran from. */
export interface SourceVersion {
  /** `git rev-parse HEAD` (or $SPRINT_COMMIT where the checkout has no .git, e.g. a container image); null when unknown. */
  readonly commit: string | null;
  /** Tracked files differ from the commit (`git status --porcelain --untracked-files=no`); null when unknown. */
  readonly dirty: boolean | null;
}

export interface MergeRecord {
  /** The input folders as given. */
  readonly from: readonly string[];
  /** Shard per input folder ("K/N", or "whole" for an unsharded folder). */
  readonly shards: readonly string[];
  /** Runs found in more than one input folder (the first one's copy is used). */
  readonly duplicates: ReadonlyArray<{ readonly dir: string; readonly in: readonly string[] }>;
  /** Shards of the plan that no input folder holds, e.g. "3/4". */
  readonly missingShards: readonly string[];
  /** Other things the merge noticed (a dirty checkout, an unknown commit). */
  readonly notes: readonly string[];
}

export function writeManifest(dir: string, manifest: AbManifest): void {
  writeFileSync(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
}

export function readManifest(dir: string): AbManifest {
  const p = path.join(dir, MANIFEST_FILE);
  if (!existsSync(p)) throw new Error(`${dir} is not an A/B results folder: ${MANIFEST_FILE} is missing`);
  let m: AbManifest;
  try {
    m = JSON.parse(readFileSync(p, 'utf8')) as AbManifest;
  } catch (err) {
    throw new Error(`${p}: not JSON: ${(err as Error).message}`);
  }
  if (m.format !== MANIFEST_FORMAT) throw new Error(`${p}: not an A/B manifest (format ${JSON.stringify(m.format)})`);
  if (m.version !== MANIFEST_VERSION) throw new Error(`${p}: manifest version ${m.version}, this harness reads ${MANIFEST_VERSION}`);
  return m;
}

/** The plan as a comparable fingerprint (what must match for --resume). */
export function planFingerprint(plan: Plan): string {
  return JSON.stringify({ settings: plan.settings, runs: plan.runs.map((r) => r.dir) });
}

/**
 * True when `next` is `old` with more repeats: the same settings, conditions
 * and variants, so every run of `old` keeps its directory in `next` (a
 * resumed folder can then take more runs per cell instead of a second folder
 * that merge.ts would refuse as made from another commit).
 */
export function extendsRepeats(old: Plan, next: Plan): boolean {
  if (!(next.repeats > old.repeats)) return false;
  const shape = (p: Plan): string =>
    JSON.stringify({
      settings: p.settings,
      conditions: p.conditions.map((c) => c.key),
      variants: p.variants.map((v) => ({ kind: v.kind, name: v.name, players: v.players.map((pl) => [pl.label, pl.mode, pl.abr]) })),
    });
  if (shape(old) !== shape(next)) return false;
  const dirs = new Set(next.runs.map((r) => r.dir));
  return old.runs.every((r) => dirs.has(r.dir));
}
