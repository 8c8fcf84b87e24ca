// Unit tests of the job-array recipes (demo/harness/recipes/): the shard
// arithmetic (shard-arg.sh) turns a Kubernetes Indexed Job's 0-based
// JOB_COMPLETION_INDEX and a Slurm array's SLURM_ARRAY_TASK_ID into --shard
// K/N values that cover 1…N once each and refuses indices outside the array;
// the manifest and the batch script call it with the right base and count,
// agree with themselves on N, and carry a plan that `sprint ab` accepts with
// that many shards; run with `npx` / `sudo` replaced by a fake that prints
// its arguments, the K8s container script and the Slurm script hand
// `sprint ab` the right --shard and --results. No cluster runs here.

import { execFileSync, spawnSync } from 'child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAbArgs } from '../../../demo/harness/ab-cli';

const ROOT = path.join(__dirname, '..', '..', '..');
const DIR = path.join(ROOT, 'demo', 'harness', 'recipes');

/** A folder with fake `name` commands that print their arguments one a line (instead of running). */
function fakeBin(...names: string[]): string {
  const bin = mkdtempSync(path.join(os.tmpdir(), 'sprint-recipe-bin-'));
  for (const n of names) {
    writeFileSync(path.join(bin, n), '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n');
    chmodSync(path.join(bin, n), 0o755);
  }
  return bin;
}
const SCRIPT = path.join(DIR, 'shard-arg.sh');

function shardArg(index: number | string, first: number | string, count: number | string): string {
  return execFileSync('sh', [SCRIPT, String(index), String(first), String(count)], { encoding: 'utf8' }).trim();
}

function fails(...args: string[]): string {
  const r = spawnSync('sh', [SCRIPT, ...args], { encoding: 'utf8' });
  expect(r.status).toBe(2);
  return r.stderr;
}

