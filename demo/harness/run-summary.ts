// The figures of one run, rebuilt from its raw files (run.ts): paper §V-A's
// fair share (total measured throughput ÷ number of flows, each flow's
// percentage of it) over the measurement window — from warm-up after the
// flows meet to the end of the `both` phase; testbed.md: the first 60–90 s
// sit near 100% and are discarded — unfairness √(1 − JFI) between the video
// flows (≥ 2 players) and between all flows (paper Table I), each player's
// QoE figures (player-summary.ts), the server's cwnd/RTT per flow from ss,
// the bottleneck queue from tc, and downsampled series for the report's plots.
// summarizeRun is pure; loadRunData/writeRunSummary do the file I/O.

import { existsSync, readFileSync, writeFileSync } from 'fs';
import * as path from 'path';
import { CpuRecord, CpuSummary, saturationWarning, summarizeCpu } from '../testbed/cpu';
import { num, readJsonl } from '../testbed/jsonl';
import { rawFileExists } from '../testbed/raw-files';
import { bytesInWindow, FlowSeries, meetTimeS, Summary, summarize, unfairness, Window } from '../testbed/metrics';
import { readWireSeries } from '../testbed/wire-series';
import type { FlowRecord } from '../testbed/flow-log';
import { PRIMER_PORT } from './primer';
import { lateStartWarnings } from './start-order';
import { bulkFailureWarnings } from './bulk-failures';
import { AUDIO } from '../content/recipe';
import { isContentOfRun, readContentInfoSync, runLadderBps } from './run-content';
import { MediaKind, mediaFiles, mediaRates } from './media-split';
import { FlowSpec } from './plan';
import { fallbackOf, PlayerLine, PlayerSummary, summarizePlayer } from './player-summary';
import { HostRecord, overloadWarning } from './host-info';
import { TrainFigures, trainFigures } from './train-figures';
import { RunRecord, RUN_FORMAT } from './run';

export const RUN_SUMMARY_FILE = 'summary.json';
/** Plot resolution of the throughput series, seconds. */
export const PLOT_BIN_S = 2;

export interface FlowResult {
  readonly id: string;
  readonly label: string;
  readonly role: FlowSpec['role'];
  readonly slot: FlowSpec['slot'];
  /** Mean throughput over the window (TCP payload on the wire), bit/s. */
  readonly bitsPerSec: number;
  readonly percentOfFairShare: number;
  /**
   * Players: the video bytes alone (the origin's access log), bit/s and % of
   * the same fair share — the paper's "video flow"; the rest of bitsPerSec is
   * the player's audio and HTTP/TCP overhead. Null when the log or the
   * content description is missing.
   */
  readonly videoOnlyBitsPerSec?: number | null;
  readonly videoOnlyPercentOfFairShare?: number | null;
  readonly audioBitsPerSec?: number | null;
  /** A Sprint player's trains over the whole run (train-figures.ts); null or absent otherwise. */
  readonly trains?: TrainFigures | null;
}

export interface TcpFigures {
  readonly samples: number;
  /** Distinct connections seen on this server port in the window. */
  readonly connections: number;
  /** Of the port's busiest connection in the window (most bytes acknowledged). */
  readonly cwnd: Summary | null;
  readonly rttMs: Summary | null;
  readonly congestionControls: readonly string[];
  /** Retransmitted segments within the window, all connections. */
  readonly retransmits: number;
  /**
   * Loss events of the busiest connection inside the window: each change of
   * its ssthresh between two samples is one (absent in summaries written
   * before these figures existed).
   */
  readonly lossEvents?: number;
  /** Its cwnd (segments) in the last sample before each loss event: the window it entered the loss with. */
  readonly cwndAtLoss?: Summary | null;
  /** Its send queue (bytes written by the server, not yet acknowledged or not yet sent) over the window's samples. */
  readonly sendQBytes?: Summary | null;
  /**
   * The lowest RTT it ever saw, ms (the least of ss's min RTT over all its
   * samples, in or out of the window): ~0 when it carried data across an
   * empty queue, e.g. a page load before the bulk flow started. Linux cubic
   * evaluates its window curve this far ahead (its delay_min, kept until a
   * retransmission timeout), so between two cubic flows through the same
   * queue the one with the larger value grows faster after each loss.
   */
  readonly lowestRttMs?: number | null;
}

