// Bulk and control downloads whose requests failed during a run (a connect
// that got EHOSTUNREACH or a refusal, a response cut off). The flow client
// (demo/testbed/flow-client.ts) logs each request with its error in
// bulk-<port>.jsonl and asks again, so in the figures a failure shows only as
// a flow that started late or paused; this names it in the run's summary. A
// request cut by the flow's own stop (the last one, ending at the stop) is not
// a failure. Pure: log lines in, warnings out.

import type { RunRecord } from './run';
import { num } from '../testbed/jsonl';

/** Seconds before a flow's stop record within which an unfinished request counts as cut by the stop. */
const STOP_SLACK_S = 1;

/** One warning per bulk or control flow with failed requests: how many, and when and why the first failed. */
export function bulkFailureWarnings(record: RunRecord, bulks: Readonly<Record<string, ReadonlyArray<Record<string, unknown>>>>): string[] {
  const startS = record.times.scheduleStartS;
  const out: string[] = [];
  for (const f of record.flows) {
    if (f.role === 'player') continue;
    const lines = bulks[f.id] ?? [];
    const stopS = num(lines.find((r) => r['kind'] === 'stop')?.['t']) ?? Infinity;
    const failed = lines.filter((r) => {
      const t1 = num(r['t1']);
      return r['kind'] === 'request' && r['complete'] === false && t1 !== null && t1 < stopS - STOP_SLACK_S;
    });
    const first = failed[0];
    if (!first) continue;
    const t0 = num(first['t0']);
    const t1 = num(first['t1']);
    const at = t0 !== null && startS !== null ? ` at +${(t0 - startS).toFixed(1)} s` : '';
    const took = t0 !== null && t1 !== null ? ` after ${(t1 - t0).toFixed(1)} s` : '';
    const why = typeof first['error'] === 'string' ? first['error'] : `status ${String(first['status'])}, incomplete`;
    out.push(
      `${f.label} (port ${f.port}): ${failed.length} request${failed.length === 1 ? '' : 's'} failed; the first, asked${at}, failed${took}: ${why} ` +
        '(the flow carried nothing until it asked again)',
    );
  }
  return out;
}
