// (Re)builds a results folder's reports from its raw data: every run
// directory of the plan that has a run.json gets its summary.json
// (run-summary.ts); the repeats are aggregated (aggregate.ts) into the
// folder's summary.json, summary.md and report.html. Used at the end of
// `sprint ab` and by `sprint report DIR`.

import { existsSync, writeFileSync } from 'fs';
import * as path from 'path';
import { aggregate, Aggregate } from './aggregate';
import { AbManifest, readManifest } from './manifest';
import { buildReportHtml } from './report-html';
import { buildSummaryMarkdown } from './report-md';
import { RunSummary, writeRunSummary } from './run-summary';

export interface ReportResult {
  readonly manifest: AbManifest;
  readonly aggregate: Aggregate;
  readonly runs: readonly RunSummary[];
  /** Planned runs with no run.json (not made yet, or the harness died during setup). */
  readonly missing: readonly string[];
  /** Runs whose raw data could not be read, with the reason. */
  readonly unreadable: ReadonlyArray<{ readonly dir: string; readonly error: string }>;
  readonly files: { readonly summaryJson: string; readonly summaryMd: string; readonly reportHtml: string };
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
  const compactRuns = runs.map(({ plot: _plot, players, ...rest }) => ({ ...rest, players: players.map(({ series: _series, ...p }) => p) }));
  writeFileSync(files.summaryJson, `${JSON.stringify({ ...agg, generatedAt: new Date().toISOString(), missing, unreadable, runs: compactRuns }, null, 1)}\n`);
  writeFileSync(files.summaryMd, buildSummaryMarkdown(manifest, agg, runs, { missing, unreadable }));
  writeFileSync(files.reportHtml, buildReportHtml(manifest, agg, runs, { missing, unreadable }));
  return { manifest, aggregate: agg, runs, missing, unreadable, files };
}
