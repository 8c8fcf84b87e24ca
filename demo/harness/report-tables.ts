// The summary tables of an evaluation as plain data, rendered both to
// Markdown (report-md.ts) and HTML (report-html.ts). The first is paper
// Fig. 6's: per bottleneck rate, rows = queue size, columns = players alone,
// players together, bulk-vs-bulk control; cells = median [min–max] of the
// video slot's % of fair share over the repeats. Then bulk share, bitrate,
// rebuffers, switches, startup delay, unfairness (paper Table I) and what the
// data plane did. Pure.

import { Aggregate, Cell, cellOf, Column, markSaturated, MetricName, SATURATED_NOTE } from './aggregate';
import { bytesLabel, cellText, rateLabel } from './format';
import { isPairVariant } from './plan';

export interface TableModel {
  readonly id: string;
  readonly title: string;
  readonly note?: string;
  /** Sub-tables, one per bottleneck rate (or a single one). */
  readonly blocks: ReadonlyArray<{
    readonly caption: string | null;
    readonly header: readonly string[];
    readonly rows: ReadonlyArray<{
      readonly cells: readonly string[];
      /** Per cell (same index): a % of fair share to colour by, when the table is about fair share. */
      readonly shares?: ReadonlyArray<number | null>;
    }>;
  }>;
}

export function columnTitle(c: Column): string {
  if (c.kind === 'control') return 'control (bulk)';
  if (c.kind === 'together') return `${c.flow} (${isPairVariant({ kind: c.kind, name: c.variant }) ? pairTitle(c.variant) : 'together'})`;
  return c.flow;
}

/** "stock-vs-sprint" → "stock vs sprint". */
export function pairTitle(variant: string): string {
  return variant.split('-vs-').join(' vs ');
}

/** One column per together variant, pairs only or all (its first flow: unfairness is the run's, not a flow's). */
function variantColumns(all: readonly Column[], pairsOnly: boolean): Column[] {
  const out: Column[] = [];
  for (const c of all)
    if (
      c.kind === 'together' &&
      (!pairsOnly || isPairVariant({ kind: c.kind, name: c.variant })) &&
      !out.some((o) => o.variant === c.variant)
    )
      out.push(c);
  return out;
}

/** A together variant's column title in the unfairness tables: "stock vs sprint", or "players (together)". */
function variantTitle(c: Column): string {
  return isPairVariant({ kind: c.kind, name: c.variant }) ? pairTitle(c.variant) : 'players (together)';
}

/** Distinct rates in order, each with its queue sizes ascending. */
export function byRate(agg: Aggregate): Array<{ rate: number; queues: Array<{ key: string; queue: number }> }> {
  const out: Array<{ rate: number; queues: Array<{ key: string; queue: number }> }> = [];
  for (const c of agg.conditions) {
    let r = out.find((x) => x.rate === c.rateBitsPerSec);
    if (!r) out.push((r = { rate: c.rateBitsPerSec, queues: [] }));
    r.queues.push({ key: c.key, queue: c.queueBytes });
  }
  for (const r of out) r.queues.sort((a, b) => a.queue - b.queue);
  return out;
}

function perRate(
  agg: Aggregate,
  columns: readonly Column[],
  text: (cell: Cell | undefined) => string,
  share?: MetricName,
  title: (c: Column) => string = columnTitle,
): TableModel['blocks'] {
  return byRate(agg).map((r) => ({
    caption: rateLabel(r.rate),
    header: ['queue', ...columns.map(title)],
    rows: r.queues.map((q) => {
      const cells = columns.map((c) => cellOf(agg, q.key, c.key));
      return {
        cells: [bytesLabel(q.queue), ...cells.map((c) => markSaturated(text(c), c))],
        shares: share ? [null, ...cells.map((c) => c?.metrics[share]?.median ?? null)] : undefined,
      };
    }),
  }));
}

const metric =
  (m: MetricName, digits: number, scale = 1) =>
  (cell: Cell | undefined): string =>
    cellText(cell?.metrics[m], digits, scale);

