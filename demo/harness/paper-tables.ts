// The compact tables of the paper's evaluation (§V: Fig. 6, Table I, Fig. 11,
// the competitors of §V-B), built from committed results folders. An index
// (demo/results/paper.json) names the folders that feed each figure; their
// runs are pooled per figure and folded into median [min–max] (runs) cells
// by aggregate.ts. Folders of one figure must share their settings (a Fig. 6
// row may come from a folder of other settings, named under the table), and
// a folder may replace earlier folders' runs of the cells it measured again.
// docs/results.md holds each figure between `<!-- paper-table: ID -->` and
// `<!-- /paper-table -->` markers, and README.md the `summary` block;
// `sprint report --paper` rewrites them and a unit test keeps them equal to
// what the committed folders give. Pure apart from loadFolder.

import { existsSync, readFileSync } from 'fs';
import * as path from 'path';
import type { Summary } from '../testbed/metrics';
import { aggregate, Aggregate, Cell, cellOf, Column, markSaturated, runCounts, runFallback, SATURATED_NOTE } from './aggregate';
import { bytesLabel, cellText, escapeHtml, rateLabel } from './format';
import { countBuilds } from './build-stamp';
import { heatMapsSection, htmlPage } from './report-html';
import { AbManifest, readManifest } from './manifest';
import { mdTable } from './report-md';
import { conditionKey, isPairVariant } from './plan';
import { formatSchedule } from './schedule';
import type { RunSummary } from './run-summary';

/**
 * The figures paper.json may feed. `fig11bwx2` is Fig. 11 on the `bwx2` ladder (demo/content/recipe.ts),
 * a table of its own: a figure pools only folders made alike, and the content set is one of the settings.
 */
export const FIGURES = ['fig6', 'table1', 'fig11', 'fig11bwx2', 'competitors'] as const;
export type FigureId = (typeof FIGURES)[number];

/**
 * One folder of a figure, and the folders listed before it in the same figure whose runs of the cells
 * it has (condition × variant) it replaces — a cell measured again on a newer build.
 */
export interface FolderRef {
  readonly name: string;
  readonly replaces: readonly string[];
}

/** demo/results/paper.json: for each figure, the results folders (relative to the index) that feed it. */
export interface PaperIndex {
  readonly figures: Readonly<Partial<Record<FigureId, readonly FolderRef[]>>>;
}

/** One results folder as the tables read it: its plan and its runs' summaries. */
export interface FolderData {
  readonly name: string;
  readonly manifest: AbManifest;
  readonly runs: readonly RunSummary[];
  /** Runs of this folder a later folder of the figure replaced (not in `runs`), and the folders that did. */
  readonly replaced?: { readonly runs: number; readonly by: readonly string[] };
}

/** Sprint's band (paper §V: Sprint gets 97–105 % of its fair share); cells outside it are bold. */
export const SPRINT_BAND: readonly [number, number] = [97, 105];
/** Paper Fig. 6's grid. */
export const FIG6_RATES = [1.5e6, 3e6, 6e6, 25e6];
export const FIG6_QUEUES = [64, 256, 512, 1536].map((k) => k * 1024);
/** Paper Fig. 11's ABR aggressiveness. */
export const FIG11_X = [50, 80, 100, 120];

/** Paper Table I (median unfairness over 5 runs), 3 Mbit/s: [256 KB, 512 KB]. */
const TABLE1_PAPER: Readonly<Record<string, readonly [number, number]>> = {
  'bulk vs bulk': [0.03, 0.05],
  'stock vs stock': [0.04, 0.1],
  'stock vs Sprint': [0.12, 0.49],
  'stock vs bulk': [0.15, 0.45],
  'Sprint vs Sprint': [0.06, 0.05],
  'Sprint vs bulk': [0.03, 0.03],
};

