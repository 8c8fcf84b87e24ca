// The CPU a run had, from /proc: the machine's idle share (the aggregate
// `cpu` line of /proc/stat) and the CPU time of the processes the harness
// started, by class (browser, socket host, origin, bulk client, capture,
// harness), between two snapshots; and over a measured window, the mean idle
// share, the worst 10 s and whether the machine was saturated. A run on a
// saturated machine measures the CPU, not the data plane. Pure: text in,
// figures out (cpu-sampler.ts reads the files).

/** Process classes; a process not matched by a rule takes its parent's class, the harness's own tree ends at 'harness'. */
export const CPU_CLASSES = ['browser', 'socketHost', 'origin', 'bulk', 'capture', 'harness'] as const;
export type CpuClass = (typeof CPU_CLASSES)[number];

/** Below this idle share in any SATURATION_SPAN_S of the window a run is saturated. */
export const SATURATED_IDLE = 0.2;
export const SATURATION_SPAN_S = 10;

/** The machine's CPU counters (clock ticks, all cores together). */
export interface MachineTicks {
  readonly total: number;
  /** idle + iowait. */
  readonly idle: number;
}

/** One process's line of /proc/PID/stat, the fields used here (times in clock ticks). */
export interface ProcStat {
  readonly pid: number;
  readonly comm: string;
  readonly ppid: number;
  /** utime + stime. */
  readonly ticks: number;
  /** cutime + cstime: children it has reaped. */
  readonly childTicks: number;
  /** Start time after boot, clock ticks (tells a reused PID apart). */
  readonly start: number;
}

/** Parses the aggregate `cpu` line of /proc/stat. */
export function parseProcStat(text: string): MachineTicks {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) throw new Error('/proc/stat: no aggregate "cpu" line');
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  if (v.length < 4 || v.some((x) => !Number.isFinite(x))) throw new Error(`/proc/stat: cannot read ${JSON.stringify(line)}`);
  // user nice system idle iowait irq softirq steal (guest time is already in user).
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { total, idle: (v[3] as number) + (v[4] ?? 0) };
}

/** Parses /proc/PID/stat; null for text that is not one (a process that vanished mid-read). */
export function parsePidStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // After ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime prio nice threads itreal starttime
  const f = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const n = (i: number): number => Number(f[i]);
  const out = { pid, comm: text.slice(open + 1, close), ppid: n(1), ticks: n(11) + n(12), childTicks: n(13) + n(14), start: n(19) };
  return [out.pid, out.ppid, out.ticks, out.childTicks, out.start].every(Number.isFinite) ? out : null;
}

/** A process's class from its own command line, or null to inherit its parent's. */
export function classOfCommand(comm: string, argv: readonly string[]): CpuClass | null {
  const exe = (argv[0] ?? comm).split('/').pop() ?? '';
  const args = argv.join(' ');
  if (exe === 'sprint-host' || comm === 'sprint-host') return 'socketHost';
  if (exe === 'tcpdump' || comm === 'tcpdump') return 'capture';
  if (/^chrom(e|ium)/.test(exe)) return 'browser';
  if (/bulk-client\.js/.test(args)) return 'bulk';
  if (/demo\/server\/[\w-]+\.js/.test(args) || exe === 'nginx' || /^nginx/.test(comm)) return 'origin';
  return null;
}

export interface CpuSnapshot {
  /** Epoch seconds. */
  readonly t: number;
  readonly machine: MachineTicks;
  /** The harness's process and its descendants, by PID. */
  readonly procs: ReadonlyMap<number, ProcStat & { readonly cls: CpuClass }>;
}

/**
 * The harness's process tree out of all processes, each with its class: its
 * own command's (classOfCommand) or else its parent's, 'harness' at the root.
 * `argvOf` reads a process's command line (only asked for the tree's members).
 */
export function classifyTree(
  all: readonly ProcStat[],
  rootPid: number,
  argvOf: (p: ProcStat) => readonly string[],
): Map<number, ProcStat & { cls: CpuClass }> {
  const children = new Map<number, ProcStat[]>();
  for (const p of all) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const out = new Map<number, ProcStat & { cls: CpuClass }>();
  const root = all.find((p) => p.pid === rootPid);
  if (!root) return out;
  const stack: Array<{ p: ProcStat; parentCls: CpuClass }> = [{ p: root, parentCls: 'harness' }];
  while (stack.length > 0) {
    const { p, parentCls } = stack.pop() as { p: ProcStat; parentCls: CpuClass };
    if (out.has(p.pid)) continue;
    const cls = p.pid === rootPid ? 'harness' : (classOfCommand(p.comm, argvOf(p)) ?? parentCls);
    out.set(p.pid, { ...p, cls });
    for (const c of children.get(p.pid) ?? []) stack.push({ p: c, parentCls: cls });
  }
  return out;
}

/** One cpu.jsonl record: the interval between two snapshots. */
export interface CpuRecord {
  readonly kind: 'cpu';
  /** End of the interval, epoch seconds. */
  readonly t: number;
  readonly intervalS: number;
  /** The machine's idle share over the interval, 0–1. */
  readonly idle: number;
  /** CPU seconds the machine spent busy (all cores). */
  readonly busyS: number;
  /** CPU seconds per class over the interval. */
  readonly classes: Readonly<Record<CpuClass, number>>;
  readonly processes: number;
}

