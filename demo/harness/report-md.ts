// summary.md: the evaluation as Markdown a person can paste into a README —
// the exact command, the conditions, the summary tables (report-tables.ts;
// the first is paper Fig. 6's), problems, and one line per run. Pure.

import { isPairVariant } from './plan';
import { countBuilds } from './build-stamp';
import { SATURATED_MARK, type Aggregate } from './aggregate';
import { describeSource } from './host-info';
import { durationLabel, mbit, stallLabel } from './format';
import type { AbManifest } from './manifest';
import { summaryTables, TableModel } from './report-tables';
import { trainLabel } from './train-figures';
import type { RunSummary } from './run-summary';
import { describePrimer } from './primer';
import { formatSchedule } from './schedule';
import { formatShard } from './shard';

/** A Markdown pipe table (cells' `|` escaped, newlines flattened). */
export function mdTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const clean = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const line = (cells: readonly string[]): string => `| ${cells.map(clean).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function renderTable(t: TableModel): string {
  const out = [`## ${t.title}`, ''];
  if (t.note) out.push(t.note, '');
  for (const b of t.blocks) {
    if (b.caption) out.push(`**${b.caption}**`, '');
    out.push(
      mdTable(
        b.header,
        b.rows.map((r) => r.cells),
      ),
      '',
    );
  }
  return out.join('\n');
}

/** One paragraph describing the conditions shared by every run. */
export function settingsSentence(manifest: AbManifest): string {
  const s = manifest.plan.settings;
  const n = manifest.plan.repeats;
  return (
    `Bottleneck: tbf on the router's downstream; server congestion control ${s.congestionControl}` +
    `${s.delayMs > 0 ? `, ${s.delayMs} ms propagation delay each way` : ', no added propagation delay'}` +
    `, slow start after idle ${s.slowStartAfterIdle ? 'on' : 'off'}` +
    `${s.origin === undefined ? '' : `; the players' origin is ${s.origin === 'h2' ? 'ours over HTTPS + HTTP/2' : s.origin === 'nginx-h2' ? 'nginx over HTTPS + HTTP/2' : 'nginx'}`}. ` +
    `${s.bulkFlows === 0 ? 'No bulk flow: the video flows of each run share the link alone' : `${s.bulkFlows} bulk flow${s.bulkFlows === 1 ? '' : 's'} from the same server`}. ` +
    `Content "${s.contentSet}" (${s.layout}), ABR ${manifest.defaultAbr}. ` +
    `Schedule ${formatSchedule(s.schedule)}: the first ${durationLabel(s.warmupS)} after the flows meet are discarded, ` +
    `${durationLabel(s.measureS)} measured. ` +
    `${s.primer ? `${describePrimer(s.primer).replace(/^primer: a bulk flow/, 'A primer bulk flow (not counted)')}. ` : ''}` +
    `${s.pagePreload ? 'Player pages were loaded on the idle link before each run and their connections closed; each player was created at its scheduled start (its startup delay counts from there, without the page load). ' : ''}` +
    `${n} repeat${n === 1 ? '' : 's'}. ` +
    'Fair share = total measured throughput ÷ number of flows (paper §V-A), measured on the wire after the bottleneck ' +
    '(TCP payload, 100 ms bins per server port). ' +
    variantsSentence(manifest.plan.variants)
  );
}

/** What the plan's variants are, in the words of the tables' columns. */
function variantsSentence(variants: AbManifest['plan']['variants']): string {
  const parts: string[] = [];
  if (variants.some((v) => v.kind === 'player')) parts.push('Each player ran alone against the bulk flows under identical conditions');
  if (variants.some((v) => v.kind === 'together' && !isPairVariant(v))) parts.push('"together" runs had all players at once');
  if (variants.some(isPairVariant))
    parts.push('a pair ("A vs B") ran two players at once in one browser, each in its own window and from its own origin port');
  if (variants.some((v) => v.kind === 'control')) parts.push('"control" is one more bulk flow in the video\'s place (bulk vs bulk)');
  const text = parts.join('; ');
  return text === '' ? '' : `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** Where the results come from: commit, plan hash, shard or merge. */
export function provenanceSentence(manifest: AbManifest): string {
  const parts = [`Source: ${describeSource(manifest.source)}`];
  if (manifest.planHash) parts.push(`plan hash ${manifest.planHash}`);
  if (manifest.shard)
    parts.push(`shard ${formatShard(manifest.shard)} of a ${manifest.shard.planRuns}-run plan (hash ${manifest.shard.planHash})`);
  if (manifest.merged) parts.push(`merged from ${manifest.merged.from.length} folder(s) (${manifest.merged.shards.join(', ')})`);
  for (const e of manifest.extendedFrom ?? [])
    parts.push(`grown from ${e.repeats} repeat${e.repeats === 1 ? '' : 's'} made from ${describeSource(e.source ?? undefined)}`);
  return `${parts.join('; ')}.`;
}

/** The machines the runs were made on, from their run.json host records: "2 cores, kernel 6.1.0 (12 runs)". */
export function machineLines(runs: readonly RunSummary[]): string[] {
  const seen = new Map<string, number>();
  for (const r of runs) {
    if (!r.host) continue;
    const key = `${r.host.cpus} core(s)${r.host.kernel ? `, kernel ${r.host.kernel}` : ''}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].map(([k, n]) => `${k} (${n} run(s))`);
}