export function readPaperIndex(file: string): PaperIndex {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  const plain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const isName = (x: unknown): x is string => typeof x === 'string' && x !== '' && !x.includes('/') && !x.startsWith('.');
  const figures = plain(raw) ? raw['figures'] : undefined;
  if (!plain(figures)) throw new Error(`${file}: expected {"figures": {"fig6": [folders…], …}}`);
  const out: Partial<Record<FigureId, FolderRef[]>> = {};
  for (const [k, v] of Object.entries(figures)) {
    if (!(FIGURES as readonly string[]).includes(k))
      throw new Error(`${file}: unknown figure ${JSON.stringify(k)}; figures are ${FIGURES.join(', ')}`);
    if (!Array.isArray(v)) throw new Error(`${file}: figure ${k} must list results folder names (folders beside the index)`);
    const refs: FolderRef[] = [];
    for (const entry of v as unknown[]) {
      const name = plain(entry) ? entry['folder'] : entry;
      const replaces = plain(entry) ? (entry['replaces'] ?? []) : [];
      const shape = `an entry is a folder name or {"folder": name, "replaces": [names]}`;
      if (plain(entry) && Object.keys(entry).some((key) => key !== 'folder' && key !== 'replaces'))
        throw new Error(`${file}: figure ${k}: ${shape}; got keys ${Object.keys(entry).join(', ')}`);
      if (!isName(name))
        throw new Error(
          `${file}: figure ${k} must list results folder names (folders beside the index)${plain(entry) ? `: "folder" is ${JSON.stringify(name)}` : ''}`,
        );
      if (!Array.isArray(replaces) || !replaces.every(isName))
        throw new Error(`${file}: figure ${k}: "replaces" of ${name} must be a list of folder names; ${shape}`);
      if (refs.some((r) => r.name === name)) throw new Error(`${file}: figure ${k} lists ${name} twice (its runs would count twice)`);
      const unknown = replaces.filter((x) => !refs.some((r) => r.name === x));
      if (unknown.length > 0)
        throw new Error(`${file}: figure ${k}: ${name} replaces ${unknown.join(', ')}, not listed before it in the figure`);
      refs.push({ name, replaces });
    }
    out[k as FigureId] = refs;
  }
  return { figures: out };
}

/**
 * The folders of a figure as the tables count them: a run of a folder is left out when a folder that
 * replaces it has runs that count (aggregate.ts `runCounts`) of the same condition and variant — the
 * same cell, measured again. A folder may replace only folders run with the same settings and origin.
 */
export function resolveFolders(refs: readonly FolderRef[], load: (name: string) => FolderData): FolderData[] {
  const loaded = new Map(refs.map((r) => [r.name, load(r.name)] as const));
  const cellKey = (r: RunSummary): string => `${r.conditionKey}\u0000${r.variant.name}`;
  // The cells each folder measured with runs that count.
  const counted = new Map(refs.map((r) => [r.name, new Set((loaded.get(r.name)?.runs ?? []).filter(runCounts).map(cellKey))] as const));
  for (const r of refs)
    for (const old of r.replaces) {
      const a = loaded.get(r.name);
      const b = loaded.get(old);
      if (a && b && (settingsKey(a.manifest) !== settingsKey(b.manifest) || originOf(a) !== originOf(b)))
        throw new Error(
          `${r.name} replaces ${old}, but the two were run with different settings or origins; only a cell measured alike can replace another`,
        );
    }
  return refs.map((ref) => {
    const f = loaded.get(ref.name) as FolderData;
    const replacers = refs.filter((r) => r.replaces.includes(f.name)).map((r) => r.name);
    const by = new Set<string>();
    const runs = f.runs.filter((run) => {
      const replacing = replacers.filter((name) => counted.get(name)?.has(cellKey(run)));
      for (const name of replacing) by.add(name);
      return replacing.length === 0;
    });
    if (runs.length === f.runs.length) return f;
    return { ...f, runs, replaced: { runs: f.runs.length - runs.length, by: [...by] } };
  });
}

/** Reads a folder's ab.json and the run summaries `sprint report` wrote into its summary.json. */
export function loadFolder(dir: string): FolderData {
  const manifest = readManifest(dir);
  const file = path.join(dir, 'summary.json');
  if (!existsSync(file)) throw new Error(`${dir}: no summary.json (run sprint report ${dir})`);
  const s = JSON.parse(readFileSync(file, 'utf8')) as { format?: string; runs?: RunSummary[] };
  if (s.format !== 'sprint-ab-summary' || !Array.isArray(s.runs))
    throw new Error(`${file}: not an A/B summary (rebuild it with sprint report ${dir})`);
  return { name: path.basename(dir), manifest, runs: s.runs };
}

