// Repeats folded into the figures a person compares (paper Fig. 6):
// for every network condition and every column — each player alone against
// the bulk flows, each player of the all-together run, and the bulk-vs-bulk
// control — the median with min and max over the repeats of: the video
// slot's % of fair share, the bulk flows' % of fair share, a BW-x player's
// % of its expected share (paper Fig. 11; expected-share.ts), video bitrate,
// rebuffers, switches, startup delay, unfairness, utilization, transfer and
// chunk sizes, the server's RTT/cwnd, and the windows the video's and the
// bulk flows' connections entered their losses with. Only runs that finished (status ok
// with a measurement window) and whose players ran the data plane they asked for count (a
// run that fell back measures the fallback); the others are listed as problems.
// Pure: run summaries in, aggregate out.

import { SATURATED_IDLE, SATURATION_SPAN_S } from '../testbed/cpu';
import { Summary, summarize } from '../testbed/metrics';
import type { RunSummary, TcpFigures } from './run-summary';
import { expectedShare } from './expected-share';
import { isPairVariant } from './plan';
import { fallbackOf } from './player-summary';

export const METRICS = [
  'percentOfFairShare',
  'videoOnlyPercentOfFairShare',
  'bulkPercentOfFairShare',
  'bitrateBps',
  'bitratePercentOfFairShare',
  'percentOfPaperExpected',
  'percentOfVideoExpected',
  'ladderExpectedPercent',
  'percentOfLadderExpected',
  'rebufferCount',
  'rebufferS',
  'switches',
  'downloadSwitches',
  'startupS',
  'unfairnessAll',
  'unfairnessVideo',
  'utilization',
  'videoTransferBytes',
  'targetChunkBytes',
  'trainBytes',
  'serverRttMs',
  'serverCwnd',
  'lossEvents',
  'cwndAtLoss',
  'sendQKB',
  'bulkLossEvents',
  'bulkCwndAtLoss',
  'bulkSendQKB',
  'lowestRttMs',
  'bulkLowestRttMs',
  'probeRttMs',
  'tcpInfoRttMs',
] as const;
export type MetricName = (typeof METRICS)[number];

/** A column of the Fig. 6-style table. */
export interface Column {
  /** "stock", "together:stock", a pair's "stock-vs-sprint:stock", "control". */
  readonly key: string;
  /** Variant directory name the runs come from. */
  readonly variant: string;
  readonly kind: 'player' | 'together' | 'control';
  /** The flow the column is about: a player label, or "control". */
  readonly flow: string;
}

export interface Cell {
  readonly conditionKey: string;
  readonly rateBitsPerSec: number;
  readonly queueBytes: number;
  readonly column: string;
  /** Runs that count, and all runs planned/made for the cell. */
  readonly okRuns: readonly string[];
  readonly allRuns: readonly string[];
  readonly metrics: Readonly<Partial<Record<MetricName, Summary>>>;
  /** Modes actually in force across the runs (players only). */
  readonly modes: readonly string[];
  readonly modeReasons: readonly string[];
  readonly problems: readonly string[];
  /** Counted runs whose machine was saturated (run-summary.ts `cpu`): the tables mark the cell with SATURATED_MARK. */
  readonly saturatedRuns?: readonly string[];
}

/** The tables' mark on a cell that rests on a saturated run. */
export const SATURATED_MARK = '†';

/** The tables' line on SATURATED_MARK. */
export const SATURATED_NOTE = `${SATURATED_MARK}: the cell rests on a run whose machine was saturated (under ${100 * SATURATED_IDLE} % idle CPU in some ${SATURATION_SPAN_S} s of its window; see Problems).`;

/** SATURATED_MARK after a cell's text when one of its counted runs was saturated. */
export function markSaturated(text: string, cell: Pick<Cell, 'saturatedRuns'> | undefined): string {
  return cell?.saturatedRuns && cell.saturatedRuns.length > 0 ? `${text} ${SATURATED_MARK}` : text;
}

export interface Aggregate {
  readonly format: 'sprint-ab-summary';
  readonly conditions: ReadonlyArray<{ readonly key: string; readonly rateBitsPerSec: number; readonly queueBytes: number }>;
  readonly columns: readonly Column[];
  readonly cells: readonly Cell[];
}

