// Synthetic A/B runs with known answers, for the harness's summary,
// aggregation and report tests: a 100 s "both" phase from t = 1000 s, one
// player (port 8001) and one bulk flow (port 9001), 20 s of warm-up. During
// the warm-up both flows get 1.5 Mbit/s each; afterwards the video gets
// `videoMbit` and the bulk flow the rest of 3 Mbit/s — so the measured % of
// fair share is exact and only right if the warm-up really is discarded.

import { mkdirSync, writeFileSync } from 'fs';
import * as path from 'path';
import type { FlowSeries } from '../../../demo/testbed/metrics';
import { buildPlan, CommonSettings, flowsOf, Plan, PlayerSpec, RunSpec } from '../../../demo/harness/plan';
import type { PlayerLine } from '../../../demo/harness/player-summary';
import type { RunRecord } from '../../../demo/harness/run';
import type { RunData } from '../../../demo/harness/run-summary';
import { scheduleFromPhases } from '../../../demo/harness/schedule';
import { AbManifest, MANIFEST_FORMAT, MANIFEST_VERSION, writeManifest } from '../../../demo/harness/manifest';

export const T0 = 1000;
export const BOTH_S = 100;
export const WARMUP_S = 20;
const BIN_S = 0.1;

export const SETTINGS: CommonSettings = {
  bulkFlows: 1,
  congestionControl: 'cubic',
  delayMs: 0,
  slowStartAfterIdle: true,
  layout: 'unchunked',
  contentSet: 'test',
  warmupS: WARMUP_S,
  measureS: BOTH_S - WARMUP_S,
  schedule: scheduleFromPhases([{ name: 'both', durationS: BOTH_S }]),
};

export const STOCK: PlayerSpec = { label: 'stock', mode: 'stock', abr: 'dash-default' };
export const SPRINTX: PlayerSpec = { label: 'sprint-x', mode: 'sprint-x', abr: 'dash-default' };

export function testPlan(players: PlayerSpec[] = [STOCK, SPRINTX], repeats = 3): Plan {
  return buildPlan({
    settings: SETTINGS,
    conditions: [{ key: '3mbit-256kb', rateBitsPerSec: 3e6, queueBytes: 262144 }],
    players,
    repeats,
    control: true,
    together: false,
  });
}

/** Wire bins: video starts 1 s in; equal shares in the warm-up, then videoMbit vs the rest. */
export function wireSeries(videoId: string, bulkId: string, videoMbit: number): FlowSeries {
  const n = Math.round(BOTH_S / BIN_S);
  const perBin = (mbit: number): number => (mbit * 1e6 * BIN_S) / 8;
  const video: number[] = [];
  const bulk: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = T0 + i * BIN_S;
    if (t < T0 + 1) {
      video.push(0);
      bulk.push(perBin(3));
    } else if (t < T0 + 1 + WARMUP_S) {
      video.push(perBin(1.5));
      bulk.push(perBin(1.5));
    } else {
      video.push(perBin(videoMbit));
      bulk.push(perBin(3 - videoMbit));
    }
  }
  return { t0S: T0, binS: BIN_S, bytes: { [videoId]: video, [bulkId]: bulk } };
}

/**
 * Player lines: a poll a second; the ABR's choice is 1 Mbit/s, then 1.5 Mbit/s
 * from t0+50; one rebuffer (2 s) in the warm-up and one (3 s) in the window;
 * one rendered switch at t0+50; video segments as listed below.
 */