/** JSON with every object's keys sorted, at every depth. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** The players' origin of a folder's runs (ours unless the plan names another). */
function originOf(f: FolderData): string {
  return f.manifest.plan.settings.origin ?? 'ours';
}

/**
 * What folders of one figure (of one Fig. 6 row) must share: every setting of the plan, the default
 * ABR, the page query and the extra Chromium flags — but not the players' origin (one column may run
 * over HTTP/2).
 */
function settingsKey(m: AbManifest): string {
  return JSON.stringify(canonical(comparedSettings(m)));
}

/**
 * With `cellsMayDiffer` (Fig. 6, whose rows are independent conditions): folders of other settings
 * may feed other rows, never the same one (a condition with runs from two settings is refused, so
 * every column of a row was measured alike), and the table names those rows and what differs
 * (settingsLine).
 */
export interface PoolOptions {
  readonly cellsMayDiffer?: boolean;
}

/** One aggregate over the runs of several folders; refuses folders whose settings differ (see PoolOptions), and a player label served from two origins. */
export function pool(figure: string, folders: readonly FolderData[], options: PoolOptions = {}): Aggregate {
  const first = folders[0];
  const firstKey = first ? settingsKey(first.manifest) : undefined;
  const origins = new Map<string, { origin: string; folder: string }>();
  /** condition → the settings key and folder of its first runs. */
  const rowSettings = new Map<string, { key: string; folder: string }>();
  for (const f of folders) {
    const key = settingsKey(f.manifest);
    if (first && key !== firstKey && !options.cellsMayDiffer)
      throw new Error(`${figure}: ${f.name} and ${first.name} were run with different settings; a figure pools only runs made alike`);
    for (const r of f.runs) {
      const seen = rowSettings.get(r.conditionKey);
      if (seen && seen.key !== key)
        throw new Error(
          `${figure}: ${r.conditionKey} has runs in ${seen.folder} and ${f.name}, which were run with different settings; a condition pools only runs made alike`,
        );
      if (!seen) rowSettings.set(r.conditionKey, { key, folder: f.name });
    }
    const origin = originOf(f);
    // Only variants with runs left (a later folder may have replaced all of a column's runs).
    const withRuns = new Set(f.runs.map((r) => r.variant.name));
    for (const v of f.manifest.plan.variants.filter((x) => withRuns.has(x.name)))
      for (const p of v.players) {
        const seen = origins.get(p.label);
        if (seen && seen.origin !== origin)
          throw new Error(
            `${figure}: ${p.label} ran from origin ${seen.origin} in ${seen.folder} and ${origin} in ${f.name}; one cell would mix them`,
          );
        origins.set(p.label, { origin, folder: f.name });
      }
  }
  const runs = folders.flatMap((f) => f.runs);
  const order = folders.flatMap((f) => f.manifest.plan.variants.flatMap((v) => v.players.map((p) => p.label)));
  return aggregate(runs, order);
}

/** What a figure's folders are compared on (settingsKey), as one object. */
function comparedSettings(m: AbManifest): Record<string, unknown> {
  const { origin: _origin, ...rest } = m.plan.settings;
  return { ...rest, defaultAbr: m.defaultAbr, pageQuery: m.pageQuery ?? '', chromiumArgs: m.chromiumArgs ?? [] };
}

/** Every leaf of a JSON value by dotted path ("primer.until"); arrays as one leaf. */
function leaves(v: unknown, at = '', out = new Map<string, string>()): Map<string, string> {
  if (typeof v === 'object' && v !== null && !Array.isArray(v))
    for (const [k, x] of Object.entries(v)) leaves(x, at ? `${at}.${k}` : k, out);
  else out.set(at, JSON.stringify(v));
  return out;
}

/**
 * How folder `b`'s settings differ from `a`'s, one "path: a → b" per setting ("–" where one has none);
 * the schedule as `sprint ab --schedule` writes it ("both:390s → both:450s").
 */
