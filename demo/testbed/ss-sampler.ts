// Server-side TCP state over time: samples `ss -tinH state established` in the
// server namespace every 0.5 s and writes one record per connection (cwnd,
// RTT, ssthresh, bytes acked, retransmissions, congestion control). This is
// the sender's cwnd, the one the paper plots (§III, Figs. 2–3).

import { PeriodicSampler } from './sampler';
import { parseSsOutput } from './ss-parse';
import type { Testbed } from './topology';

export interface SsSamplerOptions {
  /** Output JSON-lines file. */
  readonly out: string;
  /** Period, milliseconds (default 500). */
  readonly intervalMs?: number;
  /** Only connections whose server (local) port is listed (default: all). */
  readonly serverPorts?: readonly number[];
}

/** Starts sampling; stop() the returned sampler to finish. Records have kind "ss". */
export function startSsSampler(testbed: Testbed, options: SsSamplerOptions): PeriodicSampler {
  const ports = options.serverPorts && options.serverPorts.length > 0 ? new Set(options.serverPorts) : null;
  return new PeriodicSampler({
    name: 'ss',
    out: options.out,
    intervalMs: options.intervalMs ?? 500,
    sample: async (t) => {
      const text = await testbed.run(testbed.serverNs, 'ss', ['-tinH', 'state', 'established'], 5000);
      return parseSsOutput(text, t)
        .filter((s) => ports === null || ports.has(s.localPort))
        .map((s) => ({ kind: 'ss', ...s }));
    },
  }).start();
}
