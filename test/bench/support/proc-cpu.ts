/**
 * CPU time of a browser's process tree from /proc (Linux), for the CPU
 * benchmark (test/bench/cpu.bench.ts). Every descendant of the browser's PID
 * is sampled (utime + stime of /proc/<pid>/stat) and classified by its
 * command line: the browser process itself, `--type=renderer` (with
 * `--extension-process`: the extension's renderer, which runs its service
 * worker), `--type=gpu-process`, `--type=utility`, `--type=zygote`, and the
 * Sprint socket host (its command line names `sprint-host`). A process born
 * during the window counts from zero; one that exits counts up to its last
 * sample (the poller samples every `intervalMs`).
 */
import { readdirSync, readFileSync } from 'fs';

export type ProcKind = 'browser' | 'renderer' | 'extension' | 'gpu' | 'utility' | 'host' | 'other';
export const PROC_KINDS: readonly ProcKind[] = ['browser', 'renderer', 'extension', 'gpu', 'utility', 'host', 'other'];

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux). */
const HZ = 100;

interface Sample {
  kind: ProcKind;
  ticks: number;
}

function readStat(pid: number): { ppid: number; ticks: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}

function classify(pid: number, root: number): ProcKind {
  if (pid === root) return 'browser';
  let cmd = '';
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return 'other';
  }
  if (cmd.includes('sprint-host')) return 'host';
  if (cmd.includes('--type=renderer')) return cmd.includes('--extension-process') ? 'extension' : 'renderer';
  if (cmd.includes('--type=gpu-process')) return 'gpu';
  if (cmd.includes('--type=utility')) return 'utility';
  return 'other';
}

/** Current CPU ticks of `root` and all its descendants, by PID. */
export function sampleTree(root: number): Map<number, Sample> {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const st = readStat(pid);
    if (!st) continue;
    parent.set(pid, st.ppid);
    ticks.set(pid, st.ticks);
  }
  const out = new Map<number, Sample>();
  for (const [pid, t] of ticks) {
    let p: number | undefined = pid;
    for (let depth = 0; p !== undefined && p > 1 && depth < 16; depth += 1) {
      if (p === root) {
        out.set(pid, { kind: classify(pid, root), ticks: t });
        break;
      }
      p = parent.get(p);
    }
  }
  return out;
}

/** Polls a process tree from `start()` to `stop()`; `stop()` returns CPU seconds by kind. */
export class TreeCpu {
  private readonly first = new Map<number, Sample>();
  private readonly last = new Map<number, Sample>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly root: number,
    private readonly intervalMs = 500,
  ) {}

  start(): void {
    for (const [pid, s] of sampleTree(this.root)) {
      this.first.set(pid, s);
      this.last.set(pid, s);
    }
    this.timer = setInterval(() => this.poll(), this.intervalMs);
  }

  private poll(): void {
    for (const [pid, s] of sampleTree(this.root)) {
      if (!this.first.has(pid)) this.first.set(pid, { kind: s.kind, ticks: 0 });
      this.last.set(pid, s);
    }
  }

  stop(): Record<ProcKind, number> {
    this.poll();
    if (this.timer) clearInterval(this.timer);
    const out = Object.fromEntries(PROC_KINDS.map((k) => [k, 0])) as Record<ProcKind, number>;
    for (const [pid, s] of this.last) {
      const f = this.first.get(pid);
      out[s.kind] += (s.ticks - (f?.ticks ?? 0)) / HZ;
    }
    return out;
  }
}