export function settingsDiff(a: AbManifest, b: AbManifest): string[] {
  const la = leaves(comparedSettings(a));
  const lb = leaves(comparedSettings(b));
  const out: string[] = [];
  for (const k of [...new Set([...la.keys(), ...lb.keys()])].sort()) {
    if (k.startsWith('schedule.') || la.get(k) === lb.get(k)) continue;
    out.push(`${k}: ${la.get(k) ?? '–'} → ${lb.get(k) ?? '–'}`);
  }
  const scheduleA = formatSchedule(a.plan.settings.schedule);
  const scheduleB = formatSchedule(b.plan.settings.schedule);
  if (scheduleA !== scheduleB) out.push(`schedule: ${scheduleA} → ${scheduleB}`);
  return out;
}

/**
 * Under a figure pooled with `cellsMayDiffer`: the rows measured with other settings than the first
 * folder with runs left (after replacements), by folder, and what differs ('' when every such
 * folder shares its settings).
 */
function settingsLine(folders: readonly FolderData[]): string {
  const first = folders.find((f) => f.runs.length > 0);
  if (!first) return '';
  const firstKey = settingsKey(first.manifest);
  const parts = folders
    .filter((f) => f.runs.length > 0 && settingsKey(f.manifest) !== firstKey)
    .map((f) => {
      const rows = [
        ...new Map(f.runs.map((r) => [r.conditionKey, `${rateLabel(r.rateBitsPerSec)} × ${bytesLabel(r.queueBytes)}`])).values(),
      ];
      return `${rows.join(', ')} from \`${f.name}/\` (${settingsDiff(first.manifest, f.manifest).join('; ')})`;
    });
  return parts.length === 0 ? '' : `Rows run with other settings than \`${first.name}/\`: ${parts.join('; ')}.`;
}

/** "80.2 [78.0–85.1] (3)", "80.2 (1)", "–". */
export function countedText(s: Summary | undefined, digits = 1, scale = 1): string {
  return s ? `${cellText(s, digits, scale)} (${s.n})` : '–';
}

function isSprint(label: string): boolean {
  return /^sprint(?!-x)/.test(label);
}

function outsideBand(s: Summary | undefined): boolean {
  return s !== undefined && (s.median < SPRINT_BAND[0] || s.median > SPRINT_BAND[1]);
}

function bold(text: string, on: boolean): string {
  return on ? `**${text}**` : text;
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  return mdTable(header, rows).split('\n');
}

/**
 * Where a figure's runs come from: each folder with its runs and, per run, the player build it served
 * (build-stamp.ts) or, for runs made before builds were recorded, the source commit the harness ran from.
 */
function sourcesLine(folders: readonly FolderData[]): string {
  const left: string[] = [];
  const parts = folders.map((f) => {
    const counted: RunSummary[] = [];
    for (const r of f.runs) {
      const fallback = runFallback(r);
      if (fallback) left.push(`\`${f.name}/${r.dir}\` (${fallback.replace(/^player /, '')})`);
      else counted.push(r);
    }
    const builds = countBuilds(
      counted,
      (r) => r.host?.build,
      (r) => `source ${r.host?.commit ? r.host.commit.slice(0, 7) : 'unknown'}`,
    );
    const list = builds.map((b) => `${b.label} ×${b.runs}`).join(', ');
    const replaced = f.replaced ? `; ${f.replaced.runs} more replaced by ${f.replaced.by.map((b) => `\`${b}/\``).join(', ')}` : '';
    return `\`${f.name}/\` (${counted.length} run${counted.length === 1 ? '' : 's'}${list ? `: ${list}` : ''}${replaced})`;
  });
  const leftOut = left.length ? ` Left out, a player ran another data plane than it asked for: ${left.join('; ')}.` : '';
  return `Runs: ${parts.join('; ')}.${leftOut}`;
}

function playerColumns(agg: Aggregate): Column[] {
  return agg.columns.filter((c) => c.kind === 'player');
}

