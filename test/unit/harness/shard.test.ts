// Unit tests of plan sharding (demo/harness/shard.ts) and `sprint ab --shard`
// (ab-cli.ts): K/N parsing with clear errors; the N slices of a plan are
// disjoint and together cover every run (controls included) exactly once;
// the assignment does not depend on which slice asks or on anything but the
// full plan and N; a repeat's variants stay together; the plan hash is the
// same on every shard.

import { mkdtempSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UsageError } from '../../../src/cli/args';
import { prepareResultsDir } from '../../../demo/harness/ab';
import { parseAbArgs } from '../../../demo/harness/ab-cli';
import { buildPlan, Plan } from '../../../demo/harness/plan';
import { formatShard, groupCount, parseShard, planHash, shardOf, shardPlan, shardRuns } from '../../../demo/harness/shard';
import { SETTINGS, SPRINTX, STOCK, writeResultsFolder } from './fixtures';

function gridPlan(repeats = 3, together = false): Plan {
  return buildPlan({
    settings: SETTINGS,
    conditions: [
      { key: '1.5mbit-64kb', rateBitsPerSec: 1.5e6, queueBytes: 65536 },
      { key: '3mbit-256kb', rateBitsPerSec: 3e6, queueBytes: 262144 },
      { key: '6mbit-512kb', rateBitsPerSec: 6e6, queueBytes: 524288 },
      { key: '25mbit-1536kb', rateBitsPerSec: 25e6, queueBytes: 1572864 },
    ],
    players: [STOCK, SPRINTX, { label: 'sprint', mode: 'sprint', abr: 'dash-default' }],
    repeats,
    control: true,
    together,
  });
}

