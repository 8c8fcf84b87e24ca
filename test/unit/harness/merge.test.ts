// Unit tests of merging shard results folders (demo/harness/merge.ts,
// `sprint report --out MERGED DIR1 DIR2 …` in report-cli.ts) and of the
// machine record (host-info.ts): synthetic results folders written the way
// `sprint ab --shard K/N` writes them (fixtures.ts) are merged into one
// folder whose report equals the report of the whole plan made in one
// folder; folders of different plans or commits are refused; runs made
// twice, shards not given and dirty checkouts are flagged; runs whose load
// average exceeded the cores are flagged in the report.

import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeSource, overloadWarning, sourceVersion } from '../../../demo/harness/host-info';
import { readManifest } from '../../../demo/harness/manifest';
import { fullPlanOf, mergeResults, withoutShardArgs } from '../../../demo/harness/merge';
import { buildPlan, Plan, RunSpec } from '../../../demo/harness/plan';
import { buildReport, ReportResult } from '../../../demo/harness/report';
import { main as reportMain } from '../../../demo/harness/report-cli';
import { planHash, shardPlan } from '../../../demo/harness/shard';
import { SETTINGS, SPRINTX, STOCK, writeResultsFolder } from './fixtures';

const COMMIT = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);

/** A report's notes without the one that says whether the fixtures' content set is on this machine (it
 *  is on a developer's after `npm test`, not on a fresh CI machine before the e2e suites generate it). */
const notesOf = (r: ReportResult): string[] => r.notes.filter((n) => !/^content set ".*" is not on this machine/.test(n));

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sprint-ab-merge-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function plan(repeats = 2): Plan {
  return buildPlan({
    settings: SETTINGS,
    conditions: [
      { key: '3mbit-256kb', rateBitsPerSec: 3e6, queueBytes: 262144 },
      { key: '3mbit-512kb', rateBitsPerSec: 3e6, queueBytes: 524288 },
    ],
    players: [STOCK, SPRINTX],
    repeats,
    control: true,
    together: false,
  });
}

// Video share per run: known answers that differ by variant, condition and repeat.
const share = (s: RunSpec): number =>
  (s.variant.name === 'control' ? 1.5 : s.variant.name === 'stock' ? 1.1 + 0.1 * s.repeat : 1.45 + 0.02 * s.repeat) +
  (s.condition.key.endsWith('512kb') ? 0.05 : 0);

/** Writes shard K/N of the plan as `sprint ab --shard K/N` would, into tmp/<name>. */
function writeShard(name: string, full: Plan, k: number, n: number, commit = COMMIT, dirty = false): string {
  const dir = path.join(tmp, name);
  const { plan: sliced, record } = shardPlan(full, { index: k, count: n });
  writeResultsFolder(dir, sliced, share, () => 'ok', {
    manifest: {
      argv: ['--players', 'stock,sprint-x', '--shard', `${k}/${n}`, '--results', dir],
      planHash: record.planHash,
      shard: record,
      source: { commit, dirty },
    },
    host: () => ({ commit, dirty, kernel: '6.1.0-test' }),
  });
  return dir;
}

