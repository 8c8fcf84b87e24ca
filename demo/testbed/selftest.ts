// Self-test of the testbed layer: builds the emulated bottleneck, runs one
// bulk download against one sequential segment client for N seconds
// (bulk-vs-sequential.ts), prints what was measured and removes everything.
// Exit 0 when the layer works: both flows measured on the wire, the total
// near the bottleneck rate, the server's congestion control verified, and
// nothing of the run left behind. Not a performance benchmark: the
// sequential flow's share of a short run is printed, not judged.
//
// Usage (root): node dist/demo/testbed/selftest.js [--duration 40] [--rate 3mbit]
//   [--queue 256kb] [--cc cubic] [--delay-ms 0] [--warmup 0] [--results DIR]
//   [--segment-bytes 1250000] [--pipeline 1]
// With --pipeline N > 1 the segment client keeps N requests outstanding on
// its connection (pipelined-flow.ts): a never-idle pipelined flow, Sprint's
// train with no browser, against the bulk download.

import { existsSync, mkdtempSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runBulkVsSequential } from './bulk-vs-sequential';
import { numberOption, parseOptions, UsageError } from './cli-args';
import { isRunning } from './processes';
import { preflight } from './preflight';
import { summarizeQdisc, summarizeSs } from './sample-summary';
import { CONGESTION_CONTROLS, CongestionControl } from './topology';
import { parseRate, parseSize } from './units';
import { runMain } from '../../src/cli/run-main';

const USAGE =
  'usage: selftest [--duration S] [--rate 3mbit] [--queue 256kb] [--cc cubic|bbr|reno] [--delay-ms MS] [--warmup S] [--results DIR] [--segment-bytes N] [--pipeline N]';

/** Sanity band for the total on the wire, as a fraction of the bottleneck rate. */
export const TOTAL_RATE_BAND = [0.66, 1.1] as const;

