// Unit tests of a BW-x player's expected fair share (paper §V-C, Fig. 11;
// demo/harness/expected-share.ts) and of the report table built on it: the
// paper's min(100 %, x), video's (the same of the fair share less the audio's
// bitrate), the ladder's highest rung at or under x % of video's share, and a run
// summary's video bytes measured against all three.

import { aggregate, cellOf } from '../../../demo/harness/aggregate';
import { expectedShare } from '../../../demo/harness/expected-share';
import { bwPercentOf } from '../../../src/abr/bw-preset';
import { summaryTables } from '../../../demo/harness/report-tables';
import { summarizeRun } from '../../../demo/harness/run-summary';
import { AUDIO, VIDEO_LADDER } from '../../../demo/content/recipe';
import { runData, testPlan } from './fixtures';

const DEMO = VIDEO_LADDER.map((r) => r.bandwidth);

describe('expected share of a BW-x player', () => {
  it('reads x from bw-<x> presets only', () => {
    expect(bwPercentOf('bw-80')).toBe(80);
    expect(bwPercentOf('bw-120')).toBe(120);
    expect(bwPercentOf('buffer')).toBeNull();
    expect(bwPercentOf('dash-default')).toBeNull();
    expect(bwPercentOf(null)).toBeNull();
    expect(bwPercentOf(80)).toBeNull();
    expect(bwPercentOf('bw-12345')).toBeNull();
  });

  it("caps the paper's figure at 100 % and takes the ladder's highest rung under x % of the share", () => {
    // 1.43 Mbit/s fair share, BW-80: 1.144 Mbit/s allowed, the demo ladder's 0.7 rung is the highest under it.
    const e = expectedShare('bw-80', 1.43e6, DEMO)!;
    expect(e.paperPercent).toBe(80);
    expect(e.ladderRungBps).toBe(700_000);
    expect(e.ladderPercent).toBeCloseTo(48.95, 2);
    // Above 100 % the expectation is the whole fair share; BW-120 asks for 1.92 Mbit/s of 1.6: the 1.5 rung, under the share.
    const over = expectedShare('bw-120', 1.6e6, DEMO)!;
    expect(over.paperPercent).toBe(100);
    expect(over.ladderRungBps).toBe(1_500_000);
    expect(over.ladderPercent).toBeCloseTo(93.75, 6);
    // A rung above the share (BW-120 at 1.43 Mbit/s asks for 1.716: the 1.5 rung): the buffer never fills, the share is the expectation.
    const above = expectedShare('bw-120', 1.43e6, DEMO)!;
    expect(above.ladderRungBps).toBe(1_500_000);
    expect(above.ladderPercent).toBe(100);
  });

  it("takes the ladder's rung under x % of video's share, the budget BW-x computes, not under the paper's figure", () => {
    const bwx = [300e3, 700e3, 850e3, 1e6, 1.1e6, 1.2e6, 1.35e6, 1.5e6, 3e6, 6e6];
    const bwx2 = [...bwx, 450e3, 600e3];
    // The 3 Mbit/s testbed: 1.43 Mbit/s fair share, 0.128 of audio. BW-80: 0.8 × 1.302 = 1.04 Mbit/s for video (the paper's 1.144 would name 1.1).
    const e80 = expectedShare('bw-80', 1.43e6, bwx, 128_000)!;
    expect(e80.ladderRungBps).toBe(1_000_000);
    expect(e80.ladderPercent).toBeCloseTo(100 / 1.43, 6);
    // BW-100: 1.302 (the paper's 1.43 would name 1.35); BW-50: 0.651, on bwx only the bottom rung (the paper's 0.715 would name 0.7).
    expect(expectedShare('bw-100', 1.43e6, bwx, 128_000)!.ladderRungBps).toBe(1_200_000);
    expect(expectedShare('bw-50', 1.43e6, bwx, 128_000)!.ladderRungBps).toBe(300_000);
    expect(expectedShare('bw-50', 1.43e6, bwx2, 128_000)!.ladderRungBps).toBe(600_000);
    // BW-120 asks for 1.56 of video's 1.302: the 1.5 rung, above the share; the expectation is video's share.
    const e120 = expectedShare('bw-120', 1.43e6, bwx, 128_000)!;
    expect(e120.ladderRungBps).toBe(1_500_000);
    expect(e120.ladderPercent).toBeCloseTo(e120.videoPercent, 9);
  });

  it("takes the audio's bitrate off the fair share for video's figure, and leaves the paper's as it was", () => {
    // The 3 Mbit/s testbed: 1.43 Mbit/s fair share, 0.128 Mbit/s of audio; BW-80 leaves video 0.8 × 1.302 Mbit/s.
    const e = expectedShare('bw-80', 1.43e6, DEMO, 128_000)!;
    expect(e.paperPercent).toBe(80);
    expect(e.videoPercent).toBeCloseTo((100 * 0.8 * 1.302e6) / 1.43e6, 6);
    // Above 100 % video's figure is the whole fair share less the audio.
    expect(expectedShare('bw-120', 1.43e6, DEMO, 128_000)!.videoPercent).toBeCloseTo((100 * 1.302e6) / 1.43e6, 6);
    // A video-only player (no audio given): video's figure is the paper's.
    expect(expectedShare('bw-50', 1.43e6, DEMO)!.videoPercent).toBe(50);
    // Audio that takes the whole share leaves video nothing; a negative or non-finite bitrate is an error.
    expect(expectedShare('bw-80', 1e5, DEMO, 128_000)!.videoPercent).toBe(0);
    expect(() => expectedShare('bw-80', 1.43e6, DEMO, -1)).toThrow(RangeError);
    expect(() => expectedShare('bw-80', 1.43e6, DEMO, Number.NaN)).toThrow(RangeError);
  });

  it('falls back to the lowest rung when none fits, and says nothing for other ABRs or without a fair share', () => {
    expect(expectedShare('bw-50', 0.4e6, DEMO)!.ladderRungBps).toBe(300_000);
    // The lowest rung above video's share: the player cannot sustain it, video's share is the expectation.
    expect(expectedShare('bw-50', 0.25e6, DEMO)!.ladderPercent).toBe(100);
    expect(expectedShare('bw-50', 0.25e6, DEMO, 50_000)!.ladderPercent).toBeCloseTo(80, 9);
    expect(expectedShare('buffer', 1.5e6, DEMO)).toBeNull();
    expect(expectedShare('bw-80', null, DEMO)).toBeNull();
    expect(expectedShare('bw-80', 1.5e6, [])).toBeNull();
  });
});