describe('parseShard', () => {
  it('reads K/N with K counted from 1', () => {
    expect(parseShard('1/4')).toEqual({ index: 1, count: 4 });
    expect(parseShard('4/4')).toEqual({ index: 4, count: 4 });
    expect(parseShard(' 2 / 3 ')).toEqual({ index: 2, count: 3 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    expect(formatShard(parseShard('3/7'))).toBe('3/7');
  });

  it('refuses malformed or out-of-range shards with the reason', () => {
    expect(() => parseShard('0/4')).toThrow(/K counts from 1/);
    expect(() => parseShard('5/4')).toThrow(/between 1 and 4/);
    expect(() => parseShard('1/0')).toThrow(/at least 1/);
    expect(() => parseShard('2')).toThrow(/should be K\/N/);
    expect(() => parseShard('a/b')).toThrow(/should be K\/N/);
    expect(() => parseShard('-1/4')).toThrow(/should be K\/N/);
    expect(() => parseShard('1/4/2')).toThrow(/should be K\/N/);
    expect(() => parseShard('1/100000')).toThrow(/at most/);
    expect(() => parseShard('0/4')).toThrow(UsageError);
  });
});

describe('shardRuns', () => {
  it.each([1, 2, 3, 4, 5, 7, 12])('N = %i slices are disjoint and cover every run of the plan exactly once', (n) => {
    const plan = gridPlan(3, true);
    const seen = new Map<string, number>();
    for (let k = 1; k <= n; k++) {
      for (const r of shardRuns(plan, { index: k, count: n })) seen.set(r.dir, (seen.get(r.dir) ?? 0) + 1);
    }
    expect([...seen.keys()].sort()).toEqual(plan.runs.map((r) => r.dir).sort());
    expect([...seen.values()].every((c) => c === 1)).toBe(true);
    // Controls and the together runs are shared out too.
    expect([...seen.keys()].filter((d) => d.includes('/control/'))).toHaveLength(4 * 3);
    expect([...seen.keys()].filter((d) => d.includes('/together/'))).toHaveLength(4 * 3);
  });

  it('keeps every variant of one condition × repeat on the same shard, in plan order', () => {
    const plan = gridPlan();
    for (let k = 1; k <= 5; k++) {
      const runs = shardRuns(plan, { index: k, count: 5 });
      const groups = new Map<string, string[]>();
      for (const r of runs)
        groups.set(`${r.condition.key} r${r.repeat}`, [...(groups.get(`${r.condition.key} r${r.repeat}`) ?? []), r.variant.name]);
      for (const names of groups.values()) expect(names).toEqual(['stock', 'sprint-x', 'sprint', 'control']);
      expect(runs.map((r) => r.index)).toEqual([...runs.map((r) => r.index)].sort((a, b) => a - b));
    }
  });

  it('is stable: the same N gives the same assignment however it is asked, and balances the groups', () => {
    const a = gridPlan();
    const b = gridPlan();
    for (let k = 1; k <= 4; k++)
      expect(shardRuns(a, { index: k, count: 4 }).map((r) => r.dir)).toEqual(shardRuns(b, { index: k, count: 4 }).map((r) => r.dir));
    // 12 groups over 4 shards: 3 groups (12 runs) each; group g goes to (g mod N) + 1.
    for (let k = 1; k <= 4; k++) expect(shardRuns(a, { index: k, count: 4 })).toHaveLength(12);
    expect(shardOf(a, a.runs[0]!, 4)).toBe(1);
    expect(shardOf(a, { condition: a.conditions[0]!, repeat: 2 }, 4)).toBe(2);
    expect(shardOf(a, { condition: a.conditions[1]!, repeat: 1 }, 4)).toBe(4);
    expect(shardOf(a, { condition: a.conditions[1]!, repeat: 2 }, 4)).toBe(1);
    // A run keeps its full-plan index and directory inside its shard.
    const s2 = shardRuns(a, { index: 2, count: 4 });
    for (const r of s2) expect(a.runs[r.index]?.dir).toBe(r.dir);
  });
});

describe('shardPlan', () => {
  it("keeps the full plan's settings, conditions and variants and records the full plan's hash", () => {
    const plan = gridPlan();
    const { plan: sliced, record } = shardPlan(plan, { index: 3, count: 4 });
    expect(sliced.settings).toEqual(plan.settings);
    expect(sliced.conditions).toEqual(plan.conditions);
    expect(sliced.variants).toEqual(plan.variants);
    expect(record).toEqual({ index: 3, count: 4, planHash: planHash(plan), planRuns: 48, unit: 'condition-repeat' });
    expect(shardPlan(plan, { index: 1, count: 4 }).record.planHash).toBe(record.planHash);
  });

  it('refuses more shards than the plan has condition × repeat groups', () => {
    const plan = gridPlan(1);
    expect(groupCount(plan)).toBe(4);
    expect(() => shardPlan(plan, { index: 1, count: 5 })).toThrow(/only 4 slice\(s\).*use N <= 4/);
  });

  it('gives a different hash to a different plan', () => {
    expect(planHash(gridPlan(3))).not.toBe(planHash(gridPlan(2)));
    expect(planHash(gridPlan(3))).toBe(planHash(gridPlan(3)));
  });
});

describe('sprint ab --shard', () => {
  const argv = ['--players', 'stock,sprint-x', '--grid', 'rate=1.5mbit,3mbit', 'queue=256kb,512kb', '--repeat', '2', '--results', '/tmp/x'];

  it("runs only the slice and records the shard and the full plan's hash", () => {
    const whole = parseAbArgs(argv);
    expect(whole.shard).toBeNull();
    expect(whole.plan.runs).toHaveLength(24);
    const parts = [1, 2, 3].map((k) => parseAbArgs([...argv, '--shard', `${k}/3`]));
    for (const p of parts) {
      expect(p.planHash).toBe(whole.planHash);
      expect(p.shard?.planHash).toBe(whole.planHash);
      expect(p.shard?.planRuns).toBe(24);
    }
    expect(parts.map((p) => p.shard?.index)).toEqual([1, 2, 3]);
    const dirs = parts.flatMap((p) => p.plan.runs.map((r) => r.dir));
    expect(dirs.sort()).toEqual(whole.plan.runs.map((r) => r.dir).sort());
  });

  it('reports a bad shard as a usage error', () => {
    expect(() => parseAbArgs([...argv, '--shard', '0/3'])).toThrow(UsageError);
    expect(() => parseAbArgs([...argv, '--shard', '1/9'])).toThrow(/only 8 slice/);
  });
});

describe('--resume of a shard folder', () => {
  it('continues the same shard and refuses another shard or the whole plan', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-shard-resume-'));
    try {
      const full = gridPlan(2);
      const s1 = shardPlan(full, { index: 1, count: 4 });
      const s2 = shardPlan(full, { index: 2, count: 4 });
      writeResultsFolder(
        dir,
        s1.plan,
        () => 1.5,
        () => 'ok',
        { manifest: { planHash: s1.record.planHash, shard: s1.record } },
      );
      expect(() => prepareResultsDir({ resultsDir: dir, plan: s1.plan, shard: s1.record, resume: true })).not.toThrow();
      expect(() => prepareResultsDir({ resultsDir: dir, plan: s2.plan, shard: s2.record, resume: true })).toThrow(
        /holds shard 1\/4, not shard 2\/4/,
      );
      expect(() => prepareResultsDir({ resultsDir: dir, plan: full, resume: true })).toThrow(/holds shard 1\/4, not the whole plan/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