export interface RunSummary {
  readonly format: 'sprint-ab-run-summary';
  readonly dir: string;
  readonly status: RunRecord['status'];
  readonly error: string | null;
  readonly conditionKey: string;
  readonly rateBitsPerSec: number;
  readonly queueBytes: number;
  readonly variant: { readonly kind: string; readonly name: string };
  readonly repeat: number;
  /** Measurement window (epoch seconds) or null with the reason. */
  readonly window: { readonly fromS: number; readonly toS: number; readonly durationS: number; readonly meetS: number } | null;
  readonly windowProblem: string | null;
  readonly totalBitsPerSec: number | null;
  readonly fairShareBitsPerSec: number | null;
  /** Nominal bitrates of the video ladder the run played (run-content.ts), for BW-x's expected share (expected-share.ts). */
  readonly videoLadderBps?: readonly number[];
  /**
   * Nominal bitrate of the content's audio (every set carries the one track
   * of demo/content/recipe.ts), bit/s: the part of a player's fair share
   * that is not video's (expected-share.ts). Absent in summaries built
   * before it was recorded, which read as a video-only player.
   */
  readonly audioBps?: number;
  /** Total ÷ bottleneck rate. */
  readonly utilization: number | null;
  readonly flows: readonly FlowResult[];
  /** √(1 − JFI) over all flows' throughput (paper Table I's pairs). */
  readonly unfairnessAll: number | null;
  /** √(1 − JFI) over the video flows only (null with fewer than two). */
  readonly unfairnessVideo: number | null;
  readonly players: readonly PlayerSummary[];
  readonly tcp: Readonly<Record<string, TcpFigures>>;
  readonly queue: { readonly samples: number; readonly backlogBytes: Summary | null; readonly drops: number };
  readonly congestionOk: boolean | null;
  /** The machine and source of the run (run.json's host), when recorded. */
  readonly host: HostRecord | null;
  /**
   * The CPU the run had over the window (cpu.ts, from cpu.jsonl): mean and
   * worst-10 s idle share, CPU seconds per process class, saturated when any
   * 10 s had under 20 % idle. Null without cpu.jsonl (older runs) or a window.
   */
  readonly cpu?: CpuSummary | null;
  /** What went wrong for the players inside the window (playerProblems); also in `warnings`, so the report lists them under Problems. */
  readonly playerProblems?: readonly string[];
  readonly warnings: readonly string[];
  /** For plots: times relative to the schedule start, seconds. */
  readonly plot: {
    readonly startS: number;
    readonly binS: number;
    /** Bin start offsets. */
    readonly t: number[];
    /** Throughput per flow id per bin, bit/s. */
    readonly throughput: Readonly<Record<string, number[]>>;
    readonly queueT: number[];
    readonly queueBytes: number[];
    readonly phases: ReadonlyArray<{ readonly name: string; readonly fromS: number; readonly toS: number }>;
  };
}

export interface RunData {
  readonly record: RunRecord;
  readonly wire: FlowSeries;
  /** player-<port>.jsonl lines by flow id. */
  readonly players: Readonly<Record<string, PlayerLine[]>>;
  readonly ss: ReadonlyArray<Record<string, unknown>>;
  readonly qdisc: ReadonlyArray<Record<string, unknown>>;
  /** cpu.jsonl's interval records (absent or empty in runs recorded before it was sampled). */
  readonly cpu?: readonly CpuRecord[];
  /** origin-<port>.log lines of the players' origins, by flow id. */
  readonly origins?: Readonly<Record<string, ReadonlyArray<Record<string, unknown>>>>;
  /** bulk-<port>.jsonl records of the bulk and control flows (no bins), by flow id. */
  readonly bulks?: Readonly<Record<string, readonly FlowRecord[]>>;
  /** File name → media type of the run's content set, or null if its content.json is gone. */
  readonly mediaFiles?: ReadonlyMap<string, MediaKind> | null;
  /** Why mediaFiles is null although the set is on this machine (it is not the content the run played). */
  readonly mediaFilesProblem?: string | null;
}

