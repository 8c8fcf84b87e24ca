// The emulated bottleneck: three network namespaces, server — router — client,
// joined by two veth pairs, with the bottleneck (tbf: rate and queue size in
// bytes) on the router's client-facing interface, i.e. the server→client
// direction. Paper §V-A: a video flow and bulk flows share one drop-tail
// bottleneck; the recipe and its pitfalls are in docs/testbed.md.
//
// createTestbed first runs preflight.ts and refuses, listing what is missing,
// when not root or when namespaces, veth, tbf, ethtool or the requested
// congestion control are unavailable. What it then sets up, in order:
//   - namespaces `sprint-<pid>-<rand>-{srv,rtr,cli}` (names.ts), IPv6 off, lo up;
//   - veth pairs created directly inside the namespaces (never in the host's),
//     addresses 10.201.1.0/24 (server side) and 10.201.2.0/24 (client side),
//     default routes via the router, ip_forward=1 and rp_filter=0 on the router;
//   - segmentation/checksum offloads off on every veth so queues hold real
//     MTU-sized packets;
//   - permanent neighbour (ARP) entries for each veth's peer, so address
//     resolution never waits behind (or is dropped by) the bottleneck queue;
//   - `tbf rate R burst B limit QUEUE_BYTES` on the router's client-facing
//     veth; optionally a tbf on the uplink (router's server-facing veth);
//   - the server's TCP congestion control per route (`congctl`, since the
//     per-namespace sysctl refuses cubic on this kind of host), verified on
//     live flows with `ss -ti` (verifyCongestionControl);
//   - tcp_slow_start_after_idle (default 1) and tcp_no_metrics_save=1 in the
//     server and client namespaces, tcp_metrics flushed;
//   - optionally the user-space delay element (delay-element.ts) in the router.
// destroy() stops every process the testbed started (by PID, process group),
// kills anything left inside its namespaces, and deletes the namespaces (which
// removes veths, qdiscs and the TUN device). It is idempotent and also runs on
// exit, SIGINT, SIGTERM and uncaught errors (cleanup.ts).

import { ChildProcess } from 'child_process';
import { existsSync } from 'fs';
import { registerCleanup } from './cleanup';
import { checkCongestionControl, CongestionCheck } from './congestion';
import { DelayElement, startDelayElement } from './delay-element';
import { ADDRESSES, RunNames, runNames } from './names';
import { assertPreflight } from './preflight';
import { ExecOptions, ProcessTracker } from './processes';
import { inNamespace, runAsync, runSync, trySync } from './shell';
import { establishedConnections } from './ss-sampler';

export type CongestionControl = 'cubic' | 'bbr' | 'reno';
export const CONGESTION_CONTROLS: readonly CongestionControl[] = ['cubic', 'bbr', 'reno'];

export interface TopologyOptions {
  /** Bottleneck rate, bits per second (server→client direction). */
  readonly rateBitsPerSec: number;
  /** Bottleneck queue size, bytes (tbf `limit`). */
  readonly queueBytes: number;
  /** tbf bucket size, bytes (default: max(5 KB, 4 ms at the rate)). */
  readonly burstBytes?: number;
  /** Server TCP congestion control, set per route (default cubic). */
  readonly congestionControl?: CongestionControl;
  /** net.ipv4.tcp_slow_start_after_idle in server and client (default true, the kernel default). */
  readonly slowStartAfterIdle?: boolean;
  /** One-way propagation delay per direction, milliseconds, added by the delay element (default none). */
  readonly delayMs?: { readonly down: number; readonly up: number };
  /** Path of the built delay element (default: build it on demand, see delay-element.ts). */
  readonly delayBinary?: string;
  /** Optional uplink (client→server) shaping; default none. */
  readonly uplink?: { readonly rateBitsPerSec: number; readonly queueBytes: number };
  /** Progress/diagnostic lines (default: silent). */
  readonly log?: (line: string) => void;
  /** Skip the preflight checks (default false: refuse clearly when something is missing). */
  readonly skipPreflight?: boolean;
}

