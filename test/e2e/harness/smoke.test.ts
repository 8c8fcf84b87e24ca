// Smoke test of the A/B evaluation harness, as root: one short
// configuration — stock vs sprint-x on the test content, 3 Mbit/s tbf with a
// 256 KB queue, one bulk flow, Cubic, 45 s measured after a 10 s warm-up,
// one repeat, plus the bulk-vs-bulk control — run end to end through the
// real testbed, origin processes, headless Chromium in the client namespace
// and wire capture. It asserts that every metric was produced and the report
// was written, and that nothing of the runs is left behind — NOT who wins
// (short runs spread ±10%, testbed.md). The figures are printed.
// Needs `npm run build` (tsc + webpack) first.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkCanRun, runAb, AbResult } from '../../../demo/harness/ab';
import { parseAbArgs } from '../../../demo/harness/ab-cli';
import { PROFILE_PREFIX } from '../../../demo/harness/browser';
import type { RunSummary } from '../../../demo/harness/run-summary';

const ARGS = [
  '--players',
  'stock,sprint-x',
  '--set',
  'test',
  '--rate',
  '3mbit',
  '--queue',
  '256kb',
  '--bulk',
  '1',
  '--duration',
  '45s',
  '--warmup',
  '10s',
  '--repeat',
  '1',
  '--cc',
  'cubic',
];

