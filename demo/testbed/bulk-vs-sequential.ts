// The testbed's validation experiment (docs/testbed.md, paper §III):
// one bulk download against one sequential segment client (1.25 MB requests
// back to back) through the emulated bottleneck, measured on the wire. It
// exercises the whole layer — topology, origin processes, flow clients, wire
// capture, ss and qdisc samplers, congestion-control verification, fair-share
// metrics — and is what selftest.ts and the e2e test run.
//
// Files written into resultsDir: wire.jsonl (capture), ss.jsonl, qdisc.jsonl,
// sequential.jsonl and bulk.jsonl (receiver-side bins and requests),
// origin-<port>.log (access logs).

import { mkdirSync } from 'fs';
import * as path from 'path';
import { WireCapture, WireCaptureSummary } from './capture';
import { CongestionCheck } from './congestion';
import { DelayStats } from './delay-element';
import { FairShareResult, fairShare, lastActiveEndS, measurementWindow, Summary, summarize } from './metrics';
import { distScript, OriginCommand, OriginProcess, startOriginProcess } from './origin-process';
import { startQdiscSampler } from './qdisc-sampler';
import { SamplerSummary } from './sampler';
import { startSsSampler } from './ss-sampler';
import { CongestionControl, createTestbed, Testbed } from './topology';
import { readWireSeries } from './wire-series';

export const SEQUENTIAL_PORT = 8001;
export const BULK_PORT = 8002;

export interface BulkVsSequentialOptions {
  /** How long the two clients run, seconds. */
  readonly durationS: number;
  readonly rateBitsPerSec: number;
  readonly queueBytes: number;
  readonly congestionControl?: CongestionControl;
  readonly delayMs?: { readonly down: number; readonly up: number };
  /** Discard this long after the flows meet (default 0: short runs keep everything). */
  readonly warmupS?: number;
  /** Sequential client's request size, bytes (default 1.25 MB). */
  readonly segmentBytes?: number;
  /** Requests the segment client keeps outstanding on its connection (default 1: sequential). */
  readonly pipeline?: number;
  readonly resultsDir: string;
  /** Replaces our origin CLI (e.g. a stand-in server when dist/demo/server is not built). */
  readonly originCommand?: (testbed: Testbed, port: number, logPath: string) => OriginCommand;
  /** When to check the congestion control of the live flows, seconds after the clients start (default 3). */
  readonly ccCheckAfterS?: number;
  readonly log?: (line: string) => void;
}

export interface BulkVsSequentialResult {
  readonly testbedId: string;
  readonly namespaces: readonly string[];
  /** PIDs the testbed started (origins, clients, tcpdump, delay element). */
  readonly startedPids: readonly number[];
  readonly ports: { readonly sequential: number; readonly bulk: number };
  readonly congestion: CongestionCheck;
  /** Fair share over the window, TCP payload bytes on the wire after the bottleneck. */
  readonly fair: FairShareResult;
  /** All server→client bytes on the wire (headers included) over the same window, bits per second. */
  readonly wireTotalBitsPerSec: number;
  readonly sequentialPercentOfFairShare: number;
  readonly bulkPercentOfFairShare: number;
  readonly capture: WireCaptureSummary;
  readonly ss: SamplerSummary;
  readonly qdisc: SamplerSummary;
  readonly clientExitCodes: { readonly sequential: number | null; readonly bulk: number | null };
  readonly delay: DelayStats[] | null;
  /** TCP connect times client→server on the idle path before the flows start, milliseconds. */
  readonly idleConnectMs: Summary;
  readonly files: Readonly<Record<string, string>>;
}