export interface Testbed {
  readonly names: RunNames;
  readonly serverNs: string;
  readonly routerNs: string;
  readonly clientNs: string;
  /** Server address as seen from the client. */
  readonly serverAddr: string;
  /** Client address as seen from the server. */
  readonly clientAddr: string;
  /** The bottleneck interface (in routerNs): tbf sits on its egress; capture here. */
  readonly bottleneckDev: string;
  /** The options in force, defaults filled in. */
  readonly settings: ResolvedTopology;
  /** The running delay element, when delayMs was given. */
  readonly delay: DelayElement | null;
  /** Starts `command args` inside namespace ns as a tracked process group. */
  exec(ns: string, command: string, args: readonly string[], options?: ExecOptions): ChildProcess;
  /** Runs a short command inside namespace ns and returns its stdout (throws on failure). */
  run(ns: string, command: string, args: readonly string[], timeoutMs?: number): Promise<string>;
  /** Stops one process started with exec: SIGTERM to its group, SIGKILL after graceMs (default 2000). */
  stop(pid: number, graceMs?: number): Promise<void>;
  /** PIDs of the processes started with exec that are still running. */
  pids(): number[];
  /** Reads `ss -ti` in the server namespace (at most 5 s) and checks the congestion control of live flows; rejects once destroyed. */
  verifyCongestionControl(serverPorts?: readonly number[]): Promise<CongestionCheck>;
  /** Stops every process, deletes the namespaces. Idempotent. */
  destroy(): Promise<void>;
  /** Synchronous destroy for exit paths. Idempotent. */
  destroySync(): void;
  /** True once destroy has completed. */
  readonly destroyed: boolean;
}

export interface ResolvedTopology {
  readonly rateBitsPerSec: number;
  readonly queueBytes: number;
  readonly burstBytes: number;
  readonly congestionControl: CongestionControl;
  readonly slowStartAfterIdle: boolean;
  readonly delayMs: { readonly down: number; readonly up: number } | null;
  readonly uplink: { readonly rateBitsPerSec: number; readonly queueBytes: number } | null;
}

/** Fills defaults and rejects impossible values with a message naming the option. */
export function resolveTopology(options: TopologyOptions): ResolvedTopology {
  const positive = (name: string, v: number): number => {
    if (!Number.isFinite(v) || v <= 0) throw new Error(`testbed option ${name} must be a positive number, got ${v}`);
    return v;
  };
  const rate = positive('rateBitsPerSec', options.rateBitsPerSec);
  const queue = positive('queueBytes', options.queueBytes);
  if (queue < 1514) throw new Error(`testbed option queueBytes must hold at least one packet (>= 1514), got ${queue}`);
  const burst = options.burstBytes ?? Math.max(5 * 1024, Math.ceil((rate / 8) * 0.004));
  positive('burstBytes', burst);
  const cc = options.congestionControl ?? 'cubic';
  if (!CONGESTION_CONTROLS.includes(cc)) {
    throw new Error(`testbed option congestionControl must be one of ${CONGESTION_CONTROLS.join(', ')}, got "${cc}"`);
  }
  let delay: ResolvedTopology['delayMs'] = null;
  if (options.delayMs) {
    const { down, up } = options.delayMs;
    for (const [name, v] of [
      ['delayMs.down', down],
      ['delayMs.up', up],
    ] as const) {
      if (!Number.isFinite(v) || v < 0 || v > 10000) throw new Error(`testbed option ${name} must be 0–10000 ms, got ${v}`);
    }
    if (down > 0 || up > 0) delay = { down, up };
  }
  let uplink: ResolvedTopology['uplink'] = null;
  if (options.uplink) {
    uplink = {
      rateBitsPerSec: positive('uplink.rateBitsPerSec', options.uplink.rateBitsPerSec),
      queueBytes: positive('uplink.queueBytes', options.uplink.queueBytes),
    };
  }
  return {
    rateBitsPerSec: Math.round(rate),
    queueBytes: Math.round(queue),
    burstBytes: Math.round(burst),
    congestionControl: cc,
    slowStartAfterIdle: options.slowStartAfterIdle ?? true,
    delayMs: delay,
    uplink,
  };
}

