// Merging results folders of one plan made on several machines
// (`sprint ab --shard K/N` on each, shard.ts) into one folder:
// `sprint report --out MERGED DIR1 DIR2 …`. The merged folder is an ordinary
// results folder — ab.json with the full plan, every run directory copied
// from the shard that made it — so `sprint report MERGED` rebuilds it later
// on its own, and report.ts writes summary.json / summary.md / report.html.
//
// Refuses (an Error that names the folders): folders whose full plans differ
// (plan hash, ABR default, page query, Chromium flags), folders or runs made
// from different commits. Flags (recorded in ab.json's `merged`, shown under
// Problems): a run found in more than one folder (one copy is used: the first
// that finished ok, else the first), shards of the plan that no folder
// holds, runs nobody made (report.ts lists them as not made), uncommitted
// changes or an unknown commit.

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'fs';
import * as path from 'path';
import { AbManifest, MergeRecord, readManifest, SourceVersion, writeManifest } from './manifest';
import { enumerateRuns, Plan } from './plan';
import type { RunRecord } from './run';
import { formatShard, planHash } from './shard';

/** The full plan a results folder belongs to (its own plan when it is not a shard). */
export function fullPlanOf(manifest: AbManifest): Plan {
  const p = manifest.plan;
  return { ...p, runs: enumerateRuns(p.conditions, p.variants, p.repeats) };
}

/** The full plan's hash as recorded, or computed for folders written before it was recorded. */
export function planHashOf(manifest: AbManifest): string {
  return manifest.shard?.planHash ?? manifest.planHash ?? planHash(fullPlanOf(manifest));
}

/** `sprint ab` arguments without the ones that only say where and which slice (for the merged folder's command line). */
export function withoutShardArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--shard' || a === '--results') {
      i++;
      continue;
    }
    if (a.startsWith('--shard=') || a.startsWith('--results=') || a === '--resume') continue;
    out.push(a);
  }
  return out;
}

interface Input {
  readonly dir: string;
  readonly manifest: AbManifest;
}

function readRunRecord(runDir: string): RunRecord | null {
  const p = path.join(runDir, 'run.json');
  if (!existsSync(p)) return null;
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as RunRecord;
  } catch {
    return null;
  }
}

/** Checks that the folders belong to one evaluation; throws with the differences otherwise. */
export function checkSamePlan(inputs: readonly Input[]): void {
  const first = inputs[0];
  if (!first) throw new Error('nothing to merge: no results folders given');
  const differ = (what: string, value: (m: AbManifest) => string): void => {
    const values = inputs.map((i) => value(i.manifest));
    if (new Set(values).size > 1) {
      throw new Error(`cannot merge: the folders' ${what} differ — ${inputs.map((i, k) => `${i.dir}: ${values[k]}`).join('; ')}`);
    }
  };
  differ('plans (plan hash)', planHashOf);
  differ('default ABR (--abr)', (m) => m.defaultAbr);
  differ('page queries (--page-query)', (m) => JSON.stringify(m.pageQuery));
  differ('Chromium flags', (m) => JSON.stringify(m.chromiumArgs));
}

/** Commits recorded by the folders and their runs; throws when more than one is known. Returns notes for unknown or dirty sources. */
export function checkSameCommit(inputs: readonly Input[]): string[] {
  const byCommit = new Map<string, string[]>();
  const notes: string[] = [];
  const see = (source: SourceVersion | null | undefined, where: string): void => {
    if (!source || !source.commit) {
      notes.push(`${where}: commit unknown (no git checkout and no $SPRINT_COMMIT); cannot check that it ran the same code`);
      return;
    }
    byCommit.set(source.commit, [...(byCommit.get(source.commit) ?? []), where]);
    if (source.dirty) notes.push(`${where}: ran from commit ${source.commit.slice(0, 12)} with uncommitted changes`);
  };
  for (const input of inputs) {
    see(input.manifest.source, input.dir);
    for (const spec of input.manifest.plan.runs) {
      const rec = readRunRecord(path.join(input.dir, spec.dir));
      if (rec?.host && 'commit' in rec.host)
        see({ commit: rec.host.commit ?? null, dirty: rec.host.dirty ?? null }, path.join(input.dir, spec.dir));
    }
  }
  if (byCommit.size > 1) {
    const lines = [...byCommit.entries()].map(
      ([c, where]) => `${c.slice(0, 12)}: ${where.slice(0, 3).join(', ')}${where.length > 3 ? ` (+${where.length - 3} more)` : ''}`,
    );
    throw new Error(`cannot merge: the folders were made from different commits — ${lines.join('; ')}`);
  }
  return [...new Set(notes)];
}

