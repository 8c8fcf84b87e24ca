// Unit tests of the reports (demo/harness/report.ts, report-md.ts,
// report-html.ts, svg.ts): a results folder written the way `sprint ab`
// writes it is turned into summary.json, summary.md (paper Fig. 6-style
// table: rows = queue, columns = players + control, median [min–max]) and a
// self-contained report.html; `sprint report DIR` does the same from the CLI.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main as reportMain } from '../../../demo/harness/report-cli';
import { buildReport } from '../../../demo/harness/report';
import { fairShareColor, heatMap, lineChart, ticks } from '../../../demo/harness/svg';
import { buildPlan } from '../../../demo/harness/plan';
import { SETTINGS, STOCK, SPRINTX, testPlan, writeResultsFolder } from './fixtures';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-ab-report-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const shares: Record<string, number[]> = { stock: [1.2, 1.05, 1.35], 'sprint-x': [1.5, 1.47, 1.53], control: [1.5, 1.5, 1.5] };

describe('sprint report', () => {
  it('writes summary.json, summary.md and report.html from the raw data', () => {
    const plan = testPlan();
    writeResultsFolder(dir, plan, (s) => shares[s.variant.name]![s.repeat - 1]!);
    const r = buildReport(dir);
    expect(r.runs).toHaveLength(9);
    expect(r.missing).toEqual([]);
    for (const f of Object.values(r.files)) expect(existsSync(f)).toBe(true);
    for (const spec of plan.runs) expect(existsSync(path.join(dir, spec.dir, 'summary.json'))).toBe(true);

    const md = readFileSync(r.files.summaryMd, 'utf8');
    expect(md).toContain('| queue | stock | sprint-x | control (bulk) |');
    expect(md).toContain('| 256 KB | 80.0 [70.0–90.0] | 100.0 [98.0–102.0] | 100.0 [100.0–100.0] |');
    expect(md).toContain('npx sprint ab --players stock,sprint-x');
    expect(md).toMatch(/Rebuffers in the measured window/);

    const json = JSON.parse(readFileSync(r.files.summaryJson, 'utf8'));
    expect(json.cells).toHaveLength(3);
    expect(json.runs).toHaveLength(9);
    expect(json.runs[0].plot).toBeUndefined();
  });

  it('builds an HTML page with its own plots and no external assets', () => {
    writeResultsFolder(dir, testPlan(), (s) => shares[s.variant.name]![s.repeat - 1]!);
    const html = readFileSync(buildReport(dir).files.reportHtml, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|src="http|href="http|@import|url\(/i);
    // Per run: throughput with the fair-share line and the queue; the 6 player runs also the buffer.
    expect((html.match(/<svg /g) ?? []).length).toBe(9 + 9 + 6);
    expect(html).toContain('fair share 1.50 Mbit/s');
    expect(html).toContain('warm-up (discarded)');
    expect(html).toMatch(/<b>stock<\/b> r1 · stock 80\.0%/);
  });

  it('adds heat maps for a sweep and marks runs that did not finish', () => {
    const plan = buildPlan({
      settings: SETTINGS,
      conditions: [
        { key: '3mbit-64kb', rateBitsPerSec: 3e6, queueBytes: 65536 },
        { key: '3mbit-256kb', rateBitsPerSec: 3e6, queueBytes: 262144 },
        { key: '6mbit-64kb', rateBitsPerSec: 6e6, queueBytes: 65536 },
      ],
      players: [STOCK, SPRINTX],
      repeats: 1,
      control: true,
      together: false,
    });
    writeResultsFolder(
      dir,
      plan,
      () => 1.2,
      (s) => (s.condition.key === '6mbit-64kb' && s.variant.name === 'stock' ? 'interrupted' : 'ok'),
    );
    const r = buildReport(dir);
    const html = readFileSync(r.files.reportHtml, 'utf8');
    expect(html).toContain('Fair share over the sweep');
    expect(html).toContain('stock: % of fair share');
    const md = readFileSync(r.files.summaryMd, 'utf8');
    expect(md).toContain('**6 Mbit/s**');
    expect(md).toMatch(/6mbit-64kb stock: runs\/6mbit-64kb\/stock\/r1: interrupted/);
  });

  it('reports missing runs and refuses a folder that is not a results folder', async () => {
    const plan = testPlan();
    writeResultsFolder(dir, plan, () => 1.2);
    rmSync(path.join(dir, plan.runs[0]!.dir, 'run.json'));
    expect(buildReport(dir).missing).toEqual([plan.runs[0]!.dir]);

    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } };
    expect(await reportMain([dir], io)).toBe(0);
    expect(out.join('')).toMatch(/256 KB\s+80\.0/);
    expect(await reportMain([os.tmpdir()], io)).toBe(1);
    expect(err.join('')).toMatch(/ab\.json is missing/);
    expect(await reportMain([], io)).toBe(2);
  });
});

