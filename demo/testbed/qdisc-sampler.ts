// Bottleneck queue over time: samples `tc -s -j qdisc show dev <bottleneck>`
// in the router namespace every 0.5 s (backlog bytes/packets, drops) and
// writes one record per sample (kind "qdisc").

import { parseQdiscJson } from './qdisc-parse';
import { PeriodicSampler } from './sampler';
import type { Testbed } from './topology';

export interface QdiscSamplerOptions {
  readonly out: string;
  /** Period, milliseconds (default 500). */
  readonly intervalMs?: number;
}

export function startQdiscSampler(testbed: Testbed, options: QdiscSamplerOptions): PeriodicSampler {
  const dev = testbed.bottleneckDev;
  return new PeriodicSampler({
    name: 'qdisc',
    out: options.out,
    intervalMs: options.intervalMs ?? 500,
    sample: async (t) => {
      const text = await testbed.run(testbed.routerNs, 'tc', ['-s', '-j', 'qdisc', 'show', 'dev', dev], 5000);
      return [{ kind: 'qdisc', ...parseQdiscJson(text, t, dev) }];
    },
  }).start();
}
