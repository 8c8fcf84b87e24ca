// Bulk and control downloads whose requests failed during a run (a connect
// that got EHOSTUNREACH or a refusal, a response cut off). The flow client
// (demo/testbed/flow-client.ts) logs each request with its error in
// bulk-<port>.jsonl and asks again, so in the figures a failure shows only as
// a flow that started late or paused; this names it in the run's summary. A
// request cut by the flow's own stop (the last one, ending at the stop) is not
// a failure. Pure: log lines in, warnings out.

import type { RunRecord } from './run';
import type { FlowRecord } from '../testbed/flow-log';

/** Seconds before a flow's stop record within which an unfinished request counts as cut by the stop. */
const STOP_SLACK_S = 1;

/** One warning per bulk or control flow with failed requests: how many, and when and why the first failed. */
export function bulkFailureWarnings(record: RunRecord, bulks: Readonly<Record<string, readonly FlowRecord[]>>): string[] {
  const startS = record.times.scheduleStartS;
  const out: string[] = [];
  for (const f of record.flows) {
    if (f.role === 'player') continue;
    const lines = bulks[f.id] ?? [];
    const stop = lines.find((r) => r.kind === 'stop');
    const stopS = stop?.kind === 'stop' ? stop.t : Infinity;
    const failed = lines.filter(
      (r): r is Extract<FlowRecord, { kind: 'request' }> => r.kind === 'request' && !r.complete && r.t1 < stopS - STOP_SLACK_S,
    );
    const first = failed[0];
    if (!first) continue;
    const at = startS !== null ? ` at +${(first.t0 - startS).toFixed(1)} s` : '';
    const why = first.error ?? `status ${String(first.status)}, incomplete`;
    out.push(
      `${f.label} (port ${f.port}): ${failed.length} request${failed.length === 1 ? '' : 's'} failed; the first, asked${at}, failed after ${(first.t1 - first.t0).toFixed(1)} s: ${why} ` +
        '(the flow carried nothing until it asked again)',
    );
  }
  return out;
}