export function summaryTables(agg: Aggregate): TableModel[] {
  const all = agg.columns;
  const players = all.filter((c) => c.kind !== 'control');
  const tables: TableModel[] = [];
  tables.push({
    id: 'fair-share',
    title: 'Video % of fair share (paper Fig. 6)',
    note: "Median [min–max] over the repeats. 100 = exactly the fair share; the control column is a bulk flow in the video's place.",
    blocks: perRate(agg, all, metric('percentOfFairShare', 1), 'percentOfFairShare'),
  });
  if (players.length > 0) {
    tables.push({
      id: 'video-only-share',
      title: 'Video bytes alone, % of fair share',
      note: "The table above counts everything a player's port carried on the wire: its video and its audio (dash.js fetches audio on a connection of its own, in every mode). Here only the video segments' bytes count (the origin's access log, spread over the time each response was sent), against the same fair share: the paper's \"video flow\".",
      blocks: perRate(agg, players, metric('videoOnlyPercentOfFairShare', 1), 'videoOnlyPercentOfFairShare'),
    });
  }
  if (agg.cells.some((c) => c.metrics.bulkPercentOfFairShare !== undefined))
    tables.push({
      id: 'bulk-share',
      title: "Bulk flows' % of fair share",
      note: "Mean over the bulk flows of each run; above 100 means the bulk flows took part of the video's share.",
      blocks: perRate(agg, all, metric('bulkPercentOfFairShare', 1), 'bulkPercentOfFairShare'),
    });
  if (players.length > 0) {
    tables.push({
      id: 'bitrate',
      title: 'Video bitrate, Mbit/s',
      note: 'Median nominal bitrate of the video segments downloaded in the measured window (paper Fig. 7).',
      blocks: perRate(agg, players, metric('bitrateBps', 2, 1e-6)),
    });
    tables.push({
      id: 'bitrate-share',
      title: 'Video bitrate as % of fair share',
      note: "Paper Fig. 11's red line: how much of the fair share the ABR turned into video quality.",
      blocks: perRate(agg, players, metric('bitratePercentOfFairShare', 1)),
    });
    const bw = players.filter((c) => agg.cells.some((cell) => cell.column === c.key && cell.metrics.percentOfPaperExpected));
    if (bw.length > 0) {
      tables.push({
        id: 'expected-share',
        title: "BW-x players: video bytes as % of the expected fair share (paper Fig. 11): paper's / video's / ladder's",
        note: "Paper's: against min(100 %, x) of the fair share (the paper's player was video only). Video's: against min(100 %, x) of the fair share less the audio's nominal bitrate, the share the player's BW-x rule asks video to fill. Ladder's: against what a BW-x player whose estimate is the true fair share sustains on the content's ladder (its % of the fair share in brackets): the highest rung at or under x % of video's share, which it downloads once its buffer is full, or video's share where that rung is above it (the buffer never fills). A continuous ladder makes video's and the ladder's equal; a coarse one caps the paper's figure whatever the data plane does.",
        blocks: perRate(
          agg,
          bw,
          (c) =>
            `${cellText(c?.metrics.percentOfPaperExpected, 1)} / ${cellText(c?.metrics.percentOfVideoExpected, 1)} / ${cellText(c?.metrics.percentOfLadderExpected, 1)} (ladder's ${cellText(c?.metrics.ladderExpectedPercent, 1)} %)`,
        ),
      });
    }
    tables.push({
      id: 'rebuffers',
      title: 'Rebuffers in the measured window: count / seconds',
      blocks: perRate(agg, players, (c) => `${cellText(c?.metrics.rebufferCount, 0)} / ${cellText(c?.metrics.rebufferS, 1)} s`),
    });
    tables.push({
      id: 'switches',
      title: 'Bitrate switches in the measured window: rendered / downloaded',
      note: 'Rendered: quality changes dash.js played. Downloaded: changes between consecutive video segments fetched.',
      blocks: perRate(agg, players, (c) => `${cellText(c?.metrics.switches, 0)} / ${cellText(c?.metrics.downloadSwitches, 0)}`),
    });
    tables.push({ id: 'startup', title: 'Startup delay, seconds', blocks: perRate(agg, players, metric('startupS', 1)) });
  }
  const pairs = variantColumns(all, true);
  tables.push({
    id: 'unfairness',
    title: 'Unfairness √(1 − JFI) over all flows of a run (paper Table I)',
    note: `Lower is fairer; the control column is bulk vs bulk${pairs.length > 0 ? '; a pair column (A vs B) is its two players together with the bulk flows, if any' : ''}.`,
    blocks: perRate(agg, [...all.filter((c) => c.kind !== 'together'), ...pairs], metric('unfairnessAll', 3), undefined, (c) =>
      c.kind === 'together' ? variantTitle(c) : columnTitle(c),
    ),
  });
  // Between the players of a run: only where the run also had bulk flows (alone on the link, the table above says it).
  const together = variantColumns(all, false).filter((c) =>
    agg.cells.some((cell) => cell.column === c.key && cell.metrics.bulkPercentOfFairShare !== undefined),
  );
  if (together.length > 0) {
    tables.push({
      id: 'unfairness-video',
      title: 'Unfairness √(1 − JFI) between the video flows (together runs and pairs with bulk flows)',
      blocks: perRate(agg, together, metric('unfairnessVideo', 3), undefined, variantTitle),
    });
  }
  const rows: Array<{ cells: string[] }> = [];
  for (const cell of agg.cells) {
    const col = all.find((c) => c.key === cell.column);
    if (!col || col.kind === 'control') continue;
    rows.push({
      cells: [
        cell.conditionKey,
        columnTitle(col),
        cell.modes.join(', ') || '–',
        cell.modeReasons.join('; ') || '–',
        cellText(cell.metrics.videoTransferBytes, 2, 1 / (1024 * 1024)),
        cellText(cell.metrics.targetChunkBytes, 2, 1 / (1024 * 1024)),
        cellText(cell.metrics.trainBytes, 2, 1 / (1024 * 1024)),
        cellText(cell.metrics.serverRttMs, 0),
        cellText(cell.metrics.probeRttMs, 0),
        cellText(cell.metrics.tcpInfoRttMs, 0),
        cellText(cell.metrics.serverCwnd, 0),
      ],
    });
  }
  if (rows.length > 0) {
    tables.push({
      id: 'data-plane',
      title: 'What the data plane did',
      note: "Transfer = one request on the wire (stock: one per segment; Sprint-x: one expanded range request; Sprint: one request of a train). Train MB = bytes a Sprint train completed (open trains as they stood at the end). Server RTT and cwnd are the server's (ss -ti) on the port's busiest connection; probe RTT is the player's ~1 s probe requests, TCP_INFO RTT the client's kernel estimate on the connection carrying Sprint's trains (the RTT Sprint sizes chunks with when it has it); medians over the window.",
      blocks: [
        {
          caption: null,
          header: [
            'condition',
            'player',
            'mode in force',
            'why',
            'video transfer MB',
            'model chunk MB',
            'train MB',
            'server RTT ms',
            'probe RTT ms',
            'TCP_INFO RTT ms',
            'server cwnd',
          ],
          rows,
        },
      ],
    });
  }
  const lossRows = lossTableRows(agg, all);
  if (lossRows.length > 0) {
    tables.push({
      id: 'losses',
      title: 'The windows flows enter their losses with',
      note: "Server side (ss -ti every 0.5 s), each flow's busiest connection in the window: loss events = changes of ssthresh; cwnd at loss = cwnd (segments) in the sample before each, median; send queue = bytes the server had written and not yet seen acknowledged, median; lowest RTT = the least RTT the connection ever saw (ss's min RTT over all its samples): Linux cubic evaluates its window curve that far ahead (its delay_min), so a connection that once crossed an empty queue (~0 ms) grows more slowly after each loss than one opened behind a full queue. Bulk = mean over the run's bulk flows. Two flows with the same RTT and loss count but different windows at loss get different shares. Medians over the repeats.",
      blocks: [
        {
          caption: null,
          header: [
            'condition',
            'flow',
            'loss events',
            'bulk loss events',
            'cwnd at loss',
            'bulk cwnd at loss',
            'send queue KB',
            'bulk send queue KB',
            'lowest RTT ms',
            'bulk lowest RTT ms',
          ],
          rows: lossRows,
        },
      ],
    });
  }
  if (agg.cells.some((c) => (c.saturatedRuns ?? []).length > 0))
    for (const [i, t] of tables.entries())
      tables[i] = {
        ...t,
        note: `${t.note ? `${t.note} ` : ''}${SATURATED_NOTE}`,
      };
  return tables;
}

/** Rows of the loss table: one per cell whose runs carry the per-loss figures. */
function lossTableRows(agg: Aggregate, all: readonly Column[]): Array<{ cells: string[] }> {
  const rows: Array<{ cells: string[] }> = [];
  for (const cell of agg.cells) {
    const col = all.find((c) => c.key === cell.column);
    if (!col || cell.metrics.cwndAtLoss === undefined) continue;
    const m = cell.metrics;
    rows.push({
      cells: [
        cell.conditionKey,
        columnTitle(col),
        cellText(m.lossEvents, 0),
        cellText(m.bulkLossEvents, 0),
        cellText(m.cwndAtLoss, 0),
        cellText(m.bulkCwndAtLoss, 0),
        cellText(m.sendQKB, 0),
        cellText(m.bulkSendQKB, 0),
        cellText(m.lowestRttMs, 1),
        cellText(m.bulkLowestRttMs, 1),
      ],
    });
  }
  return rows;
}
