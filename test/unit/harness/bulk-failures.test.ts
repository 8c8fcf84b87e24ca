// Unit tests of the warning for bulk and control requests that failed during a
// run (demo/harness/bulk-failures.ts): a connect that failed mid-run is named
// with when and why, through summarizeRun too; the request cut by the flow's
// own stop is not a failure.

import { bulkFailureWarnings } from '../../../demo/harness/bulk-failures';
import { summarizeRun } from '../../../demo/harness/run-summary';
import type { FlowRecord } from '../../../demo/testbed/flow-log';
import { runData, T0, testPlan } from './fixtures';

const plan = testPlan(undefined, 1);
const control = plan.runs.find((r) => r.variant.name === 'control')!;

/** bulk-<port>.jsonl lines: a start, the given requests (seconds after T0), a stop at +100 s. */
function log(label: string, requests: Array<{ t0: number; t1: number; error?: string }>): FlowRecord[] {
  const where = { host: '10.201.1.2', port: 9001, path: '/bulk?bytes=100000000000' };
  return [
    { kind: 'start', label, t: T0, ...where },
    ...requests.map((r): FlowRecord => ({
      kind: 'request',
      label,
      t0: T0 + r.t0,
      t1: T0 + r.t1,
      bytes: 0,
      status: r.error ? null : 200,
      complete: !r.error,
      ...(r.error ? { error: r.error } : {}),
    })),
    { kind: 'stop', label, t: T0 + 100, ...where, bytes: 1e6 },
  ];
}

describe('bulk request failures', () => {
  const { record } = runData(control, 1.5);
  const bulk = record.flows.find((f) => f.role === 'bulk')!;
  const ctl = record.flows.find((f) => f.role === 'control')!;

  it('names a flow whose request failed mid-run, with when, how long and why', () => {
    const lines = log('bulk 1', [
      { t0: 0, t1: 8.2, error: 'connect EHOSTUNREACH 10.201.1.2:9001' },
      { t0: 8.4, t1: 100, error: 'aborted' },
    ]);
    const at = (T0 - (record.times.scheduleStartS ?? T0)).toFixed(1);
    expect(bulkFailureWarnings(record, { [bulk.id]: lines })).toEqual([
      `bulk 1 (port ${bulk.port}): 1 request failed; the first, asked at +${at} s, failed after 8.2 s: connect EHOSTUNREACH 10.201.1.2:9001 (the flow carried nothing until it asked again)`,
    ]);
  });

  it('does not count the request cut by the flow stopping, nor complete ones', () => {
    const lines = log('control', [
      { t0: 0, t1: 50 },
      { t0: 50, t1: 99.8, error: 'aborted' },
    ]);
    expect(bulkFailureWarnings(record, { [ctl.id]: lines })).toEqual([]);
  });

  it('reaches the run summary', () => {
    const data = runData(control, 1.5);
    const lines = log('bulk 1', [
      { t0: 10, t1: 12, error: 'socket hang up' },
      { t0: 20, t1: 30, error: 'connect ECONNREFUSED 10.201.1.2:9001' },
      { t0: 30, t1: 100, error: 'aborted' },
    ]);
    const summary = summarizeRun({ ...data, bulks: { [bulk.id]: lines } });
    expect(summary.warnings.filter((w) => w.startsWith('bulk 1'))).toEqual([
      expect.stringMatching(
        /^bulk 1 \(port \d+\): 2 requests failed; the first, asked at \+[0-9.]+ s, failed after 2\.0 s: socket hang up /,
      ),
    ]);
  });
});