export interface MergeResult {
  readonly outDir: string;
  readonly manifest: AbManifest;
  /** Run directory → the input folder its copy came from. */
  readonly copied: ReadonlyMap<string, string>;
  readonly merged: MergeRecord;
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Prepares the output folder: new, empty, or an earlier merge of the same plan (whose copies are replaced). */
function prepareOut(outDir: string, hash: string, inputs: readonly Input[]): void {
  for (const i of inputs) {
    if (isInside(path.resolve(outDir), path.resolve(i.dir)) || isInside(path.resolve(i.dir), path.resolve(outDir))) {
      throw new Error(`--out ${outDir}: must not be one of the folders being merged, nor inside one (${i.dir})`);
    }
  }
  if (!existsSync(outDir) || readdirSync(outDir).length === 0) {
    mkdirSync(outDir, { recursive: true });
    return;
  }
  let old: AbManifest | null = null;
  try {
    old = readManifest(outDir);
  } catch {
    old = null;
  }
  if (!old || !old.merged) throw new Error(`--out ${outDir} is not empty and not an earlier merge: choose another folder`);
  if (planHashOf(old) !== hash)
    throw new Error(`--out ${outDir} holds a merge of another plan (hash ${planHashOf(old)}): choose another folder`);
  rmSync(path.join(outDir, 'runs'), { recursive: true, force: true });
}

/**
 * Merges the results folders `dirs` into `outDir` (see the header). Does not
 * build the reports: report.ts buildReport(outDir) does, and shows the
 * merge's flags under Problems.
 */
export function mergeResults(dirs: readonly string[], outDir: string): MergeResult {
  if (dirs.length === 0) throw new Error('nothing to merge: no results folders given');
  const inputs: Input[] = dirs.map((dir) => ({ dir, manifest: readManifest(dir) }));
  for (const i of inputs) {
    const recorded = i.manifest.shard?.planHash ?? i.manifest.planHash;
    const rebuilt = planHash(fullPlanOf(i.manifest));
    if (recorded !== undefined && recorded !== rebuilt) {
      throw new Error(
        `cannot merge: ${i.dir}/ab.json records plan hash ${recorded} but its plan rebuilds to ${rebuilt} (edited by hand, or written by another version of the harness)`,
      );
    }
  }
  checkSamePlan(inputs);
  const notes = checkSameCommit(inputs);
  const first = inputs[0] as Input;
  const full = fullPlanOf(first.manifest);
  const hash = planHashOf(first.manifest);
  prepareOut(outDir, hash, inputs);

  // Shards given and missing.
  const shards = inputs.map((i) => (i.manifest.shard ? formatShard(i.manifest.shard) : 'whole'));
  const counts = new Set(inputs.map((i) => i.manifest.shard?.count ?? 1));
  let missingShards: string[] = [];
  if (counts.size === 1 && inputs.every((i) => i.manifest.shard)) {
    const n = [...counts][0] as number;
    const have = new Set(inputs.map((i) => i.manifest.shard?.index));
    for (let k = 1; k <= n; k++) if (!have.has(k)) missingShards.push(`${k}/${n}`);
  } else if (counts.size > 1) {
    notes.push(`the folders split the plan into different numbers of shards (${shards.join(', ')}); coverage is checked run by run`);
  }
  if (inputs.some((i) => !i.manifest.shard)) missingShards = [];

  // Where each run of the full plan was made.
  const copied = new Map<string, string>();
  const duplicates: Array<{ dir: string; in: string[] }> = [];
  for (const spec of full.runs) {
    const holders = inputs.filter(
      (i) => i.manifest.plan.runs.some((r) => r.dir === spec.dir) && existsSync(path.join(i.dir, spec.dir, 'run.json')),
    );
    if (holders.length === 0) continue;
    if (holders.length > 1) duplicates.push({ dir: spec.dir, in: holders.map((h) => h.dir) });
    const ok = holders.find((h) => readRunRecord(path.join(h.dir, spec.dir))?.status === 'ok');
    const chosen = ok ?? (holders[0] as Input);
    cpSync(path.join(chosen.dir, spec.dir), path.join(outDir, spec.dir), { recursive: true });
    copied.set(spec.dir, chosen.dir);
  }

  const merged: MergeRecord = { from: [...dirs], shards, duplicates, missingShards, notes };
  const sources = inputs.map((i) => i.manifest.source).filter((s): s is SourceVersion => !!s && !!s.commit);
  const manifest: AbManifest = {
    format: first.manifest.format,
    version: first.manifest.version,
    argv: withoutShardArgs(first.manifest.argv),
    createdAt: new Date().toISOString(),
    plan: full,
    defaultAbr: first.manifest.defaultAbr,
    pageQuery: first.manifest.pageQuery,
    chromiumArgs: [...first.manifest.chromiumArgs],
    planHash: hash,
    source: sources[0]
      ? {
          commit: sources[0].commit,
          dirty: sources.some((s) => s.dirty === true) ? true : sources.every((s) => s.dirty === false) ? false : null,
        }
      : { commit: null, dirty: null },
    merged,
  };
  writeManifest(outDir, manifest);
  return { outDir, manifest, copied, merged };
}

/** Problem lines for the report from a merged folder's record. */
export function mergeProblems(merged: MergeRecord | undefined): string[] {
  if (!merged) return [];
  return [
    ...merged.missingShards.map((s) => `shard ${s} of the plan is missing from the merge (its runs are listed as not made)`),
    ...merged.duplicates.map((d) => `${d.dir}: made more than once (in ${d.in.join(', ')}); one copy is used`),
    ...merged.notes,
  ];
}
