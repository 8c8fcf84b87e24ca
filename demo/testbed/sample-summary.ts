// Summaries of the server-side TCP samples (ss.jsonl) and bottleneck queue
// samples (qdisc.jsonl) a run wrote: median/min/max of cwnd and RTT per
// server port, queue backlog and total drops. For printed figures and reports.

import { readJsonl } from './jsonl';
import { Summary, summarize } from './metrics';
import { QdiscSample } from './qdisc-parse';
import { SsSample } from './ss-parse';

export interface TcpSummary {
  readonly samples: number;
  readonly cwnd: Summary | null;
  readonly rttMs: Summary | null;
  readonly congestionControls: readonly string[];
  readonly retransTotal: number | null;
}

function maybe(values: number[]): Summary | null {
  return values.length > 0 ? summarize(values) : null;
}

/** cwnd (segments) and RTT (ms) over all samples of connections on one server port. */
export function summarizeSs(path: string, serverPort: number): TcpSummary {
  const rows = readJsonl<SsSample & { kind: string }>(path).filter((r) => r.kind === 'ss' && r.localPort === serverPort);
  const retrans = rows.map((r) => r.retransTotal).filter((v): v is number => v !== null);
  return {
    samples: rows.length,
    cwnd: maybe(rows.map((r) => r.cwnd).filter((v): v is number => v !== null)),
    rttMs: maybe(rows.map((r) => r.rttMs).filter((v): v is number => v !== null)),
    congestionControls: [...new Set(rows.map((r) => r.cc ?? 'unknown'))],
    retransTotal: retrans.length > 0 ? Math.max(...retrans) : null,
  };
}

export interface QueueSummary {
  readonly samples: number;
  readonly backlogBytes: Summary | null;
  /** Drops over the sampled period (last − first sample). */
  readonly drops: number;
}

export function summarizeQdisc(path: string): QueueSummary {
  const rows = readJsonl<QdiscSample & { kind: string }>(path).filter((r) => r.kind === 'qdisc');
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    samples: rows.length,
    backlogBytes: maybe(rows.map((r) => r.backlogBytes)),
    drops: first && last ? last.drops - first.drops : 0,
  };
}