const ip = (...args: string[]): string => runSync('ip', args);
const sysctl = (ns: string, pairs: Record<string, string | number>): void => {
  const args = Object.entries(pairs).map(([k, v]) => `${k}=${v}`);
  runSync('ip', inNamespace(ns, 'sysctl', ['-q', '-w', ...args]));
};
const offloadsOff = (ns: string, dev: string): void => {
  runSync('ip', inNamespace(ns, 'ethtool', ['-K', dev, 'tso', 'off', 'gso', 'off', 'gro', 'off', 'tx', 'off']));
};

// The steps of createTestbed, in order. Each adds to what `created` lists
// (the namespaces), which is all that teardown needs: deleting a namespace
// deletes its links, routes and qdiscs.

/** Three namespaces (server, router, client) with loopback up and IPv6 off. */
function addNamespaces(names: RunNames, created: string[], log: (line: string) => void): void {
  const ipv6 = existsSync('/proc/sys/net/ipv6');
  for (const ns of [names.serverNs, names.routerNs, names.clientNs]) {
    ip('netns', 'add', ns);
    created.push(ns);
    if (ipv6) sysctl(ns, { 'net.ipv6.conf.all.disable_ipv6': 1, 'net.ipv6.conf.default.disable_ipv6': 1 });
    ip('-n', ns, 'link', 'set', 'lo', 'up');
  }
  log(`testbed ${names.id}: namespaces ${names.serverNs}, ${names.routerNs}, ${names.clientNs}`);
}

/** One end of a veth pair: its namespace, device and address. */
type VethEnd = readonly [ns: string, dev: string, addr: string];

/** The two veth pairs, server–router and router–client, end by end. */
function vethLinks(names: RunNames): Array<readonly [VethEnd, VethEnd]> {
  return [
    [
      [names.serverNs, names.serverDev, ADDRESSES.server],
      [names.routerNs, names.routerServerDev, ADDRESSES.routerServerSide],
    ],
    [
      [names.routerNs, names.routerClientDev, ADDRESSES.routerClientSide],
      [names.clientNs, names.clientDev, ADDRESSES.client],
    ],
  ];
}

/** veth pairs server–router and router–client, addressed, offloads off (so tbf sees real packets), up; the router forwards. */
function linkNamespaces(names: RunNames): void {
  // Router first so rp_filter defaults apply to the veths created next.
  sysctl(names.routerNs, {
    'net.ipv4.ip_forward': 1,
    'net.ipv4.conf.all.rp_filter': 0,
    'net.ipv4.conf.default.rp_filter': 0,
  });
  ip(
    'link',
    'add',
    names.serverDev,
    'netns',
    names.serverNs,
    'type',
    'veth',
    'peer',
    'name',
    names.routerServerDev,
    'netns',
    names.routerNs,
  );
  ip(
    'link',
    'add',
    names.routerClientDev,
    'netns',
    names.routerNs,
    'type',
    'veth',
    'peer',
    'name',
    names.clientDev,
    'netns',
    names.clientNs,
  );
  const plen = ADDRESSES.prefixLength;
  for (const [ns, dev, addr] of vethLinks(names).flat()) {
    ip('-n', ns, 'addr', 'add', `${addr}/${plen}`, 'dev', dev);
    offloadsOff(ns, dev);
    ip('-n', ns, 'link', 'set', dev, 'up');
  }
  sysctl(names.routerNs, {
    [`net.ipv4.conf.${names.routerServerDev}.rp_filter`]: 0,
    [`net.ipv4.conf.${names.routerClientDev}.rp_filter`]: 0,
  });
}

/** Routes through the router; the server's congestion control rides on its routes to the client (congctl). */
function addRoutes(names: RunNames, settings: ResolvedTopology): void {
  // Routes. The server's congestion control rides on its routes to the client (congctl).
  const cc = settings.congestionControl;
  ip(
    '-n',
    names.serverNs,
    'route',
    'add',
    ADDRESSES.clientSubnet,
    'via',
    ADDRESSES.routerServerSide,
    'dev',
    names.serverDev,
    'congctl',
    cc,
  );
  ip('-n', names.serverNs, 'route', 'add', 'default', 'via', ADDRESSES.routerServerSide, 'dev', names.serverDev, 'congctl', cc);
  ip('-n', names.clientNs, 'route', 'add', 'default', 'via', ADDRESSES.routerClientSide, 'dev', names.clientDev);
}

