// (Re)builds a results folder's reports from its raw data: every run
// directory of the plan that has a run.json gets its summary.json
// (run-summary.ts); the repeats are aggregated (aggregate.ts) into the
// folder's summary.json, summary.md and report.html. Used at the end of
// `sprint ab`, by `sprint report DIR` and after a merge of shard folders
// (merge.ts), whose flags it lists under Problems.

import { existsSync, writeFileSync } from 'fs';
import * as path from 'path';
import { defaultMediaRoot, contentDir, CONTENT_FILE } from '../content/generate';
import { aggregate, Aggregate } from './aggregate';
import { AbManifest, readManifest } from './manifest';
import { buildReportHtml } from './report-html';
import { buildSummaryMarkdown } from './report-md';
import { mergeProblems } from './merge';
import { RunSummary, writeRunSummary } from './run-summary';

export interface ReportResult {
  readonly manifest: AbManifest;
  readonly aggregate: Aggregate;
  readonly runs: readonly RunSummary[];
  /** Planned runs with no run.json (not made yet, or the harness died during setup). */
  readonly missing: readonly string[];
  /** Runs whose raw data could not be read, with the reason. */
  readonly unreadable: ReadonlyArray<{ readonly dir: string; readonly error: string }>;
  /** Folder-level problems: a merge's duplicated runs and missing shards, unknown or dirty commits. */
  readonly notes: readonly string[];
  readonly files: { readonly summaryJson: string; readonly summaryMd: string; readonly reportHtml: string };
}

/**
 * Why this machine cannot rebuild the folder's figures in full, or null: without the run's content set
 * (demo/media/<set>/content.json, which tells video files from audio) the video-only and expected-share
 * figures cannot be computed and come out empty.
 */
export function contentProblem(manifest: AbManifest): string | null {
  const set = manifest.plan.settings.contentSet;
  if (existsSync(path.join(contentDir(set, defaultMediaRoot()), CONTENT_FILE))) return null;
  return `content set "${set}" is not on this machine (npx sprint content --set ${set}): the video-only and expected-share figures are left empty`;
}

export function buildReport(dir: string): ReportResult {
  const manifest = readManifest(dir);
  const runs: RunSummary[] = [];
  const missing: string[] = [];
  const unreadable: Array<{ dir: string; error: string }> = [];
  for (const spec of manifest.plan.runs) {
    const runDir = path.join(dir, spec.dir);
    if (!existsSync(path.join(runDir, 'run.json'))) {
      missing.push(spec.dir);
      continue;
    }
    try {
      runs.push(writeRunSummary(runDir));
    } catch (err) {
      unreadable.push({ dir: spec.dir, error: (err as Error).message });
    }
  }
  const playerOrder = manifest.plan.variants.flatMap((v) => v.players.map((p) => p.label));
  const agg = aggregate(runs, playerOrder);
  const files = {
    summaryJson: path.join(dir, 'summary.json'),
    summaryMd: path.join(dir, 'summary.md'),
    reportHtml: path.join(dir, 'report.html'),
  };
  const notes = mergeProblems(manifest.merged);
  const content = contentProblem(manifest);
  if (content && runs.some((r) => r.players.length > 0)) notes.push(content);
  const commits = new Map<string, number>();
  for (const r of runs) if (r.host?.commit) commits.set(r.host.commit, (commits.get(r.host.commit) ?? 0) + 1);
  if (commits.size > 1)
    notes.push(`runs made from ${commits.size} commits: ${[...commits].map(([c, n]) => `${c.slice(0, 12)} (${n} run(s))`).join(', ')}`);
  if (!manifest.merged && manifest.source?.dirty)
    notes.push(`ran from commit ${manifest.source.commit?.slice(0, 12)} with uncommitted changes`);
  const compactRuns = runs.map(({ plot: _plot, players, ...rest }) => ({
    ...rest,
    players: players.map(({ series: _series, ...p }) => p),
  }));
  writeFileSync(
    files.summaryJson,
    `${JSON.stringify({ ...agg, generatedAt: new Date().toISOString(), planHash: manifest.planHash ?? null, shard: manifest.shard ?? null, source: manifest.source ?? null, merged: manifest.merged ?? null, missing, unreadable, notes, runs: compactRuns }, null, 1)}\n`,
  );
  writeFileSync(files.summaryMd, buildSummaryMarkdown(manifest, agg, runs, { missing, unreadable, notes }));
  writeFileSync(files.reportHtml, buildReportHtml(manifest, agg, runs, { missing, unreadable, notes }));
  return { manifest, aggregate: agg, runs, missing, unreadable, notes, files };
}