/** Paper Fig. 6: the player's port as % of fair share, rate × queue rows, one column per player and the control. */
export function fig6Table(folders: readonly FolderData[]): string[] {
  const agg = pool('fig6', folders, { cellsMayDiffer: true });
  const settings = settingsLine(folders);
  const cols = [...playerColumns(agg), ...agg.columns.filter((c) => c.kind === 'control')];
  const rows: string[][] = [];
  const videoRows: string[][] = [];
  for (const rate of FIG6_RATES)
    for (const queue of FIG6_QUEUES) {
      const key = conditionKey(rate, queue);
      const name = `${rateLabel(rate)} × ${bytesLabel(queue)}`;
      rows.push([
        name,
        ...cols.map((c) => {
          const cell = cellOf(agg, key, c.key);
          const s = cell?.metrics.percentOfFairShare;
          return markSaturated(bold(countedText(s), isSprint(c.flow) && outsideBand(s)), cell);
        }),
      ]);
      videoRows.push([
        name,
        ...playerColumns(agg).map((c) => {
          const m = cellOf(agg, key, c.key)?.metrics;
          if (!m) return '–';
          const video = m.videoOnlyPercentOfFairShare ? m.videoOnlyPercentOfFairShare.median.toFixed(1) : '–';
          return `${video} / ${m.bitrateBps ? (m.bitrateBps.median / 1e6).toFixed(2) : '–'}`;
        }),
      ]);
    }
  return [
    "Player's port (video and audio) as % of fair share, median [min–max] (runs); Sprint cells outside 97–105 % in bold:",
    '',
    ...table(['rate × queue', ...cols.map(title)], rows),
    '',
    'Video bytes alone as % of fair share / median video bitrate in Mbit/s (paper Fig. 7), medians:',
    '',
    ...table(['rate × queue', ...playerColumns(agg).map(title)], videoRows),
    '',
    sourcesLine(folders),
    ...(agg.cells.some((c) => (c.saturatedRuns ?? []).length > 0) ? ['', SATURATED_NOTE] : []),
    ...(settings ? ['', settings] : []),
  ];
}

function title(c: Column): string {
  if (c.kind === 'control') return 'control (bulk vs bulk)';
  const names: Record<string, string> = {
    sprint: 'Sprint (extension)',
    'sprint-x': 'Sprint-x',
    'sprint?transport=fetch': 'Sprint on fetch (no extension)',
  };
  return names[c.flow] ?? c.flow;
}

/** Paper Table I's rows of two video flows: the data planes' modes, sorted, joined by +. */
const TABLE1_PAIRS: Readonly<Record<string, string>> = {
  'stock+stock': 'stock vs stock',
  'sprint+stock': 'stock vs Sprint',
  'sprint+sprint': 'Sprint vs Sprint',
};
/** Its rows of one player against one bulk flow (the player alone with --bulk 1), and bulk vs bulk (the control). */
const TABLE1_VS_BULK: ReadonlyArray<{ name: string; column: string }> = [
  { name: 'bulk vs bulk', column: 'control' },
  { name: 'stock vs bulk', column: 'stock' },
  { name: 'Sprint vs bulk', column: 'sprint' },
  { name: 'Sprint-x vs bulk', column: 'sprint-x' },
  { name: 'Sprint on fetch (no extension) vs bulk', column: 'sprint?transport=fetch' },
];
const TABLE1_ORDER = ['bulk vs bulk', 'stock vs stock', 'stock vs Sprint', 'stock vs bulk', 'Sprint vs Sprint', 'Sprint vs bulk'];

/**
 * Paper Table I: unfairness √(1 − JFI) of two flows at 3 Mbit/s × 256 and 512 KB, with the paper's medians.
 * Rows against a bulk flow come from folders with one bulk flow (players alone, the control); rows of two
 * players from pairs alone on the link (`--pairs`, `--bulk 0`), found by their players' modes. Folders made
 * alike are pooled; any other folder is refused.
 */