describe('merging shard folders', () => {
  it('gives the same coverage and tables as the whole plan made in one folder', () => {
    const full = plan();
    const whole = path.join(tmp, 'whole');
    writeResultsFolder(whole, full, share, () => 'ok', {
      manifest: { planHash: planHash(full), source: { commit: COMMIT, dirty: false } },
    });
    const a = writeShard('s1', full, 1, 2);
    const b = writeShard('s2', full, 2, 2);
    const out = path.join(tmp, 'merged');
    const m = mergeResults([a, b], out);
    expect(m.copied.size).toBe(full.runs.length);
    expect(m.merged).toEqual({ from: [a, b], shards: ['1/2', '2/2'], duplicates: [], missingShards: [], notes: [] });
    const manifest = readManifest(out);
    expect(manifest.plan.runs.map((r) => r.dir)).toEqual(full.runs.map((r) => r.dir));
    expect(manifest.planHash).toBe(planHash(full));
    expect(manifest.source).toEqual({ commit: COMMIT, dirty: false });
    expect(manifest.argv).toEqual(['--players', 'stock,sprint-x']);
    for (const r of full.runs) expect(existsSync(path.join(out, r.dir, 'wire.jsonl'))).toBe(true);

    const merged = buildReport(out);
    const single = buildReport(whole);
    expect(merged.missing).toEqual([]);
    expect(notesOf(merged)).toEqual([]);
    expect(merged.notes).toEqual(single.notes);
    expect(merged.aggregate).toEqual(single.aggregate);
    const table = (f: string): string =>
      readFileSync(f, 'utf8')
        .split('## Problems')[0]!
        .split('\n')
        .filter((l) => l.startsWith('|'))
        .join('\n');
    expect(table(merged.files.summaryMd)).toBe(table(single.files.summaryMd));
    expect(readFileSync(merged.files.summaryMd, 'utf8')).toContain(`merged from 2 folder(s) (1/2, 2/2)`);
    expect(readFileSync(merged.files.summaryMd, 'utf8')).toContain('Machines: 2 core(s), kernel 6.1.0-test (12 run(s)).');
    // The merged folder is an ordinary results folder: sprint report rebuilds it alone.
    expect(buildReport(out).aggregate).toEqual(single.aggregate);
  });

  it('rebuilds the full plan of a shard from its conditions, variants and repeats', () => {
    const full = plan(3);
    writeShard('s', full, 2, 3);
    const m = readManifest(path.join(tmp, 's'));
    expect(m.plan.runs.length).toBe(full.runs.length / 3);
    expect(fullPlanOf(m).runs).toEqual(full.runs);
  });

  it('refuses folders of different plans, naming them', () => {
    const a = writeShard('a', plan(2), 1, 2);
    const b = writeShard('b', plan(3), 2, 2);
    expect(() => mergeResults([a, b], path.join(tmp, 'out'))).toThrow(/plans \(plan hash\) differ.*\/a: [0-9a-f]{16}.*\/b: [0-9a-f]{16}/);
    expect(existsSync(path.join(tmp, 'out'))).toBe(false);
  });

  it('refuses a folder whose ab.json plan does not rebuild to its recorded hash', () => {
    const full = plan();
    const a = writeShard('a', full, 1, 2);
    const b = writeShard('b', full, 2, 2);
    const m = JSON.parse(readFileSync(path.join(b, 'ab.json'), 'utf8'));
    writeFileSync(path.join(b, 'ab.json'), JSON.stringify({ ...m, plan: { ...m.plan, repeats: 3 } }));
    expect(() => mergeResults([a, b], path.join(tmp, 'out'))).toThrow(/records plan hash [0-9a-f]{16} but its plan rebuilds to/);
  });

  it('refuses folders with another default ABR even when the run directories agree', () => {
    const full = plan();
    const a = writeShard('a', full, 1, 2);
    const b = writeShard('b', full, 2, 2);
    const m = JSON.parse(readFileSync(path.join(b, 'ab.json'), 'utf8'));
    writeFileSync(path.join(b, 'ab.json'), JSON.stringify({ ...m, defaultAbr: 'buffer' }));
    expect(() => mergeResults([a, b], path.join(tmp, 'out'))).toThrow(/default ABR/);
  });

  it('refuses folders made from different commits, in ab.json or in a run', () => {
    const full = plan();
    const a = writeShard('a', full, 1, 2, COMMIT);
    const b = writeShard('b', full, 2, 2, OTHER);
    expect(() => mergeResults([a, b], path.join(tmp, 'out'))).toThrow(/different commits.*aaaaaaaaaaaa.*bbbbbbbbbbbb/);
    // Same commit in ab.json, but one run was made after a checkout changed.
    const c = writeShard('c', full, 2, 2, COMMIT);
    const run = path.join(c, full.runs.find((r) => r.condition.key === '3mbit-256kb' && r.repeat === 2)!.dir, 'run.json');
    const rec = JSON.parse(readFileSync(run, 'utf8'));
    writeFileSync(run, JSON.stringify({ ...rec, host: { ...rec.host, commit: OTHER } }));
    expect(() => mergeResults([a, c], path.join(tmp, 'out2'))).toThrow(/different commits/);
  });

  it('flags runs made twice, shards not given and uncommitted changes, and lists the runs nobody made', () => {
    const full = plan();
    const a = writeShard('a', full, 1, 3, COMMIT, true);
    const again = writeShard('again', full, 1, 3, COMMIT, true);
    const b = writeShard('b', full, 2, 3, COMMIT, true);
    const out = path.join(tmp, 'out');
    const m = mergeResults([a, again, b], out);
    expect(m.merged.missingShards).toEqual(['3/3']);
    expect(m.merged.duplicates.map((d) => d.dir)).toEqual(shardPlan(full, { index: 1, count: 3 }).plan.runs.map((r) => r.dir));
    expect(m.merged.duplicates[0]!.in).toEqual([a, again]);
    expect(m.merged.notes.some((n) => /uncommitted changes/.test(n))).toBe(true);
    const r = buildReport(out);
    expect(r.missing).toEqual(shardPlan(full, { index: 3, count: 3 }).plan.runs.map((x) => x.dir));
    const md = readFileSync(r.files.summaryMd, 'utf8');
    expect(md).toContain('shard 3/3 of the plan is missing from the merge');
    expect(md).toMatch(/made more than once \(in .*\/a, .*\/again\)/);
    expect(md).toMatch(/planned run\(s\) not made/);
    expect(md).toContain('(uncommitted changes)');
  });

  it('prefers the copy that finished when a run was made twice', () => {
    const full = plan();
    const a = path.join(tmp, 'a');
    const { plan: s1, record } = shardPlan(full, { index: 1, count: 2 });
    writeResultsFolder(a, s1, share, () => 'failed', {
      manifest: { planHash: record.planHash, shard: record, source: { commit: COMMIT, dirty: false } },
    });
    const again = writeShard('again', full, 1, 2);
    const b = writeShard('b', full, 2, 2);
    const m = mergeResults([a, again, b], path.join(tmp, 'out'));
    for (const r of s1.runs) expect(m.copied.get(r.dir)).toBe(again);
  });

  it('refuses an output folder that is an input, or not empty, and replaces an earlier merge of the same plan', () => {
    const full = plan();
    const a = writeShard('a', full, 1, 2);
    const b = writeShard('b', full, 2, 2);
    expect(() => mergeResults([a, b], a)).toThrow(/must not be one of the folders/);
    expect(() => mergeResults([a, b], path.join(a, 'merged'))).toThrow(/must not be one of the folders/);
    const busy = path.join(tmp, 'busy');
    mkdirSync(busy);
    writeFileSync(path.join(busy, 'x'), '');
    expect(() => mergeResults([a, b], busy)).toThrow(/not empty and not an earlier merge/);
    const out = path.join(tmp, 'out');
    mergeResults([a], out);
    expect(buildReport(out).missing.length).toBeGreaterThan(0);
    const again = mergeResults([a, b], out);
    expect(again.copied.size).toBe(full.runs.length);
    expect(buildReport(out).missing).toEqual([]);
  });

  it('drops --shard, --results and --resume from the merged command line', () => {
    expect(
      withoutShardArgs(['--rate', '3mbit', '--shard', '1/4', '--results', 'x', '--resume', '--shard=2/4', '--results=y', '--repeat', '3']),
    ).toEqual(['--rate', '3mbit', '--repeat', '3']);
  });
});

