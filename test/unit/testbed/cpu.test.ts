// The CPU a run had (demo/testbed/cpu.ts): /proc text parsed, the harness's
// process tree classified, intervals and the saturation flag; and the report
// listing and marking a saturated run.

import { spawn } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  classifyTree,
  classOfCommand,
  cpuInterval,
  CpuRecord,
  CpuSnapshot,
  parsePidStat,
  parseProcStat,
  ProcStat,
  summarizeCpu,
} from '../../../demo/testbed/cpu';
import { readCpuSnapshot } from '../../../demo/testbed/cpu-sampler';
import { buildReport } from '../../../demo/harness/report';
import { SPRINTX, STOCK, testPlan, T0, WARMUP_S, writeResultsFolder } from '../harness/fixtures';

const PROC_STAT = `cpu  21150 0 8715 34495 1116 0 137 236 0 0
cpu0 10575 0 4357 17247 558 0 68 118 0 0
intr 123 0
`;

/** A /proc/PID/stat line; comm may hold spaces and parentheses. */
function pidStat(pid: number, comm: string, ppid: number, utime: number, stime: number, cutime = 0, cstime = 0, start = 500): string {
  return `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 4 0 ${start} 12345678 900 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0`;
}

describe('/proc parsing', () => {
  it('reads the machine idle share from the aggregate cpu line (idle + iowait of all eight fields)', () => {
    expect(parseProcStat(PROC_STAT)).toEqual({ total: 21150 + 8715 + 34495 + 1116 + 137 + 236, idle: 34495 + 1116 });
    expect(() => parseProcStat('intr 1 2\n')).toThrow(/no aggregate "cpu" line/);
  });

  it('reads a process line whose command holds spaces and parentheses', () => {
    expect(parsePidStat(pidStat(4242, 'Web Content (x)', 17, 300, 45, 7, 3, 9876))).toEqual({
      pid: 4242,
      comm: 'Web Content (x)',
      ppid: 17,
      ticks: 345,
      childTicks: 10,
      start: 9876,
    });
    expect(parsePidStat('')).toBeNull();
  });

  it('classifies by command line', () => {
    expect(classOfCommand('sprint-host', ['/work/dist/extension/host/sprint-host', 'chrome-extension://x/'])).toBe('socketHost');
    expect(classOfCommand('tcpdump', ['tcpdump', '-i', 'r1'])).toBe('capture');
    expect(classOfCommand('chromium', ['/usr/lib/chromium/chromium', '--type=renderer'])).toBe('browser');
    expect(classOfCommand('node', ['/usr/bin/node', '/r/dist/demo/testbed/bulk-client.js', '--port', '9001'])).toBe('bulk');
    expect(classOfCommand('node', ['/usr/bin/node', '/r/dist/demo/server/cli.js', '--port', '8001'])).toBe('origin');
    expect(classOfCommand('nginx', ['nginx: worker process'])).toBe('origin');
    expect(classOfCommand('ss', ['ss', '-tinH'])).toBeNull();
  });
});

