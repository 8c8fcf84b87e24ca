// `sprint ab` without the argument parsing: checks that the machine can run
// the plan (root, namespaces, tc, tcpdump, Chromium, built player and origin,
// content long enough for the schedule), writes ab.json, makes every run of
// the plan in order (run.ts) with a progress bar and one result line per run,
// and builds the reports (report.ts). Ctrl-C stops the run in progress,
// cleans up (testbed, browser, processes) and still writes the report of the
// runs made so far. `resume` continues a results folder of the same plan,
// skipping runs that already finished.

import { existsSync, mkdirSync, readdirSync, readFileSync } from 'fs';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { ensureContent } from '../content/generate';
import { DEFAULT_NGINX } from '../server/nginx-origin';
import { distScript } from '../testbed/origin-process';
import { preflight } from '../testbed/preflight';
import { CHROMIUM } from './browser';
import { findSprintExtension, planNeedsExtension, SprintExtension } from './extension';
import { mbit, stallLabel } from './format';
import { AbManifest, extendsRepeats, MANIFEST_FORMAT, MANIFEST_VERSION, planFingerprint, readManifest, writeManifest } from './manifest';
import { runPool } from './pool';
import { originIsH2, originIsNginx, type Plan, runLengthS, type RunSpec } from './plan';
import { Progress, ProgressStream } from './progress';
import { buildReport, ReportResult } from './report';
import { RunRecord, runOne } from './run';
import { RunSummary, writeRunSummary } from './run-summary';
import { planHash, ShardRecord } from './shard';
import { sourceVersion } from './host-info';
import { repoRoot } from '../testbed/delay-element';

/** Longest single run, seconds (bounded durations). */
export const MAX_RUN_S = 4 * 3600;
/** Longest whole plan, seconds. */
export const MAX_PLAN_S = 72 * 3600;
/** Margin between the end of the video stretch and the end of the content, seconds (the player buffers ahead). */
export const CONTENT_MARGIN_S = 60;

export interface AbOptions {
  readonly resultsDir: string;
  /** The runs to make (a shard's slice when shard is given). */
  readonly plan: Plan;
  /** Hash of the full plan (shard.ts planHash); computed from plan when absent (no shard). */
  readonly planHash?: string;
  readonly shard?: ShardRecord | null;
  /** Runs made at once, each in its own testbed (default 1; see pool.ts). */
  readonly parallel?: number;
  readonly argv: readonly string[];
  readonly defaultAbr: string;
  readonly pageQuery?: string;
  readonly chromiumArgs?: readonly string[];
  readonly resume?: boolean;
  /** Go on with the next run after a failed one (default: stop). */
  readonly keepGoing?: boolean;
  readonly signal?: AbortSignal;
  /** Progress bar and result lines. */
  readonly progress: ProgressStream;
  /** Detailed diagnostics (testbed set-up, browser), or nothing. */
  readonly verbose?: (line: string) => void;
}

export interface AbResult {
  readonly status: 'ok' | 'failed' | 'interrupted';
  readonly made: readonly RunRecord[];
  readonly skipped: readonly string[];
  readonly report: ReportResult | null;
}