describe('sprint report with several folders', () => {
  const io = (): {
    out: string[];
    err: string[];
    io: { stdout: { write: (s: string) => number }; stderr: { write: (s: string) => number } };
  } => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } } };
  };

  it('merges with --out and reports on the merged folder', async () => {
    const full = plan();
    const a = writeShard('a', full, 1, 2);
    const b = writeShard('b', full, 2, 2);
    const out = path.join(tmp, 'merged');
    const c = io();
    expect(await reportMain(['--out', out, a, b], c.io)).toBe(0);
    expect(c.err.join('')).toContain(`merged 2 folder(s) (1/2, 2/2) into ${out}: 12 of 12 run(s)`);
    expect(c.out.join('')).toContain('runs: 12 summarized, 0 not made, 0 unreadable');
    expect(existsSync(path.join(out, 'report.html'))).toBe(true);
  });

  it('asks for --out with several folders and refuses mismatched plans with exit 1', async () => {
    const a = writeShard('a', plan(2), 1, 2);
    const b = writeShard('b', plan(3), 2, 2);
    const c = io();
    expect(await reportMain([a, b], c.io)).toBe(2);
    expect(c.err.join('')).toMatch(/give --out MERGED/);
    const d = io();
    expect(await reportMain(['--out', path.join(tmp, 'm'), a, b], d.io)).toBe(1);
    expect(d.err.join('')).toMatch(/cannot merge: the folders' plans \(plan hash\) differ/);
  });
});