/**
 * The media types of the files of the content the run played (null when the
 * set is not on this machine, or is no longer what the run played: then a
 * problem says so). `mediaRoot`: the folder holding the sets (demo/media).
 */
export function loadMediaFiles(
  record: Pick<RunRecord, 'settings' | 'content'>,
  mediaRoot?: string,
): { files: ReadonlyMap<string, MediaKind> | null; problem: string | null } {
  const info = readContentInfoSync(record.settings.contentSet, mediaRoot);
  if (!info) return { files: null, problem: null };
  if (!isContentOfRun(record.content, info))
    return {
      files: null,
      problem: `content set "${record.settings.contentSet}" on this machine was made by recipe ${info.recipe}, the run played ${record.content?.recipe}: its audio and video bytes are not told apart`,
    };
  try {
    return { files: mediaFiles(info), problem: null };
  } catch {
    return { files: null, problem: null };
  }
}

/** Reads a run directory's raw files. */
export function loadRunData(runDir: string): RunData {
  const recordPath = path.join(runDir, 'run.json');
  if (!existsSync(recordPath)) throw new Error(`${runDir}: no run.json (the run never finished setting up)`);
  const record = JSON.parse(readFileSync(recordPath, 'utf8')) as RunRecord;
  if (record.format !== RUN_FORMAT) throw new Error(`${recordPath}: not a run record (format ${JSON.stringify(record.format)})`);
  const opt = <T>(name: string, read: (p: string) => T, empty: T): T => {
    const p = path.join(runDir, name);
    return rawFileExists(p) ? read(p) : empty;
  };
  const players: Record<string, PlayerLine[]> = {};
  const origins: Record<string, Array<Record<string, unknown>>> = {};
  const bulks: Record<string, FlowRecord[]> = {};
  for (const f of record.flows) {
    if (f.role !== 'player') {
      bulks[f.id] = opt(`bulk-${f.port}.jsonl`, (p) => readJsonl<FlowRecord>(p).filter((r) => r.kind !== 'bin'), []);
      continue;
    }
    players[f.id] = opt(`player-${f.port}.jsonl`, (p) => readJsonl<PlayerLine>(p), []);
    origins[f.id] = opt(`origin-${f.port}.log`, (p) => readJsonl<Record<string, unknown>>(p), []);
  }
  const media = loadMediaFiles(record);
  return {
    record,
    wire: opt('wire.jsonl', (p) => readWireSeries(p, 'bytes'), { t0S: 0, binS: 0.1, bytes: {} } as FlowSeries),
    players,
    ss: opt('ss.jsonl', (p) => readJsonl<Record<string, unknown>>(p).filter((r) => r['kind'] === 'ss'), []),
    qdisc: opt('qdisc.jsonl', (p) => readJsonl<Record<string, unknown>>(p).filter((r) => r['kind'] === 'qdisc'), []),
    cpu: opt('cpu.jsonl', (p) => readJsonl<CpuRecord>(p).filter((r) => r.kind === 'cpu'), []),
    origins,
    bulks,
    mediaFiles: media.files,
    mediaFilesProblem: media.problem,
  };
}

const maybe = (values: Array<number | null>): Summary | null => {
  const ok = values.filter((v): v is number => v !== null);
  return ok.length > 0 ? summarize(ok) : null;
};

/** The series with a zero array for every flow of the run that the capture never saw. */
function withAllFlows(series: FlowSeries, ids: readonly string[]): FlowSeries {
  const n = Object.values(series.bytes)[0]?.length ?? 0;
  const bytes: Record<string, readonly number[]> = { ...series.bytes };
  for (const id of ids) if (!bytes[id]) bytes[id] = new Array<number>(n).fill(0);
  return { ...series, bytes };
}

