// Preflight: can this machine run the testbed? Checks, and says exactly what is
// missing and how to get it, before anything is created: root, iproute2 with
// network namespaces, veth, tc with the tbf qdisc, ethtool, ss, tcpdump (wire
// capture), the requested TCP congestion control, and /dev/net/tun plus the Go
// toolchain or a built binary for the optional delay element.
//
// The namespace/veth/tbf probe builds a throwaway namespace named like a run's
// (`sprint-<pid>-pf0-rtr`) and deletes it again.

import { existsSync, readFileSync } from 'fs';
import { runNames } from './names';
import { trySync } from './shell';

export interface PreflightOptions {
  /** Congestion control the server will use (checked against the kernel's list). */
  readonly congestionControl?: string;
  /** Wire capture needs tcpdump (default true). */
  readonly capture?: boolean;
  /** The delay element needs /dev/net/tun and its binary or Go (default false). */
  readonly delay?: boolean;
  /** Path of a built delay element; when absent, `go` must be on PATH. */
  readonly delayBinary?: string;
}

export interface PreflightReport {
  readonly ok: boolean;
  /** One line per missing piece, each saying what and how to fix it. */
  readonly problems: string[];
}

function hasCommand(cmd: string, args: string[]): boolean {
  return trySync(cmd, args, { timeoutMs: 5000 }).ok;
}

/** Runs every check; never throws. */
export function preflight(options: PreflightOptions = {}): PreflightReport {
  const problems: string[] = [];
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    problems.push('not root: the testbed creates network namespaces and qdiscs; run as root (e.g. sudo)');
  }
  const ipOk = hasCommand('ip', ['-V']);
  if (!ipOk) problems.push('`ip` not found: install the Debian package iproute2');
  if (!hasCommand('tc', ['-V'])) problems.push('`tc` not found: install the Debian package iproute2');
  if (!hasCommand('ss', ['-V'])) problems.push('`ss` not found: install the Debian package iproute2');
  if (!hasCommand('sysctl', ['-n', 'kernel.ostype'])) problems.push('`sysctl` not found: install the Debian package procps');
  if (!hasCommand('ethtool', ['--version']))
    problems.push('`ethtool` not found (needed to turn segmentation offloads off): install the Debian package ethtool');
  if (options.capture !== false && !hasCommand('tcpdump', ['--version'])) {
    problems.push('`tcpdump` not found (needed for wire capture): install the Debian package tcpdump');
  }
  if (problems.length === 0 && ipOk) probeNamespaces(problems);

  const cc = options.congestionControl;
  if (cc) {
    const available = readSysctlFile('/proc/sys/net/ipv4/tcp_available_congestion_control');
    if (available !== null && !available.split(/\s+/).includes(cc)) {
      // Modules load on first use; try once by asking modprobe, then re-read.
      trySync('modprobe', [`tcp_${cc}`], { timeoutMs: 5000 });
      const again = readSysctlFile('/proc/sys/net/ipv4/tcp_available_congestion_control') ?? '';
      if (!again.split(/\s+/).includes(cc)) {
        problems.push(`TCP congestion control "${cc}" is not available in this kernel (available: ${again.trim() || 'unknown'})`);
      }
    }
  }
  if (options.delay) {
    if (!existsSync('/dev/net/tun')) problems.push('/dev/net/tun is missing: the delay element needs the tun driver (modprobe tun)');
    if (!(options.delayBinary && existsSync(options.delayBinary)) && !hasCommand('go', ['version'])) {
      problems.push('the delay element is not built and `go` is not on PATH to build it (install Go, or build demo/testbed/delay)');
    }
  }
  return { ok: problems.length === 0, problems };
}

/** Throws one Error listing every problem when preflight fails. */
export function assertPreflight(options: PreflightOptions = {}): void {
  const report = preflight(options);
  if (!report.ok) {
    throw new Error(`testbed preflight failed:\n  - ${report.problems.join('\n  - ')}`);
  }
}

function readSysctlFile(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Creates a throwaway namespace with a veth pair and a tbf qdisc, then deletes it. */
function probeNamespaces(problems: string[]): void {
  const names = runNames(process.pid, 'pf0');
  const ns = names.routerNs;
  const created = trySync('ip', ['netns', 'add', ns]);
  if (!created.ok) {
    problems.push(`cannot create a network namespace (\`ip netns add\`): ${created.error?.message}`);
    return;
  }
  try {
    const veth = trySync('ip', ['-n', ns, 'link', 'add', names.routerServerDev, 'type', 'veth', 'peer', 'name', names.routerClientDev]);
    if (!veth.ok) {
      problems.push(`cannot create a veth pair: ${veth.error?.message} (kernel module veth)`);
      return;
    }
    const tbf = trySync('tc', [
      '-n',
      ns,
      'qdisc',
      'add',
      'dev',
      names.routerClientDev,
      'root',
      'tbf',
      'rate',
      '3mbit',
      'burst',
      '5kb',
      'limit',
      '262144',
    ]);
    if (!tbf.ok) problems.push(`the tbf qdisc is unavailable (\`tc qdisc add ... tbf\`): ${tbf.error?.message} (kernel module sch_tbf)`);
  } finally {
    const del = trySync('ip', ['netns', 'del', ns]);
    if (!del.ok) problems.push(`could not delete the probe namespace ${ns}: ${del.error?.message}`);
  }
}
