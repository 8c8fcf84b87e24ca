// Unit tests: the harness counts what a wedged player did inside the measured
// window (demo/harness/player-summary.ts, run-summary.ts, ab.ts): a stall
// that began before the window and goes on into it is one stall with its
// in-window seconds, dash.js errors in the window are counted with the last
// one, and a player that downloaded no video segment or got under 30 % of its
// fair share is listed as a problem — in the summary and the one-line result —
// and so is a player that stood still with no stall reported, went back, or
// logged a decode error (dash.js's MediaSource reset: the wedge on the testbed).
// Synthetic player logs (poll lines as player-session.ts writes them).

import { resultLine } from '../../../demo/harness/ab';
import { stallLabel } from '../../../demo/harness/format';
import type { PlayerLine } from '../../../demo/harness/player-summary';
import { summarizePlayer } from '../../../demo/harness/player-summary';
import { summarizeRun } from '../../../demo/harness/run-summary';
import { aggregate, cellOf } from '../../../demo/harness/aggregate';
import { runData, T0, testPlan } from './fixtures';

/** Window of the fixtures: warm-up ends 21 s after T0, the phase at T0+100. */
const WINDOW = { fromS: T0 + 21, toS: T0 + 100 };

interface Wedge {
  /** When the stall began, seconds after T0. */
  stallFromS: number;
  /** When it ended (null: never). */
  stallToS: number | null;
  /** Whether the log carries the player's stallStartMs (newer players) or not (older logs). */
  withStallStart: boolean;
  /** Errors reported at these times (seconds after T0). */
  errorsAtS?: number[];
}

/** A player that played from T0+2, then stalled from stallFromS (one poll a second). */
function wedgedPlayer(w: Wedge): PlayerLine[] {
  const lines: PlayerLine[] = [{ kind: 'open', t: T0, url: 'http://x/', label: 'stock/bw-80', port: 8001, mode: 'stock', abr: 'bw-80' }];
  let media = 0;
  for (let i = 0; i < 100; i++) {
    const t = T0 + 0.5 + i;
    const rel = t - T0;
    const stalled = rel >= w.stallFromS && (w.stallToS === null || rel < w.stallToS);
    const stallEnd = w.stallToS === null ? rel : Math.min(rel, w.stallToS);
    const rebufferMs = rel >= w.stallFromS ? Math.round((stallEnd - w.stallFromS) * 1000) : 0;
    if (!stalled && rel > 2) media += 1;
    const errors = (w.errorsAtS ?? []).filter((s) => s <= rel).map((s) => `dash.js error 27: segment at ${s} s is not available`);
    const playback: Record<string, unknown> = {
      currentTimeSec: media,
      videoBufferSec: stalled ? 0 : 8,
      audioBufferSec: 8,
      videoBitrate: 6e6,
      dashThroughputBitsPerSec: 7.25e6,
      startupDelayMs: 2000,
      rebufferCount: rel >= w.stallFromS ? 1 : 0,
      rebufferMs,
      bitrateSwitches: 0,
      ended: false,
      errors,
    };
    if (w.withStallStart) {
      playback['stallStartMs'] = stalled ? (T0 + w.stallFromS) * 1000 : null;
      playback['errorCount'] = errors.length;
    }
    lines.push({
      kind: 'poll',
      t,
      ready: true,
      visibility: 'visible',
      requestedMode: 'stock',
      mode: 'stock',
      modeReason: 'stock requested',
      playback,
      estimates: {},
      counters: {},
    });
  }
  return lines;
}

