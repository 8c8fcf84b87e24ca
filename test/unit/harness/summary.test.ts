// Unit tests of the per-run figures and their aggregation over repeats
// (demo/harness/run-summary.ts, player-summary.ts, aggregate.ts): % of fair
// share over the window after the warm-up (paper §V-A), unfairness √(1−JFI),
// player QoE within the window, and median [min–max] per column with the
// bulk-vs-bulk control, failed runs left out and reported.

import { aggregate, cellOf, runMetrics } from '../../../demo/harness/aggregate';
import { maxInFlight, summarizePlayer, type PlayerLine } from '../../../demo/harness/player-summary';
import { summaryTables } from '../../../demo/harness/report-tables';
import { lossesOf, runWindow, summarizeRun } from '../../../demo/harness/run-summary';
import { playerLines, runData, T0, testPlan, WARMUP_S } from './fixtures';

const plan = testPlan();
const stockRun = plan.runs.find((r) => r.variant.name === 'stock' && r.repeat === 1)!;
const controlRun = plan.runs.find((r) => r.variant.name === 'control' && r.repeat === 1)!;

describe('run summary', () => {
  it('measures fair share after the warm-up, from when the flows meet', () => {
    const s = summarizeRun(runData(stockRun, 1.2));
    // Flows meet 1 s in (the video's first bytes); the warm-up follows; the both phase ends at 100 s.
    expect(s.window!.meetS).toBeCloseTo(T0 + 1, 5);
    expect(s.window!.fromS).toBeCloseTo(T0 + 1 + WARMUP_S, 5);
    expect(s.window!.toS).toBeCloseTo(T0 + 100, 5);
    expect(s.totalBitsPerSec! / 1e6).toBeCloseTo(3, 3);
    expect(s.fairShareBitsPerSec! / 1e6).toBeCloseTo(1.5, 3);
    const video = s.flows.find((f) => f.role === 'player')!;
    const bulk = s.flows.find((f) => f.role === 'bulk')!;
    expect(video.percentOfFairShare).toBeCloseTo(80, 1);
    expect(bulk.percentOfFairShare).toBeCloseTo(120, 1);
    expect(s.utilization).toBeCloseTo(1, 3);
    // √(1 − JFI) of 1.2 vs 1.8: JFI = 9 / (2 × 4.68)
    expect(s.unfairnessAll).toBeCloseTo(Math.sqrt(1 - 9 / 9.36), 4);
    expect(s.unfairnessVideo).toBeNull();
  });

  it("takes cwnd and RTT from the port's busiest connection, not its audio or probe connections", () => {
    const data = runData(stockRun, 1.2);
    const extra = data.ss
      .filter((r) => r['localPort'] === 8001)
      .map((r, i) => ({ ...r, peerPort: 51000, cwnd: 10, rttMs: 5, bytesAcked: 1000 + i }));
    const busy = data.ss.map((r, i) => (r['localPort'] === 8001 ? { ...r, bytesAcked: 1000 + i * 100_000 } : r));
    const s = summarizeRun({ ...data, ss: [...busy, ...extra] });
    expect(s.tcp['8001']!.connections).toBe(2);
    expect(s.tcp['8001']!.cwnd!.median).toBe(20);
    expect(s.tcp['8001']!.rttMs!.median).toBe(600);
  });

  it("splits a player's bytes into video and audio from its origin log", () => {
    const data = runData(stockRun, 1.2);
    const files = new Map([
      ['rep-0.mp4', 'video' as const],
      ['rep-5.mp4', 'audio' as const],
    ]);
    const from = (summarizeRun(data).window as { fromS: number }).fromS;
    const log = [
      { url: '/media/demo/unchunked/rep-0.mp4', bytes: 1_000_000, start: (from + 1) * 1000, end: (from + 2) * 1000 },
      { url: '/media/demo/unchunked/rep-5.mp4', bytes: 50_000, start: (from + 3) * 1000, end: (from + 3) * 1000 },
    ];
    const s = summarizeRun({ ...data, origins: { '8001': log }, mediaFiles: files });
    const video = s.flows.find((f) => f.role === 'player')!;
    const sec = (s.window as { durationS: number }).durationS;
    expect(video.videoOnlyBitsPerSec).toBeCloseTo((1_000_000 * 8) / sec, 6);
    expect(video.audioBitsPerSec).toBeCloseTo((50_000 * 8) / sec, 6);
    expect(video.videoOnlyPercentOfFairShare).toBeCloseTo((100 * video.videoOnlyBitsPerSec!) / s.fairShareBitsPerSec!, 6);
    // Without the content description there is no split, said as null.
    expect(
      summarizeRun({ ...data, origins: { '8001': log }, mediaFiles: null }).flows.find((f) => f.role === 'player')!.videoOnlyBitsPerSec,
    ).toBeNull();
  });

  it('keeps the server-side TCP and queue figures per flow', () => {
    const s = summarizeRun(runData(stockRun, 1.2));
    expect(s.tcp['8001']!.cwnd!.median).toBe(20);
    expect(s.tcp['9001']!.cwnd!.median).toBe(40);
    expect(s.tcp['8001']!.connections).toBe(1);
    expect(s.tcp['8001']!.retransmits).toBeGreaterThan(0);
    expect(s.queue.backlogBytes!.median).toBe(200000);
    expect(s.queue.drops).toBeGreaterThan(0);
    expect(s.congestionOk).toBe(true);
    expect(s.plot.t.length).toBeGreaterThan(40);
    expect(Object.keys(s.plot.throughput).sort()).toEqual(['8001', '9001']);
  });

  it('counts loss events as ssthresh changes and takes the cwnd of the sample before each', () => {
    const at = (t: number, cwnd: number, ssthresh: number | null): Record<string, unknown> => ({ t, cwnd, ssthresh });
    // Out of order on purpose: the samples are sorted by time first.
    const samples = [at(2, 80, null), at(1, 40, null), at(3, 56, 56), at(4, 70, 56), at(5, 90, 56), at(6, 63, 63), at(7, 70, 63)];
    expect(lossesOf(samples)).toEqual([80, 90]);
    expect(lossesOf([])).toEqual([]);
    expect(lossesOf([at(1, 10, null), { t: 2, ssthresh: 7 }])).toEqual([10]);
    expect(lossesOf([{ t: 1, ssthresh: 7 }, at(2, 10, 5)])).toEqual([]); // no cwnd before: not a figure
  });

  it("reports each flow's window at loss and send queue, the bulk flows' beside the video's", () => {
    const d = runData(stockRun, 1.2);
    // A sawtooth every 10 s: the video's connection enters each loss at 100 segments, the bulk flow's at 80.
    // ssthresh alternates between two values so that each tooth changes it.
    const ss = d.ss.map((r) => {
      const i = Math.round(((r['t'] as number) - T0) * 2);
      const top = r['localPort'] === 8001 ? 100 : 80;
      const base = Math.round(top * 0.7);
      const tooth = Math.floor(i / 20);
      return {
        ...r,
        cwnd: i % 20 === 19 ? top : base + (i % 20),
        ssthresh: tooth === 0 ? null : base + (tooth % 2),
        sendQBytes: r['localPort'] === 8001 ? 300_000 : 200_000,
      };
    });
    const s = summarizeRun({ ...d, ss });
    const video = s.tcp['8001']!;
    const bulk = s.tcp['9001']!;
    expect(video.cwndAtLoss!.median).toBe(100);
    expect(bulk.cwndAtLoss!.median).toBe(80);
    expect(video.lossEvents).toBe(bulk.lossEvents);
    expect(video.lossEvents).toBeGreaterThan(2);
    expect(video.sendQBytes!.median).toBe(300_000);
    const m = runMetrics(s, { key: 'stock', variant: 'stock', kind: 'player', flow: 'stock' });
    expect(m.cwndAtLoss).toBe(100);
    expect(m.bulkCwndAtLoss).toBe(80);
    expect(m.sendQKB).toBeCloseTo(300_000 / 1024, 6);
    expect(m.bulkSendQKB).toBeCloseTo(200_000 / 1024, 6);
    const table = summaryTables(aggregate([s])).find((t) => t.id === 'losses');
    expect(table).toBeDefined();
    expect(table!.blocks[0]!.rows[0]!.cells.slice(4, 6)).toEqual(['100', '80']);
  });

  it("keeps the lowest RTT each flow's connection ever saw, before the window too", () => {
    const d = runData(stockRun, 1.2);
    // The video's connection saw an empty queue once, at the start (before the window); the bulk flow never did.
    const ss = d.ss.map((r, i) => ({ ...r, minRttMs: r['localPort'] === 8001 ? (i < 4 ? 0.02 : 300) : 250 }));
    const s = summarizeRun({ ...d, ss });
    expect(s.tcp['8001']!.lowestRttMs).toBe(0.02);
    expect(s.tcp['9001']!.lowestRttMs).toBe(250);
    const m = runMetrics(s, { key: 'stock', variant: 'stock', kind: 'player', flow: 'stock' });
    expect(m.lowestRttMs).toBe(0.02);
    expect(m.bulkLowestRttMs).toBe(250);
    // Summaries without minRttMs (older ss captures) say so as null.
    expect(summarizeRun(d).tcp['8001']!.lowestRttMs).toBeNull();
  });

  it('says why there is no window instead of inventing one', () => {
    const d = runData(stockRun, 1.2);
    const silent = { ...d, wire: { ...d.wire, bytes: { ...d.wire.bytes, '8001': d.wire.bytes['8001']!.map(() => 0) } } };
    expect(runWindow(silent.record, silent.wire).problem).toMatch(/8001 never carried traffic/);
    const s = summarizeRun(silent);
    expect(s.window).toBeNull();
    expect(s.flows).toEqual([]);
    const short = { ...d, record: { ...d.record, settings: { ...d.record.settings, warmupS: 200 } } };
    expect(summarizeRun(short).windowProblem).toMatch(/nothing left to measure/);
  });
});

