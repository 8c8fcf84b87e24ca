// Names for one testbed run: network namespaces, veth and TUN interface names,
// and the fixed private address plan inside them.
//
// Every name carries a per-run suffix (the harness's PID plus random
// characters) so that two concurrent runs, or the leftovers of a run that was
// killed, can never collide (within one process the random part is never
// handed out twice, so concurrent testbeds of `sprint ab --parallel` differ). Namespace names look like `sprint-<pid>-<rand>-srv`
// so a stale run can be recognised by its (dead) PID. Interface names must fit
// Linux's 15-character limit. Addresses live only inside the run's own
// namespaces (they are never configured in the host namespace), so the fixed
// 10.201.x plan cannot clash with the host or with another run.

import { randomBytes } from 'crypto';

/** Linux IFNAMSIZ − 1. */
const MAX_IFNAME = 15;

export const NAMESPACE_PREFIX = 'sprint-';
const NAMESPACE_PATTERN = /^sprint-(\d+)-([0-9a-z]+)-(srv|rtr|cli)$/;

/** Address plan (inside the run's namespaces only). */
export const ADDRESSES = {
  serverSubnet: '10.201.1.0/24',
  clientSubnet: '10.201.2.0/24',
  server: '10.201.1.2',
  routerServerSide: '10.201.1.1',
  routerClientSide: '10.201.2.1',
  client: '10.201.2.2',
  prefixLength: 24,
} as const;

export interface RunNames {
  /** Short unique run id, e.g. "sp2lr4gk3f". */
  readonly id: string;
  readonly serverNs: string;
  readonly routerNs: string;
  readonly clientNs: string;
  /** veth in the server namespace (peer of routerServerDev). */
  readonly serverDev: string;
  /** veth in the router namespace facing the server. */
  readonly routerServerDev: string;
  /** veth in the router namespace facing the client: the bottleneck (tbf) sits here. */
  readonly routerClientDev: string;
  /** veth in the client namespace (peer of routerClientDev). */
  readonly clientDev: string;
  /** TUN device of the delay element, in the router namespace. */
  readonly tunDev: string;
}

/** Builds the names of one run. `random` is for tests; normally 3 random base-36 characters. */
export function runNames(pid: number = process.pid, random?: string): RunNames {
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`runNames: bad pid ${pid}`);
  const rand = random ?? randomSuffix();
  if (!/^[0-9a-z]{1,4}$/.test(rand)) throw new Error(`runNames: bad random suffix "${rand}" (1–4 of [0-9a-z])`);
  const id = `sp${pid.toString(36)}${rand}`;
  const ns = (role: string): string => `${NAMESPACE_PREFIX}${pid}-${rand}-${role}`;
  const dev = (role: string): string => {
    const name = `${id}${role}`;
    if (name.length > MAX_IFNAME) throw new Error(`runNames: interface name "${name}" longer than ${MAX_IFNAME}`);
    return name;
  };
  return {
    id,
    serverNs: ns('srv'),
    routerNs: ns('rtr'),
    clientNs: ns('cli'),
    serverDev: dev('s'),
    routerServerDev: dev('rs'),
    routerClientDev: dev('rc'),
    clientDev: dev('c'),
    tunDev: dev('d'),
  };
}

/** Parses a namespace name made by runNames; null when it is not one of ours. */
export function parseNamespaceName(name: string): { pid: number; rand: string; role: string } | null {
  const m = NAMESPACE_PATTERN.exec(name);
  if (!m) return null;
  return { pid: Number(m[1]), rand: m[2] as string, role: m[3] as string };
}

/** Suffixes handed out by this process: concurrent runs of one harness (`sprint ab --parallel`) never share one. */
const usedSuffixes = new Set<string>();

function randomSuffix(): string {
  for (;;) {
    const bytes = randomBytes(3);
    let out = '';
    for (const b of bytes) out += (b % 36).toString(36);
    if (!usedSuffixes.has(out)) {
      usedSuffixes.add(out);
      return out;
    }
  }
}