/** Problems that stop a plan before anything is created (each says what and how to fix it). */
export async function checkCanRun(plan: Plan, log?: (line: string) => void, pageQuery = ''): Promise<string[]> {
  const s = plan.settings;
  const problems: string[] = [];
  const pf = preflight({ congestionControl: s.congestionControl, capture: true, delay: s.delayMs > 0 });
  problems.push(...pf.problems);
  const runS = runLengthS(s);
  if (runS > MAX_RUN_S) problems.push(`one run would last ${(runS / 3600).toFixed(2)} h; the limit is ${MAX_RUN_S / 3600} h`);
  const planS = runS * plan.runs.length;
  if (planS > MAX_PLAN_S)
    problems.push(
      `the plan would last ${(planS / 3600).toFixed(1)} h (${plan.runs.length} runs); the limit is ${MAX_PLAN_S / 3600} h — fewer repeats or grid points`,
    );
  if (originIsNginx(s.origin) && !existsSync(DEFAULT_NGINX))
    problems.push(`--origin ${s.origin}: ${DEFAULT_NGINX} not found: apt-get install nginx-light`);
  if (originIsH2(s.origin) && spawnSync('openssl', ['version'], { stdio: 'ignore' }).status !== 0) {
    problems.push(`--origin ${s.origin}: the openssl command is needed for the run's certificate: apt-get install openssl`);
  }
  for (const script of [
    'demo/server/cli.js',
    'demo/testbed/bulk-client.js',
    ...(originIsNginx(s.origin) ? ['demo/server/nginx-origin.js'] : []),
  ]) {
    if (!existsSync(distScript(script))) problems.push(`${distScript(script)} is missing: run npm run build`);
  }
  const hasPlayers = plan.variants.some((v) => v.players.length > 0);
  if (hasPlayers) {
    for (const bundle of ['player/sprint.js', 'player/demo-page.js']) {
      if (!existsSync(distScript(bundle)))
        problems.push(`${distScript(bundle)} is missing: run npm run build (webpack builds the player and demo page)`);
    }
    if (!existsSync(CHROMIUM)) problems.push(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
    if (planNeedsExtension(plan, pageQuery)) problems.push(...findSprintExtension().problems);
    try {
      require.resolve('puppeteer-core');
    } catch {
      problems.push('puppeteer-core is not installed: run npm install in the repository');
    }
    try {
      // Generates the set on first use (minutes of ffmpeg); says so through log.
      const info = await ensureContent({ set: s.contentSet, log });
      const videoS = s.schedule.video.toS - s.schedule.video.fromS;
      if (videoS + CONTENT_MARGIN_S > info.durationSec) {
        problems.push(
          `content set "${s.contentSet}" lasts ${info.durationSec} s but the players must keep downloading for ${videoS} s (+${CONTENT_MARGIN_S} s margin): use --set demo (600 s), --set eval (1500 s) or a shorter schedule`,
        );
      }
    } catch (err) {
      problems.push(`content set "${s.contentSet}": ${(err as Error).message}`);
    }
  }
  return problems;
}

function runLabel(spec: RunSpec): string {
  return `${spec.condition.key} ${spec.variant.name} r${spec.repeat}`;
}

/** One line per finished run: every flow's share and each player's QoE. */
export function resultLine(spec: RunSpec, record: RunRecord, summary: RunSummary | null): string {
  const head = `${runLabel(spec)}:`;
  if (record.status !== 'ok') return `${head} ${record.status}${record.error ? ` — ${record.error}` : ''}`;
  if (!summary) return `${head} finished, but its data could not be summarized`;
  if (!summary.window) return `${head} no measurement window (${summary.windowProblem})`;
  const flows = summary.flows.map((f) => `${f.label} ${f.percentOfFairShare.toFixed(1)}%`).join(', ');
  const players = summary.players
    .map(
      (p) =>
        `${p.label} ${p.bitrateMedianBps === null ? '–' : mbit(p.bitrateMedianBps)} Mbit/s, ${stallLabel(p.rebufferCount, p.rebufferS)}${p.stalledAtEnd ? ' (stalled at the end)' : ''}${p.errorsInWindow ? `, ${p.errorsInWindow} error(s)` : ''}${p.rescues ? `, ${p.rescues} rescue(s)` : ''}, ${p.videoSegments} video segments, mode ${p.mode ?? '?'}`,
    )
    .join('; ');
  // The players' problems (no segment, low share, errors, a stall at the end) in full; other warnings counted.
  const problems = summary.playerProblems ?? [];
  const others = summary.warnings.length - problems.length;
  const warn = `${problems.length > 0 ? ` PROBLEMS: ${problems.join('; ')}` : ''}${others > 0 ? ` [${others} warning(s)]` : ''}`;
  return `${head} ${flows} of fair share (${mbit(summary.fairShareBitsPerSec ?? 0)} Mbit/s over ${summary.window.durationS.toFixed(0)} s)${players ? `; ${players}` : ''}${warn}`;
}

function finishedOk(resultsDir: string, spec: RunSpec): boolean {
  const p = path.join(resultsDir, spec.dir, 'run.json');
  if (!existsSync(p)) return false;
  try {
    return (JSON.parse(readFileSync(p, 'utf8')) as RunRecord).status === 'ok';
  } catch {
    return false;
  }
}

/**
 * Prepares the results folder: new (must be empty) or resumed — the same
 * plan, or (not in a shard) the same plan with a larger --repeat, whose
 * manifest runAb then rewrites with the larger plan (the earlier command
 * kept in `extendedFrom`).
 */
export function prepareResultsDir(
  options: Pick<AbOptions, 'resultsDir' | 'plan' | 'resume' | 'shard' | 'pageQuery' | 'chromiumArgs'>,
): 'new' | 'same' | 'more-repeats' {
  const dir = options.resultsDir;
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    if (!options.resume) throw new Error(`results folder ${dir} is not empty: choose another --results or add --resume to continue it`);
    const old = readManifest(dir);
    const shardText = (sh: ShardRecord | null | undefined): string => (sh ? `shard ${sh.index}/${sh.count}` : 'the whole plan');
    if (shardText(old.shard) !== shardText(options.shard)) {
      throw new Error(
        `--resume: ${dir} holds ${shardText(old.shard)}, not ${shardText(options.shard)}; give the same --shard or use a new --results folder`,
      );
    }
    // The page query and Chromium flags shape every run without being part of the plan: they must match too.
    if (
      (old.pageQuery ?? '') !== (options.pageQuery ?? '') ||
      JSON.stringify(old.chromiumArgs ?? []) !== JSON.stringify(options.chromiumArgs ?? [])
    ) {
      throw new Error(
        `--resume: ${dir} was made with --page-query ${JSON.stringify(old.pageQuery ?? '')} and Chromium flags ${JSON.stringify(old.chromiumArgs ?? [])}; give the same or use a new --results folder`,
      );
    }
    if (planFingerprint(old.plan) !== planFingerprint(options.plan)) {
      if (options.shard || old.merged || !extendsRepeats(old.plan, options.plan)) {
        throw new Error(
          `--resume: ${dir} holds a different plan (other settings or runs; only --repeat may grow, and not in a shard or a merged folder); use a new --results folder`,
        );
      }
      return 'more-repeats';
    }
    return 'same';
  }
  mkdirSync(dir, { recursive: true });
  return 'new';
}

