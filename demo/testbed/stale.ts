// Leftovers of testbed runs whose harness died without cleaning up (e.g.
// SIGKILL, power loss): namespaces named `sprint-<pid>-<rand>-<role>` whose
// PID no longer runs. removeStaleTestbeds() kills what is still running inside
// those namespaces (started by that dead run) and deletes them. Namespaces of
// live runs are never touched. Not called automatically: the harness (or a
// person) decides, e.g. before a long evaluation.

import { existsSync } from 'fs';
import { parseNamespaceName } from './names';
import { isRunning } from './processes';
import { trySync } from './shell';

/** Names of our namespaces whose owning PID is not alive (pure: liveness is a parameter). */
export function staleNamespaces(namespaces: readonly string[], alive: (pid: number) => boolean): string[] {
  return namespaces.filter((ns) => {
    const parsed = parseNamespaceName(ns);
    return parsed !== null && !alive(parsed.pid);
  });
}

/** `ip netns list` names (first word of each line). */
export function listNamespaces(): string[] {
  const r = trySync('ip', ['netns', 'list'], { timeoutMs: 5000 });
  if (!r.ok) throw new Error(`cannot list network namespaces: ${r.error?.message}`);
  return r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

/** Deletes stale testbed namespaces; returns the names removed. */
export function removeStaleTestbeds(): string[] {
  const stale = staleNamespaces(listNamespaces(), isRunning);
  const removed: string[] = [];
  const failures: string[] = [];
  for (const ns of stale) {
    const pids = trySync('ip', ['netns', 'pids', ns], { timeoutMs: 5000 });
    for (const pid of pids.stdout.split(/\s+/).filter(Boolean).map(Number)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    const del = trySync('ip', ['netns', 'del', ns], { timeoutMs: 10000 });
    if (del.ok || !existsSync(`/var/run/netns/${ns}`)) removed.push(ns);
    else failures.push(`${ns}: ${del.error?.message}`);
  }
  if (failures.length > 0) throw new Error(`could not remove stale testbed namespaces: ${failures.join('; ')}`);
  return removed;
}
