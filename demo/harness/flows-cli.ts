// `sprint flows`: how each connection of a `sprint ab --packets` run met the
// bottleneck queue (flow-figures.ts), from the run folder's two header
// captures, over the measured window of its summary.json: the queue's drops
// and their episodes, retransmissions, the sender's bursts and where the drops
// fell in them, the ACK stream and the receive window; with the origins'
// access logs, the drops by offset into each connection's responses. Reads
// files only.

import * as fs from 'fs';
import * as path from 'path';
import { OptionsSpec, parseArgs, parseInteger, parseNumber, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { runMain } from '../../src/cli/run-main';
import { num, readJsonl } from '../testbed/jsonl';
import { PACKET_FILES, type CaptureSide, type PacketCaptureSummary } from '../testbed/packet-capture';
import { PcapError, readPcapFile } from '../testbed/pcap';
import { alignColumns } from './format';
import { DEFAULT_BURST_GAP_S, flowFigures, FlowFigures, responseKey, Spread, STRETCH_SEGMENTS } from './flow-figures';
import { DEFAULT_OFFSET_BIN_BYTES, responseStarts, type ResponseRecord } from './response-offsets';

const SPEC: OptionsSpec = {
  all: { kind: 'flag' },
  'burst-gap': { kind: 'value' },
  'min-segments': { kind: 'value' },
  json: { kind: 'flag' },
  help: { kind: 'flag', short: 'h' },
};

const DEFAULT_MIN_SEGMENTS = 10;
/** Bytes of a full-size frame, for the default burst gap. */
const FRAME_BYTES = 1514;

export const USAGE = `Usage: sprint flows RUN_DIR [--all] [--burst-gap MS] [--min-segments N] [--json]

Per TCP connection of a run made with sprint ab --packets, from its header
captures at the router (packets-server.pcap.gz: the server's data before the
bottleneck queue; packets-client.pcap.gz: after it, and the receiver's ACKs),
over the measured window of the run's summary.json:

  queue      data segments before and after the queue; dropped = seen before it and
             never after; drop episodes = drops within one RTT of an episode's first;
             retransmissions = segments the sender sent again; RTT = from a segment
             leaving the server to the ACK covering it reaching the router (median)
  bursts     segments that left the server back to back (gaps under --burst-gap);
             the bursts that lost a segment, and where the drops were in them
  acks       ACKs at the router: spacing, bytes per advancing ACK, stretch ACKs
             (more than ${STRETCH_SEGMENTS} segments), duplicate ACKs, ACKs with SACK blocks
  ack delay  from the last data segment out of the queue to the receiver's next ACK:
             whether the receiver (curl, Chromium, the socket host) is slow to ACK
  overflows  the queue's overflow events (drops of any connection within the longest
             connection RTT) this connection lost a segment in, and lost in alone
  rwnd       the receiver's advertised window, scaled by the window scale of its SYN
  responses  with the origin's access log (origin-PORT.log[.gz]; HTTP/1.1, logs that
             give head bytes): data segments sent, this connection's drops, and the
             other connections' drops (placed by where this sender was), by offset into
             the response, in bins of ${DEFAULT_OFFSET_BIN_BYTES / 1024} KB from its first byte

  --all             the whole capture instead of the measured window
  --burst-gap MS    a gap that ends a burst, ms (default: half a full-size frame's time at
                    the run's bottleneck rate; ${DEFAULT_BURST_GAP_S * 1000} ms without run.json)
  --min-segments N  leave out connections with fewer data segments in the window (default ${DEFAULT_MIN_SEGMENTS})
  --json            one JSON object instead of the text
`;

/** The capture of one side in a run folder (gzip, or a plain .pcap beside it). */
function captureFile(dir: string, side: CaptureSide): string {
  const gz = path.join(dir, PACKET_FILES[side]);
  if (fs.existsSync(gz)) return gz;
  const plain = gz.replace(/\.gz$/, '');
  if (fs.existsSync(plain)) return plain;
  throw new UsageError(`${dir}: no ${PACKET_FILES[side]} (was the run made with sprint ab --packets?)`);
}

interface RunInfo {
  readonly labels: ReadonlyMap<number, string>;
  readonly rateBitsPerSec: number | null;
  readonly packets: readonly PacketCaptureSummary[];
  readonly window: { fromS: number; toS: number } | null;
}

function readJson(file: string): Record<string, unknown> | null {
  if (!fs.existsSync(file)) return null;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`${file}: not JSON: ${(err as Error).message}`);
  }
}

