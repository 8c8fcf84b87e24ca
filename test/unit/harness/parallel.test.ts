// Unit tests of `sprint ab --parallel P` without a testbed: the worker pool
// (demo/harness/pool.ts) keeps at most P items in progress, takes each item
// once in plan order and stops taking new ones when told; runAb (ab.ts) with
// runOne replaced by a fake that writes a synthetic run (fixtures.ts) makes
// every run once with at most P at a time, records P in ab.json and run.json,
// stops after a failure without --keep-going, and its report flags runs made
// in parallel; --parallel parses with 1 as the default; namespace suffixes
// handed out in one process never repeat.

import { mkdtempSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UsageError } from '../../../src/cli/args';
import { runNames } from '../../../demo/testbed/names';
import { parseAbArgs } from '../../../demo/harness/ab-cli';
import { runPool } from '../../../demo/harness/pool';
import type { RunOptions, RunRecord } from '../../../demo/harness/run';
import { testPlan, writeRunFiles } from './fixtures';

const fake = { active: 0, maxActive: 0, started: [] as string[], fail: new Set<string>() };

jest.mock('../../../demo/harness/run', () => {
  const actual = jest.requireActual('../../../demo/harness/run');
  return {
    ...actual,
    runOne: async (o: RunOptions): Promise<RunRecord> => {
      fake.active++;
      fake.maxActive = Math.max(fake.maxActive, fake.active);
      fake.started.push(o.spec.dir);
      // Yield a few times so that other lanes get to start.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      const status = fake.fail.has(o.spec.dir) ? 'failed' : 'ok';
      const rec = writeRunFiles(
        o.resultsDir,
        o.spec,
        1.2,
        status,
        undefined,
        (o.concurrentRuns ?? 1) > 1 ? { concurrentRuns: o.concurrentRuns } : {},
      );
      fake.active--;
      return rec;
    },
  };
});

// Imported after the mock so that ab.ts gets the fake runOne.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runAb } = require('../../../demo/harness/ab') as typeof import('../../../demo/harness/ab');

const quiet = { write: (): boolean => true };

describe('runPool', () => {
  const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

  it.each([1, 2, 3, 8])('keeps at most %i items in progress and does each once, in order of taking', async (p) => {
    let active = 0;
    let most = 0;
    const taken: number[] = [];
    const out = await runPool({
      items: [0, 1, 2, 3, 4, 5, 6],
      parallel: p,
      work: async (x) => {
        taken.push(x);
        active++;
        most = Math.max(most, active);
        for (let i = 0; i < 3 + (x % 3); i++) await tick();
        active--;
        return x * 10;
      },
    });
    expect(out).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(taken).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(most).toBe(Math.min(p, 7));
  });

  it('takes no new item once stop() is true; those in progress finish', async () => {
    let failed = false;
    const out = await runPool({
      items: ['a', 'b', 'c', 'd', 'e'],
      parallel: 2,
      stop: () => failed,
      work: async (x) => {
        if (x === 'b') failed = true; // b fails while a is still in progress
        await tick();
        return x;
      },
    });
    expect(out).toEqual(['a', 'b']);
  });

  it('treats parallel below 1 as 1 and an empty list as nothing to do', async () => {
    let most = 0;
    let active = 0;
    await runPool({
      items: [1, 2, 3],
      parallel: 0,
      work: async () => {
        active++;
        most = Math.max(most, active);
        await tick();
        active--;
      },
    });
    expect(most).toBe(1);
    expect(await runPool({ items: [], parallel: 3, work: async () => 1 })).toEqual([]);
  });
});

describe('runAb --parallel', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-ab-parallel-'));
    fake.active = 0;
    fake.maxActive = 0;
    fake.started = [];
    fake.fail = new Set();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes every run once, at most P at a time, records P and the report flags it', async () => {
    const plan = testPlan();
    const r = await runAb({ resultsDir: dir, plan, argv: ['--parallel', '2'], defaultAbr: 'dash-default', progress: quiet, parallel: 2 });
    expect(r.status).toBe('ok');
    expect(fake.maxActive).toBe(2);
    expect([...fake.started].sort()).toEqual(plan.runs.map((x) => x.dir).sort());
    expect(JSON.parse(readFileSync(path.join(dir, 'ab.json'), 'utf8')).parallel).toBe(2);
    expect(JSON.parse(readFileSync(path.join(dir, plan.runs[0]!.dir, 'run.json'), 'utf8')).concurrentRuns).toBe(2);
    expect(r.report?.runs).toHaveLength(plan.runs.length);
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).toMatch(
      /made with up to 2 runs at once \(--parallel\), not measured as harmless/,
    );
  });

  it('runs one at a time by default and records nothing about parallelism', async () => {
    const plan = testPlan();
    const r = await runAb({ resultsDir: dir, plan, argv: [], defaultAbr: 'dash-default', progress: quiet });
    expect(r.status).toBe('ok');
    expect(fake.maxActive).toBe(1);
    expect(fake.started).toEqual(plan.runs.map((x) => x.dir));
    expect(JSON.parse(readFileSync(path.join(dir, 'ab.json'), 'utf8')).parallel).toBeUndefined();
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).not.toMatch(/--parallel/);
  });

  it('stops taking runs after a failure without --keep-going (runs in progress finish)', async () => {
    const plan = testPlan();
    fake.fail.add(plan.runs[0]!.dir);
    const r = await runAb({ resultsDir: dir, plan, argv: [], defaultAbr: 'dash-default', progress: quiet, parallel: 2 });
    expect(r.status).toBe('failed');
    expect(fake.started).toEqual(plan.runs.slice(0, 2).map((x) => x.dir));
  });
});

describe('--parallel and namespace names', () => {
  const argv = ['--players', 'stock', '--results', '/tmp/x'];
  it('defaults to 1 and accepts 1…4', () => {
    expect(parseAbArgs(argv).parallel).toBe(1);
    expect(parseAbArgs([...argv, '--parallel', '2']).parallel).toBe(2);
    expect(() => parseAbArgs([...argv, '--parallel', '0'])).toThrow(UsageError);
    expect(() => parseAbArgs([...argv, '--parallel', '5'])).toThrow(/at most 4/);
  });

  it('never hands out the same namespace suffix twice in one process', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => runNames(4242).id));
    expect(ids.size).toBe(2000);
  });
});