export async function main(argv: string[]): Promise<number> {
  let v: Record<string, string | undefined>;
  try {
    v = parseOptions(argv, ['duration', 'rate', 'queue', 'cc', 'delay-ms', 'warmup', 'results', 'segment-bytes', 'pipeline']);
  } catch (err) {
    process.stderr.write(`selftest: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  let durationS: number;
  let rate: number;
  let queue: number;
  let delayMs: number;
  let warmupS: number;
  let segmentBytes: number;
  let pipeline: number;
  const cc = (v['cc'] ?? 'cubic') as CongestionControl;
  try {
    durationS = Math.min(3600, numberOption(v, 'duration', 40));
    rate = parseRate(v['rate'] ?? '3mbit');
    queue = parseSize(v['queue'] ?? '256kb');
    delayMs = numberOption(v, 'delay-ms', 0, true);
    warmupS = numberOption(v, 'warmup', 0, true);
    segmentBytes = numberOption(v, 'segment-bytes', 1_250_000);
    pipeline = numberOption(v, 'pipeline', 1);
    if (!Number.isInteger(pipeline) || pipeline < 1 || pipeline > 64) throw new UsageError(`--pipeline must be 1..64, got ${pipeline}`);
    if (!CONGESTION_CONTROLS.includes(cc)) throw new UsageError(`--cc must be one of ${CONGESTION_CONTROLS.join(', ')}, got "${cc}"`);
  } catch (err) {
    process.stderr.write(`selftest: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const pf = preflight({ congestionControl: cc, capture: true, delay: delayMs > 0 });
  if (!pf.ok) {
    process.stderr.write(`selftest: the testbed cannot run here:\n  - ${pf.problems.join('\n  - ')}\n`);
    return 1;
  }
  const resultsDir = v['results'] ?? mkdtempSync(path.join(os.tmpdir(), 'sprint-testbed-'));
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  say(
    `selftest: ${rate} bit/s, queue ${queue} B, ${cc}, delay ${delayMs} ms each way, ${durationS} s, segments ${segmentBytes} B, ${pipeline > 1 ? `${pipeline} pipelined` : 'one at a time'}, results in ${resultsDir}`,
  );

  const r = await runBulkVsSequential({
    durationS,
    rateBitsPerSec: rate,
    queueBytes: queue,
    congestionControl: cc,
    delayMs: delayMs > 0 ? { down: delayMs, up: delayMs } : undefined,
    warmupS,
    segmentBytes,
    pipeline,
    resultsDir,
    log: (line) => say(`  ${line}`),
  });

  const seq = String(r.ports.sequential);
  const bulk = String(r.ports.bulk);
  const mbps = (bps: number): string => (bps / 1e6).toFixed(3);
  const fmt = (s: { median: number; min: number; max: number } | null, digits = 1): string =>
    s ? `median ${s.median.toFixed(digits)} (min ${s.min.toFixed(digits)}, max ${s.max.toFixed(digits)})` : 'no samples';
  say(`window: ${r.fair.durationS.toFixed(1)} s after a ${warmupS} s warm-up`);
  say(`wire total (headers included): ${mbps(r.wireTotalBitsPerSec)} Mbit/s of ${mbps(rate)} Mbit/s`);
  say(`payload total: ${mbps(r.fair.totalBitsPerSec)} Mbit/s, fair share ${mbps(r.fair.fairShareBitsPerSec)} Mbit/s`);
  say(
    `sequential (port ${seq}): ${mbps(r.fair.flows[seq]?.bitsPerSec ?? 0)} Mbit/s = ${r.sequentialPercentOfFairShare.toFixed(1)}% of fair share`,
  );
  say(`bulk (port ${bulk}): ${mbps(r.fair.flows[bulk]?.bitsPerSec ?? 0)} Mbit/s = ${r.bulkPercentOfFairShare.toFixed(1)}% of fair share`);
  say(`congestion control: ${r.congestion.detail}`);
  say(`idle connect RTT ms: ${fmt(r.idleConnectMs, 2)}`);
  for (const [name, port] of [
    ['sequential', r.ports.sequential],
    ['bulk', r.ports.bulk],
  ] as const) {
    const t = summarizeSs(r.files.ss, port);
    say(
      `server ${name}: cwnd ${fmt(t.cwnd, 0)} segments; rtt ${fmt(t.rttMs)} ms; cc ${t.congestionControls.join(',')}; retrans ${t.retransTotal ?? '?'}`,
    );
  }
  const q = summarizeQdisc(r.files.qdisc);
  say(`queue backlog bytes: ${fmt(q.backlogBytes, 0)}; drops ${q.drops}`);
  say(`capture: ${r.capture.captured ?? '?'} packets captured, ${r.capture.droppedByKernel ?? '?'} dropped by kernel`);
  for (const d of r.delay ?? []) {
    say(
      `delay ${d.direction} ${d.delayMs} ms: ${d.sent} packets, late p50 ${d.lateP50Ms.toFixed(3)} ms p99 ${d.lateP99Ms.toFixed(3)} ms max ${d.lateMaxMs.toFixed(3)} ms, >1 ms ${d.over1Ms}, >2 ms ${d.over2Ms}, dropped ${d.dropped}`,
    );
  }

  const problems: string[] = [];
  if (!r.congestion.ok) problems.push(`congestion control not verified: ${r.congestion.detail}`);
  for (const f of [seq, bulk]) if (!((r.fair.flows[f]?.bitsPerSec ?? 0) > 0)) problems.push(`no throughput measured for port ${f}`);
  const ratio = r.wireTotalBitsPerSec / rate;
  if (ratio < TOTAL_RATE_BAND[0] || ratio > TOTAL_RATE_BAND[1])
    problems.push(
      `wire total ${mbps(r.wireTotalBitsPerSec)} Mbit/s is outside ${TOTAL_RATE_BAND.join('–')}× the bottleneck rate: shaping is not working`,
    );
  const leftNs = r.namespaces.filter((ns) => existsSync(`/var/run/netns/${ns}`));
  if (leftNs.length > 0) problems.push(`namespaces left behind: ${leftNs.join(', ')}`);
  const leftPids = r.startedPids.filter(isRunning);
  if (leftPids.length > 0) problems.push(`processes left behind: ${leftPids.join(', ')}`);
  if (problems.length > 0) {
    say(`selftest FAILED:\n  - ${problems.join('\n  - ')}`);
    return 1;
  }
  say('selftest OK: testbed removed, nothing left behind');
  return 0;
}

runMain(module, 'selftest', main, { exit: 'now' });
