// Unit tests of the job-array recipes (demo/harness/recipes/): the shard
// arithmetic (shard-arg.sh) turns a Kubernetes Indexed Job's 0-based
// JOB_COMPLETION_INDEX and a Slurm array's SLURM_ARRAY_TASK_ID into --shard
// K/N values that cover 1…N once each and refuses indices outside the array;
// the manifest and the batch script call it with the right base and count,
// agree with themselves on N, and carry a plan that `sprint ab` accepts with
// that many shards. The recipes themselves cannot run here (no cluster).

import { execFileSync, spawnSync } from 'child_process';
import { readFileSync } from 'fs';
import * as path from 'path';
import { parseAbArgs } from '../../../demo/harness/ab-cli';

const DIR = path.join(__dirname, '..', '..', '..', 'demo', 'harness', 'recipes');
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
  const dirs = Array.from({ length: n }, (_, i) => parseAbArgs([...args, '--results', '/tmp/x', '--shard', `${i + 1}/${n}`]).plan.runs.map((r) => r.dir)).flat();
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

  it('carries a default plan that sprint ab can split into the array\'s size', () => {
    const n = Number(/^#SBATCH --array=1-(\d+)/m.exec(sh)?.[1]);
    const args = /SPRINT_AB_ARGS=\$\{SPRINT_AB_ARGS:-"([^"]+)"\}/.exec(sh)?.[1];
    expect(args).toBeDefined();
    expectShardable((args as string).split(/\s+/), n);
  });
});