describe('player summary', () => {
  const lines = playerLines('stock', 'stock');
  const window = { fromS: T0 + 21, toS: T0 + 100 };

  it('counts rebuffers and switches inside the window only', () => {
    const p = summarizePlayer(lines, window, { port: 8001, label: 'stock' });
    expect(p.rebufferCount).toBe(1);
    expect(p.rebufferS).toBeCloseTo(3, 5);
    expect(p.rebufferCountTotal).toBe(2);
    expect(p.switches).toBe(1);
    expect(p.startupDelayS).toBeCloseTo(1.5, 5);
    expect(p.mode).toBe('stock');
    expect(p.everHidden).toBe(false);
  });

  it('reports the bitrate of the video segments downloaded in the window', () => {
    const p = summarizePlayer(lines, window, { port: 8001, label: 'stock' });
    // Segments in the window: 1, 1.5, 1.5 Mbit/s (the one at t0+10 is in the warm-up).
    expect(p.bitrateSource).toBe('segments');
    expect(p.videoSegments).toBe(3);
    expect(p.bitrateMedianBps).toBe(1.5e6);
    expect(p.downloadSwitches).toBe(1);
    // The ABR's choice at the polls t0+21.5 … t0+99.5: 29 at 1 Mbit/s, 50 at 1.5; each holds until the next.
    expect(p.selectedBitrateMeanBps! / 1e6).toBeCloseTo((29 * 1 + 49 * 1.5) / 78, 4);
    expect(p.bufferS!.min).toBe(10);
  });

  it("falls back to the ABR's choice when no segment finished in the window", () => {
    const p = summarizePlayer(
      lines.filter((l) => l.kind !== 'segment'),
      window,
      { port: 8001, label: 'stock' },
    );
    expect(p.bitrateSource).toBe('polls');
    expect(p.bitrateMedianBps).toBe(1.5e6);
    expect(p.downloadSwitches).toBeNull();
  });

  it('separates video transfers from audio and keeps the chunk sizes chosen', () => {
    const p = summarizePlayer(lines, window, { port: 8001, label: 'stock' });
    expect(p.transfers.count).toBe(3);
    expect(p.transfers.videoCount).toBe(2);
    expect(p.transfers.videoBytes!.median).toBe(3 * 1024 * 1024);
    expect(p.transfers.targetChunkBytes!.median).toBe(4e6);
    expect(p.transfers.cancelled).toBe(1);
    expect(p.transfers.wastedBytes).toBe(1000);
    expect(p.estimates.rttMs!.median).toBeCloseTo(600, 5);
    expect(p.estimates.probeRttMs!.median).toBeCloseTo(650, 5);
    expect(p.estimates.tcpInfoRttMs!.median).toBeCloseTo(600, 5);
  });

  it('notices a player that never started', () => {
    const p = summarizePlayer(
      [
        { kind: 'open', t: T0, mode: 'sprint' },
        { kind: 'poll', t: T0 + 1, ready: false, visibility: 'hidden' },
        { kind: 'pageerror', t: T0 + 1, message: 'boom' },
      ],
      window,
      { port: 8001, label: 'sprint' },
    );
    expect(p.ready).toBe(false);
    expect(p.everHidden).toBe(true);
    expect(p.bitrateMedianBps).toBeNull();
    expect(p.errors).toEqual(['page error: boom']);
  });
});