function runInfo(dir: string): RunInfo {
  const run = readJson(path.join(dir, 'run.json'));
  const summary = readJson(path.join(dir, 'summary.json'));
  const labels = new Map<number, string>();
  for (const f of (run?.['flows'] as Array<{ port?: unknown; label?: unknown }> | undefined) ?? [])
    if (typeof f.port === 'number') labels.set(f.port, String(f.label ?? f.port));
  const spec = run?.['spec'] as { condition?: { rateBitsPerSec?: unknown } } | undefined;
  const w = summary?.['window'] as { fromS?: unknown; toS?: unknown } | null | undefined;
  const fromS = num(w?.fromS);
  const toS = num(w?.toS);
  return {
    labels,
    rateBitsPerSec: num(spec?.condition?.rateBitsPerSec),
    packets: (run?.['packets'] as PacketCaptureSummary[] | undefined) ?? [],
    window: fromS !== null && toS !== null ? { fromS, toS } : null,
  };
}

/** Where the responses of each connection to an origin of the run begin, from the origins' access logs. */
function originResponseStarts(dir: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const ports = new Set<number>();
  for (const name of fs.readdirSync(dir)) {
    const m = /^origin-(\d+)\.log(\.gz)?$/.exec(name);
    if (m) ports.add(Number(m[1]));
  }
  for (const port of ports)
    for (const [remote, starts] of responseStarts(readJsonl<ResponseRecord>(path.join(dir, `origin-${port}.log`)))) {
      const c = remote.lastIndexOf(':');
      out.set(responseKey(port, remote.slice(0, c), Number(remote.slice(c + 1))), starts);
    }
  return out;
}

const ms = (s: number): string => (s * 1000 >= 10 ? (s * 1000).toFixed(0) : (s * 1000).toFixed(2));
const kb = (b: number): string => (b / 1024).toFixed(b >= 10240 ? 0 : 1);
const spreadText = (s: Spread | null, unit: (v: number) => string): string =>
  s ? `median ${unit(s.median)}, p90 ${unit(s.p90)}, max ${unit(s.max)}` : '–';

