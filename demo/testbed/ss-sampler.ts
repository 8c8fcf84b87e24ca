// Server-side TCP state over time: samples `ss -tinH state established` in the
// server namespace every 0.5 s and writes one record per connection (cwnd,
// RTT, ssthresh, bytes acked, retransmissions, congestion control). This is
// the sender's cwnd, the one the paper plots (§III, Figs. 2–3). The same read
// (establishedConnections) tells the harness which connections are open and
// which congestion control they run.

import { PeriodicSampler } from './sampler';
import { parseSsOutput, SsSample } from './ss-parse';
import type { Testbed } from './topology';

export interface SsSamplerOptions {
  /** Output JSON-lines file. */
  readonly out: string;
  /** Period, milliseconds (default 500). */
  readonly intervalMs?: number;
  /** Only connections whose server (local) port is listed (default: all). */
  readonly serverPorts?: readonly number[];
}

/**
 * The established TCP connections in the server namespace now, stamped `t`
 * (epoch seconds): those whose server (local) port is in `ports`, or all with
 * null. One `ss` call; the sampler below, the testbed's congestion-control
 * check (topology.ts) and the harness's page preload
 * (demo/harness/preload-pages.ts) all read the server's sockets this way.
 */
export async function establishedConnections(testbed: Testbed, ports: ReadonlySet<number> | null, t: number): Promise<SsSample[]> {
  const text = await testbed.run(testbed.serverNs, 'ss', ['-tinH', 'state', 'established'], 5000);
  return parseSsOutput(text, t).filter((s) => ports === null || ports.has(s.localPort));
}

/** Starts sampling; stop() the returned sampler to finish. Records have kind "ss". */
export function startSsSampler(testbed: Testbed, options: SsSamplerOptions): PeriodicSampler {
  const ports = options.serverPorts && options.serverPorts.length > 0 ? new Set(options.serverPorts) : null;
  return new PeriodicSampler({
    name: 'ss',
    out: options.out,
    intervalMs: options.intervalMs ?? 500,
    sample: async (t) => (await establishedConnections(testbed, ports, t)).map((s) => ({ kind: 'ss', ...s })),
  }).start();
}