export async function runAb(options: AbOptions): Promise<AbResult> {
  const { plan, resultsDir } = options;
  const folder = prepareResultsDir(options);
  const earlier = folder === 'more-repeats' ? readManifest(resultsDir) : null;
  const manifest: AbManifest = {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    argv: [...options.argv],
    createdAt: new Date().toISOString(),
    plan,
    defaultAbr: options.defaultAbr,
    pageQuery: options.pageQuery ?? '',
    chromiumArgs: [...(options.chromiumArgs ?? [])],
    planHash: options.planHash ?? planHash(plan),
    ...(options.shard ? { shard: options.shard } : {}),
    source: sourceVersion(repoRoot()),
    ...((options.parallel ?? 1) > 1 ? { parallel: options.parallel } : {}),
    ...(earlier
      ? {
          createdAt: earlier.createdAt,
          extendedFrom: [
            ...(earlier.extendedFrom ?? []),
            { argv: earlier.argv, repeats: earlier.plan.repeats, source: earlier.source ?? null, at: new Date().toISOString() },
          ],
        }
      : {}),
  };
  if (folder !== 'same') writeManifest(resultsDir, manifest);

  const skipped = options.resume ? plan.runs.filter((r) => finishedOk(resultsDir, r)).map((r) => r.dir) : [];
  const todo = plan.runs.filter((r) => !skipped.includes(r.dir));
  const progress = new Progress(
    todo.map(() => runLengthS(plan.settings)),
    options.progress,
  );
  if (skipped.length > 0) progress.message(`resuming: ${skipped.length} run(s) already finished, ${todo.length} to go`);
  if (earlier)
    progress.message(
      `--repeat grows from ${earlier.plan.repeats} to ${plan.repeats}: ab.json now holds the larger plan (the earlier command kept under extendedFrom)` +
        (earlier.source?.commit && earlier.source.commit !== manifest.source?.commit
          ? `; the finished runs were made from ${earlier.source.commit.slice(0, 12)}, the new ones from ${manifest.source?.commit?.slice(0, 12) ?? 'an unknown commit'} (each run records its own)`
          : ''),
    );
  const made: RunRecord[] = [];
  let status: AbResult['status'] = 'ok';
  let extension: SprintExtension | null = null;
  if (planNeedsExtension(plan, options.pageQuery ?? '')) {
    const found = findSprintExtension();
    if (!found.extension) throw new Error(found.problems.join('; '));
    extension = found.extension;
    progress.message(`loading the Sprint extension (${extension.extensionId}) in every player run`);
  }
  const parallel = options.parallel ?? 1;
  if (parallel > 1)
    progress.message(
      `--parallel ${parallel}: up to ${parallel} runs at once, each in its own namespaces (NOT measured as harmless on this machine; see demo/harness/README.md); one line per run start and end`,
    );
  let stopTaking = false;
  await runPool({
    items: todo,
    parallel,
    stop: () => {
      if (options.signal?.aborted) {
        status = 'interrupted';
        return true;
      }
      return stopTaking;
    },
    work: async (spec) => {
      const label = runLabel(spec);
      if (parallel === 1) progress.startRun(label);
      else progress.message(`${label}: started (${todo.indexOf(spec) + 1}/${todo.length})`);
      const record = await runOne({
        resultsDir,
        spec,
        settings: plan.settings,
        pageQuery: options.pageQuery,
        chromiumArgs: options.chromiumArgs,
        extension,
        signal: options.signal,
        log: options.verbose,
        onTick: parallel === 1 ? (s) => progress.tick(s) : undefined,
        concurrentRuns: parallel,
      });
      if (parallel === 1) progress.endRun();
      made.push(record);
      let summary: RunSummary | null = null;
      try {
        summary = writeRunSummary(path.join(resultsDir, spec.dir));
      } catch (err) {
        progress.message(`${label}: could not summarize: ${(err as Error).message}`);
      }
      progress.message(resultLine(spec, record, summary));
      if (record.status === 'interrupted') {
        status = 'interrupted';
        stopTaking = true;
      } else if (record.status === 'failed') {
        if (status !== 'interrupted') status = 'failed';
        if (!options.keepGoing) stopTaking = true;
      }
      return record;
    },
  });
  progress.finish();
  let report: ReportResult | null = null;
  try {
    report = buildReport(resultsDir);
  } catch (err) {
    options.progress.write(`report: ${(err as Error).message}\n`);
    if (status === 'ok') status = 'failed';
  }
  return { status, made, skipped, report };
}