function flowLines(f: FlowFigures, label: string): string[] {
  const b = f.bursts;
  const a = f.acks;
  const seg = (bytes: number): string => (f.mss > 0 ? (bytes / f.mss).toFixed(1) : '–');
  const rows = [
    [
      'queue',
      `${f.segmentsBefore} segments before (${(f.bytesBefore / 1048576).toFixed(1)} MB), ${f.segmentsAfter} after; dropped ${f.dropped} in ${f.dropEpisodes} episode(s); ${f.retransmissions} retransmission(s); RTT ${f.rttS === null ? '–' : `${ms(f.rttS)} ms`}`,
    ],
    [
      'bursts',
      `${b.count}, segments each ${spreadText(b.size, String)}; ${b.withDrops} lost a segment (${spreadText(b.sizeWithDrops, String)})`,
    ],
    [
      'drops in bursts',
      f.dropped === 0
        ? '–'
        : `last segment ${b.dropsFromEnd[0]}, 2nd last ${b.dropsFromEnd[1]}, 3rd last ${b.dropsFromEnd[2]}, earlier ${b.dropsFromEnd[3]}; position from the start ${spreadText(b.dropPosition, String)}`,
    ],
    [
      'acks',
      `${a.count}, spacing ${spreadText(a.spacingS, (v) => `${ms(v)} ms`)}; per ACK ${spreadText(a.bytesPerAck, (v) => `${seg(v)} seg`)}; stretch ${a.stretch}, duplicate ${a.duplicate}, with SACK ${a.sack}`,
    ],
    ['ack delay', `after the last data segment out of the queue ${spreadText(a.delayS, (v) => `${ms(v)} ms`)}`],
    ['overflows', `lost a segment in ${f.overflow.lostIn} of the queue's overflow events, alone in ${f.overflow.lostAlone}`],
    [
      'rwnd',
      `${f.receiveWindow.scale === null ? 'scale unknown (no SYN in the capture), unscaled' : `scale ${f.receiveWindow.scale}`}: ${spreadText(f.receiveWindow.bytes, (v) => `${kb(v)} KB`)}`,
    ],
  ];
  const r = f.responses;
  if (r)
    rows.push(
      ['responses', `${r.responses}; by offset into the response, bins of ${kb(r.binBytes)} KB from its first byte:`],
      ['  segments sent', r.sent.join(' ')],
      ['  drops', r.own.join(' ')],
      ["  others' drops", r.others.join(' ')],
    );
  return [`${label} ${f.key} (mss ${f.mss})`, ...alignColumns(rows, '  ')];
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let dir: string;
  let all: boolean;
  let json: boolean;
  let burstGapS: number | null = null;
  let minSegments = DEFAULT_MIN_SEGMENTS;
  let files: Record<CaptureSide, string>;
  try {
    const args = parseArgs(argv, SPEC, { allowPositionals: true });
    if (args.flags.has('help')) {
      io.stdout.write(USAGE);
      return 0;
    }
    if (args.positionals.length !== 1) throw new UsageError(`expected one run folder, got ${args.positionals.length} arguments`);
    dir = args.positionals[0] as string;
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`${dir}: no such run folder`);
    const gap = args.values.get('burst-gap');
    if (gap !== undefined) {
      burstGapS = parseNumber(gap, '--burst-gap') / 1000;
      if (!(burstGapS > 0)) throw new UsageError(`--burst-gap must be above 0, got ${JSON.stringify(gap)}`);
    }
    const min = args.values.get('min-segments');
    if (min !== undefined) minSegments = parseInteger(min, '--min-segments', 0);
    all = args.flags.has('all');
    json = args.flags.has('json');
    files = { server: captureFile(dir, 'server'), client: captureFile(dir, 'client') };
  } catch (err) {
    return reportError('flows', err, io);
  }
  try {
    const info = runInfo(dir);
    const warnings: string[] = [];
    for (const p of info.packets)
      if (p.droppedByKernel)
        warnings.push(
          `${p.file}: tcpdump reported ${p.droppedByKernel} packet(s) dropped by the kernel: the capture missed them, so some drops below may be the capture's`,
        );
    const window = all ? null : info.window;
    if (!all && !window) warnings.push('no measured window (summary.json missing or without one): the whole capture is used');
    const gapS = burstGapS ?? (info.rateBitsPerSec ? (FRAME_BYTES * 8) / info.rateBitsPerSec / 2 : DEFAULT_BURST_GAP_S);
    const server = readPcapFile(files.server);
    const client = readPcapFile(files.client);
    const starts = originResponseStarts(dir);
    const { flows: figures, overflow } = flowFigures(server.packets, client.packets, { window, burstGapS: gapS, responseStarts: starts });
    const shown = figures.filter((f) => f.segmentsBefore >= minSegments);
    const labelOf = (f: FlowFigures): string => `${f.serverPort} ${info.labels.get(f.serverPort) ?? '?'}`;
    if (json) {
      io.stdout.write(
        `${JSON.stringify({ run: dir, window, burstGapS: gapS, warnings, overflow, flows: shown.map((f) => ({ label: info.labels.get(f.serverPort) ?? null, ...f })) })}\n`,
      );
    } else {
      for (const w of warnings) io.stderr.write(`sprint flows: warning: ${w}\n`);
      const lines = [
        `${dir}: ${window ? `measured window, ${(window.toS - window.fromS).toFixed(0)} s` : 'whole capture'}; bursts end at gaps over ${ms(gapS)} ms; ${server.packets.length} + ${client.packets.length} TCP packets (server side + client side)`,
        `queue overflow events: ${overflow.events} (drops of any connection within ${ms(overflow.spanS)} ms of the event's first)`,
        '',
      ];
      for (const f of shown) lines.push(...flowLines(f, labelOf(f)), '');
      if (shown.length < figures.length)
        lines.push(
          `${figures.length - shown.length} more connection(s) with fewer than ${minSegments} data segments in the window (--min-segments 0 lists them)`,
        );
      io.stdout.write(`${lines.join('\n').trimEnd()}\n`);
    }
    return 0;
  } catch (err) {
    // A damaged or cut-short capture (PcapError) or an unreadable file: say which and stop.
    io.stderr.write(`sprint flows: ${err instanceof PcapError ? '' : 'cannot read the run: '}${(err as Error).message}\n`);
    return 1;
  }
}

runMain(module, 'sprint flows', main);