/** A device's MAC address, read from `ip -j link`. */
function macOf(ns: string, dev: string): string {
  let links: unknown;
  try {
    links = JSON.parse(ip('-n', ns, '-j', 'link', 'show', 'dev', dev));
  } catch (err) {
    throw new Error(`${ns}/${dev}: ip -j link did not print JSON: ${(err as Error).message}`);
  }
  const mac = Array.isArray(links) ? (links[0] as { address?: unknown } | undefined)?.address : undefined;
  if (typeof mac !== 'string' || !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(mac))
    throw new Error(`${ns}/${dev}: no MAC address in ip link output`);
  return mac;
}

/**
 * Each end of both links knows its peer's MAC for good (a permanent neighbour
 * entry), so ARP never crosses the bottleneck. Otherwise a neighbour entry that
 * went stale while the queue was full is probed again, and the replies wait
 * behind a multi-second queue past the probe timeout (or are dropped): the entry
 * fails, and a new connection gets EHOSTUNREACH (Chromium:
 * net::ERR_ADDRESS_UNREACHABLE). An access link of a home network is
 * point-to-point; its ARP does not wait behind the video.
 */
function pinNeighbours(names: RunNames): void {
  for (const [a, b] of vethLinks(names))
    for (const [[ns, dev], [peerNs, peerDev, peerAddr]] of [
      [a, b],
      [b, a],
    ])
      ip('-n', ns, 'neigh', 'replace', peerAddr, 'lladdr', macOf(peerNs, peerDev), 'dev', dev, 'nud', 'permanent');
}

/** TCP state that must not leak between runs: no saved metrics, slow start after idle as configured. */
function resetTcpState(names: RunNames, settings: ResolvedTopology): void {
  // TCP state that must not leak between runs.
  for (const ns of [names.serverNs, names.clientNs]) {
    sysctl(ns, {
      'net.ipv4.tcp_no_metrics_save': 1,
      'net.ipv4.tcp_slow_start_after_idle': settings.slowStartAfterIdle ? 1 : 0,
    });
    ip('-n', ns, 'tcp_metrics', 'flush', 'all');
  }
}

/** The bottleneck (server→client tbf) and the optional uplink shaper. */
function shapeLinks(names: RunNames, settings: ResolvedTopology, log: (line: string) => void): void {
  // The bottleneck (server→client) and the optional uplink shaper.
  runSync('tc', [
    '-n',
    names.routerNs,
    'qdisc',
    'add',
    'dev',
    names.routerClientDev,
    'root',
    'tbf',
    'rate',
    `${settings.rateBitsPerSec}bit`,
    'burst',
    String(settings.burstBytes),
    'limit',
    String(settings.queueBytes),
  ]);
  if (settings.uplink) {
    const upBurst = Math.max(5 * 1024, Math.ceil((settings.uplink.rateBitsPerSec / 8) * 0.004));
    runSync('tc', [
      '-n',
      names.routerNs,
      'qdisc',
      'add',
      'dev',
      names.routerServerDev,
      'root',
      'tbf',
      'rate',
      `${settings.uplink.rateBitsPerSec}bit`,
      'burst',
      String(upBurst),
      'limit',
      String(settings.uplink.queueBytes),
    ]);
  }
  log(
    `testbed ${names.id}: tbf rate ${settings.rateBitsPerSec} bit/s burst ${settings.burstBytes} B limit ${settings.queueBytes} B on ${names.routerClientDev}; server cc ${settings.congestionControl}`,
  );
}

