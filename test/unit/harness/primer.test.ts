// Unit tests of the primer's settings (demo/harness/primer.ts) through
// `sprint ab`'s arguments, the run length it adds, and the summary's check
// that the primer had left before measuring began (run-summary.ts): a
// primer whose bytes fall inside the measured window is flagged, one that
// stopped before it is not. The primer running for real: the e2e
// test/e2e/harness/primer.test.ts.

import { describePlan, parseAbArgs } from '../../../demo/harness/ab-cli';
import { runLengthS } from '../../../demo/harness/plan';
import {
  DEFAULT_PRIMER_OVERLAP_S,
  parsePrimer,
  PRIMER_PORT,
  primerLatestStopOffsetS,
  primerLeadProblem,
  primerPlaybackDecision,
  primerStopOffsetS,
  queueFillS,
} from '../../../demo/harness/primer';
import { primerPlaybackWarning, primerWarning, runWindow } from '../../../demo/harness/run-summary';
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
    expect(() => parsePrimer('30s:playing+', 90)).toThrow(/no overlap after "playing\+"/);
    expect(() => parsePrimer('30s:playing+90s', 90)).toThrow(/still run when measuring begins/);
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

  // Behind a multi-second queue a player takes tens of seconds to start
  // (1.5 Mbit/s × 512 KB: a train connection opened 31 s and 63 s in), so
  // the primer can wait for every player to play, and leaves at the latest
  // three queue delays (at least 10 s) before measuring begins.
  it('with playing+OVERLAP stops OVERLAP after the last player started playing, within its bounds', () => {
    expect(parsePrimer('30s:playing+20s', 90)).toEqual({ leadS: 30, overlapS: 20, until: 'playing' });
    const p = parseAbArgs(['--primer', '30s:playing+20s', '--players', 'stock', '--rate', '1.5mbit', '--queue', '1536kb']);
    const primer = p.plan.settings.primer!;
    expect(primer).toEqual({ leadS: 30, overlapS: 20, until: 'playing' });
    expect(describePlan(p)).toMatch(
      /stops 20 s after every player started playing \(at the latest 3 queue delays, at least 10 s, before measuring begins\)/,
    );
    const schedule = p.plan.settings.schedule;
    const condition = p.plan.runs[0]!.condition;
    // 1536 KB at 1.5 Mbit/s is an 8.4 s queue: measuring begins at 90 s, the primer leaves by 90 − 25.2 s.
    expect(queueFillS(condition.queueBytes, condition.rateBitsPerSec)).toBeCloseTo(8.39, 2);
    const latest = primerLatestStopOffsetS(schedule, 90, condition);
    expect(latest).toBeCloseTo(90 - 3 * 8.39, 1);
    // A shallow queue: at least 10 s.
    expect(primerLatestStopOffsetS(schedule, 90, { queueBytes: 256 * 1024, rateBitsPerSec: 3e6 })).toBe(80);
    // Waits while a player has not started; never before OVERLAP after the flows started; never past the latest.
    const T0 = 1000;
    const at = (nowOffsetS: number, playingSinceS: Array<number | null>, players = playingSinceS.length) =>
      primerPlaybackDecision(schedule, primer, latest, { players, playingSinceS, scheduleStartS: T0, nowS: T0 + nowOffsetS });
    // two players, one not playing (or its window not open yet): waits until the latest, then leaves
    expect(at(40, [T0 + 12, null])).toEqual({ lastPlayingS: null, stop: null });
    expect(at(40, [T0 + 12], 2)).toEqual({ lastPlayingS: null, stop: null });
    expect(at(latest, [T0 + 12, null])).toEqual({ lastPlayingS: null, stop: 'latest' });
    // both playing, the later at +12 s: leaves at +32 s
    expect(at(31.9, [T0 + 12, T0 + 3])).toEqual({ lastPlayingS: T0 + 12, stop: null });
    expect(at(32, [T0 + 12, T0 + 3])).toEqual({ lastPlayingS: T0 + 12, stop: 'playing' });
    // playing half a second after the flows started: leaves OVERLAP after that
    expect(at(20.4, [T0 + 0.5])).toEqual({ lastPlayingS: T0 + 0.5, stop: null });
    expect(at(20.5, [T0 + 0.5])).toEqual({ lastPlayingS: T0 + 0.5, stop: 'playing' });
    // playing too late for OVERLAP before the latest: leaves at the latest
    expect(at(latest - 0.1, [T0 + 60])).toEqual({ lastPlayingS: T0 + 60, stop: null });
    expect(at(latest, [T0 + 60])).toEqual({ lastPlayingS: T0 + 60, stop: 'latest' });
    // no players (a control run): OVERLAP after the flows started
    expect(at(19.9, [], 0)).toEqual({ lastPlayingS: null, stop: null });
    expect(at(20, [], 0)).toEqual({ lastPlayingS: null, stop: 'schedule' });
    // a staggered schedule (video alone 60 s, then both): never before OVERLAP after the bulk flows joined
    const staggered = parseAbArgs(['--primer', '30s:playing+20s', '--players', 'stock', '--schedule', 'video:60s,both', '--warmup', '90s']);
    const sched = staggered.plan.settings.schedule;
    const late = primerLatestStopOffsetS(sched, 90, staggered.plan.runs[0]!.condition);
    expect(late).toBe(60 + 80);
    const stag = (nowOffsetS: number) =>
      primerPlaybackDecision(sched, primer, late, { players: 1, playingSinceS: [T0 + 10], scheduleStartS: T0, nowS: T0 + nowOffsetS });
    expect(stag(79.9).stop).toBeNull();
    expect(stag(80).stop).toBe('schedule');
    // The plain form keeps its settings (and so the plans of folders made with it).
    expect(parseAbArgs(['--primer', '30s', '--players', 'stock']).plan.settings.primer).toEqual({ leadS: 30, overlapS: 20 });
  });

  it('refuses a primer that waits for playback when the warm-up leaves the flows no time to settle after it', () => {
    const deep = [{ key: '1.5mbit-1536kb', queueBytes: 1536 * 1024, rateBitsPerSec: 1.5e6 }];
    // 70 s overlap + 25.2 s settling > 90 s warm-up
    expect(primerLeadProblem({ leadS: 30, overlapS: 70, until: 'playing' }, deep, 90)).toMatch(
      /need 25.2 s after the primer left before measuring begins.*give a longer --warmup/,
    );
    expect(primerLeadProblem({ leadS: 30, overlapS: 70, until: 'playing' }, deep, 120)).toBeNull();
    // the plain form stops at a fixed time and is only held to the warm-up itself
    expect(primerLeadProblem({ leadS: 30, overlapS: 70 }, deep, 90)).toBeNull();
    expect(() => parseAbArgs(['--primer', '30s:playing+70s', '--rate', '1.5mbit', '--queue', '1536kb'])).toThrow(/give a longer --warmup/);
  });

  it('names a primer that had to leave at its latest, before every player was playing', () => {
    const plan = testPlan(undefined, 1);
    const data = runData(plan.runs[0]!, 1.5);
    const start = data.record.times.scheduleStartS!;
    const primed = (times: object) => ({
      ...data.record,
      settings: { ...data.record.settings, primer: { leadS: 30, overlapS: 20, until: 'playing' as const } },
      times: { ...data.record.times, primerStartS: start - 30, primerStopS: start + 65, ...times },
    });
    expect(primerPlaybackWarning(primed({ primerStoppedBy: 'latest', primerPlayersPlayingS: null }))).toBe(
      'the primer left at its latest at +65.0 s, before it could stay 20 s past playback (a player had not started playing); a longer --warmup gives it room',
    );
    expect(primerPlaybackWarning(primed({ primerStoppedBy: 'latest', primerPlayersPlayingS: start + 58 }))).toMatch(
      /the last player started playing at \+58.0 s/,
    );
    expect(primerPlaybackWarning(primed({ primerStoppedBy: 'playing', primerPlayersPlayingS: start + 30 }))).toBeNull();
    expect(primerPlaybackWarning(data.record)).toBeNull();
  });
});