export async function runBulkVsSequential(options: BulkVsSequentialOptions): Promise<BulkVsSequentialResult> {
  const log = options.log ?? ((): void => undefined);
  mkdirSync(options.resultsDir, { recursive: true });
  const file = (name: string): string => path.join(options.resultsDir, name);
  const files = {
    wire: file('wire.jsonl'),
    ss: file('ss.jsonl'),
    qdisc: file('qdisc.jsonl'),
    sequential: file('sequential.jsonl'),
    bulk: file('bulk.jsonl'),
    originSequential: file(`origin-${SEQUENTIAL_PORT}.log`),
    originBulk: file(`origin-${BULK_PORT}.log`),
  };
  const testbed = await createTestbed({
    rateBitsPerSec: options.rateBitsPerSec,
    queueBytes: options.queueBytes,
    congestionControl: options.congestionControl ?? 'cubic',
    delayMs: options.delayMs,
    log,
  });
  const startedPids = new Set<number>();
  const note = (pid: number | undefined): void => {
    if (pid !== undefined) startedPids.add(pid);
  };
  try {
    const origins: OriginProcess[] = [];
    for (const [port, logPath] of [
      [SEQUENTIAL_PORT, files.originSequential],
      [BULK_PORT, files.originBulk],
    ] as const) {
      const o = await startOriginProcess(testbed, {
        port,
        logPath,
        command: options.originCommand?.(testbed, port, logPath),
      });
      note(o.pid);
      origins.push(o);
    }
    if (testbed.delay) note(testbed.delay.pid);
    log(`origins on ${origins.map((o) => o.url).join(', ')}`);

    const idleConnectMs = summarize(await measureConnectMs(testbed, SEQUENTIAL_PORT, 10));
    log(
      `idle connect RTT: median ${idleConnectMs.median.toFixed(2)} ms (min ${idleConnectMs.min.toFixed(2)}, max ${idleConnectMs.max.toFixed(2)})`,
    );

    const capture = await WireCapture.start(testbed, { out: files.wire });
    const ss = startSsSampler(testbed, { out: files.ss, serverPorts: [SEQUENTIAL_PORT, BULK_PORT] });
    const qdisc = startQdiscSampler(testbed, { out: files.qdisc });
    for (const pid of testbed.pids()) note(pid);

    const client = (
      script: string,
      port: number,
      out: string,
      label: string,
      extra: string[],
    ): { pid: number; done: Promise<number | null> } => {
      const child = testbed.exec(
        testbed.clientNs,
        process.execPath,
        [
          distScript(`demo/testbed/${script}`),
          '--host',
          testbed.serverAddr,
          '--port',
          String(port),
          '--duration',
          String(options.durationS),
          '--out',
          out,
          '--label',
          label,
          ...extra,
        ],
        { label },
      );
      note(child.pid);
      const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { pid: child.pid as number, done };
    };
    const seq = client('segment-client.js', SEQUENTIAL_PORT, files.sequential, 'sequential', [
      '--segment-bytes',
      String(options.segmentBytes ?? 1_250_000),
      '--pipeline',
      String(options.pipeline ?? 1),
    ]);
    const bulk = client('bulk-client.js', BULK_PORT, files.bulk, 'bulk', []);
    log(`clients started for ${options.durationS} s`);

    await sleep((options.ccCheckAfterS ?? 3) * 1000);
    const congestion = await testbed.verifyCongestionControl([SEQUENTIAL_PORT, BULK_PORT]);
    log(`congestion control: ${congestion.detail}`);

    // The clients bound themselves by --duration; this guard only catches a hung client.
    let guardTimer: NodeJS.Timeout | undefined;
    const guard = new Promise<'timeout'>((resolve) => {
      guardTimer = setTimeout(() => resolve('timeout'), (options.durationS + 20) * 1000);
    });
    const finished = Promise.all([seq.done, bulk.done]);
    const outcome = await Promise.race([finished.then(() => 'done' as const), guard]);
    clearTimeout(guardTimer);
    if (outcome === 'timeout') {
      log('a client outlived its duration by 20 s; stopping it');
      await Promise.all([testbed.stop(seq.pid), testbed.stop(bulk.pid)]);
    }
    const [seqCode, bulkCode] = await finished;

    const [ssSummary, qdiscSummary, captureSummary] = await Promise.all([ss.stop(), qdisc.stop(), capture.stop()]);
    await Promise.all(origins.map((o) => o.stop()));
    const delayStats = testbed.delay ? await testbed.delay.stop() : null;

    const flows = [String(SEQUENTIAL_PORT), String(BULK_PORT)];
    const payload = readWireSeries(files.wire, 'bytes');
    for (const f of flows) {
      if (!payload.bytes[f]) throw new Error(`wire capture saw no packets from server port ${f} (${files.wire})`);
    }
    const ends = flows.map((f) => lastActiveEndS(payload, f) as number);
    const window = measurementWindow(payload, flows, options.warmupS ?? 0, Math.min(...ends));
    const fair = fairShare(payload, window, flows);
    const wire = readWireSeries(files.wire, 'wireBytes');
    const wireFair = fairShare(wire, window, Object.keys(wire.bytes));
    return {
      testbedId: testbed.names.id,
      namespaces: [testbed.serverNs, testbed.routerNs, testbed.clientNs],
      startedPids: [...startedPids],
      ports: { sequential: SEQUENTIAL_PORT, bulk: BULK_PORT },
      congestion,
      fair,
      wireTotalBitsPerSec: wireFair.totalBitsPerSec,
      sequentialPercentOfFairShare: fair.flows[String(SEQUENTIAL_PORT)]?.percentOfFairShare ?? 0,
      bulkPercentOfFairShare: fair.flows[String(BULK_PORT)]?.percentOfFairShare ?? 0,
      capture: captureSummary,
      ss: ssSummary,
      qdisc: qdiscSummary,
      clientExitCodes: { sequential: seqCode, bulk: bulkCode },
      delay: delayStats,
      idleConnectMs,
      files,
    };
  } finally {
    for (const pid of testbed.pids()) note(pid);
    await testbed.destroy();
  }
}

/** Runs connect-rtt.js in the client namespace; returns its samples (ms). */
export async function measureConnectMs(testbed: Testbed, port: number, count: number): Promise<number[]> {
  const out = await testbed.run(
    testbed.clientNs,
    process.execPath,
    [distScript('demo/testbed/connect-rtt.js'), '--host', testbed.serverAddr, '--port', String(port), '--count', String(count)],
    30000,
  );
  const parsed = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { samplesMs?: number[] };
  if (!Array.isArray(parsed.samplesMs) || parsed.samplesMs.length === 0) throw new Error(`connect-rtt printed no samples: ${out}`);
  return parsed.samplesMs;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