/** The measurement window: max(both-phase start, when all flows carried traffic) + warm-up, to the both-phase end. */
export function runWindow(record: RunRecord, captured: FlowSeries): { window: RunSummary['window']; problem: string | null } {
  const both = record.times.phases.find((p) => p.name === 'both');
  if (!both) return { window: null, problem: 'the run never reached the end of its "both" phase' };
  const ids = record.flows.map((f) => f.id);
  const series = withAllFlows(captured, ids);
  const n = Object.values(series.bytes)[0]?.length ?? 0;
  if (n === 0) return { window: null, problem: 'the wire capture holds no packets' };
  const meet = meetTimeS(series, ids);
  if (meet === null) {
    const silent = ids.filter((id) => !(series.bytes[id] ?? []).some((b) => b > 0));
    return { window: null, problem: `flow(s) ${silent.join(', ')} never carried traffic` };
  }
  const fromS = Math.max(meet, both.fromS) + record.settings.warmupS;
  const toS = Math.min(both.toS, series.t0S + n * series.binS);
  if (!(toS > fromS))
    return {
      window: null,
      problem: `nothing left to measure: flows met at +${(meet - both.fromS).toFixed(1)} s, warm-up ${record.settings.warmupS} s, phase ends at +${(both.toS - both.fromS).toFixed(1)} s`,
    };
  return { window: { fromS, toS, durationS: toS - fromS, meetS: meet }, problem: null };
}

function tcpFigures(ss: RunData['ss'], port: number, window: Window | null): TcpFigures {
  const portRows = ss.filter((r) => r['localPort'] === port);
  const rows = portRows.filter((r) => window === null || ((r['t'] as number) >= window.fromS && (r['t'] as number) < window.toS));
  const byConn = new Map<number, number[]>();
  for (const r of rows) {
    const peer = num(r['peerPort']) ?? -1;
    const rt = num(r['retransTotal']);
    if (!byConn.has(peer)) byConn.set(peer, []);
    if (rt !== null) byConn.get(peer)?.push(rt);
  }
  let retransmits = 0;
  for (const v of byConn.values()) if (v.length > 0) retransmits += Math.max(...v) - Math.min(...v);
  // cwnd and RTT of the connection that carried the most bytes in the window
  // (a player's port also carries its audio, probes and page loads, whose
  // small windows would otherwise pull the medians down).
  const acked = new Map<number, number[]>();
  for (const r of rows) {
    const peer = num(r['peerPort']) ?? -1;
    const b = num(r['bytesAcked']) ?? num(r['bytesSent']);
    if (b === null) continue;
    if (!acked.has(peer)) acked.set(peer, []);
    acked.get(peer)?.push(b);
  }
  let busiest: number | null = null;
  let most = -1;
  for (const [peer, v] of acked) {
    const moved = Math.max(...v) - Math.min(...v);
    if (moved > most) {
      most = moved;
      busiest = peer;
    }
  }
  const ofBusiest = (rs: typeof rows): typeof rows => (busiest === null ? rs : rs.filter((r) => (num(r['peerPort']) ?? -1) === busiest));
  const main = ofBusiest(rows);
  const losses = lossesOf(main);
  // The lowest RTT looks at every sample of the connection, in or out of the window.
  const lowest = ofBusiest(portRows)
    .map((r) => num(r['minRttMs']))
    .filter((v): v is number => v !== null);
  return {
    samples: rows.length,
    connections: byConn.size,
    cwnd: maybe(main.map((r) => num(r['cwnd']))),
    rttMs: maybe(main.map((r) => num(r['rttMs']))),
    congestionControls: [...new Set(rows.map((r) => String(r['cc'] ?? 'unknown')))],
    retransmits,
    lossEvents: losses.length,
    cwndAtLoss: maybe(losses),
    sendQBytes: maybe(main.map((r) => num(r['sendQBytes']))),
    lowestRttMs: lowest.length > 0 ? Math.min(...lowest) : null,
  };
}

/**
 * The cwnd each loss event of one connection began from, in sample order:
 * a loss is a change of ssthresh between consecutive samples (the first
 * ssthresh of a connection counts too: it was unset before its first loss),
 * and the window it began from is the cwnd of the sample before. With ss
 * sampled every 0.5 s this is the window up to half a second before the
 * loss, and two losses between samples count as one.
 */
