// `sprint wire`: what a player did on the wire, from an origin's access log
// (wire-log.ts): its media requests per connection grouped into bursts of
// back-to-back requests — Sprint's pipelined trains (paper §IV-B1), Sprint-x's
// expanded range requests (§IV-B2), stock's one request per segment — each
// beside the model's target from the player's own log when there is one.
// Takes an access log (with an optional player log) or an A/B run folder
// (origin-<port>.log beside player-<port>.jsonl). Reads files only.

import * as fs from 'fs';
import * as path from 'path';
import { OptionsSpec, parseArgs, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { readJsonl } from '../testbed/jsonl';
import { plainName, rawFileExists, readRawText } from '../testbed/raw-files';
import {
  Burst,
  bursts,
  isProbe,
  matchPlanned,
  mediaTypesOf,
  parseWireLine,
  PlannedTransfer,
  plannedTransfers,
  playerTransfers,
  PortBins,
  TRAIN_IDLE_FLAG_SHARE,
  TrainOnWire,
  trainsOnWire,
  WIRE_GAP_MIN_MS,
  WireRequest,
} from './wire-log';
import { readWireSeries } from '../testbed/wire-series';
import { runMain } from '../../src/cli/run-main';
import { alignColumns } from './format';

const SPEC: OptionsSpec = {
  player: { kind: 'value' },
  type: { kind: 'value' },
  json: { kind: 'flag' },
  help: { kind: 'flag', short: 'h' },
};

export const USAGE = `Usage: sprint wire ACCESS_LOG [--player PLAYER_LOG] [--type video|audio] [--json]
       sprint wire RUN_DIR [--type video|audio] [--json]

Groups a player's media requests in an origin access log (sprint serve --log,
the nginx origin, or origin-<port>.log of a sprint ab run) into bursts per
connection: runs of requests where each one arrived before the previous
response on its connection ended. A Sprint train is one burst of pipelined
requests; a Sprint-x expanded request or a stock segment request is a burst
of one. With the player's log (player-<port>.jsonl of a sprint ab run) each
burst is set beside the model's target of the train or expanded request that
overlaps it. RUN_DIR pairs origin-<port>.log with player-<port>.jsonl.

  --player FILE   the player's log, for the model's targets and media types
  --type T        only bursts of media type T (needs the player's log)
  --json          one JSON object per origin log instead of tables

Columns: MB = body bytes the origin sent; range MB = what the Range headers
asked for (a cancelled expanded request sends less than it asked for).
Trains (with the player's log): pipelined = requests after the first that
arrived before the origin had written the train's previous response (a lower
bound: written bytes may still be in socket buffers); issued while arriving =
the player's own transfers after the first that it issued while an earlier
one was still arriving; idle = time inside the train no response of it was
being written (the origin's view); wire gaps = stretches of 300 ms or more
with no byte of the player's port on the wire (a run folder's wire.jsonl);
IDLE flags trains whose wire gaps (else idle) exceed 5 %.
`;

interface LogPair {
  readonly accessLog: string;
  readonly playerLog: string | null;
}

function readLines(file: string): string[] {
  return readRawText(file)
    .split('\n')
    .filter((l) => l.trim() !== '');
}

/**
 * The origin's access log beside a player log of a run folder (origin-<port>.log for player-<port>.jsonl, either
 * plain or compressed); null without one. Returns the plain name: readers take it (raw-files.ts).
 */
export function originLogBeside(playerLog: string): string | null {
  const m = /^player-(\d+)\.jsonl$/.exec(plainName(path.basename(playerLog)));
  if (!m) return null;
  const access = path.join(path.dirname(playerLog), `origin-${m[1] as string}.log`);
  return rawFileExists(access) ? access : null;
}

/** The logs to read: one pair, or every player of a run folder that has an origin log. */
function logPairs(target: string, playerLog: string | null): LogPair[] {
  if (!fs.existsSync(target)) throw new UsageError(`${target}: no such file or folder`);
  if (!fs.statSync(target).isDirectory()) return [{ accessLog: target, playerLog }];
  if (playerLog !== null) throw new UsageError('--player goes with an access log, not a run folder');
  const pairs: LogPair[] = [];
  for (const name of [...new Set(fs.readdirSync(target).map(plainName))].sort()) {
    const player = path.join(target, name);
    const access = originLogBeside(player);
    if (access !== null) pairs.push({ accessLog: access, playerLog: player });
  }
  if (pairs.length === 0) throw new UsageError(`${target}: no player-<port>.jsonl with an origin-<port>.log beside it`);
  return pairs;
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(2);
const median = (xs: readonly number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

interface BurstRow {
  readonly burst: Burst;
  /** Media type of the burst's files (from the player's log), or null. */
  readonly type: string | null;
  readonly planned: PlannedTransfer | null;
}

function table(rows: readonly BurstRow[], t0: number): string[] {
  const header = ['#', 'conn', 'type', 'from s', 'secs', 'requests', 'pipelined', 'MB', 'range MB', 'Mbit/s', 'model target MB', 'files'];
  const body = rows.map(({ burst: b, type, planned: p }, i) => {
    const secs = (b.toMs - b.fromMs) / 1000;
    const target =
      p === null
        ? '–'
        : p.initialTargetBytes !== p.targetBytes
          ? `${mb(p.targetBytes)} (first ${mb(p.initialTargetBytes)}, ${p.label})`
          : `${mb(p.targetBytes)} (${p.label})`;
    return [
      String(i + 1),
      String(b.conn),
      type ?? '?',
      ((b.fromMs - t0) / 1000).toFixed(1),
      secs.toFixed(1),
      String(b.requests) + (b.incomplete > 0 ? ` (${b.incomplete} cut)` : ''),
      b.arrivalsKnown ? String(b.pipelined) : 'n/a',
      mb(b.bytes),
      b.requestedBytes === null ? '–' : mb(b.requestedBytes),
      secs > 0 && b.bytes >= 100_000 ? ((b.bytes * 8) / secs / 1e6).toFixed(2) : '–',
      target,
      b.files.length <= 3 ? b.files.join(' ') : `${b.files.slice(0, 3).join(' ')} +${b.files.length - 3}`,
    ];
  });
  return alignColumns([header, ...body], '  ');
}

/** One summary line for a group of bursts (all, or one media type). */
function summaryLine(label: string, rows: readonly BurstRow[]): string {
  const requests = rows.reduce((s, r) => s + r.burst.requests, 0);
  const pipelined = rows.reduce((s, r) => s + r.burst.pipelined, 0);
  const conns = new Set(rows.map((r) => r.burst.conn));
  const multi = rows.filter((r) => r.burst.requests > 1);
  const bytes = rows.reduce((s, r) => s + r.burst.bytes, 0);
  const biggest = Math.max(0, ...rows.map((r) => r.burst.bytes));
  const targetMb = median(rows.flatMap((r) => (r.planned ? [r.planned.targetBytes] : [])));
  return (
    `  ${label}: ${requests} requests (${mb(bytes)} MB) on ${conns.size} connection(s), ${pipelined} pipelined (arrived before the origin had written the response ahead); ` +
    `${rows.length} bursts, ${multi.length} of more than one request; largest burst ${mb(biggest)} MB` +
    (targetMb !== null ? `; median model target ${mb(targetMb)} MB` : '')
  );
}

/** " (87 %)": `count` as a share of a train's requests after its first; empty for a train of one. */
function followingShare(count: number, requests: number): string {
  return requests > 1 ? ` (${Math.round((100 * count) / (requests - 1))} %)` : '';
}

/**
 * Whether a train idled for more than TRAIN_IDLE_FLAG_SHARE of its time: on
 * the wire itself when the run's capture is there (the gaps of at least
 * WIRE_GAP_MIN_MS), else at the origin (an upper bound: socket buffers and
 * the bottleneck queue keep sending after the origin has written).
 */
export function trainIdleFlagged(w: TrainOnWire): boolean {
  const share = w.wireGapShare ?? w.idleShare;
  return share !== null && share > TRAIN_IDLE_FLAG_SHARE;
}

/** The player port's bins from the run's wire capture beside an origin-<port>.log, or null (no capture, or another log). */
export function portBinsBeside(accessLog: string): PortBins | null {
  const m = /^origin-(\d+)\.log$/.exec(plainName(path.basename(accessLog)));
  const capture = path.join(path.dirname(accessLog), 'wire.jsonl');
  if (!m || !rawFileExists(capture)) return null;
  const series = readWireSeries(capture, 'bytes');
  const bytes = series.bytes[m[1] as string];
  return bytes ? { t0Ms: series.t0S * 1000, binMs: series.binS * 1000, bytes } : null;
}

/** A train's buffer when it began, and the restart reserve then ("–": not in the log). */
function resumeCell(bufferSec: number | null, reserveSec: number | null): string {
  if (bufferSec === null) return '–';
  return reserveSec !== null && reserveSec > 0 ? `${bufferSec.toFixed(1)} (reserve ${reserveSec.toFixed(1)})` : bufferSec.toFixed(1);
}

/** Sprint's trains (player log) beside the video requests the origin saw while each ran. */
function trainTable(trains: readonly TrainOnWire[], t0: number): string[] {
  if (trains.length === 0) return [];
  const header = [
    'train',
    'from s',
    'secs',
    'buffer at start s',
    'model target MB',
    'connections',
    'requests',
    'pipelined',
    'issued while arriving',
    'idle s',
    'idle %',
    'wire gaps s',
    'wire gaps %',
    'MB on the wire',
    'Mbit/s',
    '',
  ];
  const body = trains.map((w) => {
    const secs = w.fromMs !== null && w.toMs !== null ? (w.toMs - w.fromMs) / 1000 : 0;
    const target =
      w.train.initialTargetBytes !== w.train.targetBytes
        ? `${mb(w.train.targetBytes)} (first ${mb(w.train.initialTargetBytes)})`
        : mb(w.train.targetBytes);
    return [
      w.train.label,
      w.fromMs !== null ? ((w.fromMs - t0) / 1000).toFixed(1) : '–',
      secs.toFixed(1),
      resumeCell(w.train.resumeBufferSec ?? null, w.train.restartReserveSec ?? null),
      target,
      w.conns.join(' ') || '–',
      String(w.requests),
      w.arrivalsKnown ? `${w.pipelined}${followingShare(w.pipelined, w.requests)}` : 'n/a',
      w.playerRequests === null || w.playerPipelined === null || w.playerRequests === 0
        ? '–'
        : `${w.playerPipelined} of ${w.playerRequests - 1}${followingShare(w.playerPipelined, w.playerRequests)}`,
      w.idleMs !== null ? (w.idleMs / 1000).toFixed(1) : '–',
      w.idleShare !== null ? (100 * w.idleShare).toFixed(1) : '–',
      w.wireGapMs !== null ? (w.wireGapMs / 1000).toFixed(1) : '–',
      w.wireGapShare !== null ? (100 * w.wireGapShare).toFixed(1) : '–',
      mb(w.bytes),
      secs > 0 && w.bytes >= 100_000 ? ((w.bytes * 8) / secs / 1e6).toFixed(2) : '–',
      trainIdleFlagged(w) ? 'IDLE' : '',
    ];
  });
  const flagged = trains.filter(trainIdleFlagged).length;
  return [
    '  Sprint trains (player log) and the video requests the origin saw while each ran; the last train may still have been open when the run ended.',
    "  pipelined: requests after the first that arrived before the origin had written the train's previous response (share of those; a lower bound:",
    "  the last bytes written may still be in socket buffers and on the link); issued while arriving: the player's transfers after the first that it",
    '  issued while an earlier one of the train was still arriving (its log, its clock); buffer at start: video buffered when the train began, with',
    "  the restart reserve then, if any (src/train/restart-reserve.ts: it sets the resume level where it is above dash.js's own); idle: time inside the train",
    "  no response of it was being written (gaps between one response's end and the next one's start: the origin's view, an upper bound, since",
    `  written bytes still wait in socket buffers and the bottleneck queue); wire gaps: stretches of at least ${WIRE_GAP_MIN_MS} ms in which no byte of`,
    `  this player's port crossed the bottleneck (the run's wire.jsonl); IDLE: wire gaps (else idle) over ${100 * TRAIN_IDLE_FLAG_SHARE} % of the train's time.`,
    ...alignColumns([header, ...body], '  '),
    `  ${flagged} of ${trains.length} trains idle over ${100 * TRAIN_IDLE_FLAG_SHARE} % of their time${trains.some((w) => w.wireGapShare !== null) ? ' on the wire' : ' at the origin (no wire capture beside the log)'}.`,
    '',
  ];
}

function describe(pair: LogPair, requests: readonly WireRequest[], rows: readonly BurstRow[], trains: readonly TrainOnWire[]): string[] {
  const t0 = Math.min(...requests.map((r) => r.startMs));
  const probes = requests.filter(isProbe).length;
  const lines = [`${pair.accessLog}${pair.playerLog ? ` (player log ${pair.playerLog})` : ''}`, summaryLine('media', rows)];
  if (probes > 0) lines.push(`  (${probes} RTT probes — one-byte ranges or /probe — left out)`);
  const types = [...new Set(rows.flatMap((r) => (r.type === null ? [] : [r.type])))].sort((a, b) => b.localeCompare(a));
  if (types.length > 1)
    for (const type of types)
      lines.push(
        summaryLine(
          type,
          rows.filter((r) => r.type === type),
        ),
      );
  if (rows.some((r) => !r.burst.arrivalsKnown))
    lines.push('  (nginx log: no arrival times, bursts grouped by responses starting within 5 ms of the previous end)');
  lines.push(...trainTable(trains, t0));
  if (rows.length > 0)
    lines.push(
      '  Bursts: runs of media requests in which each arrived before the origin had written the response ahead of it on its connection:',
    );
  lines.push(...table(rows, t0), '');
  return lines;
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let pairs: LogPair[];
  let json = false;
  let onlyType: string | null = null;
  try {
    const args = parseArgs(argv, SPEC, { allowPositionals: true });
    if (args.flags.has('help')) {
      io.stdout.write(USAGE);
      return 0;
    }
    if (args.positionals.length !== 1)
      throw new UsageError(`expected one access log or run folder, got ${args.positionals.length} arguments`);
    json = args.flags.has('json');
    onlyType = args.values.get('type') ?? null;
    if (onlyType !== null && onlyType !== 'video' && onlyType !== 'audio')
      throw new UsageError(`--type must be video or audio, got ${JSON.stringify(onlyType)}`);
    pairs = logPairs(args.positionals[0] as string, args.values.get('player') ?? null);
    if (onlyType !== null && pairs.some((p) => p.playerLog === null))
      throw new UsageError("--type needs the player's log (--player, or a run folder) for the media types");
  } catch (err) {
    return reportError('wire', err, io);
  }
  try {
    for (const pair of pairs) {
      const lines = readLines(pair.accessLog);
      const requests = lines.map(parseWireLine).filter((r): r is WireRequest => r !== null);
      if (requests.length === 0)
        throw new Error(`${pair.accessLog}: no access-log records (expected JSON lines from sprint serve --log or the nginx origin)`);
      const playerLines = pair.playerLog === null ? [] : readJsonl(pair.playerLog);
      const planned = plannedTransfers(playerLines);
      const types = mediaTypesOf(playerLines);
      const lastEnd = Math.max(...requests.map((r) => r.endMs));
      const rows = bursts(requests)
        .map((b): BurstRow => {
          // Audio riding a train's connection shares its bursts: a burst that carries any video is a video burst.
          const fileTypes = b.files.map((f) => types.get(f) ?? null).filter((t): t is string => t !== null);
          const type = fileTypes.includes('video') ? 'video' : (fileTypes[0] ?? null);
          return { burst: b, type, planned: matchPlanned(b, planned, lastEnd, type) };
        })
        .filter((r) => onlyType === null || r.type === onlyType);
      const trains =
        onlyType === 'audio'
          ? []
          : trainsOnWire(requests, planned, types, lastEnd, playerTransfers(playerLines), portBinsBeside(pair.accessLog));
      if (json) io.stdout.write(`${JSON.stringify({ accessLog: pair.accessLog, playerLog: pair.playerLog, trains, bursts: rows })}\n`);
      else io.stdout.write(`${describe(pair, requests, rows, trains).join('\n')}\n`);
    }
    return 0;
  } catch (err) {
    io.stderr.write(`sprint wire: ${(err as Error).message}\n`);
    return 1;
  }
}

runMain(module, 'sprint wire', main);