/**
 * The interval between two snapshots: the idle share and each class's CPU
 * seconds. A process seen in both counts its increase; a new one (or a
 * reused PID) all its time; a process that vanished counts through its
 * parent, which reaped it (its cutime/cstime grows by the child's whole
 * life, less what was already counted for the child).
 */
export function cpuInterval(prev: CpuSnapshot, now: CpuSnapshot, ticksPerS: number): CpuRecord {
  const classes = Object.fromEntries(CPU_CLASSES.map((c) => [c, 0])) as Record<CpuClass, number>;
  const same = (a: ProcStat | undefined, b: ProcStat): boolean => a !== undefined && a.start === b.start;
  const vanishedByParent = new Map<number, number>();
  for (const p of prev.procs.values()) {
    if (same(now.procs.get(p.pid), p)) continue;
    vanishedByParent.set(p.ppid, (vanishedByParent.get(p.ppid) ?? 0) + p.ticks + p.childTicks);
  }
  for (const p of now.procs.values()) {
    const before = prev.procs.get(p.pid);
    const known = before !== undefined && same(before, p);
    let ticks = known ? p.ticks - before.ticks : p.ticks;
    if (known) ticks += Math.max(0, p.childTicks - before.childTicks - (vanishedByParent.get(p.pid) ?? 0));
    classes[p.cls] += Math.max(0, ticks) / ticksPerS;
  }
  const total = now.machine.total - prev.machine.total;
  const idle = now.machine.idle - prev.machine.idle;
  return {
    kind: 'cpu',
    t: now.t,
    intervalS: now.t - prev.t,
    idle: total > 0 ? idle / total : 1,
    busyS: Math.max(0, total - idle) / ticksPerS,
    classes,
    processes: now.procs.size,
  };
}

/** summary.json's `cpu` block. */
export interface CpuSummary {
  readonly samples: number;
  /** Seconds of the window the samples cover. */
  readonly coveredS: number;
  /** Mean idle share over the window (time-weighted), 0–1. */
  readonly meanIdle: number;
  /** The lowest idle share over any SATURATION_SPAN_S of the window (the whole window when shorter), 0–1. */
  readonly worst10sIdle: number;
  /** CPU seconds of each class over the window. */
  readonly classCpuS: Readonly<Record<CpuClass, number>>;
  /** CPU seconds the machine spent busy outside the run's processes (other work on the machine). */
  readonly otherCpuS: number;
  readonly saturated: boolean;
}

/** The window's CPU figures from cpu.jsonl records (intervals ending inside (fromS, toS]); null without any. */
export function summarizeCpu(records: readonly CpuRecord[], window: { fromS: number; toS: number } | null): CpuSummary | null {
  const rs = records
    .filter((r) => r.kind === 'cpu' && r.intervalS > 0 && (window === null || (r.t > window.fromS && r.t <= window.toS)))
    .sort((a, b) => a.t - b.t);
  if (rs.length === 0) return null;
  const coveredS = rs.reduce((a, r) => a + r.intervalS, 0);
  const meanIdle = rs.reduce((a, r) => a + r.idle * r.intervalS, 0) / coveredS;
  // The worst span: for each end, the fewest intervals back that cover SATURATION_SPAN_S.
  let worst = Infinity;
  for (let end = 0; end < rs.length; end++) {
    let span = 0;
    let idle = 0;
    for (let i = end; i >= 0 && span < SATURATION_SPAN_S; i--) {
      span += (rs[i] as CpuRecord).intervalS;
      idle += (rs[i] as CpuRecord).idle * (rs[i] as CpuRecord).intervalS;
    }
    if (span >= SATURATION_SPAN_S || (end === rs.length - 1 && worst === Infinity)) worst = Math.min(worst, idle / span);
  }
  const classCpuS = Object.fromEntries(CPU_CLASSES.map((c) => [c, rs.reduce((a, r) => a + (r.classes[c] ?? 0), 0)])) as Record<
    CpuClass,
    number
  >;
  const ours = Object.values(classCpuS).reduce((a, b) => a + b, 0);
  const busy = rs.reduce((a, r) => a + r.busyS, 0);
  return {
    samples: rs.length,
    coveredS,
    meanIdle,
    worst10sIdle: worst,
    classCpuS,
    otherCpuS: Math.max(0, busy - ours),
    saturated: worst < SATURATED_IDLE,
  };
}

/** The report's problem line for a saturated run, or null. */
export function saturationWarning(cpu: CpuSummary | null | undefined): string | null {
  if (!cpu?.saturated) return null;
  return `machine saturated: ${(100 * cpu.worst10sIdle).toFixed(0)} % idle CPU in the worst ${SATURATION_SPAN_S} s of the window (under ${100 * SATURATED_IDLE} %; mean ${(100 * cpu.meanIdle).toFixed(0)} %): not a measurement of the data plane`;
}
