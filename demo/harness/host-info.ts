// What a run was measured with, recorded in run.json and ab.json so that
// results from several machines (sharded runs, merge.ts) can be compared and
// refused when they do not belong together: the source commit (with a dirty
// flag), the kernel (`uname -r`), the core count and the load average at the
// start and end of the run. `overloadWarning` is the check `sprint report`
// applies: a run whose 1-minute load average exceeded the core count shared
// the CPU with something else, so its figures may be disturbed.

import { execFileSync } from 'child_process';
import * as os from 'os';
import type { BuildRecord } from './build-stamp';
import type { SourceVersion } from './manifest';

export interface HostRecord {
  readonly loadAvgStart: readonly number[];
  readonly loadAvgEnd: readonly number[];
  readonly cpus: number;
  /** `uname -r` (os.release()). Absent in runs recorded before it was added. */
  readonly kernel?: string;
  readonly commit?: string | null;
  readonly dirty?: boolean | null;
  /** The player bundles the run served (build-stamp.ts). Absent in runs recorded before it was added. */
  readonly build?: BuildRecord;
}

function git(repoDir: string, args: string[]): string | null {
  try {
    // safe.directory: the harness runs as root in a checkout another user may own (git refuses that otherwise).
    return execFileSync('git', ['-c', `safe.directory=${repoDir}`, ...args], {
      cwd: repoDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10000,
    }).trim();
  } catch {
    return null;
  }
}

/**
 * The commit of the checkout at repoDir and whether tracked files differ from
 * it (only those under `paths` when given). Without git or a .git folder (a
 * container image), $SPRINT_COMMIT (or env.SPRINT_COMMIT) names the commit
 * and the dirty flag is unknown.
 */
export function sourceVersion(repoDir: string, env: NodeJS.ProcessEnv = process.env, paths: readonly string[] = []): SourceVersion {
  const head = git(repoDir, ['rev-parse', 'HEAD']);
  if (head && /^[0-9a-f]{40}$/.test(head)) {
    const status = git(repoDir, ['status', '--porcelain', '--untracked-files=no', ...(paths.length > 0 ? ['--', ...paths] : [])]);
    return { commit: head, dirty: status === null ? null : status.length > 0 };
  }
  const given = env.SPRINT_COMMIT?.trim();
  return { commit: given ? given : null, dirty: null };
}

/** The machine right now: kernel, cores, load average. */
export function hostNow(): { kernel: string; cpus: number; loadAvg: number[] } {
  return { kernel: os.release(), cpus: os.cpus().length, loadAvg: os.loadavg() };
}

/** A warning when the 1-minute load average at the start or end of the run exceeded the core count; null otherwise. */
export function overloadWarning(host: Pick<HostRecord, 'loadAvgStart' | 'loadAvgEnd' | 'cpus'> | undefined): string | null {
  if (!host || !(host.cpus > 0)) return null;
  const start = host.loadAvgStart[0];
  const end = host.loadAvgEnd[0];
  const over: string[] = [];
  if (typeof start === 'number' && start > host.cpus) over.push(`${start.toFixed(2)} at the start`);
  if (typeof end === 'number' && end > host.cpus) over.push(`${end.toFixed(2)} at the end`);
  if (over.length === 0) return null;
  return `machine overloaded: 1-minute load average ${over.join(' and ')} exceeded its ${host.cpus} core(s) (other work shared the CPU; figures may be disturbed)`;
}

/** "abc1234 (dirty)" / "abc1234" / "unknown commit". */
export function describeSource(source: SourceVersion | undefined): string {
  if (!source || !source.commit) return 'unknown commit';
  return `${source.commit.slice(0, 12)}${source.dirty ? ' (uncommitted changes)' : ''}`;
}