export function lossesOf(samples: ReadonlyArray<Record<string, unknown>>): number[] {
  const out: number[] = [];
  let prev: Record<string, unknown> | null = null;
  for (const r of [...samples].sort((a, b) => (num(a['t']) ?? 0) - (num(b['t']) ?? 0))) {
    if (prev !== null) {
      const before = num(prev['ssthresh']);
      const now = num(r['ssthresh']);
      const cwnd = num(prev['cwnd']);
      if (now !== null && now !== before && cwnd !== null) out.push(cwnd);
    }
    prev = r;
  }
  return out;
}

/** Below this % of its fair share a player's run is listed as a problem. */
export const LOW_SHARE_PERCENT = 30;
/** Playback standing still this long with no stall reported is listed as a problem, seconds. */
export const FROZEN_PROBLEM_S = 5;

/**
 * What went wrong for one player inside the window, as problem lines: no
 * video segment downloaded, under LOW_SHARE_PERCENT of its fair share,
 * dash.js errors, a stall still going at the window's end, a decode error,
 * playback that went back or stood still with no stall reported — each with
 * the player's last error, so a wedged player cannot hide behind a bitrate.
 */
export function playerProblems(p: PlayerSummary, flow: FlowResult | null): string[] {
  if (!p.ready || flow === null) return [];
  const out: string[] = [];
  const why = p.lastError ? ` (last error: ${p.lastError})` : '';
  if (p.videoSegments === 0) out.push(`player ${p.label}: downloaded no video segment in the window${why}`);
  if (flow.percentOfFairShare < LOW_SHARE_PERCENT)
    out.push(`player ${p.label}: got ${flow.percentOfFairShare.toFixed(1)}% of its fair share (under ${LOW_SHARE_PERCENT}%)${why}`);
  if (p.errorsInWindow !== null && p.errorsInWindow > 0)
    out.push(`player ${p.label}: ${p.errorsInWindow} dash.js error(s) in the window; last: ${p.lastError ?? '?'}`);
  if (p.decodeErrors > 0) out.push(`player ${p.label}: ${p.decodeErrors} MEDIA_ERR_DECODE in the window: dash.js reset the MediaSource`);
  if (p.rewoundS > 0) out.push(`player ${p.label}: playback went back ${p.rewoundS.toFixed(1)} s in the window`);
  if (p.frozenS !== null && p.frozenS >= FROZEN_PROBLEM_S)
    out.push(`player ${p.label}: playback stood still for ${p.frozenS.toFixed(0)} s with no stall reported (wedged)${why}`);
  if (p.stalledAtEnd)
    out.push(
      `player ${p.label}: stalled at the end of the window (${(p.rebufferS ?? 0).toFixed(0)} s of stalls in it${p.stallInProgressAtStart ? ', one already in progress when it opened' : ''})`,
    );
  return out;
}

/** Seconds before the flows start in which the bottleneck queue must have been at least half full for the primer to count as having filled it. */
export const PRIMER_FULL_LOOKBACK_S = 5;

/**
 * What went wrong with a primer (primer.ts), or null: it never stopped or
 * still carried bytes inside the measured window (the window then measured
 * three flows), or the bottleneck queue was not at least half full in the
 * last PRIMER_FULL_LOOKBACK_S before the run's flows started (the qdisc
 * samples): then the flows did not open behind a full queue.
 */
export function primerWarning(
  record: RunRecord,
  wire: FlowSeries,
  window: Window | null,
  qdisc: readonly Record<string, unknown>[] = [],
): string | null {
  if (!record.settings.primer || record.status !== 'ok') return null;
  if (!record.times.primerStopS) return 'the primer flow was never stopped';
  const start = record.times.scheduleStartS;
  const before = qdisc.filter((r) => start !== null && (r['t'] as number) >= start - PRIMER_FULL_LOOKBACK_S && (r['t'] as number) <= start);
  if (before.length > 0) {
    const most = Math.max(...before.map((r) => num(r['backlogBytes']) ?? 0));
    const queue = record.spec.condition.queueBytes;
    if (most < queue / 2)
      return `the primer did not fill the queue: it held at most ${Math.round(most / 1024)} of ${Math.round(queue / 1024)} KB in the ${PRIMER_FULL_LOOKBACK_S} s before the flows started`;
  }
  if (!window) return null;
  const bytes = bytesInWindow(withAllFlows(wire, [String(PRIMER_PORT)]), String(PRIMER_PORT), window);
  return bytes > 0 ? `the primer flow (port ${PRIMER_PORT}) still carried ${bytes} bytes inside the measured window` : null;
}