export function playerLines(label: string, mode: string): PlayerLine[] {
  const lines: PlayerLine[] = [{ kind: 'open', t: T0, url: 'http://x/', label, port: 8001, mode, abr: 'dash-default' }];
  for (let i = 0; i < BOTH_S; i++) {
    const t = T0 + 0.5 + i;
    const late = t >= T0 + 50;
    lines.push({
      kind: 'poll',
      t,
      ready: true,
      visibility: 'visible',
      requestedMode: mode,
      mode,
      modeReason: `${mode} requested`,
      playback: {
        currentTimeSec: i,
        videoBufferSec: late ? 20 : 10,
        audioBufferSec: 10,
        videoBitrate: late ? 1.5e6 : 1e6,
        dashThroughputBitsPerSec: 1.4e6,
        startupDelayMs: 1500,
        rebufferCount: t >= T0 + 60 ? 2 : t >= T0 + 5 ? 1 : 0,
        rebufferMs: t >= T0 + 60 ? 5000 : t >= T0 + 5 ? 2000 : 0,
        bitrateSwitches: late ? 1 : 0,
        ended: false,
        errors: [],
      },
      estimates: {
        rttSec: 0.6,
        probeRttSec: 0.65,
        tcpInfoRttSec: 0.6,
        rttSamples: 3,
        bandwidthBitsPerSec: 1.5e6,
        bandwidthSamples: 3,
        chunkBytes: 4e6,
        source: 'wire-timing',
      },
      counters: {},
    });
  }
  // Two video transfers (2 MB, 4 MB) and one audio transfer, all inside the window.
  const transfer = (id: number, url: string, bytes: number, startS: number, endS: number | null): PlayerLine => ({
    kind: 'transfer',
    t: (endS ?? startS) + 0.1,
    id,
    via: mode,
    url,
    range: null,
    startMs: startS * 1000,
    firstByteMs: null,
    endMs: endS === null ? null : endS * 1000,
    bytes,
    expectedBytes: bytes,
    throughputBitsPerSec: null,
    targetChunkBytes: 4e6,
    rttEstimateSec: 0.6,
    bandwidthEstimateBitsPerSec: 1.5e6,
    segmentsServed: 1,
    cancelled: id === 2,
    wastedBytes: id === 2 ? 1000 : 0,
    error: null,
  });
  const segment = (transferId: number, mediaType: string, url: string, endS: number, bandwidth = 1e6): PlayerLine => ({
    kind: 'segment',
    segmentKind: 'media',
    t: endS + 0.1,
    mediaType,
    url,
    range: null,
    index: Math.round(endS),
    representationId: '1',
    bandwidth,
    bytes: 1000,
    requestMs: (endS - 1) * 1000,
    firstByteMs: null,
    endMs: endS * 1000,
    status: 'ok',
    transferId,
  });
  // Video segments downloaded: 1 Mbit/s at t0+10 (warm-up) and t0+30, 1.5 Mbit/s at t0+60 and t0+80.
  lines.push(
    segment(1, 'video', 'http://x/rep-1.mp4', T0 + 10),
    segment(1, 'video', 'http://x/rep-1.mp4', T0 + 30),
    transfer(1, 'http://x/rep-1.mp4', 2 * 1024 * 1024, T0 + 25, T0 + 30),
  );
  lines.push(
    segment(2, 'video', 'http://x/rep-2.mp4', T0 + 60, 1.5e6),
    segment(2, 'video', 'http://x/rep-2.mp4', T0 + 80, 1.5e6),
    transfer(2, 'http://x/rep-2.mp4', 4 * 1024 * 1024, T0 + 40, T0 + 60),
  );
  lines.push(segment(3, 'audio', 'http://x/rep-5.mp4', T0 + 70), transfer(3, 'http://x/rep-5.mp4', 100000, T0 + 65, T0 + 70));
  lines.push({ kind: 'close', t: T0 + BOTH_S });
  return lines;
}

export function runRecord(spec: RunSpec, status: RunRecord['status'] = 'ok'): RunRecord {
  return {
    format: 'sprint-ab-run',
    version: 1,
    spec,
    settings: SETTINGS,
    flows: flowsOf(spec.variant, SETTINGS.bulkFlows),
    status,
    error: status === 'ok' ? null : 'boom',
    testbed: null,
    times: {
      setupStartS: T0 - 3,
      scheduleStartS: T0,
      phases: status === 'ok' ? [{ name: 'both', fromS: T0, toS: T0 + BOTH_S }] : [],
      videoStartS: T0,
      videoStopS: T0 + BOTH_S,
      bulkStartS: T0,
      bulkStopS: T0 + BOTH_S,
      endS: T0 + BOTH_S + 2,
    },
    congestion: { expected: 'cubic', ok: true, connections: 2, seen: { cubic: 2 }, detail: 'all 2 connections run cubic' },
    capture: null,
    samplers: [],
    bulkExitCodes: {},
    delay: null,
    browser: null,
    pageQuery: '',
    host: { loadAvgStart: [0, 0, 0], loadAvgEnd: [0, 0, 0], cpus: 2 },
    warnings: [],
  };
}

/** ss samples: 2 per second per port, cwnd/RTT depending on the port. */
export function ssSamples(ports: number[]): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < BOTH_S * 2; i++) {
    for (const port of ports) {
      out.push({
        kind: 'ss',
        t: T0 + i * 0.5,
        localPort: port,
        peerPort: 40000 + port,
        cwnd: port === 8001 ? 20 : 40,
        rttMs: 600,
        cc: 'cubic',
        retransTotal: i,
      });
    }
  }
  return out;
}

