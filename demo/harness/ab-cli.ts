// `sprint ab`: the A/B evaluation (paper §V-A/B) from the command
// line. Parses and checks the options, builds the plan (plan.ts), refuses
// clearly when the machine cannot run it (not root, no namespaces/tc/tcpdump,
// no Chromium, content too short, durations over the limits), then runs it
// (ab.ts) with a progress bar on stderr and writes the results folder.
// Exit codes: 0 done, 1 a run failed or the machine cannot run the plan,
// 2 bad invocation, 130 interrupted (Ctrl-C; the report of the runs made so
// far is still written).

import * as path from 'path';
import { OptionsSpec, parseArgs, parseInteger, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { parseSeconds } from '../../src/units';
import { CONGESTION_CONTROLS, CongestionControl } from '../testbed/topology';
import { checkCanRun, runAb } from './ab';
import { compactFolder } from './compact';
import { durationLabel } from './format';
import { crossConditions, joinGridWords, parseGrid, parseQueues, parseRates } from './grid';
import { formatShard, parseShard, planHash, shardPlan, ShardRecord } from './shard';
import {
  buildPlan,
  checkAbr,
  CommonSettings,
  originIsNginx,
  parsePairs,
  parsePlayers,
  Plan,
  PLAYERS_ORIGINS,
  type PlayersOrigin,
  reservedPageKeys,
  runLengthS,
} from './plan';
import { describePrimer, parsePrimer, primerLeadProblem } from './primer';
import { DEFAULT_SCHEDULE_TEXT, formatSchedule, parseSchedule, resolveSchedule } from './schedule';
import { runMain } from '../../src/cli/run-main';

/** Upper bound of --parallel. Values above 1 are not measured as harmless (demo/harness/README.md). */
export const MAX_PARALLEL = 4;

const SPEC: OptionsSpec = {
  players: { kind: 'value' },
  rate: { kind: 'value' },
  queue: { kind: 'value' },
  grid: { kind: 'value' },
  bulk: { kind: 'value' },
  duration: { kind: 'value' },
  warmup: { kind: 'value' },
  schedule: { kind: 'value' },
  primer: { kind: 'value' },
  cc: { kind: 'value' },
  delay: { kind: 'value' },
  'slow-start-after-idle': { kind: 'value' },
  origin: { kind: 'value' },
  repeat: { kind: 'value' },
  layout: { kind: 'value' },
  set: { kind: 'value' },
  abr: { kind: 'value' },
  control: { kind: 'flag' },
  'no-control': { kind: 'flag' },
  together: { kind: 'flag' },
  'preload-pages': { kind: 'flag' },
  packets: { kind: 'flag' },
  pairs: { kind: 'value' },
  results: { kind: 'value' },
  resume: { kind: 'flag' },
  'keep-going': { kind: 'flag' },
  'keep-raw': { kind: 'flag' },
  'page-query': { kind: 'value' },
  'dry-run': { kind: 'flag' },
  shard: { kind: 'value' },
  parallel: { kind: 'value' },
  verbose: { kind: 'flag', short: 'v' },
  help: { kind: 'flag', short: 'h' },
};

export const USAGE = `Usage: sprint ab [options]     (as root)

A/B evaluation on an emulated bottleneck (paper §V): network namespaces
server — router — client with a tbf bottleneck, one origin per flow, headless
Chromium running the players, bulk downloads competing, measured on the wire.
Each player runs alone against the bulk flows, repeated, with a bulk-vs-bulk
control per condition; the report gives median [min–max] over the repeats.

Players and content:
  --players LIST         modes to compare, MODE or MODE/ABR, e.g. stock,sprint-x,sprint
                         or sprint-x/bw-80 (default stock,sprint-x); none: only the
                         bulk-vs-bulk control. A player may add its own page query after ?,
                         e.g. sprint-x?sxswitch=immediate or sprint?transport=fetch.
                         Peers (their own page, ABR and stats adapter; versions pinned in
                         package.json): shaka (Shaka Player on the MPD, its defaults),
                         shaka?prefetch=N (streaming.segmentPrefetchLimit N), hlsjs (hls.js
                         on the HLS playlists of the same files)
  --abr PRESET           ABR for every player: dash-default, buffer, bw-<percent>
                         (default dash-default)
  --layout L             unchunked (one file per representation) or chunked (default unchunked)
  --set NAME             content set: demo (10 min, ladder to 6 Mbit/s), test (2 min), eval
                         (25 min, ladder to 20 Mbit/s: the grid's fair shares and 20-minute runs),
                         eval-light (eval's rungs at 320x180: the same bytes, little decoding CPU),
                         bwx (10 min, the demo ladder plus rungs 0.85-1.35 Mbit/s: BW-x, paper Fig. 11)
                         or bwx2 (35 min, bwx plus 0.45 and 0.6 Mbit/s: BW-50 too; 25-minute runs) (default demo)
  --page-query Q         extra query parameters for the player page, e.g. transport=fetch
                         (sprint players load the Sprint extension unless transport=fetch;
                         build it first with npm run extension:install); not mode, abr, set,
                         layout or hold, which the harness sets

Network (comma lists are crossed into a grid):
  --rate R[,R…]          bottleneck rate, e.g. 3mbit (default 3mbit)
  --queue Q[,Q…]         bottleneck queue in bytes, e.g. 256kb (default 256kb)
  --grid "rate=… queue=…"  the same as a sweep, e.g. --grid rate=1.5mbit,3mbit,6mbit,25mbit
                         queue=64kb,256kb,512kb,1536kb (paper Fig. 6)
  --bulk N               competing bulk downloads (default 1; 0 only when every run has two
                         video flows: --pairs with --players none --no-control)
  --cc NAME              server congestion control: cubic, bbr, reno (default cubic)
  --delay D              added one-way propagation delay each way, e.g. 20ms (default 0ms)
  --slow-start-after-idle on|off   the server's tcp_slow_start_after_idle (default on)
  --origin ours|nginx|h2|nginx-h2
                         the players' origin server: ours (demo/server) or nginx (needs
                         nginx installed: apt-get install nginx-light), over HTTP/1.1, or
                         over HTTPS + HTTP/2 (h2, nginx-h2: a self-signed certificate per
                         run, trusted by Chromium by its SPKI hash only); bulk flows use
                         ours over HTTP/1.1 (default ours)

Time:
  --duration D           measured time after the warm-up (default 5m)
  --warmup W             discarded after the flows meet (default 90s)
  --schedule S           phases, e.g. video:60s,both,bulk:60s (paper Fig. 12); "both"
                         lasts warm-up + duration unless given a length (default both)
  --primer LEAD[:[playing+]OVERLAP]
                         one more bulk flow fills the queue LEAD before the run's flows start and
                         stops OVERLAP after the last of them started (OVERLAP default 20s; it must
                         end within the warm-up), so every connection of the run opens behind a full
                         queue (e.g. 30s). With playing+ it stops OVERLAP after every player started
                         playing (its media connections are open by then), at the latest 3 queue
                         delays (at least 10 s) before measuring begins (e.g. 30s:playing+20s, for
                         slow links, where a player takes tens of seconds to start). Without a primer
                         the first connections open on an idle link, and Linux cubic favours the
                         flow that opened later by 5-20 points (demo/results/README.md: "Which
                         connection once saw an empty queue"). Not a flow of the run: left out of the fair share, the
                         tables and the plots (the report names it in its settings)
  --preload-pages        load every player page and the player bundle on the idle link before
                         anything of the run starts (before the primer), close the connections
                         they used (the players' origin closes them on a signal; ours only, not
                         nginx), and create each player at its scheduled start: its manifest and
                         media connections still open behind the queue, but the page does not
                         have to cross it (deep queues, e.g. 1.5 Mbit/s x 1536 KB, where the
                         bundle cannot cross a full queue in a minute)
  --repeat N             repeats of every run (default 1; use >= 3 for reported figures)

Comparison:
  --control / --no-control   bulk-vs-bulk control per condition (default on)
  --together             also run all players together against the bulk flows
  --pairs LIST           also run pairs of players together, e.g. stock+stock,stock+sprint,
                         sprint+sprint (each side as in --players; a player paired with itself
                         is labelled NAME#1 and NAME#2). With --players none --no-control --bulk 0
                         the two video flows share the link alone (paper Table I's video-vs-video
                         rows; its rows against a bulk flow are the players alone and the control)

Output:
  --packets              also capture packet headers at the router in every run (tcpdump -s 96):
                         packets-server.pcap.gz (the server's data before the bottleneck queue)
                         and packets-client.pcap.gz (after it, and the receiver's ACKs), gzipped
                         as they are written; read them with sprint flows RUN_DIR
  --results DIR          results folder (default results/ab-<date>-<time>)
  --resume               continue an interrupted results folder of the same plan (and shard), or
                         give it more runs per cell: the same plan with a larger --repeat (not in a shard)
  --shard K/N            run only the K-th of N disjoint slices of the plan (K from 1): every
                         repeat of every condition, with all its variants and the control, goes
                         to one slice, so N machines together make each run exactly once; merge
                         their folders with sprint report --out DIR DIR1 DIR2 … (ab.json records
                         the shard and the full plan's hash; recipes in demo/harness/recipes/)
  --keep-going           go on after a failed run (default: stop)
  --keep-raw             leave the raw run files plain (default: compressed to NAME.gz once the
                         report is written, as sprint compact does; every reader takes either)
  --parallel P           make up to P runs at once, each in its own network namespaces (default 1;
                         at most ${MAX_PARALLEL}). NOT measured as harmless: on a 2-core machine two runs share
                         the CPU (Chromium, tcpdump, origins) and may change each other's figures;
                         every run records it and the report flags it
  --dry-run              print the plan and its duration, check the machine, run nothing
  -v, --verbose          testbed and browser diagnostics on stderr
  -h, --help             this help

Writes DIR/ab.json, DIR/runs/<rate>-<queue>/<variant>/r<k>/ (raw JSON lines, compressed),
DIR/summary.json, DIR/summary.md and DIR/report.html. Rebuild with sprint report DIR.
`;

export interface ParsedAb {
  /** Runs made at once (--parallel), default 1. */
  readonly parallel: number;
  /** The runs this invocation makes: the whole plan, or its shard's slice. */
  readonly plan: Plan;
  /** Hash of the full plan (shard.ts planHash), recorded in ab.json. */
  readonly planHash: string;
  /** The slice, when --shard was given. */
  readonly shard: ShardRecord | null;
  readonly resultsDir: string;
  readonly defaultAbr: string;
  readonly pageQuery: string;
  readonly resume: boolean;
  readonly keepGoing: boolean;
  readonly keepRaw: boolean;
  readonly dryRun: boolean;
  readonly verbose: boolean;
}

function seconds(text: string, name: string, allowZero = false): number {
  try {
    return parseSeconds(text, { name, allowZero });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function timestamp(d: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}-${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}`;
}

/** Turns `sprint ab` arguments into a plan; throws UsageError on bad input. */
export function parseAbArgs(argv: readonly string[], now: Date = new Date()): ParsedAb {
  const args = parseArgs(joinGridWords(argv), SPEC);
  const v = (name: string): string | undefined => args.values.get(name);
  const flag = (name: string): boolean => args.flags.has(name);

  const defaultAbr = checkAbr(v('abr') ?? 'dash-default');
  const pairsText = v('pairs');
  const pairs = pairsText === undefined ? [] : parsePairs(pairsText, defaultAbr);
  const players = parsePlayers(v('players') ?? 'stock,sprint-x', defaultAbr);
  if (players.length > 4)
    throw new UsageError(`--players: at most 4 players (got ${players.length}); the machine runs them in one browser`);

  let rates: number[];
  let queues: number[];
  const grid = v('grid');
  if (grid !== undefined) {
    const g = parseGrid(grid);
    if (g.rates.length > 0 && v('rate') !== undefined)
      throw new UsageError('give the rates either in --grid rate=… or in --rate, not both');
    if (g.queues.length > 0 && v('queue') !== undefined)
      throw new UsageError('give the queue sizes either in --grid queue=… or in --queue, not both');
    rates = g.rates.length > 0 ? [...g.rates] : parseRates(v('rate') ?? '3mbit');
    queues = g.queues.length > 0 ? [...g.queues] : parseQueues(v('queue') ?? '256kb');
  } else {
    rates = parseRates(v('rate') ?? '3mbit');
    queues = parseQueues(v('queue') ?? '256kb');
  }
  const conditions = crossConditions(rates, queues);

  const bulkText = v('bulk');
  const bulkFlows = bulkText === undefined ? 1 : parseInteger(bulkText, '--bulk', 0);
  if (bulkFlows > 16) throw new UsageError(`--bulk: at most 16 bulk flows, got ${bulkFlows}`);
  const repeatText = v('repeat');
  const repeats = repeatText === undefined ? 1 : parseInteger(repeatText, '--repeat', 1);
  if (repeats > 50) throw new UsageError(`--repeat: at most 50, got ${repeats}`);

  const cc = (v('cc') ?? 'cubic') as CongestionControl;
  if (!CONGESTION_CONTROLS.includes(cc))
    throw new UsageError(`--cc: ${JSON.stringify(cc)} must be one of ${CONGESTION_CONTROLS.join(', ')}`);
  const delayS = seconds(v('delay') ?? '0ms', '--delay', true);
  if (delayS > 10) throw new UsageError(`--delay: at most 10s each way, got ${v('delay')}`);
  const ssai = v('slow-start-after-idle') ?? 'on';
  if (ssai !== 'on' && ssai !== 'off') throw new UsageError(`--slow-start-after-idle: ${JSON.stringify(ssai)} must be on or off`);
  const originName = v('origin') ?? 'ours';
  if (originName !== 'ours' && !(PLAYERS_ORIGINS as readonly string[]).includes(originName)) {
    throw new UsageError(`--origin: ${JSON.stringify(originName)} must be one of ours, ${PLAYERS_ORIGINS.join(', ')}`);
  }
  const layout = v('layout') ?? 'unchunked';
  if (layout !== 'chunked' && layout !== 'unchunked')
    throw new UsageError(`--layout: ${JSON.stringify(layout)} must be chunked or unchunked`);
  const contentSet = v('set') ?? 'demo';
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(contentSet))
    throw new UsageError(`--set: ${JSON.stringify(contentSet)} is not a content set name`);

  const warmupS = seconds(v('warmup') ?? '90s', '--warmup', true);
  const scheduleSpec = parseSchedule(v('schedule') ?? DEFAULT_SCHEDULE_TEXT);
  const bothGiven = scheduleSpec.phases.some((p) => p.name === 'both' && p.durationS !== null);
  const durationText = v('duration');
  const measure = durationText !== undefined ? seconds(durationText, '--duration') : bothGiven ? null : 300;
  const { schedule, measureS } = resolveSchedule(scheduleSpec, warmupS, measure);
  const primerText = v('primer');
  const primer = primerText === undefined ? undefined : parsePrimer(primerText, warmupS);

  if (flag('control') && flag('no-control')) throw new UsageError('--control and --no-control contradict each other');
  const control = !flag('no-control');
  const pageQuery = v('page-query') ?? '';
  if (/[#\s]/.test(pageQuery))
    throw new UsageError(`--page-query: ${JSON.stringify(pageQuery)} must be a URL query such as key=value&key2=value2`);
  const reserved = reservedPageKeys(pageQuery);
  if (reserved.includes('')) throw new UsageError(`--page-query: ${JSON.stringify(pageQuery)} has an empty key (write key=value)`);
  if (reserved.length > 0)
    throw new UsageError(
      `--page-query: ${reserved.map((k) => JSON.stringify(k)).join(', ')} ${reserved.length === 1 ? 'is not a page option' : 'are not page options'} the harness leaves to you ` +
        '(mode and abr come from --players/--abr, set and layout from --set/--layout, hold from --preload-pages)',
    );

  const settings: CommonSettings = {
    bulkFlows,
    congestionControl: cc,
    delayMs: Math.round(delayS * 1000),
    slowStartAfterIdle: ssai === 'on',
    ...(originName === 'ours' ? {} : { origin: originName as PlayersOrigin }),
    layout,
    contentSet,
    warmupS,
    measureS,
    schedule,
    ...(primer ? { primer } : {}),
    ...(flag('preload-pages') ? { pagePreload: true as const } : {}),
    ...(flag('packets') ? { packets: true as const } : {}),
  };
  if (settings.pagePreload && originIsNginx(settings.origin)) {
    throw new UsageError(
      `--preload-pages needs our origin (--origin ours or h2): it closes the preloaded pages' connections on a signal nginx does not have`,
    );
  }
  const parallelText = v('parallel');
  const parallel = parallelText === undefined ? 1 : parseInteger(parallelText, '--parallel', 1);
  if (parallel > MAX_PARALLEL) throw new UsageError(`--parallel: at most ${MAX_PARALLEL}, got ${parallel}`);
  if (primer) {
    const problem = primerLeadProblem(primer, conditions, warmupS);
    if (problem) throw new UsageError(problem);
  }
  const fullPlan = buildPlan({ settings, conditions, players, repeats, control, together: flag('together'), pairs });
  if (settings.pagePreload && !fullPlan.variants.some((x) => x.players.length > 0))
    throw new UsageError('--preload-pages: the plan has no player whose page could be preloaded');
  const shardText = v('shard');
  const sliced = shardText === undefined ? null : shardPlan(fullPlan, parseShard(shardText));
  return {
    parallel,
    plan: sliced ? sliced.plan : fullPlan,
    planHash: planHash(fullPlan),
    shard: sliced ? sliced.record : null,
    resultsDir: path.resolve(v('results') ?? path.join('results', `ab-${timestamp(now)}`)),
    defaultAbr,
    pageQuery,
    resume: flag('resume'),
    keepGoing: flag('keep-going'),
    keepRaw: flag('keep-raw'),
    dryRun: flag('dry-run'),
    verbose: flag('verbose'),
  };
}