describe('aggregate over repeats', () => {
  // stock: 1.2, 1.05, 1.35 Mbit/s (80, 70, 90 %); sprint-x: 1.5 (100 %); control: 1.47 (98 %). Repeat 3 of sprint-x failed.
  const share: Record<string, number[]> = { stock: [1.2, 1.05, 1.35], 'sprint-x': [1.5, 1.5, 1.5], control: [1.47, 1.47, 1.47] };
  const runs = plan.runs.map((spec) => {
    const failed = spec.variant.name === 'sprint-x' && spec.repeat === 3;
    return summarizeRun(runData(spec, share[spec.variant.name]![spec.repeat - 1]!, failed ? 'failed' : 'ok'));
  });
  const agg = aggregate(runs, ['stock', 'sprint-x']);

  it('gives the median and min–max of the video share per column, control last', () => {
    expect(agg.columns.map((c) => c.key)).toEqual(['stock', 'sprint-x', 'control']);
    const stock = cellOf(agg, '3mbit-256kb', 'stock')!;
    expect(stock.metrics.percentOfFairShare!.n).toBe(3);
    expect(stock.metrics.percentOfFairShare!.median).toBeCloseTo(80, 1);
    expect(stock.metrics.percentOfFairShare!.min).toBeCloseTo(70, 1);
    expect(stock.metrics.percentOfFairShare!.max).toBeCloseTo(90, 1);
    expect(stock.metrics.bulkPercentOfFairShare!.median).toBeCloseTo(120, 1);
    expect(stock.metrics.bitrateBps!.median).toBe(1.5e6);
    expect(stock.modes).toEqual(['stock']);
    const control = cellOf(agg, '3mbit-256kb', 'control')!;
    expect(control.metrics.percentOfFairShare!.median).toBeCloseTo(98, 1);
    expect(control.metrics.bitrateBps).toBeUndefined();
  });

  it('leaves failed runs out and lists them as problems', () => {
    const sx = cellOf(agg, '3mbit-256kb', 'sprint-x')!;
    expect(sx.okRuns).toHaveLength(2);
    expect(sx.allRuns).toHaveLength(3);
    expect(sx.metrics.percentOfFairShare!.n).toBe(2);
    expect(sx.problems.join('\n')).toMatch(/sprint-x\/r3: failed \(boom\)/);
  });

  it('reads a control run as the control flow, not as a player', () => {
    const control = summarizeRun(runData(controlRun, 1.47));
    const m = runMetrics(control, { key: 'control', variant: 'control', kind: 'control', flow: 'control' });
    expect(m.percentOfFairShare).toBeCloseTo(98, 1);
    expect(m.rebufferCount).toBeNull();
  });
});

describe('requests in flight (transfers.maxInFlight)', () => {
  const transfer = (startMs: number, endMs: number | null): PlayerLine => ({ kind: 'transfer', t: 0, startMs, endMs });

  it('counts the most transfers open at once, back-to-back ones not overlapping', () => {
    expect(maxInFlight([transfer(0, 1000), transfer(1000, 2000), transfer(2000, 3000)], null)).toBe(1);
    expect(maxInFlight([transfer(0, 1000), transfer(500, 2000), transfer(600, 700), transfer(1500, 2500)], null)).toBe(3);
  });

  it('counts only inside the window, an open transfer to its end', () => {
    const lines = [transfer(0, 1000), transfer(500, 1500), transfer(5000, null), transfer(6000, 7000)];
    expect(maxInFlight(lines, { fromS: 2, toS: 10 })).toBe(2);
    expect(maxInFlight(lines, { fromS: 1.2, toS: 3 })).toBe(1);
  });
});
