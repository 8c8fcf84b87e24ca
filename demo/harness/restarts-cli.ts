// `sprint restarts`: Sprint's trains after a pause in a player's log
// (restarts.ts): the pause, the buffer each resumed with and the restart
// reserve then (src/train/restart-reserve.ts, paper §IV-B1's paused
// regime), how its video arrived, and the stalls while it ran, with the
// buffer that ran out. Takes a player log or an A/B run folder (every
// player-<port>.jsonl in it; times from the measuring window's start in
// summary.json when there is one; whether each train began on a new
// connection from origin-<port>.log when it is beside the log). Reads files
// only.

import * as fs from 'fs';
import * as path from 'path';
import { OptionsSpec, parseArgs, parseNumber, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { runMain } from '../../src/cli/run-main';
import { num, readJsonl } from '../testbed/jsonl';
import { plainName } from '../testbed/raw-files';
import { alignColumns } from './format';
import { originLogBeside } from './wire-log-cli';
import { restartRows, servingConnections, stallCount, STALL_BUFFER_MARGIN_SEC, type RestartRow } from './restarts';

const SPEC: OptionsSpec = {
  'segment-sec': { kind: 'value' },
  json: { kind: 'flag' },
  help: { kind: 'flag', short: 'h' },
};

/** The demo content's media segment duration, seconds (demo/content). */
const DEFAULT_SEGMENT_SEC = 4;

export const USAGE = `Usage: sprint restarts PLAYER_LOG|RUN_DIR [--segment-sec S] [--json]

Lists a Sprint player's video trains after the run's first (player-<port>.jsonl
of a sprint ab run; a run folder: each player log in it): the pause before
each, whether it was long enough for the server to restart the connection
from its initial window, the bitrate of its first segment, the buffer it
resumed with and the restart reserve then, how its video arrived, and the
stalls until the next train began.

Columns: at s = the train's start, seconds after the measuring window began
(summary.json beside the log; else after the first train); pause s = from
the previous train's end; first s = the first video segment's last byte after
the start; draw-down s = the largest of each video segment's arrival less the
media that arrived before it, until the media delivered caught up with the
time elapsed (caught up s; "–": not within the train), from the train's
record or, in logs without one (*), recomputed from the segment records;
conn = "new" where the train's first video segment came on another origin
connection than the previous train's last (the connection was closed during
the pause, so the restart paid a handshake and a fresh slow start), from
origin-<port>.log beside the log ("–" without it);
stalls = each stall's time into the train and the buffer that ran out (the
one ${STALL_BUFFER_MARGIN_SEC} s or more below the other at the poll before), "both" when neither.

  --segment-sec S  media segment duration for recomputing draw-downs (default ${DEFAULT_SEGMENT_SEC})
  --json           one JSON object per player log instead of a table
`;

/** The player logs to read: the file, or every player-<port>.jsonl of a run folder. */
function playerLogs(target: string): string[] {
  if (!fs.existsSync(target)) throw new UsageError(`${target}: no such file or folder`);
  if (!fs.statSync(target).isDirectory()) return [target];
  const logs = [...new Set(fs.readdirSync(target).map(plainName))]
    .filter((n) => /^player-\d+\.jsonl$/.test(n))
    .sort()
    .map((n) => path.join(target, n));
  if (logs.length === 0) throw new UsageError(`${target}: no player-<port>.jsonl in it`);
  return logs;
}

/** The measuring window's start beside a player log (summary.json's window.fromS), ms; null without one. */
function windowStartMs(playerLog: string): number | null {
  const file = path.join(path.dirname(playerLog), 'summary.json');
  if (!fs.existsSync(file)) return null;
  const summary = JSON.parse(fs.readFileSync(file, 'utf8')) as { window?: { fromS?: unknown } };
  const fromS = num(summary.window?.fromS);
  return fromS === null ? null : fromS * 1000;
}

/** The connection of each range from the origin's access log beside a player log (originLogBeside); null without one. */
function originConnections(playerLog: string): Map<string, number> | null {
  const file = originLogBeside(playerLog);
  return file === null ? null : servingConnections(readJsonl(file));
}

const sec = (v: number | null, digits = 1): string => (v === null ? '–' : v.toFixed(digits));

function table(rows: readonly RestartRow[], t0Ms: number): string[] {
  const header = [
    'train',
    'at s',
    'pause s',
    'restart',
    'Mbit/s',
    'resumed with s',
    'reserve s',
    'first s',
    'draw-down s',
    'caught up s',
    'conn',
    'stalls',
  ];
  const body = rows.map((r) => [
    String(r.train),
    ((r.startMs - t0Ms) / 1000).toFixed(0),
    r.pauseSec.toFixed(1),
    r.restart ? 'yes' : 'no',
    r.bitrate === null ? '–' : (r.bitrate / 1e6).toFixed(2),
    sec(r.resumeBufferSec),
    sec(r.reserveSec),
    sec(r.firstSegmentSec),
    r.drawDownSec === null ? '–' : `${r.drawDownSec.toFixed(1)}${r.drawDownFrom === 'segments' ? '*' : ''}`,
    sec(r.caughtUpSec),
    r.newConnection === null ? '–' : r.newConnection ? 'new' : 'same',
    r.stalls.map((s) => `${s.atSec.toFixed(0)} s ${s.buffer}`).join(', ') || '–',
  ]);
  return alignColumns([header, ...body], '  ');
}

function describe(playerLog: string, rows: readonly RestartRow[], stalls: number, t0Ms: number, fromWindow: boolean): string[] {
  const restarts = rows.filter((r) => r.restart);
  const atRestarts = restarts.reduce((n, r) => n + r.stalls.length, 0);
  const covered = restarts.filter((r) => r.drawDownSec !== null && r.resumeBufferSec !== null && r.resumeBufferSec >= r.drawDownSec).length;
  const known = rows.filter((r) => r.newConnection !== null);
  const fresh = known.filter((r) => r.newConnection === true).length;
  return [
    `${playerLog}: ${rows.length} trains after the first, ${restarts.length} after a pause long enough for a restart; ` +
      `${atRestarts} of ${stalls} stalls in the log came during those; ${covered} of ${restarts.length} resumed with at least their draw-down buffered` +
      (known.length > 0 ? `; ${fresh} of ${known.length} began on a new connection` : '') +
      (fromWindow ? '' : ' (no summary.json: times from the first train)'),
    ...table(rows, t0Ms),
    '',
  ];
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let logs: string[];
  let segmentSec = DEFAULT_SEGMENT_SEC;
  let json = false;
  try {
    const args = parseArgs(argv, SPEC, { allowPositionals: true });
    if (args.flags.has('help')) {
      io.stdout.write(USAGE);
      return 0;
    }
    if (args.positionals.length !== 1)
      throw new UsageError(`expected one player log or run folder, got ${args.positionals.length} arguments`);
    const s = args.values.get('segment-sec');
    if (s !== undefined) {
      segmentSec = parseNumber(s, '--segment-sec');
      if (!(segmentSec > 0)) throw new UsageError(`--segment-sec must be above 0, got ${JSON.stringify(s)}`);
    }
    json = args.flags.has('json');
    logs = playerLogs(args.positionals[0] as string);
  } catch (err) {
    return reportError('restarts', err, io);
  }
  try {
    let read = 0;
    for (const log of logs) {
      const records = readJsonl(log);
      const trains = records.filter((r) => r['kind'] === 'train' && r['mediaType'] === 'video');
      if (trains.length === 0) {
        io.stderr.write(`sprint restarts: ${log}: no video train records (not a Sprint player's log)\n`);
        continue;
      }
      read += 1;
      const rows = restartRows(records, segmentSec, originConnections(log) ?? undefined);
      const windowMs = windowStartMs(log);
      const t0Ms = windowMs ?? Math.min(...trains.map((t) => num(t['startMs']) ?? Infinity));
      if (json) io.stdout.write(`${JSON.stringify({ playerLog: log, windowStartMs: windowMs, restarts: rows })}\n`);
      else io.stdout.write(`${describe(log, rows, stallCount(records), t0Ms, windowMs !== null).join('\n')}\n`);
    }
    return read > 0 ? 0 : 1;
  } catch (err) {
    io.stderr.write(`sprint restarts: ${(err as Error).message}\n`);
    return 1;
  }
}

runMain(module, 'sprint restarts', main);