/**
 * A primer that waited for playback (`--primer LEAD:playing+OVERLAP`) but
 * had to leave at its latest, before every player had started playing (a
 * media connection may have opened after it left), or null.
 */
export function primerPlaybackWarning(record: RunRecord): string | null {
  const t = record.times;
  if (record.settings.primer?.until !== 'playing' || record.status !== 'ok' || t.primerStoppedBy !== 'latest') return null;
  if (!record.flows.some((f) => f.role === 'player')) return null;
  const start = t.scheduleStartS;
  const at = start !== null && t.primerStopS ? ` at +${(t.primerStopS - start).toFixed(1)} s` : '';
  const playing =
    t.primerPlayersPlayingS && start !== null
      ? `the last player started playing at +${(t.primerPlayersPlayingS - start).toFixed(1)} s`
      : 'a player had not started playing';
  return `the primer left at its latest${at}, before it could stay ${record.settings.primer.overlapS} s past playback (${playing}); a longer --warmup gives it room`;
}

export function summarizeRun(data: RunData): RunSummary {
  const { record } = data;
  const ids = record.flows.map((f) => f.id);
  const series = withAllFlows(data.wire, ids);
  const { window, problem } = runWindow(record, data.wire);
  const warnings = [...record.warnings];
  if (data.mediaFilesProblem) warnings.push(data.mediaFilesProblem);
  const overload = overloadWarning(record.host);
  if (overload) warnings.push(overload);
  const cpu = window && data.cpu && data.cpu.length > 0 ? summarizeCpu(data.cpu, window) : null;
  const saturated = saturationWarning(cpu);
  if (saturated) warnings.push(saturated);
  const primerLeft = primerWarning(record, data.wire, window, data.qdisc);
  if (primerLeft) warnings.push(primerLeft);
  const primerEarly = primerPlaybackWarning(record);
  if (primerEarly) warnings.push(primerEarly);
  warnings.push(...lateStartWarnings(record, data.origins ?? {}, data.ss));
  warnings.push(...bulkFailureWarnings(record, data.bulks ?? {}));
  if ((record.concurrentRuns ?? 1) > 1)
    warnings.push(
      `made with up to ${record.concurrentRuns} runs at once (--parallel), not measured as harmless: other runs shared the CPU`,
    );

  let flows: FlowResult[] = [];
  let total: number | null = null;
  let fair: number | null = null;
  if (window) {
    const rates = ids.map((id) => (bytesInWindow(series, id, window) * 8) / window.durationS);
    total = rates.reduce((a, b) => a + b, 0);
    fair = total / ids.length; // paper §V-A: total ÷ number of flows
    const share = (bps: number): number => (fair && fair > 0 ? (100 * bps) / fair : 0);
    flows = record.flows.map((f, i) => {
      const base: FlowResult = {
        id: f.id,
        label: f.label,
        role: f.role,
        slot: f.slot,
        bitsPerSec: rates[i] as number,
        percentOfFairShare: share(rates[i] as number),
      };
      if (f.role !== 'player') return base;
      const log = data.origins?.[f.id] ?? [];
      const bins = data.wire.bytes[f.id];
      const trains = trainFigures(
        log,
        data.players[f.id] ?? [],
        bins ? { t0Ms: data.wire.t0S * 1000, binMs: data.wire.binS * 1000, bytes: bins } : null,
      );
      const split = data.mediaFiles && log.length > 0 ? mediaRates(log, window, data.mediaFiles) : null;
      if (!split || split.records === 0)
        return { ...base, videoOnlyBitsPerSec: null, videoOnlyPercentOfFairShare: null, audioBitsPerSec: null, trains };
      return {
        ...base,
        trains,
        videoOnlyBitsPerSec: split.videoBitsPerSec,
        videoOnlyPercentOfFairShare: share(split.videoBitsPerSec),
        audioBitsPerSec: split.audioBitsPerSec,
      };
    });
  }
  const videoRates = flows.filter((f) => f.slot === 'video').map((f) => f.bitsPerSec);
  const players = record.flows
    .filter((f) => f.role === 'player')
    .map((f) => summarizePlayer(data.players[f.id] ?? [], window, { port: f.port, label: f.label }));
  const problems: string[] = [];
  record.flows
    .filter((f) => f.role === 'player')
    .forEach((f, i) => {
      const p = players[i] as PlayerSummary;
      problems.push(...playerProblems(p, window ? (flows.find((fl) => fl.id === f.id) ?? null) : null));
    });
  warnings.push(...problems);
  for (const p of players) {
    if (!p.ready) warnings.push(`player ${p.label}: never reported stats`);
    if (p.everHidden) warnings.push(`player ${p.label}: its page was hidden at times (throttled by the browser)`);
    const fallback = fallbackOf(p);
    if (fallback) warnings.push(fallback);
    if (p.ended) warnings.push(`player ${p.label}: the video ended during the run (content shorter than the schedule)`);
  }
  const tcp: Record<string, TcpFigures> = {};
  for (const f of record.flows) tcp[f.id] = tcpFigures(data.ss, f.port, window);
  const qRows = data.qdisc.filter((r) => window === null || ((r['t'] as number) >= window.fromS && (r['t'] as number) < window.toS));
  const drops = qRows.length >= 2 ? (num(qRows[qRows.length - 1]?.['drops']) ?? 0) - (num(qRows[0]?.['drops']) ?? 0) : 0;

  // Plot series relative to the schedule start.
  const startS = record.times.scheduleStartS ?? series.t0S;
  const per = Math.max(1, Math.round(PLOT_BIN_S / series.binS));
  const nBins = Object.values(series.bytes)[0]?.length ?? 0;
  const t: number[] = [];
  const throughput: Record<string, number[]> = {};
  for (const id of ids) throughput[id] = [];
  for (let i = 0; i + per <= nBins; i += per) {
    t.push(+(series.t0S + i * series.binS - startS).toFixed(2));
    for (const id of ids) {
      let sum = 0;
      const arr = series.bytes[id] as readonly number[];
      for (let j = i; j < i + per; j++) sum += arr[j] as number;
      (throughput[id] as number[]).push(Math.round((sum * 8) / (per * series.binS)));
    }
  }
  return {
    format: 'sprint-ab-run-summary',
    dir: record.spec.dir,
    status: record.status,
    error: record.error,
    conditionKey: record.spec.condition.key,
    rateBitsPerSec: record.spec.condition.rateBitsPerSec,
    queueBytes: record.spec.condition.queueBytes,
    variant: { kind: record.spec.variant.kind, name: record.spec.variant.name },
    repeat: record.spec.repeat,
    window,
    windowProblem: problem,
    totalBitsPerSec: total,
    fairShareBitsPerSec: fair,
    videoLadderBps: runLadderBps(record),
    audioBps: AUDIO.bandwidth,
    utilization: total === null ? null : total / record.spec.condition.rateBitsPerSec,
    flows,
    unfairnessAll: flows.length >= 2 ? unfairness(flows.map((f) => f.bitsPerSec)) : null,
    unfairnessVideo: videoRates.length >= 2 ? unfairness(videoRates) : null,
    players,
    tcp,
    queue: { samples: qRows.length, backlogBytes: maybe(qRows.map((r) => num(r['backlogBytes']))), drops },
    congestionOk: record.congestion ? record.congestion.ok : null,
    host: record.host ?? null,
    cpu,
    playerProblems: problems,
    warnings,
    plot: {
      startS,
      binS: per * series.binS,
      t,
      throughput,
      queueT: data.qdisc.map((r) => +((r['t'] as number) - startS).toFixed(2)),
      queueBytes: data.qdisc.map((r) => num(r['backlogBytes']) ?? 0),
      phases: record.times.phases.map((p) => ({ name: p.name, fromS: p.fromS - startS, toS: p.toS - startS })),
    },
  };
}

/** Summarizes a run directory and writes its summary.json. */
export function writeRunSummary(runDir: string): RunSummary {
  const summary = summarizeRun(loadRunData(runDir));
  writeFileSync(path.join(runDir, RUN_SUMMARY_FILE), `${JSON.stringify(summary)}\n`);
  return summary;
}