describe('expected share in the summary and the report', () => {
  const plan = testPlan([{ label: 'sprint/bw-80', mode: 'sprint', abr: 'bw-80' }], 1);
  const spec = plan.runs.find((r) => r.variant.kind === 'player')!;

  function summaryWithVideo(videoBytes: number, abr: string): ReturnType<typeof summarizeRun> {
    const data = runData(spec, 1.2);
    for (const lines of Object.values(data.players)) {
      const open = lines[0]!;
      lines[0] = { ...open, abr };
    }
    const from = (summarizeRun(data).window as { fromS: number }).fromS;
    const log = [{ url: '/media/test/unchunked/rep-1.mp4', bytes: videoBytes, start: (from + 1) * 1000, end: (from + 2) * 1000 }];
    return summarizeRun({ ...data, origins: { '8001': log }, mediaFiles: new Map([['rep-1.mp4', 'video' as const]]) });
  }

  it("measures the video bytes against the paper's, video's and the ladder's expectation", () => {
    const s = summaryWithVideo(4_000_000, 'bw-80');
    expect(s.videoLadderBps).toEqual(DEMO);
    expect(s.audioBps).toBe(AUDIO.bandwidth);
    const agg = aggregate([s]);
    const cell = cellOf(agg, '3mbit-256kb', 'sprint/bw-80')!;
    const videoOnly = s.flows.find((f) => f.role === 'player')!.videoOnlyPercentOfFairShare!;
    const e = expectedShare('bw-80', s.fairShareBitsPerSec, DEMO, AUDIO.bandwidth)!;
    expect(e.videoPercent).toBeLessThan(80);
    expect(cell.metrics.percentOfPaperExpected!.median).toBeCloseTo((100 * videoOnly) / 80, 6);
    expect(cell.metrics.percentOfVideoExpected!.median).toBeCloseTo((100 * videoOnly) / e.videoPercent, 6);
    expect(cell.metrics.percentOfLadderExpected!.median).toBeCloseTo((100 * videoOnly) / e.ladderPercent, 6);
    const table = summaryTables(agg).find((t) => t.id === 'expected-share')!;
    expect(table.blocks[0]!.rows[0]!.cells[1]).toMatch(/^\d+\.\d \/ \d+\.\d \/ \d+\.\d \(ladder's \d+\.\d %\)$/);
  });

  it("reads a summary written before the audio was recorded as a video-only player's", () => {
    const { audioBps: _audio, ...old } = summaryWithVideo(4_000_000, 'bw-80');
    const cell = cellOf(aggregate([old]), '3mbit-256kb', 'sprint/bw-80')!;
    expect(cell.metrics.percentOfVideoExpected!.median).toBeCloseTo(cell.metrics.percentOfPaperExpected!.median, 9);
  });

  it('has no expected-share table when no player runs a BW-x rule', () => {
    const agg = aggregate([summaryWithVideo(4_000_000, 'buffer')]);
    expect(cellOf(agg, '3mbit-256kb', 'sprint/bw-80')!.metrics.percentOfPaperExpected).toBeUndefined();
    expect(summaryTables(agg).some((t) => t.id === 'expected-share')).toBe(false);
  });
});