/** Builds the topology. On any failure everything created so far is removed and the error rethrown. */
export async function createTestbed(options: TopologyOptions): Promise<Testbed> {
  const settings = resolveTopology(options);
  if (!options.skipPreflight) {
    assertPreflight({
      congestionControl: settings.congestionControl,
      capture: false,
      delay: settings.delayMs !== null,
      delayBinary: options.delayBinary,
    });
  }
  const log = options.log ?? ((): void => undefined);
  const names = runNames();
  const tracker = new ProcessTracker();
  const created: string[] = [];
  let destroyed = false;
  let delay: DelayElement | null = null;

  const sweepAndDelete = (): void => {
    for (const ns of created) {
      // Anything still inside our own namespaces was started by this testbed.
      const pids = trySync('ip', ['netns', 'pids', ns], { timeoutMs: 5000 });
      for (const pid of pids.stdout.split(/\s+/).filter(Boolean).map(Number)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    const failures: string[] = [];
    for (const ns of [...created].reverse()) {
      const r = trySync('ip', ['netns', 'del', ns], { timeoutMs: 10000 });
      if (!r.ok && existsSync(`/var/run/netns/${ns}`)) failures.push(r.error?.message ?? ns);
    }
    created.length = 0;
    if (failures.length > 0) throw new Error(`testbed ${names.id}: could not delete namespaces: ${failures.join('; ')}`);
  };

  const destroySync = (): void => {
    if (destroyed) return;
    tracker.stopAllSync();
    sweepAndDelete();
    destroyed = true;
    unregister();
    log(`testbed ${names.id}: destroyed`);
  };
  const unregister = registerCleanup(destroySync);

  const destroy = async (): Promise<void> => {
    if (destroyed) return;
    await tracker.stopAll();
    if (destroyed) return;
    sweepAndDelete();
    destroyed = true;
    unregister();
    log(`testbed ${names.id}: destroyed`);
  };

  try {
    addNamespaces(names, created, log);
    linkNamespaces(names);
    pinNeighbours(names);
    addRoutes(names, settings);
    resetTcpState(names, settings);
    shapeLinks(names, settings, log);
    if (settings.delayMs) {
      delay = await startDelayElement({
        tracker,
        routerNs: names.routerNs,
        tunDev: names.tunDev,
        ingressDevs: [names.routerServerDev, names.routerClientDev],
        downstreamSubnet: ADDRESSES.clientSubnet,
        downMs: settings.delayMs.down,
        upMs: settings.delayMs.up,
        binary: options.delayBinary,
      });
      log(`testbed ${names.id}: delay element ${settings.delayMs.down} ms down / ${settings.delayMs.up} ms up (pid ${delay.pid})`);
    }
  } catch (err) {
    destroySync();
    throw err;
  }

  const testbed: Testbed = {
    names,
    serverNs: names.serverNs,
    routerNs: names.routerNs,
    clientNs: names.clientNs,
    serverAddr: ADDRESSES.server,
    clientAddr: ADDRESSES.client,
    bottleneckDev: names.routerClientDev,
    settings,
    delay,
    exec: (ns, command, args, execOptions) => {
      if (destroyed) throw new Error(`testbed ${names.id} is destroyed; cannot start ${command}`);
      if (!created.includes(ns)) throw new Error(`testbed ${names.id}: "${ns}" is not one of its namespaces`);
      return tracker.spawn(ns, command, args, execOptions);
    },
    run: (ns, command, args, timeoutMs) => {
      if (destroyed) return Promise.reject(new Error(`testbed ${names.id} is destroyed; cannot run ${command}`));
      if (!created.includes(ns)) return Promise.reject(new Error(`testbed ${names.id}: "${ns}" is not one of its namespaces`));
      return runAsync('ip', inNamespace(ns, command, args), { timeoutMs });
    },
    stop: (pid, graceMs) => tracker.stop(pid, graceMs),
    pids: () => tracker.list().map((p) => p.pid),
    verifyCongestionControl: async (serverPorts) =>
      checkCongestionControl(await establishedConnections(testbed, null, Date.now() / 1000), settings.congestionControl, serverPorts),
    destroy,
    destroySync,
    get destroyed() {
      return destroyed;
    },
  };
  return testbed;
}