export function table1Table(folders: readonly FolderData[]): string[] {
  const groups = new Map<string, FolderData[]>();
  for (const f of folders) {
    const bulk = f.manifest.plan.settings.bulkFlows;
    if (bulk !== 0 && bulk !== 1)
      throw new Error(
        `table1: ${f.name} has ${bulk} bulk flows; Table I takes players alone against one bulk flow and pairs alone on the link`,
      );
    groups.set(settingsKey(f.manifest), [...(groups.get(settingsKey(f.manifest)) ?? []), f]);
  }
  // Row name → condition key → cells found (more than one: the same row from folders run with different settings).
  const found = new Map<string, Map<string, Cell[]>>();
  const put = (row: string, cell: Cell | undefined): void => {
    if (!cell) return;
    const byKey = found.get(row) ?? new Map<string, Cell[]>();
    byKey.set(cell.conditionKey, [...(byKey.get(cell.conditionKey) ?? []), cell]);
    found.set(row, byKey);
  };
  for (const group of groups.values()) {
    const agg = pool('table1', group);
    const pairsAlone = group[0]?.manifest.plan.settings.bulkFlows === 0;
    for (const cond of agg.conditions) {
      if (!pairsAlone) {
        for (const r of TABLE1_VS_BULK) put(r.name, cellOf(agg, cond.key, r.column));
        continue;
      }
      // Every pair of every folder of the group (one folder may hold stock+stock, another sprint+stock).
      const pairs = new Map<string, { label: string; row: string }>();
      for (const f of group)
        for (const v of f.manifest.plan.variants) {
          if (!isPairVariant(v) || v.players.some((p) => p.query || p.abr !== f.manifest.defaultAbr)) continue;
          const modes = v.players.map((p) => p.mode).sort();
          const row = TABLE1_PAIRS[modes.join('+')];
          const first = v.players[0];
          if (row && first) pairs.set(v.name, { label: first.label, row });
        }
      for (const [name, p] of pairs) put(p.row, cellOf(agg, cond.key, `${name}:${p.label}`));
    }
  }
  const queues = [256, 512].map((k) => k * 1024);
  const names = [...TABLE1_ORDER, ...TABLE1_VS_BULK.map((r) => r.name).filter((n) => !TABLE1_ORDER.includes(n))];
  const out: string[][] = [];
  for (const name of names) {
    const cells = queues.map((q) => {
      const key = conditionKey(3e6, q);
      const c = found.get(name)?.get(key) ?? [];
      if (c.length > 1)
        throw new Error(
          `table1: "${name}" at ${key} comes from ${c.length} variants (folders run with different settings, or the same pair in both orders)`,
        );
      return c[0];
    });
    const paper = TABLE1_PAPER[name];
    if (!paper && cells.every((c) => c === undefined)) continue;
    out.push([
      name,
      ...cells.map((c) => countedText(c?.metrics.unfairnessAll, 3)),
      paper ? `${paper[0].toFixed(2)} / ${paper[1].toFixed(2)}` : '–',
    ]);
  }
  return [
    'Unfairness √(1 − JFI) of the two flows at 3 Mbit/s (lower is fairer), median [min–max] (runs):',
    '',
    ...table(['flows', '256 KB', '512 KB', 'paper, 256 / 512 KB'], out),
    '',
    sourcesLine(folders),
  ];
}

/** "0.70", or "1.10–1.15" when the runs' medians differ. */
function rangeText(s: Summary | undefined, digits: number, scale = 1): string {
  if (!s) return '–';
  const a = (s.min * scale).toFixed(digits);
  const b = (s.max * scale).toFixed(digits);
  return a === b ? a : `${a}–${b}`;
}

function stallsText(m: Cell['metrics']): string {
  const count = rangeText(m.rebufferCount, 0);
  const maxS = m.rebufferS?.max ?? 0;
  return maxS >= 0.05 ? `${count} (≤ ${maxS >= 10 ? maxS.toFixed(0) : maxS.toFixed(1)} s)` : count;
}

/** Paper Fig. 11: BW-x players' video bytes as % of the expected share, the paper's / video's / the ladder's (expected-share.ts). */
export function fig11Table(folders: readonly FolderData[], figure: FigureId = 'fig11'): string[] {
  const agg = pool(figure, folders);
  const keys = [...new Set(agg.cells.map((c) => c.conditionKey))];
  if (keys.length > 1) throw new Error(`${figure}: runs at ${keys.join(', ')}; the figure is one condition`);
  const key = keys[0] ?? '';
  const kinds: Array<{ name: string; label: (x: number) => string; sprint: boolean }> = [
    { name: 'stock', label: (x) => `stock/bw-${x}`, sprint: false },
    { name: 'Sprint', label: (x) => `sprint/bw-${x}`, sprint: true },
    { name: 'Sprint without the minimum train (`mpt=0`)', label: (x) => `sprint/bw-${x}?mpt=0`, sprint: false },
  ];
  const rows = FIG11_X.map((x) => [
    `${x} %`,
    ...kinds.map((k) => {
      const m = cellOf(agg, key, k.label(x))?.metrics;
      if (!m?.percentOfPaperExpected) return '–';
      const text = `${cellText(m.percentOfPaperExpected, 1)} / ${cellText(m.percentOfVideoExpected, 1)} / ${cellText(m.percentOfLadderExpected, 1)} (${m.percentOfPaperExpected.n}); ${rangeText(m.bitrateBps, 2, 1e-6)} Mbit/s; stalls ${stallsText(m)}`;
      return bold(text, k.sprint && outsideBand(m.percentOfLadderExpected));
    }),
  ]);
  const where = agg.conditions[0];
  return [
    `${where ? `${rateLabel(where.rateBitsPerSec)} × ${bytesLabel(where.queueBytes)}: ` : ''}video bytes as % of the expected share, the paper's (min(100 %, x) of the fair share; the paper's player was video only) / video's (min(100 %, x) of the fair share less the audio's nominal bitrate) / the ladder's (the highest rung at or under x % of video's share, or video's share where that rung is above it), median [min–max] (runs); median video bitrate in the window; stalls in the window. Sprint cells outside 97–105 % of the ladder's expectation in bold:`,
    '',
    ...table(['x', ...kinds.map((k) => k.name)], rows),
    '',
    sourcesLine(folders),
  ];
}