describe('the harness process tree', () => {
  const argv: Record<number, string[]> = {
    10: ['node', 'sprint', 'ab'],
    20: ['/usr/lib/chromium/chromium', '--headless=new'],
    21: ['/usr/lib/chromium/chromium', '--type=renderer'],
    22: ['/x/sprint-host', 'chrome-extension://abc/'],
    30: ['node', '/r/dist/demo/server/cli.js'],
    40: ['tcpdump', '-w', '-'],
    50: ['ss', '-tinH'],
    99: ['/usr/lib/chromium/chromium'],
  };
  const procs = (ticks: Record<number, number>, child: Record<number, number> = {}): ProcStat[] =>
    [
      [1, 0],
      [10, 1],
      [20, 10],
      [21, 20],
      [22, 20],
      [30, 10],
      [40, 10],
      [50, 10],
      [99, 1],
    ]
      .filter(([pid]) => ticks[pid as number] !== undefined)
      .map(([pid, ppid]) => ({
        pid: pid as number,
        ppid: ppid as number,
        comm: 'x',
        ticks: ticks[pid as number] as number,
        childTicks: child[pid as number] ?? 0,
        start: 1,
      }));
  const snapshot = (t: number, total: number, idle: number, list: ProcStat[]): CpuSnapshot => ({
    t,
    machine: { total, idle },
    procs: classifyTree(list, 10, (p) => argv[p.pid] ?? []),
  });

  it('classifies the tree from the harness down, leaving other processes out', () => {
    const tree = classifyTree(procs({ 1: 0, 10: 0, 20: 0, 21: 0, 22: 0, 30: 0, 40: 0, 50: 0, 99: 0 }), 10, (p) => argv[p.pid] ?? []);
    expect(Object.fromEntries([...tree].map(([pid, p]) => [pid, p.cls]))).toEqual({
      10: 'harness',
      20: 'browser',
      21: 'browser',
      22: 'socketHost',
      30: 'origin',
      40: 'capture',
      50: 'harness',
    });
  });

  it("counts each class's CPU over an interval; a reaped child through its parent, once", () => {
    // ticks per second 100; 2 cores for 1 s = 200 ticks, 50 of them idle.
    const a = snapshot(100, 10000, 5000, procs({ 1: 0, 10: 100, 20: 400, 21: 50, 22: 10, 30: 20, 40: 5, 50: 3 }));
    // ss (50) exited after using 3 more ticks; the harness reaped it (its cutime grew by 6 = 3 seen + 3 since).
    const b = snapshot(101, 10200, 5050, procs({ 1: 0, 10: 120, 20: 450, 21: 80, 22: 15, 30: 30, 40: 7 }, { 10: 6 }));
    const r = cpuInterval(a, b, 100);
    expect(r.intervalS).toBe(1);
    expect(r.idle).toBeCloseTo(0.25, 6);
    expect(r.busyS).toBeCloseTo(1.5, 6);
    expect(r.classes.browser).toBeCloseTo(0.8, 6);
    expect(r.classes.socketHost).toBeCloseTo(0.05, 6);
    expect(r.classes.origin).toBeCloseTo(0.1, 6);
    expect(r.classes.capture).toBeCloseTo(0.02, 6);
    expect(r.classes.harness).toBeCloseTo(0.2 + 0.03, 6);
    expect(r.classes.bulk).toBe(0);
  });

  it('reads the real /proc: this process is the harness, a child it started belongs to it', async () => {
    const child = spawn('sleep', ['5'], { stdio: 'ignore' });
    try {
      const snap = readCpuSnapshot(process.pid);
      expect(snap.procs.get(process.pid)?.cls).toBe('harness');
      expect(snap.procs.get(child.pid as number)?.cls).toBe('harness');
      expect(snap.machine.total).toBeGreaterThan(snap.machine.idle);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

/** Records every 2 s from `fromS` for `n` intervals, idle share per interval from idleAt. */
function records(fromS: number, n: number, idleAt: (i: number) => number): CpuRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'cpu',
    t: fromS + 2 * (i + 1),
    intervalS: 2,
    idle: idleAt(i),
    busyS: 4 * (1 - idleAt(i)),
    classes: { browser: 0.5, socketHost: 0.05, origin: 0.1, bulk: 0.05, capture: 0.02, harness: 0.1 },
    processes: 20,
  }));
}

describe('the window', () => {
  it('gives the mean, the worst 10 s and the classes; saturated when a 10 s span had under 20 % idle', () => {
    // 60 s; 8 s at 10 % idle (4 intervals) inside otherwise 70 %.
    const rs = records(0, 30, (i) => (i >= 10 && i < 14 ? 0.1 : 0.7));
    const s = summarizeCpu(rs, { fromS: 0, toS: 60 });
    expect(s?.samples).toBe(30);
    expect(s?.meanIdle).toBeCloseTo((26 * 0.7 + 4 * 0.1) / 30, 6);
    // The worst 10 s: four 10 % intervals and one 70 %.
    expect(s?.worst10sIdle).toBeCloseTo((4 * 0.1 + 0.7) / 5, 6);
    expect(s?.saturated).toBe(false);
    expect(s?.classCpuS.browser).toBeCloseTo(15, 6);
    expect(s?.otherCpuS).toBeCloseTo(rs.reduce((a, r) => a + r.busyS, 0) - 30 * 0.82, 6);
    // Ten seconds at 15 %: saturated.
    const worse = summarizeCpu(
      records(0, 30, (i) => (i >= 10 && i < 15 ? 0.15 : 0.7)),
      { fromS: 0, toS: 60 },
    );
    expect(worse?.worst10sIdle).toBeCloseTo(0.15, 6);
    expect(worse?.saturated).toBe(true);
  });

  it('leaves out what is outside the window, and says nothing without records', () => {
    const rs = records(0, 30, (i) => (i < 10 ? 0.0 : 0.8));
    expect(summarizeCpu(rs, { fromS: 20, toS: 60 })?.saturated).toBe(false);
    expect(summarizeCpu(rs, { fromS: 20, toS: 60 })?.samples).toBe(20);
    expect(summarizeCpu(rs, { fromS: 100, toS: 200 })).toBeNull();
  });
});

describe('the report', () => {
  it('lists a saturated run under Problems and marks its cell', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-cpu-report-'));
    try {
      const plan = testPlan([STOCK, SPRINTX], 1);
      writeResultsFolder(dir, plan, () => 1.5);
      const from = T0 + 1 + WARMUP_S;
      for (const spec of plan.runs) {
        const busy = spec.variant.name === 'stock';
        const lines = records(T0, 50, (i) => (busy && T0 + 2 * i > from + 10 && T0 + 2 * i < from + 30 ? 0.05 : 0.6));
        writeFileSync(path.join(dir, spec.dir, 'cpu.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
      }
      const r = buildReport(dir);
      const stock = r.runs.find((x) => x.variant.name === 'stock');
      expect(stock?.cpu?.saturated).toBe(true);
      expect(r.runs.find((x) => x.variant.name === 'sprint-x')?.cpu?.saturated).toBe(false);
      const md = readFileSync(r.files.summaryMd, 'utf8');
      expect(md).toMatch(/3mbit-256kb stock: runs\/3mbit-256kb\/stock\/r1: machine saturated: 5 % idle CPU in the worst 10 s/);
      expect(md).not.toMatch(/sprint-x: runs\/3mbit-256kb\/sprint-x\/r1: machine saturated/);
      const fig6 = md.slice(md.indexOf('Video % of fair share'));
      const row = fig6.split('\n').find((l) => l.startsWith('| 256 KB')) ?? '';
      expect(row.split('|').map((c) => c.trim())[2]).toMatch(/ †$/);
      expect(row.split('|').map((c) => c.trim())[3]).not.toMatch(/†/);
      // The runs table: mean idle and the worst 10 s, marked.
      expect(md).toMatch(/stock\/r1\/\) \|.*\| 46 \(5\) † \|$/m);
      expect(md).toMatch(/sprint-x\/r1\/\) \|.*\| 60 \(60\) \|$/m);
      expect(readFileSync(r.files.reportHtml, 'utf8')).toMatch(/CPU: 46 % idle \(worst 10 s 5 %, saturated\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