/** Columns in report order: players alone, players together, control. */
export function columnsOf(runs: readonly RunSummary[], playerOrder: readonly string[] = []): Column[] {
  const cols = new Map<string, Column>();
  /** Together columns: [the variant's first appearance, the player's place in it], so a pair's columns stay side by side. */
  const togetherPlace = new Map<string, number>();
  const variants: string[] = [];
  const add = (c: Column): void => {
    if (!cols.has(c.key)) cols.set(c.key, c);
  };
  for (const r of runs) {
    if (r.variant.kind === 'player') {
      const label = r.players[0]?.label ?? r.flows.find((f) => f.role === 'player')?.label ?? r.variant.name;
      add({ key: label, variant: r.variant.name, kind: 'player', flow: label });
    } else if (r.variant.kind === 'together') {
      // All players together keep "together:LABEL"; a pair (plan.ts parsePairs) is keyed by its name, as a label can be in several pairs.
      const prefix = isPairVariant(r.variant) ? r.variant.name : 'together';
      if (!variants.includes(r.variant.name)) variants.push(r.variant.name);
      r.players.forEach((p, i) => {
        const key = `${prefix}:${p.label}`;
        if (!togetherPlace.has(key)) togetherPlace.set(key, variants.indexOf(r.variant.name) * 50 + i);
        add({ key, variant: r.variant.name, kind: 'together', flow: p.label });
      });
    } else if (r.variant.kind === 'control') {
      add({ key: 'control', variant: r.variant.name, kind: 'control', flow: 'control' });
    }
  }
  const rank = (c: Column): number => {
    if (c.kind === 'together') return 1000 + (togetherPlace.get(c.key) ?? 999);
    const i = playerOrder.indexOf(c.flow);
    return (c.kind === 'player' ? 0 : 100000) + (i < 0 ? 999 : i);
  };
  return [...cols.values()].sort((a, b) => rank(a) - rank(b));
}

/** One run's value of each metric for the column's flow (null when it does not apply or is missing). */
export function runMetrics(run: RunSummary, column: Column): Partial<Record<MetricName, number | null>> {
  const flow =
    column.kind === 'control'
      ? run.flows.find((f) => f.role === 'control')
      : run.flows.find((f) => f.role === 'player' && f.label === column.flow);
  const bulk = run.flows.filter((f) => f.role === 'bulk');
  const player = column.kind === 'control' ? undefined : run.players.find((p) => p.label === column.flow);
  const tcp = flow ? run.tcp[flow.id] : undefined;
  const mean = (v: number[]): number | null => (v.length > 0 ? v.reduce((a, b) => a + b, 0) / v.length : null);
  const bulkTcp = bulk.flatMap((b): TcpFigures[] => {
    const t = run.tcp[b.id];
    return t ? [t] : [];
  });
  /** Mean over the bulk flows of one of their TCP figures (flows without it left out). */
  const bulkMean = (pick: (t: TcpFigures) => number | null | undefined): number | null =>
    mean(bulkTcp.map(pick).filter((v): v is number => v != null));
  const expected = expectedShare(player?.abr, run.fairShareBitsPerSec, run.videoLadderBps ?? [], run.audioBps ?? 0);
  const videoOnly = flow?.videoOnlyPercentOfFairShare ?? null;
  /** Video's bytes as % of one expected share (% of the fair share); null without either, or for an empty one. */
  const ofExpected = (expectedPercent: number | undefined): number | null =>
    videoOnly !== null && expectedPercent !== undefined && expectedPercent > 0 ? (100 * videoOnly) / expectedPercent : null;
  return {
    percentOfFairShare: flow ? flow.percentOfFairShare : null,
    videoOnlyPercentOfFairShare: videoOnly,
    bulkPercentOfFairShare: mean(bulk.map((b) => b.percentOfFairShare)),
    bitrateBps: player?.bitrateMedianBps ?? null,
    bitratePercentOfFairShare:
      player?.bitrateMedianBps != null && run.fairShareBitsPerSec ? (100 * player.bitrateMedianBps) / run.fairShareBitsPerSec : null,
    percentOfPaperExpected: ofExpected(expected?.paperPercent),
    percentOfVideoExpected: ofExpected(expected?.videoPercent),
    ladderExpectedPercent: expected ? expected.ladderPercent : null,
    percentOfLadderExpected: ofExpected(expected?.ladderPercent),
    rebufferCount: player?.rebufferCount ?? null,
    rebufferS: player?.rebufferS ?? null,
    switches: player?.switches ?? null,
    downloadSwitches: player?.downloadSwitches ?? null,
    startupS: player?.startupDelayS ?? null,
    unfairnessAll: run.unfairnessAll,
    unfairnessVideo: run.unfairnessVideo,
    utilization: run.utilization,
    videoTransferBytes: player?.transfers.videoBytes?.median ?? null,
    targetChunkBytes: player?.transfers.targetChunkBytes?.median ?? null,
    trainBytes: player?.transfers.trainBytes?.median ?? null,
    serverRttMs: tcp?.rttMs?.median ?? null,
    serverCwnd: tcp?.cwnd?.median ?? null,
    lossEvents: tcp?.lossEvents ?? null,
    cwndAtLoss: tcp?.cwndAtLoss?.median ?? null,
    sendQKB: tcp?.sendQBytes ? tcp.sendQBytes.median / 1024 : null,
    bulkLossEvents: bulkMean((t) => t.lossEvents),
    bulkCwndAtLoss: bulkMean((t) => t.cwndAtLoss?.median),
    bulkSendQKB: bulkMean((t) => (t.sendQBytes ? t.sendQBytes.median / 1024 : null)),
    lowestRttMs: tcp?.lowestRttMs ?? null,
    bulkLowestRttMs: bulkMean((t) => t.lowestRttMs),
    probeRttMs: player?.estimates.probeRttMs?.median ?? null,
    tcpInfoRttMs: player?.estimates.tcpInfoRttMs?.median ?? null,
  };
}

