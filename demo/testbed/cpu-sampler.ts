// Samples the CPU a run has (cpu.ts) every second into cpu.jsonl: the
// machine's idle share from /proc/stat and the CPU time of the harness's
// process tree by class, read from /proc/PID/stat and /proc/PID/cmdline. With
// several runs at once (--parallel) the classes hold all of them.

import { readdirSync, readFileSync } from 'fs';
import { execFileSync } from 'child_process';
import { classifyTree, cpuInterval, CpuSnapshot, parsePidStat, parseProcStat, ProcStat } from './cpu';
import { PeriodicSampler } from './sampler';

export interface CpuSamplerOptions {
  readonly out: string;
  /** Period, milliseconds (default 1000). */
  readonly intervalMs?: number;
  /** Root of the process tree (default: this process). */
  readonly rootPid?: number;
  /** Where /proc is (tests). */
  readonly proc?: string;
}

let ticksPerS: number | null = null;
/** The kernel's USER_HZ (`getconf CLK_TCK`; 100 when unknown). */
function clockTicks(): number {
  if (ticksPerS === null) {
    try {
      ticksPerS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5000 }).trim()) || 100;
    } catch {
      ticksPerS = 100;
    }
  }
  return ticksPerS;
}

const readOr = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** Reads one snapshot of /proc. */
export function readCpuSnapshot(rootPid: number, proc = '/proc', argvCache = new Map<string, string[]>()): CpuSnapshot {
  const t = Date.now() / 1000;
  const machine = parseProcStat(readFileSync(`${proc}/stat`, 'utf8'));
  const all: ProcStat[] = [];
  for (const name of readdirSync(proc)) {
    if (!/^\d+$/.test(name)) continue;
    const text = readOr(`${proc}/${name}/stat`);
    const p = text === null ? null : parsePidStat(text);
    if (p) all.push(p);
  }
  const argvOf = (p: ProcStat): string[] => {
    const key = `${p.pid}:${p.start}`;
    let argv = argvCache.get(key);
    if (!argv) {
      argv = (readOr(`${proc}/${p.pid}/cmdline`) ?? '').split('\0').filter((a) => a !== '');
      argvCache.set(key, argv);
    }
    return argv;
  };
  const procs = classifyTree(all, rootPid, argvOf);
  for (const key of argvCache.keys()) if (!procs.has(Number(key.split(':')[0]))) argvCache.delete(key);
  return { t, machine, procs };
}

/** Starts sampling; stop() the returned sampler to finish. Records have kind "cpu" (cpu.ts CpuRecord). */
export function startCpuSampler(options: CpuSamplerOptions): PeriodicSampler {
  const root = options.rootPid ?? process.pid;
  const cache = new Map<string, string[]>();
  let prev: CpuSnapshot | null = null;
  return new PeriodicSampler({
    name: 'cpu',
    out: options.out,
    intervalMs: options.intervalMs ?? 1000,
    sample: async () => {
      const now = readCpuSnapshot(root, options.proc, cache);
      const before = prev;
      prev = now;
      return before ? [cpuInterval(before, now, clockTicks())] : [];
    },
  }).start();
}