export function describePlan(parsed: ParsedAb): string {
  const p = parsed.plan;
  const s = p.settings;
  const runS = runLengthS(s);
  const lines = [
    parsed.shard
      ? `plan: ${parsed.shard.planRuns} run(s) = ${p.conditions.length} condition(s) × ${p.variants.length} variant(s) [${p.variants.map((v) => v.name).join(', ')}] × ${p.repeats} repeat(s); this shard makes ${p.runs.length}`
      : `plan: ${p.runs.length} run(s) = ${p.conditions.length} condition(s) × ${p.variants.length} variant(s) [${p.variants.map((v) => v.name).join(', ')}] × ${p.repeats} repeat(s)`,
    `each run: schedule ${formatSchedule(s.schedule)} (${durationLabel(runS)}), warm-up ${durationLabel(s.warmupS)}, measured ${durationLabel(s.measureS)}; ` +
      `${s.bulkFlows} bulk, cc ${s.congestionControl}, delay ${s.delayMs} ms, content ${s.contentSet}/${s.layout}, abr ${parsed.defaultAbr}`,
    ...(s.primer ? [describePrimer(s.primer)] : []),
    ...(s.pagePreload ? ['player pages preloaded on the idle link before the run starts; players created at their scheduled start'] : []),
    ...(s.packets ? ['packet headers captured on both sides of the bottleneck queue in every run (packets-*.pcap.gz)'] : []),
    `conditions: ${p.conditions.map((c) => c.key).join(', ')}`,
    ...(parsed.shard
      ? [
          `shard ${formatShard(parsed.shard)}: ${p.runs.length} of the full plan's ${parsed.shard.planRuns} run(s) (plan hash ${parsed.planHash})`,
        ]
      : [`plan hash ${parsed.planHash}`]),
    `scheduled time ${durationLabel(runS * p.runs.length)} plus ~15 s set-up per run; results in ${parsed.resultsDir}`,
    ...(parsed.parallel > 1
      ? [
          `--parallel ${parsed.parallel}: up to ${parsed.parallel} runs at once (wall time about ${durationLabel((runS * p.runs.length) / parsed.parallel)} plus set-up); not measured as harmless on this machine`,
        ]
      : []),
  ];
  return lines.join('\n');
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let parsed: ParsedAb;
  try {
    if (parseArgs(joinGridWords(argv), SPEC).flags.has('help')) {
      io.stdout.write(USAGE);
      return 0;
    }
    parsed = parseAbArgs(argv);
  } catch (err) {
    return reportError('ab', err, io);
  }
  io.stderr.write(`${describePlan(parsed)}\n`);
  const problems = await checkCanRun(parsed.plan, (line) => io.stderr.write(`${line}\n`), parsed.pageQuery);
  if (problems.length > 0) {
    io.stderr.write(`sprint ab: cannot run here:\n  - ${problems.join('\n  - ')}\n`);
    return 1;
  }
  if (parsed.dryRun) {
    io.stderr.write('dry run: the machine can run this plan; nothing was run\n');
    return 0;
  }

  // Ctrl-C: the first stops the run in progress and writes the report; a second one exits at once
  // (the testbed's exit hooks still remove namespaces and processes).
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts === 1) {
      io.stderr.write(`\nsprint ab: ${signal}: stopping the run in progress and writing the report (again to quit at once)\n`);
      abort.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runAb({
      resultsDir: parsed.resultsDir,
      plan: parsed.plan,
      planHash: parsed.planHash,
      shard: parsed.shard,
      parallel: parsed.parallel,
      argv: [...argv],
      defaultAbr: parsed.defaultAbr,
      pageQuery: parsed.pageQuery,
      resume: parsed.resume,
      keepGoing: parsed.keepGoing,
      signal: abort.signal,
      progress: process.stderr,
      verbose: parsed.verbose ? (line) => io.stderr.write(`  ${line}\n`) : undefined,
    });
    if (result.report) {
      io.stdout.write(`${result.report.files.summaryMd}\n${result.report.files.reportHtml}\n`);
      if (!parsed.keepRaw) compactFolder(path.join(parsed.resultsDir, 'runs'));
    }
    if (result.status === 'interrupted') return 130;
    return result.status === 'ok' ? 0 : 1;
  } catch (err) {
    io.stderr.write(`sprint ab: ${(err as Error).message}\n`);
    return 1;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

runMain(module, 'sprint ab', main);
