// Unit tests of the primer's settings (demo/harness/primer.ts) through
// `sprint ab`'s arguments, the run length it adds, and the summary's check
// that the primer had left before measuring began (run-summary.ts): a
// primer whose bytes fall inside the measured window is flagged, one that
// stopped before it is not. The primer running for real: the e2e
// test/e2e/harness/primer.test.ts.

import { describePlan, parseAbArgs } from '../../../demo/harness/ab-cli';
import { runLengthS } from '../../../demo/harness/plan';
import { DEFAULT_PRIMER_OVERLAP_S, parsePrimer, PRIMER_PORT, primerStopOffsetS } from '../../../demo/harness/primer';
import { primerWarning, runWindow } from '../../../demo/harness/run-summary';
import { runData, testPlan } from './fixtures';

describe('--primer', () => {
  it('parses LEAD[:OVERLAP] and adds the lead to each run', () => {
    expect(parsePrimer('30s', 90)).toEqual({ leadS: 30, overlapS: DEFAULT_PRIMER_OVERLAP_S });
    expect(parsePrimer('30s:45s', 90)).toEqual({ leadS: 30, overlapS: 45 });
    const p = parseAbArgs(['--primer', '30s', '--players', 'stock']);
    expect(p.plan.settings.primer).toEqual({ leadS: 30, overlapS: 20 });
    expect(runLengthS(p.plan.settings)).toBe(390 + 30);
    expect(describePlan(p)).toMatch(
      /primer: a bulk flow fills the queue 30 s before the flows start and stops 20 s after the last of them started/,
    );
    expect(primerStopOffsetS(p.plan.settings.schedule, p.plan.settings.primer!)).toBe(20);
    // Without it the settings carry no primer key at all (older folders' plans still match on --resume).
    expect('primer' in parseAbArgs(['--players', 'stock']).plan.settings).toBe(false);
  });

  it('stops OVERLAP after the later kind of flow started, with a staggered schedule too', () => {
    // Video alone for 60 s, then the bulk flows join: the primer must still be there when they open.
    const p = parseAbArgs(['--primer', '30s', '--players', 'stock', '--schedule', 'video:60s,both,bulk:60s']);
    expect(primerStopOffsetS(p.plan.settings.schedule, p.plan.settings.primer!)).toBe(80);
  });

  it('refuses a primer that would still run when measuring begins, or too short to fill the queue', () => {
    // 1.5 Mbit/s × 1536 KB takes 8.4 s to fill: a 10 s lead is under twice that.
    expect(() => parseAbArgs(['--primer', '10s', '--rate', '1.5mbit', '--queue', '1536kb'])).toThrow(
      /may not fill the queue of 1.5mbit-1536kb/,
    );
    expect(() => parseAbArgs(['--primer', '20s', '--rate', '1.5mbit', '--queue', '1536kb'])).not.toThrow();
    expect(() => parsePrimer('30s:90s', 90)).toThrow(/still run when measuring begins/);
    expect(() => parseAbArgs(['--primer', '30s', '--warmup', '10s'])).toThrow(/still run when measuring begins/);
    expect(() => parsePrimer('2s', 90)).toThrow(/cannot fill the queue/);
    expect(() => parsePrimer('30s:0.5s', 90)).toThrow(/at least 1 s/);
    expect(() => parsePrimer('30s:20s:5s', 90)).toThrow(/LEAD or LEAD:OVERLAP/);
    expect(() => parsePrimer('thirty', 90)).toThrow(/--primer lead/);
  });

  it('flags a primer whose bytes fall inside the measured window, not one that had left', () => {
    const plan = testPlan(undefined, 1);
    const spec = plan.runs[0]!;
    const data = runData(spec, 1.5);
    const primed = { ...data.record, settings: { ...data.record.settings, primer: { leadS: 30, overlapS: 20 } } };
    const start = data.record.times.scheduleStartS!;
    const { window } = runWindow(primed, data.wire);
    expect(window).not.toBeNull();
    const n = Object.values(data.wire.bytes)[0]!.length;
    const binOf = (s: number): number => Math.floor((s - data.wire.t0S) / data.wire.binS);
    // Gone 20 s in: nothing inside the window.
    const gone = new Array<number>(n).fill(0).map((_, i) => (i < binOf(start + 20) ? 1000 : 0));
    const left = { ...primed, times: { ...primed.times, primerStartS: start - 30, primerStopS: start + 20 } };
    expect(primerWarning(left, { ...data.wire, bytes: { ...data.wire.bytes, [String(PRIMER_PORT)]: gone } }, window)).toBeNull();
    // Still sending at the window's start.
    const stayed = gone.map((b, i) => (i === binOf(window!.fromS) + 1 ? 1500 : b));
    expect(primerWarning(left, { ...data.wire, bytes: { ...data.wire.bytes, [String(PRIMER_PORT)]: stayed } }, window)).toMatch(
      /still carried 1500 bytes inside the measured window/,
    );
    // Never stopped.
    expect(primerWarning({ ...primed, times: { ...primed.times, primerStopS: null } }, data.wire, window)).toMatch(/never stopped/);
    // No primer configured: nothing to say.
    expect(primerWarning(data.record, data.wire, window)).toBeNull();
    // The queue (256 KB) was at most 100 KB in the 5 s before the flows started: not filled.
    const sample = (dt: number, backlogBytes: number): Record<string, unknown> => ({ kind: 'qdisc', t: start + dt, backlogBytes });
    expect(primerWarning(left, data.wire, window, [sample(-20, 260000), sample(-3, 100000), sample(-1, 90000)])).toMatch(
      /did not fill the queue: it held at most 98 of 256 KB/,
    );
    expect(primerWarning(left, data.wire, window, [sample(-3, 250000), sample(-1, 240000)])).toBeNull();
  });
});