describe('host record', () => {
  it('flags a run whose 1-minute load average exceeded the core count, at the start or the end', () => {
    expect(overloadWarning({ loadAvgStart: [1.9, 1, 1], loadAvgEnd: [2, 1, 1], cpus: 2 })).toBeNull();
    expect(overloadWarning({ loadAvgStart: [2.5, 1, 1], loadAvgEnd: [1, 1, 1], cpus: 2 })).toMatch(
      /load average 2\.50 at the start exceeded its 2 core/,
    );
    expect(overloadWarning({ loadAvgStart: [0.5, 1, 1], loadAvgEnd: [4.25, 1, 1], cpus: 2 })).toMatch(/4\.25 at the end/);
    expect(overloadWarning({ loadAvgStart: [9, 9, 9], loadAvgEnd: [9, 9, 9], cpus: 16 })).toBeNull();
    expect(overloadWarning(undefined)).toBeNull();
  });

  it("lists overloaded runs under the report's problems", () => {
    const p = plan(1);
    const dir = path.join(tmp, 'r');
    writeResultsFolder(dir, p, share, () => 'ok', {
      host: (s) => (s.variant.name === 'stock' && s.condition.key === '3mbit-512kb' ? { loadAvgStart: [3.2, 2, 1], cpus: 2 } : {}),
    });
    const r = buildReport(dir);
    const stock = r.runs.find((x) => x.dir === 'runs/3mbit-512kb/stock/r1')!;
    expect(stock.warnings.some((w) => /machine overloaded: 1-minute load average 3\.20/.test(w))).toBe(true);
    expect(r.runs.filter((x) => x.warnings.some((w) => w.startsWith('machine overloaded')))).toHaveLength(1);
    expect(readFileSync(r.files.summaryMd, 'utf8')).toMatch(/3mbit-512kb stock: runs\/3mbit-512kb\/stock\/r1: machine overloaded/);
  });

  it('notes a folder whose runs were made from more than one commit (a resume after a checkout changed)', () => {
    const p = plan(1);
    const dir = path.join(tmp, 'mixed');
    writeResultsFolder(dir, p, share, () => 'ok', {
      host: (s) => ({ commit: s.condition.key === '3mbit-256kb' ? COMMIT : OTHER, dirty: false }),
    });
    const r = buildReport(dir);
    expect(notesOf(r)).toEqual(['runs made from 2 commits: aaaaaaaaaaaa (3 run(s)), bbbbbbbbbbbb (3 run(s))']);
    expect(readFileSync(r.files.summaryMd, 'utf8')).toContain('- runs made from 2 commits');
  });

  it('notes a folder whose content set is not on this machine (its video-only figures are left empty)', () => {
    const dir = path.join(tmp, 'absent');
    writeResultsFolder(dir, { ...plan(1), settings: { ...SETTINGS, contentSet: 'merge-test-absent' } }, share, () => 'ok');
    expect(buildReport(dir).notes).toEqual([
      'content set "merge-test-absent" is not on this machine (npx sprint content --set merge-test-absent): the video-only and expected-share figures are left empty',
    ]);
  });

  it('reads the commit and dirty flag of a git checkout, and $SPRINT_COMMIT without one', () => {
    const repo = path.join(tmp, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
    git('init', '-q');
    writeFileSync(path.join(repo, 'f'), '1');
    git('add', 'f');
    git('commit', '-qm', 'x');
    const head = git('rev-parse', 'HEAD');
    expect(sourceVersion(repo, {})).toEqual({ commit: head, dirty: false });
    writeFileSync(path.join(repo, 'untracked'), '');
    expect(sourceVersion(repo, {}).dirty).toBe(false);
    writeFileSync(path.join(repo, 'f'), '2');
    expect(sourceVersion(repo, {})).toEqual({ commit: head, dirty: true });
    const bare = path.join(tmp, 'nogit');
    mkdirSync(bare);
    expect(sourceVersion(bare, { SPRINT_COMMIT: 'c0ffee' })).toEqual({ commit: 'c0ffee', dirty: null });
    expect(sourceVersion(bare, {})).toEqual({ commit: null, dirty: null });
    expect(describeSource({ commit: head, dirty: true })).toBe(`${head.slice(0, 12)} (uncommitted changes)`);
    expect(describeSource(undefined)).toBe('unknown commit');
  });
});