/** The player builds the runs served (build-stamp.ts): "build 33d605e (20 run(s))"; runs from before builds were recorded count as "not recorded". */
export function buildLines(runs: readonly RunSummary[]): string[] {
  const builds = countBuilds(
    runs,
    (r) => r.host?.build,
    () => 'not recorded',
  );
  return builds.length === 1 && builds[0]?.label === 'not recorded' ? [] : builds.map((b) => `${b.label} (${b.runs} run(s))`);
}

/** Runs of the plan the report could not use: not made yet, or unreadable. */
export interface ReportGaps {
  readonly missing: readonly string[];
  readonly unreadable: ReadonlyArray<{ readonly dir: string; readonly error: string }>;
  /** Folder-level problems (a merge's duplicates and missing shards, dirty or unknown commits). */
  readonly notes?: readonly string[];
}

/** Problem lines for the report: cells' problems, unreadable runs, runs not made. */
export function problemLines(agg: Aggregate, gaps: ReportGaps): string[] {
  return [
    ...new Set([
      ...agg.cells.flatMap((c) => c.problems.map((p) => `${c.conditionKey} ${c.column}: ${p}`)),
      ...gaps.unreadable.map((u) => `${u.dir}: unreadable: ${u.error}`),
      ...(gaps.notes ?? []),
      ...(gaps.missing.length > 0
        ? [`${gaps.missing.length} planned run(s) not made: ${gaps.missing.slice(0, 5).join(', ')}${gaps.missing.length > 5 ? ', …' : ''}`]
        : []),
    ]),
  ];
}

export function buildSummaryMarkdown(
  manifest: AbManifest,
  agg: Aggregate,
  runs: readonly RunSummary[],
  gaps: ReportGaps = { missing: [], unreadable: [] },
): string {
  const names = [...new Set(agg.columns.map((c) => c.flow))].filter((n) => n !== 'control');
  const out: string[] = [];
  out.push(`# A/B evaluation: ${names.join(' vs ') || 'control only'}`, '');
  out.push(`Command: \`npx sprint ab ${manifest.argv.join(' ')}\``, '');
  out.push(settingsSentence(manifest), '');
  out.push(provenanceSentence(manifest), '');
  const machines = machineLines(runs);
  if (machines.length > 0) out.push(`Machines: ${machines.join('; ')}.`, '');
  const builds = buildLines(runs);
  if (builds.length > 0) out.push(`Player builds served: ${builds.join('; ')}.`, '');
  for (const t of summaryTables(agg)) out.push(renderTable(t));
  const problems = problemLines(agg, gaps).map((p) => `- ${p}`);
  if (problems.length > 0) out.push('## Problems', '', ...problems, '');
  out.push('## Runs', '');
  out.push(
    mdTable(
      [
        'run',
        'status',
        'window',
        'total Mbit/s',
        'flows: % of fair share',
        'bitrate Mbit/s',
        'stalls in the window',
        'Sprint trains (whole run)',
        'CPU idle % (worst 10 s)',
      ],
      runs.map((r) => [
        `[${r.dir}](${r.dir}/)`,
        r.status + (r.error ? `: ${r.error}` : ''),
        r.window ? `${r.window.durationS.toFixed(0)} s` : `none (${r.windowProblem ?? '?'})`,
        r.totalBitsPerSec === null ? '–' : mbit(r.totalBitsPerSec, 3),
        r.flows.map((f) => `${f.label} ${f.percentOfFairShare.toFixed(1)}`).join(', ') || '–',
        r.players.map((p) => (p.bitrateMedianBps === null ? '–' : mbit(p.bitrateMedianBps))).join(', ') || '–',
        r.players.map((p) => stallLabel(p.rebufferCount, p.rebufferS)).join('; ') || '–',
        r.flows.flatMap((f) => (f.trains ? [`${f.label}: ${trainLabel(f.trains)}`] : [])).join('; ') || '–',
        r.cpu
          ? `${(100 * r.cpu.meanIdle).toFixed(0)} (${(100 * r.cpu.worst10sIdle).toFixed(0)})${r.cpu.saturated ? ` ${SATURATED_MARK}` : ''}`
          : '–',
      ]),
    ),
  );
  out.push('');
  out.push(
    'Raw data per run: `run.json`, `wire.jsonl` (bytes per 100 ms per server port), `player-<port>.jsonl` (stats once a second, every segment and transfer), `ss.jsonl`, `qdisc.jsonl`, `cpu.jsonl` (idle share and CPU per process class each second), `bulk-<port>.jsonl`, `origin-<port>.log`, `browser.log`; with `--packets`, `packets-server.pcap.gz` and `packets-client.pcap.gz` (read with `npx sprint flows <run dir>`). Rebuild the reports with `npx sprint report <dir>`.',
    '',
  );
  return out.join('\n');
}