describe('shard-arg.sh', () => {
  it.each([1, 2, 5, 16])('maps a 0-based Indexed Job of %i pods onto shards 1…N once each', (n) => {
    const out = Array.from({ length: n }, (_, i) => shardArg(i, 0, n));
    expect(out).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}/${n}`));
  });

  it('maps a Slurm array starting anywhere onto shards 1…N', () => {
    expect(Array.from({ length: 4 }, (_, i) => shardArg(i + 1, 1, 4))).toEqual(['1/4', '2/4', '3/4', '4/4']);
    expect(Array.from({ length: 3 }, (_, i) => shardArg(i + 7, 7, 3))).toEqual(['1/3', '2/3', '3/3']);
  });

  it('refuses indices outside the array and values that are not whole numbers', () => {
    expect(fails('4', '0', '4')).toMatch(/outside the array 0\.\.3/);
    expect(fails('0', '1', '4')).toMatch(/outside the array 1\.\.4/);
    expect(fails('x', '0', '4')).toMatch(/not a whole number/);
    expect(fails('', '0', '4')).toMatch(/not a whole number/);
    expect(fails('1', '0', '0')).toMatch(/at least 1/);
    expect(fails('1', '0')).toMatch(/usage/);
  });
});

/** Every shard K/N of the plan parses, and the slices cover the plan once. */
function expectShardable(args: string[], n: number): void {
  const whole = parseAbArgs([...args, '--results', '/tmp/x']);
  const dirs = Array.from({ length: n }, (_, i) =>
    parseAbArgs([...args, '--results', '/tmp/x', '--shard', `${i + 1}/${n}`]).plan.runs.map((r) => r.dir),
  ).flat();
  expect(dirs.sort()).toEqual(whole.plan.runs.map((r) => r.dir).sort());
}

describe('k8s-indexed-job.yaml', () => {
  const yaml = readFileSync(path.join(DIR, 'k8s-indexed-job.yaml'), 'utf8');

  it('is an Indexed Job of privileged pods whose shard count is its completions', () => {
    expect(yaml).toMatch(/^kind: Job$/m);
    expect(yaml).toMatch(/^\s+completionMode: Indexed$/m);
    expect(yaml).toMatch(/^\s+privileged: true$/m);
    expect(yaml).toMatch(/^\s+restartPolicy: Never$/m);
    const completions = Number(/^\s+completions: (\d+)$/m.exec(yaml)?.[1]);
    const shards = Number(/- name: SHARDS\n\s+value: "(\d+)"/.exec(yaml)?.[1]);
    expect(completions).toBeGreaterThan(0);
    expect(shards).toBe(completions);
    expect(yaml).toContain('shard-arg.sh "$JOB_COMPLETION_INDEX" 0 "$SHARDS"');
    expect(yaml).toMatch(/--shard "\$SHARD" --results "\$OUT" --resume/);
    expect(yaml).toMatch(/mountPath: \/results/);
  });

  it('carries a plan that sprint ab can split into that many shards', () => {
    const folded = /- name: SPRINT_AB_ARGS\n\s+value: >-\n((?:\s{16}.*\n)+)/.exec(yaml)?.[1];
    expect(folded).toBeDefined();
    const args = (folded as string).trim().split(/\s+/);
    const n = Number(/^\s+completions: (\d+)$/m.exec(yaml)?.[1]);
    expectShardable(args, n);
  });

  it('runs sprint ab with shard INDEX+1/N into its own folder on the volume (the container script, with npx faked)', () => {
    const script = /args:\n\s+- \|\n((?:\s{14}.*\n)+)/.exec(yaml)?.[1];
    expect(script).toBeDefined();
    const bin = fakeBin('npx');
    try {
      const n = 16;
      const lines = (index: number): string[] =>
        execFileSync('bash', ['-c', (script as string).replace(/^\s{14}/gm, '')], {
          cwd: ROOT,
          encoding: 'utf8',
          env: {
            PATH: `${bin}:${process.env.PATH}`,
            JOB_COMPLETION_INDEX: String(index),
            SHARDS: String(n),
            EVAL: 'fig6',
            SPRINT_AB_ARGS: '--players stock --repeat 16',
          },
        })
          .trim()
          .split('\n');
      const first = lines(0);
      expect(first.slice(0, 6)).toEqual(['sprint', 'ab', '--players', 'stock', '--repeat', '16']);
      expect(first.slice(6)).toEqual(['--shard', '1/16', '--results', '/results/fig6/shard-1-of-16', '--resume']);
      expect(lines(15).slice(6, 10)).toEqual(['--shard', '16/16', '--results', '/results/fig6/shard-16-of-16']);
      expect(
        spawnSync('bash', ['-c', (script as string).replace(/^\s{14}/gm, '')], {
          cwd: ROOT,
          env: { PATH: `${bin}:${process.env.PATH}`, JOB_COMPLETION_INDEX: '16', SHARDS: '16', EVAL: 'x', SPRINT_AB_ARGS: '' },
        }).status,
      ).not.toBe(0);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

describe('slurm-array.sh', () => {
  const sh = readFileSync(path.join(DIR, 'slurm-array.sh'), 'utf8');

  it('is a contiguous array from 1 whose shard comes from the task id, the array minimum and the task count', () => {
    const m = /^#SBATCH --array=1-(\d+)(%\d+)?$/m.exec(sh);
    expect(m).not.toBeNull();
    expect(sh).toContain('shard-arg.sh "$SLURM_ARRAY_TASK_ID" "${SLURM_ARRAY_TASK_MIN:-1}" "$SLURM_ARRAY_TASK_COUNT"');
    expect(sh).toMatch(/--shard "\$SHARD" --results "\$OUT" --resume/);
    expect(spawnSync('bash', ['-n', path.join(DIR, 'slurm-array.sh')]).status).toBe(0);
  });

  it("carries a default plan that sprint ab can split into the array's size", () => {
    const n = Number(/^#SBATCH --array=1-(\d+)/m.exec(sh)?.[1]);
    const args = /SPRINT_AB_ARGS=\$\{SPRINT_AB_ARGS:-"([^"]+)"\}/.exec(sh)?.[1];
    expect(args).toBeDefined();
    expectShardable((args as string).split(/\s+/), n);
  });

  it('runs sprint ab as root with shard K/N into its own folder (sudo faked)', () => {
    const bin = fakeBin('sudo');
    const results = mkdtempSync(path.join(os.tmpdir(), 'sprint-recipe-results-'));
    try {
      const run = (id: number, min: number, count: number): string[] =>
        execFileSync('bash', [path.join(DIR, 'slurm-array.sh')], {
          cwd: ROOT,
          encoding: 'utf8',
          env: {
            PATH: `${bin}:${process.env.PATH}`,
            SLURM_SUBMIT_DIR: ROOT,
            RESULTS_ROOT: results,
            EVAL: 'fig6',
            SLURM_ARRAY_TASK_ID: String(id),
            SLURM_ARRAY_TASK_MIN: String(min),
            SLURM_ARRAY_TASK_COUNT: String(count),
            SPRINT_COMMIT: 'c0ffee',
          },
        })
          .trim()
          .split('\n');
      const out = run(3, 1, 16);
      expect(out.slice(0, 4)).toEqual(['-n', 'env', `PATH=${bin}:${process.env.PATH}`, 'SPRINT_COMMIT=c0ffee']);
      expect(out.slice(4, 6)).toEqual(['npx', 'sprint']);
      expect(out.slice(-5)).toEqual(['--shard', '3/16', '--results', path.join(results, 'fig6', 'shard-3-of-16'), '--resume']);
      expect(out).toContain('--set');
      expect(existsSync(path.join(results, 'fig6'))).toBe(true);
      expect(run(0, 0, 4).slice(-5, -3)).toEqual(['--shard', '1/4']);
    } finally {
      rmSync(bin, { recursive: true, force: true });
      rmSync(results, { recursive: true, force: true });
    }
  });
});
