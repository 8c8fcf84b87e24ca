// Processes a testbed starts inside its namespaces, tracked by PID.
//
// Each process is spawned through `ip netns exec NS ...` (which execs the
// command, so the PID is the command's) as the leader of its own process
// group, so that stopping it also stops whatever it forked (a browser's
// helpers, a shell's children). Stopping sends SIGTERM to the group, waits a
// grace period for the leader to exit, then SIGKILLs what is left of the group.
// Only processes this tracker started are ever signalled.

import { ChildProcess, spawn, StdioOptions } from 'child_process';
import { readFileSync } from 'fs';
import { inNamespace, sleepSync } from './shell';

export interface ExecOptions {
  /** stdio of the child (default: ignore stdin and stdout, pipe stderr, whose tail is kept). */
  readonly stdio?: StdioOptions;
  /** Environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Name for logs and diagnostics (default: the command). */
  readonly label?: string;
}

export interface TrackedProcess {
  readonly pid: number;
  readonly ns: string;
  readonly label: string;
  readonly child: ChildProcess;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Last few KB of its stderr when stderr is piped (for error messages). */
  stderrTail(): string;
}

const STDERR_TAIL_BYTES = 4096;

export class ProcessTracker {
  private readonly live = new Map<number, TrackedProcess>();

  /** Starts `command args` in namespace `ns`, tracked until it exits. */
  spawn(ns: string, command: string, args: readonly string[], options: ExecOptions = {}): ChildProcess {
    const child = spawn('ip', inNamespace(ns, command, args), {
      stdio: options.stdio ?? ['ignore', 'ignore', 'pipe'],
      env: options.env ?? process.env,
      cwd: options.cwd,
      detached: true,
    });
    if (child.pid === undefined) {
      // spawn failed synchronously (e.g. `ip` missing); the 'error' event carries the reason.
      throw new Error(`could not start "${command}" in namespace ${ns}: is iproute2 installed?`);
    }
    const pid = child.pid;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', () => resolve({ code: null, signal: null }));
    });
    let tail = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
    });
    const tracked: TrackedProcess = { pid, ns, label: options.label ?? command, child, exited, stderrTail: () => tail };
    this.live.set(pid, tracked);
    void exited.then(() => this.live.delete(pid));
    return child;
  }

  /** The tracked process with this PID, while it runs. */
  get(pid: number): TrackedProcess | undefined {
    return this.live.get(pid);
  }

  /** Processes started and not yet exited. */
  list(): TrackedProcess[] {
    return [...this.live.values()];
  }

  /** Stops one tracked process (SIGTERM to its group, SIGKILL after graceMs). */
  async stop(pid: number, graceMs = 2000): Promise<void> {
    const p = this.live.get(pid);
    if (!p) return;
    signalGroup(pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([p.exited, timeout]);
    if (timer) clearTimeout(timer);
    signalGroup(pid, 'SIGKILL');
    await p.exited;
  }

  /** Stops every tracked process. */
  async stopAll(graceMs = 2000): Promise<void> {
    await Promise.all(this.list().map((p) => this.stop(p.pid, graceMs)));
  }

  /** Synchronous stopAll for exit paths (no event loop: polls /proc). */
  stopAllSync(graceMs = 1000): void {
    const pids = [...this.live.keys()];
    for (const pid of pids) signalGroup(pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && pids.some(isRunning)) sleepSync(20);
    for (const pid of pids) signalGroup(pid, 'SIGKILL');
  }
}

/** Sends a signal to the process group led by pid; a group that is gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** True when pid exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