/** §V-B's competitors: each folder is one setting (more bulk flows, BBR); rows per folder and condition. */
export function competitorsTable(folders: readonly FolderData[]): string[] {
  const labels = ['stock', 'sprint-x', 'sprint', 'control'];
  const rows: string[][] = [];
  for (const f of folders) {
    const agg = pool('competitors', [f]);
    const s = f.manifest.plan.settings;
    for (const c of agg.conditions) {
      rows.push([
        `${rateLabel(c.rateBitsPerSec)} × ${bytesLabel(c.queueBytes)}, ${s.bulkFlows} bulk flow${s.bulkFlows === 1 ? '' : 's'}, ${s.congestionControl}`,
        ...labels.map((l) => {
          const m = cellOf(agg, c.key, l)?.metrics.percentOfFairShare;
          return bold(countedText(m), isSprint(l) && outsideBand(m));
        }),
      ]);
    }
  }
  return [
    "Player's port as % of fair share, median [min–max] (runs); Sprint cells outside 97–105 % in bold (paper, 4 bulk flows: stock 80 %, Sprint 102 %):",
    '',
    ...table(['setting', 'stock', 'Sprint-x', 'Sprint (extension)', 'control (bulk vs bulk)'], rows),
    '',
    sourcesLine(folders),
  ];
}

const RENDER: Record<FigureId, (folders: readonly FolderData[]) => string[]> = {
  fig6: fig6Table,
  table1: table1Table,
  fig11: (folders) => fig11Table(folders, 'fig11'),
  fig11bwx2: (folders) => fig11Table(folders, 'fig11bwx2'),
  competitors: competitorsTable,
};

/** Runs that count in a figure's folders (a run whose player fell back to another data plane is left out). */
function countedRuns(folders: readonly FolderData[]): number {
  return folders.reduce((n, f) => n + f.runs.filter((r) => runFallback(r) === null).length, 0);
}

/** Sprint cells of a figure with a figure of merit, and how many of them are inside SPRINT_BAND. */
function sprintCells(id: FigureId, folders: readonly FolderData[]): { cells: number; inBand: number } | null {
  const found: Array<Summary | undefined> = [];
  if (id === 'fig6') {
    const agg = pool('fig6', folders, { cellsMayDiffer: true });
    for (const c of playerColumns(agg).filter((x) => isSprint(x.flow)))
      for (const cond of agg.conditions) found.push(cellOf(agg, cond.key, c.key)?.metrics.percentOfFairShare);
  } else if (id === 'fig11' || id === 'fig11bwx2') {
    const agg = pool(id, folders);
    for (const cond of agg.conditions)
      for (const x of FIG11_X) found.push(cellOf(agg, cond.key, `sprint/bw-${x}`)?.metrics.percentOfLadderExpected);
  } else if (id === 'competitors') {
    for (const f of folders) {
      const agg = pool('competitors', [f]);
      for (const cond of agg.conditions) found.push(cellOf(agg, cond.key, 'sprint')?.metrics.percentOfFairShare);
    }
  } else return null;
  const measured = found.filter((s): s is Summary => s !== undefined);
  return { cells: measured.length, inBand: measured.filter((s) => !outsideBand(s)).length };
}

