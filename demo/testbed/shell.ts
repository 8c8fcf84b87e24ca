// Running the system tools the testbed is made of (ip, tc, ethtool, sysctl,
// ss, tcpdump) with errors that say which command failed and why.
//
// `runSync` is for topology set-up and tear-down (short commands, ordered);
// `runAsync` is for periodic samplers that must not block the event loop.
// Both have a timeout so no call can hang a run.

import { execFile, spawnSync } from 'child_process';

export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(
      `command failed: ${[command, ...args].join(' ')}: ${exitCode === null ? 'killed or timed out' : `exit ${exitCode}`}${stderr.trim() ? `: ${stderr.trim()}` : ''}`,
    );
    this.name = 'CommandError';
  }
}

export interface RunOptions {
  /** Kill the command after this many milliseconds (default 15000). */
  readonly timeoutMs?: number;
}

/** Runs a command to completion; returns stdout; throws CommandError on a non-zero exit. */
export function runSync(command: string, args: readonly string[], options: RunOptions = {}): string {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: options.timeoutMs ?? 15000 });
  if (r.error) {
    throw new CommandError(command, args, null, `${r.error.message}${r.stderr ? `; ${r.stderr}` : ''}`);
  }
  if (r.status !== 0) throw new CommandError(command, args, r.status, r.stderr ?? '');
  return r.stdout ?? '';
}

/** Like runSync but returns the failure instead of throwing (for tear-down and probes). */
export function trySync(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): { ok: boolean; stdout: string; error?: CommandError } {
  try {
    return { ok: true, stdout: runSync(command, args, options) };
  } catch (err) {
    if (err instanceof CommandError) return { ok: false, stdout: '', error: err };
    throw err;
  }
}

/** Asynchronous version of runSync. */
export function runAsync(command: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      [...args],
      { encoding: 'utf8', timeout: options.timeoutMs ?? 15000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) {
          const code = typeof (err as NodeJS.ErrnoException).code === 'number' ? (err as unknown as { code: number }).code : null;
          reject(new CommandError(command, args, code, stderr || err.message));
          return;
        }
        resolve(stdout);
      },
    );
  });
}

/** Arguments that run `command args` inside network namespace `ns` via `ip netns exec`. */
export function inNamespace(ns: string, command: string, args: readonly string[]): string[] {
  return ['netns', 'exec', ns, command, ...args];
}

/** Synchronous sleep (for exit-path clean-up, where the event loop no longer runs). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