describe('a stall that began before the window', () => {
  for (const withStallStart of [true, false]) {
    const log = withStallStart ? 'stallStartMs in the log' : 'an older log without stallStartMs';
    it(`counts as one stall with its seconds inside the window (${log})`, () => {
      const p = summarizePlayer(wedgedPlayer({ stallFromS: 10, stallToS: null, withStallStart }), WINDOW, {
        port: 8001,
        label: 'stock/bw-80',
      });
      expect(p.stallInProgressAtStart).toBe(true);
      expect(p.stalledAtEnd).toBe(true);
      expect(p.rebufferCount).toBe(1);
      // Polls at +20.5 (last before the window) and +99.5 (last in it): 79 s of the stall.
      expect(p.rebufferS).toBeCloseTo(79, 5);
      expect(p.playedS).toBe(0);
      expect(p.rebufferCountTotal).toBe(1);
    });

    it(`counts a stall that ended before the window not at all (${log})`, () => {
      const p = summarizePlayer(wedgedPlayer({ stallFromS: 10, stallToS: 15, withStallStart }), WINDOW, {
        port: 8001,
        label: 'stock/bw-80',
      });
      expect(p.stallInProgressAtStart).toBe(false);
      expect(p.stalledAtEnd).toBe(false);
      expect(p.rebufferCount).toBe(0);
      expect(p.rebufferS).toBe(0);
      expect(p.playedS).toBeGreaterThan(70);
    });

    it(`counts a stall that began before the window and ended in it once, with its in-window part (${log})`, () => {
      const p = summarizePlayer(wedgedPlayer({ stallFromS: 10, stallToS: 40, withStallStart }), WINDOW, {
        port: 8001,
        label: 'stock/bw-80',
      });
      expect(p.stallInProgressAtStart).toBe(true);
      expect(p.stalledAtEnd).toBe(false);
      expect(p.rebufferCount).toBe(1);
      expect(p.rebufferS).toBeCloseTo(40 - 20.5, 5);
    });
  }

  it('counts a stall that began inside the window by the counter, not twice', () => {
    const p = summarizePlayer(wedgedPlayer({ stallFromS: 50, stallToS: null, withStallStart: true }), WINDOW, {
      port: 8001,
      label: 'stock/bw-80',
    });
    expect(p.stallInProgressAtStart).toBe(false);
    expect(p.rebufferCount).toBe(1);
    expect(p.rebufferS).toBeCloseTo(49.5, 5);
  });

  it('counts dash.js errors inside the window and keeps the last one', () => {
    const p = summarizePlayer(wedgedPlayer({ stallFromS: 10, stallToS: null, withStallStart: true, errorsAtS: [5, 30, 60] }), WINDOW, {
      port: 8001,
      label: 'stock/bw-80',
    });
    expect(p.errorsInWindow).toBe(2);
    expect(p.lastError).toBe('dash.js error 27: segment at 60 s is not available');
  });
});

describe('a player wedged without a stall', () => {
  /**
   * Plays from T0+2, then at T0+40 logs a MEDIA_ERR_DECODE and goes back to
   * 0 (dash.js reopened the MediaSource), where it stays with no stall reported.
   */
  function resetPlayer(): PlayerLine[] {
    const lines = wedgedPlayer({ stallFromS: 200, stallToS: null, withStallStart: true });
    for (const l of lines) {
      if (l.kind !== 'poll') continue;
      const pb = l['playback'] as Record<string, unknown>;
      if (l.t - T0 >= 40) pb['currentTimeSec'] = 0;
    }
    lines.push({
      kind: 'console',
      t: T0 + 40,
      level: 'error',
      text: '[StreamController] A MEDIA_ERR_DECODE occured: Resetting the MediaSource',
    });
    return lines;
  }

  it('counts the time playback stood still, the seconds it went back and the decode error', () => {
    const p = summarizePlayer(resetPlayer(), WINDOW, { port: 8001, label: 'sprint' });
    // polls at +39.5 (played 38) and +40.5 (0); still from +40.5 to +99.5
    expect(p.rewoundS).toBe(38);
    expect(p.frozenS).toBeCloseTo(60, 5);
    expect(p.decodeErrors).toBe(1);
    expect(p.rebufferCount).toBe(0);
    expect(p.playedS).toBe(-19);
  });

  it('a player that played through has none of them', () => {
    const p = summarizePlayer(wedgedPlayer({ stallFromS: 200, stallToS: null, withStallStart: true }), WINDOW, {
      port: 8001,
      label: 'sprint',
    });
    expect(p).toMatchObject({ frozenS: 0, rewoundS: 0, decodeErrors: 0 });
  });

  it('a stall is not standing still', () => {
    const p = summarizePlayer(wedgedPlayer({ stallFromS: 10, stallToS: null, withStallStart: true }), WINDOW, {
      port: 8001,
      label: 'sprint',
    });
    expect(p.frozenS).toBe(0);
  });
});