describe('svg', () => {
  it('picks round ticks', () => {
    expect(ticks(0, 3.3, 4)).toEqual([0, 1, 2, 3]);
    expect(ticks(0, 510, 8)).toEqual([0, 100, 200, 300, 400, 500]);
  });

  it('draws series, reference lines and bands inside the plot', () => {
    const svg = lineChart({
      title: 'T',
      xLabel: 'x',
      yLabel: 'y',
      xMin: 0,
      xMax: 10,
      yMax: 4,
      series: [
        {
          name: 'a',
          color: '#000',
          points: [
            [0, 1],
            [5, null],
            [6, 2],
            [10, 3],
          ],
        },
      ],
      hLines: [{ y: 2, label: 'fair', color: '#777' }],
      bands: [{ from: 0, to: 2, color: '#eee', label: 'warm-up' }],
    });
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    // The null point breaks the line into one drawable piece (a lone point is not drawn).
    expect((svg.match(/<polyline/g) ?? []).length).toBe(1);
    expect(svg).toContain('stroke-dasharray');
    expect(svg).toContain('warm-up');
  });

  it('colours fair share red below 100 and blue above', () => {
    expect(fairShareColor(50)).toBe('rgb(214,69,65)');
    expect(fairShareColor(100)).toBe('rgb(247,247,247)');
    expect(fairShareColor(140)).toBe('rgb(66,133,214)');
    const svg = heatMap({
      title: 'h',
      rowLabels: ['64 KB'],
      colLabels: ['3 Mbit/s', '6 Mbit/s'],
      values: [[80, null]],
      rowTitle: 'queue',
      colTitle: 'rate',
    });
    expect(svg).toContain('80.0');
    expect(svg).toContain('–');
  });
});

describe('results folder', () => {
  it('refuses a non-empty folder unless resuming the same plan', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { prepareResultsDir } = require('../../../demo/harness/ab') as typeof import('../../../demo/harness/ab');
    const plan = testPlan();
    writeResultsFolder(dir, plan, () => 1.2);
    expect(() => prepareResultsDir({ resultsDir: dir, plan })).toThrow(/is not empty.*--resume/);
    expect(() => prepareResultsDir({ resultsDir: dir, plan, resume: true })).not.toThrow();
    expect(() => prepareResultsDir({ resultsDir: dir, plan: testPlan([STOCK], 3), resume: true })).toThrow(/different plan/);
    expect(() => prepareResultsDir({ resultsDir: path.join(dir, 'fresh'), plan })).not.toThrow();
  });

  it('lets a resume grow --repeat (the same cells and players), nothing else', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { prepareResultsDir } = require('../../../demo/harness/ab') as typeof import('../../../demo/harness/ab');
    const plan = testPlan(undefined, 2);
    writeResultsFolder(dir, plan, () => 1.2);
    expect(prepareResultsDir({ resultsDir: dir, plan, resume: true })).toBe('same');
    expect(prepareResultsDir({ resultsDir: dir, plan: testPlan(undefined, 3), resume: true })).toBe('more-repeats');
    // Fewer repeats would orphan finished runs; other players are another plan.
    expect(() => prepareResultsDir({ resultsDir: dir, plan: testPlan(undefined, 1), resume: true })).toThrow(/only --repeat may grow/);
    expect(() => prepareResultsDir({ resultsDir: dir, plan: testPlan([STOCK], 3), resume: true })).toThrow(/different plan/);
    // The page query and Chromium flags shape every run: a resume must keep them.
    expect(() => prepareResultsDir({ resultsDir: dir, plan, resume: true, pageQuery: 'transport=fetch' })).toThrow(/--page-query ""/);
    expect(() => prepareResultsDir({ resultsDir: dir, plan, resume: true, chromiumArgs: ['--foo'] })).toThrow(/Chromium flags \[\]/);
  });

  it('does not grow --repeat in a merged folder (its merge record would be lost)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { prepareResultsDir } = require('../../../demo/harness/ab') as typeof import('../../../demo/harness/ab');
    const merged = { from: ['a', 'b'], shards: ['1/2', '2/2'], duplicates: [], missingShards: [], notes: [] };
    writeResultsFolder(dir, testPlan(undefined, 2), () => 1.2, undefined, { manifest: { merged } });
    expect(prepareResultsDir({ resultsDir: dir, plan: testPlan(undefined, 2), resume: true })).toBe('same');
    expect(() => prepareResultsDir({ resultsDir: dir, plan: testPlan(undefined, 3), resume: true })).toThrow(
      /not in a shard or a merged folder/,
    );
  });
});