export function qdiscSamples(): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < BOTH_S * 2; i++) out.push({ kind: 'qdisc', t: T0 + i * 0.5, backlogBytes: 200000, drops: i * 2 });
  return out;
}

/** RunData for one planned run; the video gets videoMbit after the warm-up. */
export function runData(spec: RunSpec, videoMbit: number, status: RunRecord['status'] = 'ok'): RunData {
  const record = runRecord(spec, status);
  const video = record.flows.find((f) => f.slot === 'video');
  const bulk = record.flows.find((f) => f.slot === 'bulk');
  if (!video || !bulk) throw new Error('fixture needs a video and a bulk flow');
  const players: Record<string, PlayerLine[]> = {};
  for (const f of record.flows) if (f.role === 'player' && f.player) players[f.id] = playerLines(f.label, f.player.mode);
  const wire = wireSeries(video.id, bulk.id, videoMbit);
  // A second player (a pair, all players together) carries what the first does.
  const bytes: Record<string, readonly number[]> = { ...wire.bytes };
  for (const f of record.flows) if (f.slot === 'video' && f.id !== video.id) bytes[f.id] = [...(wire.bytes[video.id] ?? [])];
  return {
    record,
    wire: { ...wire, bytes },
    players,
    ss: ssSamples(record.flows.map((f) => f.port)),
    qdisc: qdiscSamples(),
  };
}

/** Writes a whole results folder (ab.json + raw files per run) the way `sprint ab` does. */
export function writeResultsFolder(
  dir: string,
  plan: Plan,
  videoMbit: (spec: RunSpec) => number,
  status: (spec: RunSpec) => RunRecord['status'] = () => 'ok',
  extra: { manifest?: Partial<AbManifest>; host?: (spec: RunSpec) => Partial<RunRecord['host']> } = {},
): void {
  mkdirSync(dir, { recursive: true });
  writeManifest(dir, {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    argv: ['--players', 'stock,sprint-x'],
    createdAt: '2026-01-01T00:00:00Z',
    plan,
    defaultAbr: 'dash-default',
    pageQuery: '',
    chromiumArgs: [],
    ...extra.manifest,
  });
  for (const spec of plan.runs) writeRunFiles(dir, spec, videoMbit(spec), status(spec), extra.host?.(spec));
}

/** Writes one run's raw files (run.json, wire, players, ss, qdisc) into dir/spec.dir, as run.ts does; returns its record. */
export function writeRunFiles(
  dir: string,
  spec: RunSpec,
  videoMbit: number,
  status: RunRecord['status'] = 'ok',
  host?: Partial<RunRecord['host']>,
  extraRecord: Partial<RunRecord> = {},
): RunRecord {
  const runDir = path.join(dir, spec.dir);
  mkdirSync(runDir, { recursive: true });
  const data = runData(spec, videoMbit, status);
  const record: RunRecord = { ...data.record, ...(host ? { host: { ...data.record.host, ...host } } : {}), ...extraRecord };
  writeFileSync(path.join(runDir, 'run.json'), JSON.stringify(record));
  const lines: string[] = [];
  const n = Object.values(data.wire.bytes)[0]?.length ?? 0;
  for (let i = 0; i < n; i++) {
    const flows: Record<string, { bytes: number; wireBytes: number; packets: number }> = {};
    for (const [id, arr] of Object.entries(data.wire.bytes))
      if ((arr[i] as number) > 0) flows[id] = { bytes: arr[i] as number, wireBytes: (arr[i] as number) * 1.05, packets: 1 };
    lines.push(JSON.stringify({ kind: 'wire', t: +(data.wire.t0S + i * data.wire.binS).toFixed(1), binMs: 100, flows }));
  }
  writeFileSync(path.join(runDir, 'wire.jsonl'), `${lines.join('\n')}\n`);
  for (const [id, pl] of Object.entries(data.players))
    writeFileSync(path.join(runDir, `player-${id}.jsonl`), `${pl.map((l) => JSON.stringify(l)).join('\n')}\n`);
  writeFileSync(path.join(runDir, 'ss.jsonl'), `${data.ss.map((l) => JSON.stringify(l)).join('\n')}\n`);
  writeFileSync(path.join(runDir, 'qdisc.jsonl'), `${data.qdisc.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return record;
}