describe('sprint ab smoke (root)', () => {
  let dir: string;
  let resultsDir: string;
  let result: AbResult;
  let progress = '';
  let startedMs: number;
  const summary = (variant: string): RunSummary => {
    const s = result.report!.runs.find((r) => r.variant.name === variant);
    if (!s) throw new Error(`no run summary for ${variant}`);
    return s;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-ab-smoke-'));
    const parsed = parseAbArgs([...ARGS, '--results', path.join(dir, 'results')]);
    resultsDir = parsed.resultsDir;
    const problems = await checkCanRun(parsed.plan);
    if (problems.length > 0) throw new Error(`cannot run the smoke test here:\n  - ${problems.join('\n  - ')}`);
    startedMs = Date.now();
    result = await runAb({
      resultsDir: parsed.resultsDir,
      plan: parsed.plan,
      argv: ARGS,
      defaultAbr: parsed.defaultAbr,
      progress: { write: (s: string) => void (progress += s) },
    });
    process.stdout.write(`${progress}\n${readFileSync(path.join(parsed.resultsDir, 'summary.md'), 'utf8').split('## Bulk')[0]}\n`);
  }, 280_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('made the three runs (stock, sprint-x, control) and they finished', () => {
    expect(result.status).toBe('ok');
    expect(result.made.map((r) => `${r.spec.variant.name}:${r.status}`)).toEqual(['stock:ok', 'sprint-x:ok', 'control:ok']);
    expect(progress).toMatch(/run 1\/3 .*ETA/);
    expect(progress).toMatch(/3mbit-256kb control r1: control \d+\.\d%, bulk 1 \d+\.\d% of fair share/);
  });

  it('wrote the raw data of every run', () => {
    for (const r of result.made) {
      const runDir = path.join(resultsDir, r.spec.dir);
      const files = readdirSync(runDir);
      for (const f of [
        'run.json',
        'wire.jsonl',
        'ss.jsonl',
        'qdisc.jsonl',
        'cpu.jsonl',
        'bulk-9001.jsonl',
        'origin-8001.log',
        'origin-9001.log',
        'summary.json',
      ]) {
        expect(files).toContain(f);
      }
      if (r.spec.variant.kind === 'player') expect(files).toEqual(expect.arrayContaining(['player-8001.jsonl', 'browser.log']));
      else expect(files).toContain('bulk-8001.jsonl');
    }
  });

  it('measured every flow on the wire over a window after the warm-up', () => {
    for (const variant of ['stock', 'sprint-x', 'control']) {
      const s = summary(variant);
      expect(s.window).not.toBeNull();
      expect(s.window!.durationS).toBeGreaterThan(35);
      expect(s.window!.fromS - s.window!.meetS).toBeCloseTo(10, 5);
      expect(s.flows.map((f) => f.id)).toEqual(['8001', '9001']);
      for (const f of s.flows) {
        expect(f.bitsPerSec).toBeGreaterThan(0);
        expect(Number.isFinite(f.percentOfFairShare)).toBe(true);
      }
      // Sanity that shaping works (not a performance figure): the total is near the bottleneck rate.
      expect(s.utilization!).toBeGreaterThan(0.66);
      expect(s.utilization!).toBeLessThan(1.1);
      expect(s.unfairnessAll).not.toBeNull();
      expect(s.congestionOk).toBe(true);
      for (const id of ['8001', '9001']) {
        expect(s.tcp[id]!.samples).toBeGreaterThan(0);
        expect(s.tcp[id]!.cwnd).not.toBeNull();
        expect(s.tcp[id]!.rttMs).not.toBeNull();
        expect(s.tcp[id]!.congestionControls).toEqual(['cubic']);
      }
      expect(s.queue.samples).toBeGreaterThan(0);
      expect(s.queue.backlogBytes).not.toBeNull();
      // The CPU the run had (not a performance figure): samples over the window, the flows' processes counted.
      expect(s.cpu!.samples).toBeGreaterThan(20);
      expect(s.cpu!.classCpuS.bulk).toBeGreaterThan(0);
      expect(s.cpu!.classCpuS.origin).toBeGreaterThan(0);
      expect(s.plot.t.length).toBeGreaterThan(20);
    }
  });

  it("recorded each player's QoE, mode in force and transfers", () => {
    for (const mode of ['stock', 'sprint-x']) {
      const p = summary(mode).players[0]!;
      expect(p.ready).toBe(true);
      expect(p.requestedMode).toBe(mode);
      expect(p.mode).toBe(mode);
      expect(p.modeReason).toBeTruthy();
      expect(p.everHidden).toBe(false);
      expect(p.startupDelayS).not.toBeNull();
      expect(p.bitrateMedianBps).toBeGreaterThan(0);
      expect(p.bitrateSource).toBe('segments');
      expect(p.videoSegments).toBeGreaterThan(0);
      expect(p.downloadSwitches).not.toBeNull();
      expect(p.selectedBitrateMeanBps).toBeGreaterThan(0);
      expect(p.bufferS).not.toBeNull();
      expect(p.rebufferCount).not.toBeNull();
      expect(p.rebufferS).not.toBeNull();
      expect(p.switches).not.toBeNull();
      expect(p.transfers.videoCount).toBeGreaterThan(0);
      expect(p.transfers.videoBytes).not.toBeNull();
      expect(p.series.t.length).toBeGreaterThan(30);
    }
    const sx = summary('sprint-x').players[0]!;
    expect(sx.transfers.targetChunkBytes).not.toBeNull();
    expect(sx.estimates.rttMs).not.toBeNull();
  });

  it('aggregated the figures and wrote the reports', () => {
    const r = result.report!;
    expect(r.aggregate.columns.map((c) => c.key)).toEqual(['stock', 'sprint-x', 'control']);
    for (const c of r.aggregate.cells) expect(c.metrics.percentOfFairShare?.n).toBe(1);
    const md = readFileSync(r.files.summaryMd, 'utf8');
    expect(md).toContain('| queue | stock | sprint-x | control (bulk) |');
    const row = md.split('\n').find((l) => l.startsWith('| 256 KB |')) ?? '';
    expect(row).toMatch(/^\| 256 KB \| \d+\.\d( †)? \| \d+\.\d( †)? \| \d+\.\d( †)? \|/);
    // A cell carries † exactly when its run's machine was saturated (a shared 2-core machine may be).
    const cells = row.split('|').map((c) => c.trim());
    ['stock', 'sprint-x', 'control'].forEach((variant, i) => expect(cells[i + 2]?.endsWith('†')).toBe(summary(variant).cpu!.saturated));
    const html = readFileSync(r.files.reportHtml, 'utf8');
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(8);
    expect(html).not.toMatch(/<script|src="http|href="http/i);
    expect(JSON.parse(readFileSync(r.files.summaryJson, 'utf8')).runs).toHaveLength(3);
  });

  it('left no namespace, process or browser profile behind', () => {
    for (const r of result.made) {
      for (const ns of r.testbed!.namespaces) expect(existsSync(`/var/run/netns/${ns}`)).toBe(false);
    }
    // This process's own profiles only: other evaluations may be running.
    const profiles = readdirSync(os.tmpdir())
      .filter((n) => n.startsWith(`${PROFILE_PREFIX}${process.pid}-`))
      .filter((n) => statSync(path.join(os.tmpdir(), n)).mtimeMs >= startedMs);
    expect(profiles).toEqual([]);
  });
});