describe('rescues', () => {
  it('counts the rescues the player recorded inside the window', () => {
    const lines = wedgedPlayer({ stallFromS: 200, stallToS: null, withStallStart: true });
    const last = lines[lines.length - 1] as PlayerLine;
    last['rescues'] = [{ atMs: (T0 + 10) * 1000 }, { atMs: (T0 + 30) * 1000 }, { atMs: (T0 + 40) * 1000 }];
    const p = summarizePlayer(lines, WINDOW, { port: 8001, label: 'stock/bw-80' });
    expect(p.rescues).toBe(2);
  });
});

describe('problems and the one-line result', () => {
  const plan = testPlan();
  const spec = plan.runs.find((r) => r.variant.name === 'stock' && r.repeat === 1)!;

  /** The fixture run with the stock player replaced by a wedged one; the video gets videoMbit on the wire. */
  function wedgedRun(videoMbit: number): ReturnType<typeof summarizeRun> {
    const data = runData(spec, videoMbit);
    const id = Object.keys(data.players)[0]!;
    const lines = wedgedPlayer({ stallFromS: 10, stallToS: null, withStallStart: true, errorsAtS: [60] });
    return summarizeRun({ ...data, players: { [id]: lines } });
  }

  it('lists a player with no video segment, under 30 % of its share and stalled at the end, with its last error', () => {
    const run = wedgedRun(0.15);
    const problems = run.playerProblems ?? [];
    expect(problems.some((p) => p.includes('downloaded no video segment in the window') && p.includes('dash.js error 27'))).toBe(true);
    expect(problems.some((p) => /got 10\.0% of its fair share \(under 30%\)/.test(p))).toBe(true);
    expect(problems.some((p) => p.includes('1 dash.js error(s) in the window'))).toBe(true);
    expect(problems.some((p) => p.includes('stalled at the end of the window') && p.includes('already in progress'))).toBe(true);
    // Also warnings, so the aggregate lists them under the cell's problems (summary.md and report.html).
    for (const p of problems) expect(run.warnings).toContain(p);
    const cell = cellOf(aggregate([run]), run.conditionKey, 'stock');
    expect(cell?.problems.some((p) => p.includes('downloaded no video segment'))).toBe(true);
    expect(cell?.metrics.rebufferCount?.median).toBe(1);
    expect(cell?.metrics.rebufferS?.median).toBeCloseTo(79, 5);
  });

  it('shows the in-window stall and the problems in the one-line result', () => {
    const run = wedgedRun(0.15);
    const line = resultLine(spec, { status: 'ok', error: null } as never, run);
    expect(line).toContain('1 stall, 79 s (stalled at the end)');
    expect(line).toContain('1 error(s)');
    expect(line).toContain('0 video segments');
    expect(line).toContain('PROBLEMS: player stock: downloaded no video segment');
  });

  it('lists a player that went back and stood still after a decode error, with no stall reported', () => {
    const data = runData(spec, 1.2);
    const id = Object.keys(data.players)[0]!;
    const lines = wedgedPlayer({ stallFromS: 200, stallToS: null, withStallStart: true });
    for (const l of lines) if (l.kind === 'poll' && l.t - T0 >= 40) (l['playback'] as Record<string, unknown>)['currentTimeSec'] = 0;
    lines.push({ kind: 'console', t: T0 + 40, level: 'error', text: 'A MEDIA_ERR_DECODE occured: Resetting the MediaSource' });
    const problems = summarizeRun({ ...data, players: { [id]: lines } }).playerProblems ?? [];
    expect(problems).toEqual([
      'player stock: downloaded no video segment in the window',
      'player stock: 1 MEDIA_ERR_DECODE in the window: dash.js reset the MediaSource',
      'player stock: playback went back 38.0 s in the window',
      'player stock: playback stood still for 60 s with no stall reported (wedged)',
    ]);
  });

  it('lists nothing for a player that played through the window', () => {
    const run = summarizeRun(runData(spec, 1.2));
    expect(run.playerProblems).toEqual([]);
    const line = resultLine(spec, { status: 'ok', error: null } as never, run);
    expect(line).toContain('1 stall, 3.0 s');
    expect(line).not.toContain('PROBLEMS');
  });
});

describe('stallLabel', () => {
  it('reads as a count and the seconds', () => {
    expect(stallLabel(0, 0)).toBe('0 stalls');
    expect(stallLabel(1, 299.2)).toBe('1 stall, 299 s');
    expect(stallLabel(2, 3.04)).toBe('2 stalls, 3.0 s');
    expect(stallLabel(null, null)).toBe('– stalls');
  });
});
