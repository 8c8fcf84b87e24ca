// Unit tests of the generated tables of the paper's figures
// (demo/harness/paper-tables.ts, paper-figure.ts, `sprint report --paper`): results folders
// written the way `sprint ab` writes them are folded into Fig. 6 and Table I
// cells (median [min–max] (runs), Sprint outside 97–105 % in bold), folders
// of different settings are not pooled (a Fig. 6 row may come from a folder of other settings,
// named under the table), a folder that measured cells again replaces the older runs of
// those cells (named under the table), a run whose player fell back to another data plane is left out
// and named, Table I finds its pairs by mode, the marked blocks of
// docs/results.md and the README's summary are rewritten in place, Fig. 6 is
// drawn as an SVG — and this repository's docs hold exactly the tables and
// figure its committed results folders give.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main as reportMain } from '../../../demo/harness/report-cli';
import { buildReport } from '../../../demo/harness/report';
import { cellOf } from '../../../demo/harness/aggregate';
import { fallbackOf } from '../../../demo/harness/player-summary';
import {
  competitorsTable,
  FolderData,
  fig6Table,
  loadFolder,
  paperHtml,
  markedTables,
  paperTables,
  pool,
  readPaperIndex,
  replaceMarkedTables,
  settingsDiff,
  summaryTable,
  table1Table,
} from '../../../demo/harness/paper-tables';
import { fig6Svg } from '../../../demo/harness/paper-figure';
import { formatSchedule, scheduleFromPhases } from '../../../demo/harness/schedule';
import { buildPlan, parsePairs, PlayerSpec } from '../../../demo/harness/plan';
import { SETTINGS, STOCK, testPlan, writeResultsFolder } from './fixtures';

const SPRINT: PlayerSpec = { label: 'sprint', mode: 'sprint', abr: 'dash-default' };
const REPO = path.join(__dirname, '..', '..', '..');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-paper-tables-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A results folder of stock, Sprint and the control at 3 Mbit/s × 256 KB; Mbit/s of the video slot per variant and repeat. */
function folder(name: string, mbit: Record<string, number[]>, settings = SETTINGS): string {
  const d = path.join(dir, name);
  const plan = { ...testPlan([STOCK, SPRINT]), settings };
  writeResultsFolder(d, plan, (s) => mbit[s.variant.name]![s.repeat - 1]!);
  buildReport(d);
  return d;
}

const io = (): {
  io: { stdout: { write: (s: string) => boolean }; stderr: { write: (s: string) => boolean } };
  out: string[];
  err: string[];
} => {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (s: string) => out.push(s) > 0 }, stderr: { write: (s: string) => err.push(s) > 0 } },
    out,
    err,
  };
};