/** Why a finished run measures another data plane than one of its players asked for, or null. */
export function runFallback(run: RunSummary): string | null {
  for (const p of run.players) {
    const f = fallbackOf(p);
    if (f) return f;
  }
  return null;
}

/** Whether a run's figures count: it finished with a window and every player ran the plane it asked for. */
export function runCounts(run: RunSummary): boolean {
  return run.status === 'ok' && run.window !== null && runFallback(run) === null;
}

export function aggregate(runs: readonly RunSummary[], playerOrder: readonly string[] = []): Aggregate {
  const conditions = new Map<string, { key: string; rateBitsPerSec: number; queueBytes: number }>();
  for (const r of runs)
    if (!conditions.has(r.conditionKey))
      conditions.set(r.conditionKey, { key: r.conditionKey, rateBitsPerSec: r.rateBitsPerSec, queueBytes: r.queueBytes });
  const columns = columnsOf(runs, playerOrder);
  const cells: Cell[] = [];
  for (const cond of conditions.values()) {
    for (const col of columns) {
      const mine = runs.filter((r) => r.conditionKey === cond.key && r.variant.name === col.variant);
      if (mine.length === 0) continue;
      const ok = mine.filter(runCounts);
      const values = new Map<MetricName, number[]>();
      for (const r of ok) {
        for (const [k, v] of Object.entries(runMetrics(r, col)) as Array<[MetricName, number | null]>) {
          if (v === null || !Number.isFinite(v)) continue;
          if (!values.has(k)) values.set(k, []);
          values.get(k)?.push(v);
        }
      }
      const metrics: Partial<Record<MetricName, Summary>> = {};
      for (const m of METRICS) {
        const v = values.get(m);
        if (v && v.length > 0) metrics[m] = summarize(v);
      }
      const players = ok.flatMap((r) => r.players.filter((p) => p.label === col.flow));
      const problems: string[] = [];
      for (const r of mine) {
        const fallback = runFallback(r);
        if (r.status !== 'ok') problems.push(`${r.dir}: ${r.status}${r.error ? ` (${r.error})` : ''}`);
        else if (!r.window) problems.push(`${r.dir}: no measurement window (${r.windowProblem})`);
        else if (fallback) problems.push(`${r.dir}: not counted: ${fallback}`);
      }
      for (const r of ok)
        for (const w of r.warnings)
          if (col.kind === 'control' || w.includes(col.flow) || !w.startsWith('player ')) problems.push(`${r.dir}: ${w}`);
      cells.push({
        conditionKey: cond.key,
        rateBitsPerSec: cond.rateBitsPerSec,
        queueBytes: cond.queueBytes,
        column: col.key,
        okRuns: ok.map((r) => r.dir),
        allRuns: mine.map((r) => r.dir),
        metrics,
        modes: [...new Set(players.map((p) => p.mode ?? 'unresolved'))],
        modeReasons: [...new Set(players.map((p) => p.modeReason ?? ''))].filter(Boolean),
        problems: [...new Set(problems)],
        saturatedRuns: ok.filter((r) => r.cpu?.saturated === true).map((r) => r.dir),
      });
    }
  }
  return { format: 'sprint-ab-summary', conditions: [...conditions.values()], columns, cells };
}

/** The cell for a condition and column, if any. */
export function cellOf(agg: Aggregate, conditionKey: string, column: string): Cell | undefined {
  return agg.cells.find((c) => c.conditionKey === conditionKey && c.column === column);
}