const SUMMARY_ROWS: Record<FigureId, { name: string; what: string; anchor: string }> = {
  fig6: { name: 'Fig. 6', what: "player's share of the link against one bulk flow, 4 rates × 4 queues", anchor: 'paper-fig-6' },
  table1: { name: 'Table I', what: 'unfairness of two flows at 3 Mbit/s', anchor: 'paper-table-i' },
  fig11: { name: 'Fig. 11', what: 'BW-x players in the paused regime, `bwx` ladder, 5 min', anchor: 'paper-fig-11' },
  fig11bwx2: { name: 'Fig. 11 (`bwx2`)', what: 'BW-x players, `bwx2` ladder, 20 min', anchor: 'paper-fig-11-on-the-bwx2-ladder' },
  competitors: { name: '§V-B', what: 'four bulk flows; BBR servers', anchor: 'competitors' },
};

/**
 * README.md's compact summary: one row per figure with its runs and how many Sprint cells are inside
 * the band, each linking its full table in docs/results.md.
 */
export function summaryTable(index: PaperIndex, load: (name: string) => FolderData): string {
  const rows: string[][] = [];
  for (const id of FIGURES) {
    const refs = index.figures[id];
    if (!refs || refs.length === 0) continue;
    const folders = resolveFolders(refs, load);
    const sprint = sprintCells(id, folders);
    const row = SUMMARY_ROWS[id];
    rows.push([
      `[${row.name}](docs/results.md#${row.anchor})`,
      row.what,
      String(countedRuns(folders)),
      sprint ? `${sprint.inBand} of ${sprint.cells}` : '–',
    ]);
  }
  return table(['figure', 'what it measures', 'runs', `Sprint cells in ${SPRINT_BAND[0]}–${SPRINT_BAND[1]} %`], rows).join('\n');
}

/** Each figure of the index that names folders, as Markdown (no trailing newline). */
export function paperTables(index: PaperIndex, load: (name: string) => FolderData): Map<FigureId, string> {
  const out = new Map<FigureId, string>();
  for (const id of FIGURES) {
    const refs = index.figures[id];
    if (!refs || refs.length === 0) continue;
    out.set(id, RENDER[id](resolveFolders(refs, load)).join('\n'));
  }
  return out;
}

/**
 * paper.html beside the index: paper Fig. 6 as heat maps side by side, one per player and the
 * control, over the whole grid (unmeasured cells blank), pooled across the figure's folders.
 */
export function paperHtml(index: PaperIndex, load: (name: string) => FolderData): string | null {
  const refs = index.figures.fig6;
  if (!refs || refs.length === 0) return null;
  const folders = resolveFolders(refs, load);
  const agg = pool('fig6', folders, { cellsMayDiffer: true });
  const settings = settingsLine(folders);
  return htmlPage('Paper Fig. 6 on our testbed', [
    '<p class="note">Generated by <code>npx sprint report --paper</code> from the results folders the index names for Fig. 6. docs/results.md holds the same figures as tables, each cell with its min–max and run count.</p>',
    heatMapsSection(agg, { rates: FIG6_RATES, queues: FIG6_QUEUES }),
    `<p class="note">${escapeHtml(sourcesLine(folders))}</p>`,
    ...(settings ? [`<p class="note">${escapeHtml(settings)}</p>`] : []),
  ]);
}

const BLOCK = /<!-- paper-table: ([a-z0-9]+) -->\n([\s\S]*?)<!-- \/paper-table -->/g;

/** The generated blocks a Markdown file holds, by id. */
export function markedTables(doc: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of doc.matchAll(BLOCK)) out.set(m[1] as string, (m[2] as string).replace(/\n$/, ''));
  return out;
}

/** The file with every marked block replaced by its table; refuses a marker of a figure the index does not feed. */
export function replaceMarkedTables(doc: string, tables: ReadonlyMap<string, string>, name = 'the file'): string {
  return doc.replace(BLOCK, (_all, id: string) => {
    const t = tables.get(id);
    if (t === undefined) throw new Error(`${name} has a paper-table block "${id}" that the index feeds no folder to`);
    return `<!-- paper-table: ${id} -->\n${t}\n<!-- /paper-table -->`;
  });
}