describe('paper tables', () => {
  it('puts every cell of the Fig. 6 grid in, measured or not, with its run count and Sprint outside the band in bold', () => {
    const f = loadFolder(folder('fig6', { stock: [1.2, 1.05, 1.35], sprint: [1.2, 1.2, 1.2], control: [1.5, 1.5, 1.5] }));
    const lines = fig6Table([f]);
    const rows = lines.filter((l) => / × [0-9]+ KB \|/.test(l));
    // 16 conditions in each of the two tables
    expect(rows).toHaveLength(32);
    expect(lines).toContain('| rate × queue | stock | Sprint (extension) | control (bulk vs bulk) |');
    expect(lines).toContain('| 3 Mbit/s × 256 KB | 80.0 [70.0–90.0] (3) | **80.0 [80.0–80.0] (3)** | 100.0 [100.0–100.0] (3) |');
    expect(lines).toContain('| 1.5 Mbit/s × 64 KB | – | – | – |');
    expect(lines.at(-1)).toMatch(/^Runs: `fig6\/` \(9 runs: source unknown ×9\)\.$/);
  });

  it('leaves a Sprint cell inside 97–105 % plain and shows the video bytes alone with the bitrate', () => {
    const f = loadFolder(folder('fig6', { stock: [1.2, 1.2, 1.2], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] }));
    const lines = fig6Table([f]);
    expect(lines).toContain('| 3 Mbit/s × 256 KB | 80.0 [80.0–80.0] (3) | 100.0 [100.0–100.0] (3) | 100.0 [100.0–100.0] (3) |');
    expect(lines.some((l) => /^\| 3 Mbit\/s × 256 KB \| – \/ 1\.50 \| – \/ 1\.50 \|$/.test(l))).toBe(true);
  });

  it('pools folders made alike and refuses folders of different settings', () => {
    const a = loadFolder(folder('a', { stock: [1.2, 1.2, 1.2], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] }));
    const b = loadFolder(folder('b', { stock: [0.9, 0.9, 0.9], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] }));
    const pooled = pool('fig6', [a, b]);
    const stock = pooled.cells.find((c) => c.column === 'stock')!.metrics.percentOfFairShare!;
    expect(stock.n).toBe(6);
    expect([stock.min, stock.max]).toEqual([60, 80]);
    const c = loadFolder(
      folder('c', { stock: [1, 1, 1], sprint: [1, 1, 1], control: [1, 1, 1] }, { ...SETTINGS, congestionControl: 'bbr' }),
    );
    expect(() => pool('fig6', [a, c])).toThrow(/fig6: c and a were run with different settings/);
  });

  it('lets a Fig. 6 row come from a folder of other settings, names the row and what differs, and refuses a row from two settings', () => {
    const mbit = { stock: [1.2, 1.2, 1.2], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] };
    const a = loadFolder(folder('a', mbit));
    const deepDir = path.join(dir, 'deep');
    const deepSettings = { ...SETTINGS, pagePreload: true as const, primer: { leadS: 30, overlapS: 20, until: 'playing' as const } };
    const deepRow = [{ key: '1.5mbit-1536kb', rateBitsPerSec: 1.5e6, queueBytes: 1572864 }];
    writeResultsFolder(
      deepDir,
      buildPlan({ settings: deepSettings, conditions: deepRow, players: [STOCK, SPRINT], repeats: 2, control: true, together: false }),
      () => 0.6,
    );
    buildReport(deepDir);
    const deep = loadFolder(deepDir);
    const lines = fig6Table([a, deep]);
    expect(lines.filter((l) => /^\| 1\.5 Mbit\/s × 1536 KB \| [0-9.]+ \[[0-9.–]+\] \(2\) \| /.test(l))).toHaveLength(1);
    expect(lines).toContain('| 3 Mbit/s × 256 KB | 80.0 [80.0–80.0] (3) | 100.0 [100.0–100.0] (3) | 100.0 [100.0–100.0] (3) |');
    const line =
      'Rows run with other settings than `a/`: 1.5 Mbit/s × 1536 KB from `deep/` (pagePreload: – → true; primer.leadS: – → 30; primer.overlapS: – → 20; primer.until: – → "playing").';
    expect(lines.at(-1)).toBe(line);
    // The heat maps say it too.
    const html = paperHtml(
      {
        figures: {
          fig6: [
            { name: 'a', replaces: [] },
            { name: 'deep', replaces: [] },
          ],
        },
      },
      (n) => (n === 'a' ? a : deep),
    );
    expect(html).toContain(line.replace(/"/g, '&quot;'));
    // Folders alike get no such line.
    expect(fig6Table([a]).some((l) => l.startsWith('Rows run with other settings'))).toBe(false);
    // A row from two settings is refused, in Fig. 6 too: the same cells, or one column of the row.
    const other = loadFolder(folder('other', mbit, { ...SETTINGS, pagePreload: true as const }));
    expect(() => fig6Table([a, other])).toThrow(/fig6: 3mbit-256kb has runs in a and other, which were run with different settings/);
    const stockDir = path.join(dir, 'stock-only');
    const conditions = [{ key: '3mbit-256kb', rateBitsPerSec: 3e6, queueBytes: 262144 }];
    writeResultsFolder(
      stockDir,
      buildPlan({ settings: deepSettings, conditions, players: [STOCK], repeats: 1, control: false, together: false }),
      () => 1.2,
    );
    buildReport(stockDir);
    expect(() => fig6Table([deep, loadFolder(stockDir), a])).toThrow(/fig6: 3mbit-256kb has runs in stock-only and a/);
    // The other figures still pool only folders made alike.
    expect(() => pool('fig11', [a, deep])).toThrow(/fig11: deep and a were run with different settings/);
  });

  it('gives Fig. 11 on another content set a table of its own, and never pools two sets in one', () => {
    const mbit = { stock: [1.2, 1.2, 1.2], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] };
    const bwx = loadFolder(folder('bwx', mbit, { ...SETTINGS, contentSet: 'bwx' }));
    const bwx2 = loadFolder(folder('bwx2', mbit, { ...SETTINGS, contentSet: 'bwx2' }));
    const load = (name: string) => (name === 'bwx' ? bwx : bwx2);
    const ref = (name: string) => ({ name, replaces: [] });
    const tables = paperTables({ figures: { fig11: [ref('bwx')], fig11bwx2: [ref('bwx2')] } }, load);
    expect([...tables.keys()]).toEqual(['fig11', 'fig11bwx2']);
    expect(tables.get('fig11')).toMatch(/`bwx\/` \(\d+ runs/);
    expect(tables.get('fig11bwx2')).toMatch(/`bwx2\/` \(\d+ runs/);
    expect(() => paperTables({ figures: { fig11bwx2: [ref('bwx'), ref('bwx2')] } }, load)).toThrow(
      /fig11bwx2: bwx2 and bwx were run with different settings/,
    );
  });

  it('names a schedule that differs as sprint ab writes it, and settings only one side has with "–"', () => {
    const a = loadFolder(folder('a', { stock: [1.2, 1.2, 1.2], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] }));
    const b = {
      ...a.manifest,
      pageQuery: 'fragtimeout=120000',
      plan: {
        ...a.manifest.plan,
        settings: { ...a.manifest.plan.settings, schedule: scheduleFromPhases([{ name: 'both', durationS: 450 }]) },
      },
    };
    expect(settingsDiff(a.manifest, b)).toEqual([
      `pageQuery: "" → "fragtimeout=120000"`,
      `schedule: ${formatSchedule(SETTINGS.schedule)} → both:450s`,
    ]);
    expect(settingsDiff(a.manifest, a.manifest)).toEqual([]);
  });

  it('lets a folder replace the runs of the cells it measured again in the folders before it, and says so under the table', () => {
    folder('grid', { stock: [1.2, 1.2, 1.2], sprint: [1.2, 1.2, 1.2], control: [1.5, 1.5, 1.5] });
    const again = path.join(dir, 'again');
    const conditions = [{ key: '3mbit-256kb', rateBitsPerSec: 3e6, queueBytes: 262144 }];
    writeResultsFolder(
      again,
      buildPlan({ settings: SETTINGS, conditions, players: [SPRINT], repeats: 2, control: false, together: false }),
      () => 1.5,
    );
    buildReport(again);
    const indexFile = path.join(dir, 'paper.json');
    const fig6 = (entries: unknown[]): string[] => {
      writeFileSync(indexFile, JSON.stringify({ figures: { fig6: entries } }));
      return paperTables(readPaperIndex(indexFile), (n) => loadFolder(path.join(dir, n)))
        .get('fig6')!
        .split('\n');
    };
    const replaced = fig6(['grid', { folder: 'again', replaces: ['grid'] }]);
    // Sprint's cell is the two new runs alone; stock and the control keep the grid's
    expect(replaced).toContain('| 3 Mbit/s × 256 KB | 80.0 [80.0–80.0] (3) | 100.0 [100.0–100.0] (2) | 100.0 [100.0–100.0] (3) |');
    expect(replaced.at(-1)).toBe(
      'Runs: `grid/` (6 runs: source unknown ×6; 3 more replaced by `again/`); `again/` (2 runs: source unknown ×2).',
    );
    // listed without "replaces", the cell pools both folders' runs
    expect(fig6(['grid', 'again'])).toContain(
      '| 3 Mbit/s × 256 KB | 80.0 [80.0–80.0] (3) | **80.0 [80.0–100.0] (5)** | 100.0 [100.0–100.0] (3) |',
    );
    expect(() => fig6([{ folder: 'again', replaces: ['grid'] }, 'grid'])).toThrow(/again replaces grid, not listed before it/);
    expect(() => fig6(['grid', { folder: 'again', replace: ['grid'] }])).toThrow(/an entry is a folder name or \{"folder"/);
    expect(() => fig6(['grid', { folder: 'grid', replaces: [] }])).toThrow(/lists grid twice/);
    expect(() => fig6(['grid', { folder: 'again', replaces: 'grid' }])).toThrow(/"replaces" of again must be a list of folder names/);
    // a run that does not count (failed, no window, fell back) replaces nothing
    const failed = path.join(dir, 'failed');
    writeResultsFolder(
      failed,
      buildPlan({ settings: SETTINGS, conditions, players: [SPRINT], repeats: 1, control: false, together: false }),
      () => 1.5,
      () => 'failed',
    );
    buildReport(failed);
    const kept = fig6(['grid', { folder: 'failed', replaces: ['grid'] }]);
    expect(kept).toContain('| 3 Mbit/s × 256 KB | 80.0 [80.0–80.0] (3) | **80.0 [80.0–80.0] (3)** | 100.0 [100.0–100.0] (3) |');
    expect(kept.at(-1)).toBe('Runs: `grid/` (9 runs: source unknown ×9); `failed/` (1 run: source unknown ×1).');
    // only a cell measured alike replaces another
    const bbr = path.join(dir, 'bbr');
    writeResultsFolder(
      bbr,
      buildPlan({
        settings: { ...SETTINGS, congestionControl: 'bbr' },
        conditions,
        players: [SPRINT],
        repeats: 1,
        control: false,
        together: false,
      }),
      () => 1.5,
    );
    buildReport(bbr);
    expect(() => fig6(['grid', { folder: 'bbr', replaces: ['grid'] }])).toThrow(
      /bbr replaces grid, but the two were run with different settings/,
    );
  });

  it('counts no run in which a player fell back to another data plane, and names it under the table', () => {
    const d = folder('fb', { stock: [1.2, 1.2, 1.2], sprint: [1.5, 1.2, 1.5], control: [1.5, 1.5, 1.5] });
    // Sprint's second run ran Sprint-x (as when the extension is missing): its player log says so.
    const log = path.join(d, 'runs', '3mbit-256kb', 'sprint', 'r2', 'player-8001.jsonl');
    writeFileSync(log, readFileSync(log, 'utf8').replace(/"mode":"sprint"/g, '"mode":"sprint-x"'));
    // the folder's own report leaves it out too, and says why
    const cell = cellOf(buildReport(d).aggregate, '3mbit-256kb', 'sprint')!;
    expect(cell.okRuns).toEqual(['runs/3mbit-256kb/sprint/r1', 'runs/3mbit-256kb/sprint/r3']);
    expect(cell.problems).toContain(
      'runs/3mbit-256kb/sprint/r2: not counted: player sprint: asked for sprint, ran sprint-x (sprint requested)',
    );
    const lines = fig6Table([loadFolder(d)]);
    expect(lines).toContain('| 3 Mbit/s × 256 KB | 80.0 [80.0–80.0] (3) | 100.0 [100.0–100.0] (2) | 100.0 [100.0–100.0] (3) |');
    expect(lines.at(-1)).toBe(
      'Runs: `fb/` (8 runs: source unknown ×8). Left out, a player ran another data plane than it asked for: ' +
        '`fb/runs/3mbit-256kb/sprint/r2` (sprint: asked for sprint, ran sprint-x (sprint requested)).',
    );
  });

  it('a player that asked for auto never fell back, whatever plane it resolved', () => {
    const p = { label: 'x', requestedMode: 'auto', mode: 'stock', modeReason: 'no Range support' };
    expect(fallbackOf(p)).toBeNull();
    expect(fallbackOf({ ...p, requestedMode: 'sprint' })).toBe('player x: asked for sprint, ran stock (no Range support)');
    expect(fallbackOf({ ...p, requestedMode: 'sprint', mode: null })).toBeNull();
  });

  it("gives paper Table I's rows with the paper's medians, leaving rows not measured as –", () => {
    const f = loadFolder(folder('t1', { stock: [1.2, 1.2, 1.2], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] }));
    const lines = table1Table([f]);
    // two flows at 1.2 and 1.8 Mbit/s: JFI = 9 / (2 × (1.44 + 3.24)) = 0.9615, unfairness 0.196
    expect(lines).toContain('| stock vs bulk | 0.196 [0.196–0.196] (3) | – | 0.15 / 0.45 |');
    expect(lines).toContain('| bulk vs bulk | 0.000 [0.000–0.000] (3) | – | 0.03 / 0.05 |');
    expect(lines).toContain('| stock vs stock | – | – | 0.04 / 0.10 |');
    expect(lines.some((l) => l.startsWith('| Sprint-x vs bulk'))).toBe(false);
  });

  it('rewrites the marked blocks of a file and refuses a block no folder feeds', () => {
    const doc =
      'intro\n<!-- paper-table: fig6 -->\nold\n<!-- /paper-table -->\nmiddle\n<!-- paper-table: fig11 -->\nx\n<!-- /paper-table -->\n';
    const tables = new Map([
      ['fig6', 'new six'],
      ['fig11', 'new eleven'],
    ]);
    const after = replaceMarkedTables(doc, tables);
    expect(after).toBe(
      'intro\n<!-- paper-table: fig6 -->\nnew six\n<!-- /paper-table -->\nmiddle\n<!-- paper-table: fig11 -->\nnew eleven\n<!-- /paper-table -->\n',
    );
    expect(markedTables(after)).toEqual(tables);
    expect(() => replaceMarkedTables(doc, new Map([['fig6', 'x']]), 'results.md')).toThrow(
      /results\.md has a paper-table block "fig11" that the index feeds no folder to/,
    );
  });

  it('draws Fig. 6 as two heat maps, stock beside Sprint, whose cells carry the committed medians', () => {
    const f = loadFolder(folder('2026-svg', { stock: [1.2, 1.05, 1.35], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] }));
    const svg = fig6Svg({ figures: { fig6: [{ name: '2026-svg', replaces: [] }] } }, () => f) as string;
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" ')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    // well-formed enough to render: every <svg> closed, every <text> closed, no script or external reference
    expect((svg.match(/<svg /g) ?? []).length).toBe(3);
    expect((svg.match(/<\/svg>/g) ?? []).length).toBe(3);
    expect((svg.match(/<text /g) ?? []).length).toBe((svg.match(/<\/text>/g) ?? []).length);
    expect(svg).not.toMatch(/<script|href=/i);
    expect(svg).toContain('stock dash.js: % of fair share');
    expect(svg).toContain('Sprint (extension): % of fair share');
    // the measured cell (3 Mbit/s × 256 KB) carries each column's median; the 15 others are blank
    expect(svg).toContain('>80.0</text>');
    expect(svg).toContain('>100.0</text>');
    expect((svg.match(/>–<\/text>/g) ?? []).length).toBe(30);
    expect(fig6Svg({ figures: {} }, () => f)).toBeNull();
  });

  it('sums each figure up for the README: its runs and how many Sprint cells are inside the band', () => {
    const inBand = loadFolder(folder('in', { stock: [1.2, 1.05, 1.35], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] }));
    const out = loadFolder(folder('out', { stock: [1.2, 1.05, 1.35], sprint: [1.2, 1.2, 1.2], control: [1.5, 1.5, 1.5] }));
    const ref = (name: string): { name: string; replaces: string[] } => ({ name, replaces: [] });
    const lines = summaryTable({ figures: { fig6: [ref('in')], table1: [ref('in')] } }, () => inBand).split('\n');
    expect(lines[0]).toBe('| figure | what it measures | runs | Sprint cells in 97–105 % |');
    expect(lines[2]).toMatch(/^\| \[Fig\. 6\]\(docs\/results\.md#paper-fig-6\) \| .* \| 9 \| 1 of 1 \|$/);
    expect(lines[3]).toMatch(/^\| \[Table I\]\(docs\/results\.md#paper-table-i\) \| .* \| 9 \| – \|$/);
    expect(summaryTable({ figures: { fig6: [ref('out')] } }, () => out)).toMatch(/\| 9 \| 0 of 1 \|$/);
  });

  it('sprint report --paper rewrites docs/results.md, the README summary and fig6.svg; --check fails on a stale one; it will not rebuild a folder without its content', async () => {
    // A content set this machine does not have: rebuilding would empty the video-only figures, so it is refused.
    const absent = { ...SETTINGS, contentSet: 'paper-test-absent' };
    folder('2026-x', { stock: [1.2, 1.05, 1.35], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] }, absent);
    const index = path.join(dir, 'paper.json');
    writeFileSync(index, JSON.stringify({ figures: { fig6: ['2026-x'], table1: ['2026-x'] } }));
    mkdirSync(path.join(dir, 'docs'));
    const results = path.join(dir, 'docs', 'results.md');
    const readme = path.join(dir, 'README.md');
    const emptyResults = '# r\n<!-- paper-table: fig6 -->\n<!-- /paper-table -->\n';
    const emptyReadme = '# s\n<!-- paper-table: summary -->\n<!-- /paper-table -->\n';
    writeFileSync(results, emptyResults);
    writeFileSync(readme, emptyReadme);
    const docs = ['--results', results, '--readme', readme];
    const refused = io();
    expect(await reportMain(['--paper', index, ...docs], refused.io)).toBe(1);
    expect(refused.err.join('')).toMatch(/cannot rebuild 2026-x: content set "paper-test-absent" is not on this machine.*--no-rebuild/);
    expect(readFileSync(results, 'utf8')).toBe(emptyResults);

    const stale = io();
    expect(await reportMain(['--paper', index, ...docs, '--check'], stale.io)).toBe(1);
    expect(stale.err.join('')).toMatch(/out of date: .*results\.md fig6; .*README\.md summary; .*fig6\.svg/);
    expect(readFileSync(results, 'utf8')).toBe(emptyResults);

    const o = io();
    expect(await reportMain(['--paper', index, ...docs, '--no-rebuild'], o.io)).toBe(0);
    expect(o.err.join('')).toMatch(/results\.md: rewrote fig6/);
    expect(o.err.join('')).toMatch(/README\.md: rewrote summary/);
    expect(o.err.join('')).toMatch(/no block for table1/);
    expect(readFileSync(results, 'utf8')).toContain(
      '| 3 Mbit/s × 256 KB | 80.0 [70.0–90.0] (3) | 100.0 [100.0–100.0] (3) | 100.0 [100.0–100.0] (3) |',
    );
    expect(readFileSync(readme, 'utf8')).toMatch(/\| \[Fig\. 6\]\(docs\/results\.md#paper-fig-6\) \|.*\| 9 \| 1 of 1 \|/);
    expect(readFileSync(path.join(dir, 'docs', 'fig6.svg'), 'utf8')).toContain('>80.0</text>');
    expect(o.out.join('')).toContain('<!-- paper-table: table1 -->');
    // Fig. 6 as heat maps side by side: one per column (stock, Sprint, the control), the whole 4 × 4 grid each
    const html = readFileSync(path.join(dir, 'paper.html'), 'utf8');
    expect((html.match(/<svg /g) ?? []).length).toBe(3);
    expect((html.match(/25 Mbit\/s/g) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(html).not.toMatch(/<script|src="http|href="http/i);
    const again = io();
    expect(await reportMain(['--paper', index, ...docs, '--check'], again.io)).toBe(0);
    expect(again.err.join('')).toMatch(/results\.md: no table changed/);
    // a hand edit inside a generated block is caught, and --check leaves it for a rewrite
    const edited = readFileSync(results, 'utf8').replace('80.0 [70.0–90.0] (3)', '85.0 [70.0–90.0] (3)');
    writeFileSync(results, edited);
    const caught = io();
    expect(await reportMain(['--paper', index, ...docs, '--check'], caught.io)).toBe(1);
    expect(caught.err.join('')).toMatch(/results\.md: differs in fig6/);
    expect(readFileSync(results, 'utf8')).toBe(edited);
    // bad input: an unknown figure, a folder listed twice, no figures, folders beside --paper, a file that is not there
    const refuses = async (index_: unknown, message: RegExp, extra: string[] = []): Promise<void> => {
      writeFileSync(index, JSON.stringify(index_));
      const bad = io();
      expect(await reportMain(['--paper', index, '--no-rebuild', ...extra], bad.io)).toBe(1);
      expect(bad.err.join('')).toMatch(message);
    };
    await refuses({ figures: { fig9: ['2026-x'] } }, /unknown figure "fig9"/, docs);
    await refuses({ figures: { fig6: ['2026-x', '2026-x'] } }, /lists 2026-x twice/, docs);
    await refuses({ figures: ['2026-x'] }, /expected \{"figures"/, docs);
    await refuses(null, /expected \{"figures"/, docs);
    await refuses({ figures: { fig6: ['../x'] } }, /results folder names/, docs);
    await refuses({ figures: { fig6: ['2026-x'] } }, /nowhere\.md: no such file/, ['--readme', path.join(dir, 'nowhere.md')]);
    expect(await reportMain(['--paper', index, dir], io().io)).toBe(2);
    expect(await reportMain([dir, '--check'], io().io)).toBe(2);
  });

  it('compares every setting of the folders it pools, nested ones and the ABR included, and keeps HTTP/1.1 and HTTP/2 apart', () => {
    const mbit = { stock: [1.2, 1.2, 1.2], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] };
    const a = loadFolder(folder('a', mbit));
    const primed = loadFolder(folder('primed', mbit, { ...SETTINGS, primer: { leadS: 30, overlapS: 20 } }));
    expect(() => pool('fig6', [a, primed])).toThrow(/different settings/);
    // A nested setting alone (the primer's lead) tells folders apart too.
    const longer = loadFolder(folder('longer', mbit, { ...SETTINGS, primer: { leadS: 40, overlapS: 20 } }));
    expect(() => pool('fig6', [primed, longer])).toThrow(/longer and primed were run with different settings/);
    const b = loadFolder(folder('b', mbit));
    const otherAbr = { ...b, manifest: { ...b.manifest, defaultAbr: 'buffer' } };
    expect(() => pool('fig6', [a, otherAbr])).toThrow(/different settings/);
    const h2 = {
      ...b,
      manifest: { ...b.manifest, plan: { ...b.manifest.plan, settings: { ...b.manifest.plan.settings, origin: 'nginx-h2' as const } } },
    };
    expect(() => pool('fig6', [a, h2])).toThrow(/stock ran from origin ours in a and nginx-h2 in b/);
  });

  it("finds Table I's pairs by their players' modes, in either order and across folders, and refuses a folder of several bulk flows", () => {
    const pairFolder = (name: string, pairs: string): FolderData => {
      const plan = buildPlan({
        settings: SETTINGS,
        conditions: [{ key: '3mbit-256kb', rateBitsPerSec: 3e6, queueBytes: 262144 }],
        players: [],
        repeats: 3,
        control: false,
        together: false,
        pairs: parsePairs(pairs, 'dash-default'),
      });
      const d = path.join(dir, name);
      writeResultsFolder(d, plan, () => 1.2);
      buildReport(d);
      const f = loadFolder(d);
      // As a folder of pairs alone on the link (the fixture's runs carry a bulk flow; the table reads the plan's setting).
      return { ...f, manifest: { ...f.manifest, plan: { ...f.manifest.plan, settings: { ...f.manifest.plan.settings, bulkFlows: 0 } } } };
    };
    const counted = /\| [0-9.]+ \[[0-9.]+–[0-9.]+\] \(3\) \| – \|/;
    const row = (lines: string[], name: string): string | undefined => lines.find((l) => l.startsWith(`| ${name} |`));
    // stock+sprint and sprint+stock are both "stock vs Sprint"
    for (const order of ['sprint+stock', 'stock+sprint'])
      expect(row(table1Table([pairFolder(order, order)]), 'stock vs Sprint')).toMatch(counted);
    // two folders of pairs: both rows filled, whichever comes first
    const a = pairFolder('a', 'stock+stock');
    const b = pairFolder('b', 'sprint+stock');
    for (const folders of [
      [a, b],
      [b, a],
    ]) {
      const lines = table1Table(folders);
      expect(row(lines, 'stock vs stock')).toMatch(counted);
      expect(row(lines, 'stock vs Sprint')).toMatch(counted);
      expect(row(lines, 'stock vs bulk')).toBe('| stock vs bulk | – | – | 0.15 / 0.45 |');
    }
    const four = {
      ...a,
      manifest: { ...a.manifest, plan: { ...a.manifest.plan, settings: { ...a.manifest.plan.settings, bulkFlows: 4 } } },
    };
    expect(() => table1Table([four])).toThrow(/a has 4 bulk flows/);
    expect(() => parsePairs('stock+sprint,sprint+stock', 'buffer')).toThrow(/listed twice \(a pair is the same in either order\)/);
  });

  it("gives §V-B's competitors one row per folder and condition, named by its bulk flows and congestion control, a player not run as –", () => {
    const four = loadFolder(
      folder('four', { stock: [1.2, 1.05, 1.35], sprint: [1.2, 1.2, 1.2], control: [1.5, 1.5, 1.5] }, { ...SETTINGS, bulkFlows: 4 }),
    );
    const bbr = loadFolder(
      folder(
        'bbr',
        { stock: [1.5, 1.5, 1.5], sprint: [1.5, 1.5, 1.5], control: [1.5, 1.5, 1.5] },
        { ...SETTINGS, congestionControl: 'bbr' },
      ),
    );
    const lines = competitorsTable([four, bbr]);
    expect(lines).toContain('| setting | stock | Sprint-x | Sprint (extension) | control (bulk vs bulk) |');
    const rows = lines.filter((l) => l.startsWith('| 3 Mbit/s'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^\| 3 Mbit\/s × 256 KB, 4 bulk flows, cubic \| [0-9.]+ \[[0-9.–]+\] \(3\) \| – \| /);
    expect(rows[1]).toBe(
      '| 3 Mbit/s × 256 KB, 1 bulk flow, bbr | 100.0 [100.0–100.0] (3) | – | 100.0 [100.0–100.0] (3) | 100.0 [100.0–100.0] (3) |',
    );
    expect(lines.at(-1)).toBe('Runs: `four/` (9 runs: source unknown ×9); `bbr/` (9 runs: source unknown ×9).');
    // The index feeds it like any other figure.
    const tables = paperTables({ figures: { competitors: ['four', 'bbr'].map((name) => ({ name, replaces: [] })) } }, (name) =>
      name === 'four' ? four : bbr,
    );
    expect(tables.get('competitors')).toBe(lines.join('\n'));
  });
});

describe("this repository's docs", () => {
  // npx sprint report --paper demo/results/paper.json --check
  const indexFile = path.join(REPO, 'demo', 'results', 'paper.json');
  const load = (name: string): FolderData => loadFolder(path.join(REPO, 'demo', 'results', name));

  it('docs/results.md holds exactly the tables its committed results folders give', () => {
    const tables = paperTables(readPaperIndex(indexFile), load);
    const inDoc = markedTables(readFileSync(path.join(REPO, 'docs', 'results.md'), 'utf8'));
    expect([...inDoc.keys()].sort()).toEqual([...tables.keys()].sort());
    for (const [id, text] of tables) expect(`${id}:\n${inDoc.get(id)}`).toBe(`${id}:\n${text}`);
  });

  it("README.md's summary and docs/fig6.svg are what the committed folders give", () => {
    const index = readPaperIndex(indexFile);
    const inReadme = markedTables(readFileSync(path.join(REPO, 'README.md'), 'utf8'));
    expect([...inReadme.keys()]).toEqual(['summary']);
    expect(inReadme.get('summary')).toBe(summaryTable(index, load));
    expect(readFileSync(path.join(REPO, 'docs', 'fig6.svg'), 'utf8')).toBe(fig6Svg(index, load));
  });
});
