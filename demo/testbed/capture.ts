// Per-flow throughput measured on the wire after the bottleneck (paper §V-A:
// each flow's throughput over time). tcpdump captures headers only on the
// router's client-facing interface, outgoing direction (`-Q out`, i.e. after
// the tbf queue), for TCP from the server subnet; each packet is keyed by its
// server (source) port — the harness gives every player and bulk flow its own
// origin port — and counted into 100 ms bins (bins.ts) written as JSON lines:
//   {"kind":"wire","t":<bin start s>,"binMs":100,"flows":{"8001":{"bytes":..,"wireBytes":..,"packets":..}}}
// one record per bin, idle bins included (flows with nothing are absent). A
// final {"kind":"capture-stop"} record carries tcpdump's own counts, so a
// capture that lost packets in the kernel is visible.

import * as readline from 'readline';
import { Bin, Binner } from './bins';
import { JsonlWriter } from './jsonl';
import { ADDRESSES } from './names';
import { parseTcpdumpLine, parseTcpdumpStats } from './tcpdump-parse';
import type { Testbed } from './topology';

export interface WireCaptureOptions {
  /** Output JSON-lines file. */
  readonly out: string;
  /** Bin width, milliseconds (default 100). */
  readonly binMs?: number;
  /** How long to wait for tcpdump to start listening (default 5000 ms). */
  readonly readyTimeoutMs?: number;
}

export interface WireCaptureSummary {
  readonly out: string;
  /** Packets parsed per server port. */
  readonly packetsByPort: Readonly<Record<string, number>>;
  /** Payload bytes per server port. */
  readonly bytesByPort: Readonly<Record<string, number>>;
  readonly captured: number | null;
  readonly droppedByKernel: number | null;
  readonly unparsedLines: number;
  /** The first few lines that were not packet summaries (diagnostics). */
  readonly unparsedExamples: readonly string[];
}

export class WireCapture {
  private stopping: Promise<WireCaptureSummary> | null = null;

  private constructor(
    private readonly testbed: Testbed,
    private readonly pid: number,
    private readonly done: Promise<WireCaptureSummary>,
  ) {}

  /** Starts tcpdump in the router namespace and resolves once it is listening. */
  static async start(testbed: Testbed, options: WireCaptureOptions): Promise<WireCapture> {
    const binMs = options.binMs ?? 100;
    const writer = new JsonlWriter(options.out);
    const packets: Record<string, number> = {};
    const bytes: Record<string, number> = {};
    let unparsed = 0;
    const unparsedExamples: string[] = [];
    let lastT = 0;
    const binner = new Binner(binMs, (bin: Bin) => {
      const flows: Record<string, { bytes: number; wireBytes: number; packets: number }> = {};
      for (const [port, c] of bin.flows) flows[port] = { bytes: c.bytes, wireBytes: c.wireBytes, packets: c.packets };
      writer.write({ kind: 'wire', t: bin.startMs / 1000, binMs, flows });
    });
    const child = testbed.exec(
      testbed.routerNs,
      'tcpdump',
      [
        '-i',
        testbed.bottleneckDev,
        '-Q',
        'out',
        '-s',
        '96',
        '-n',
        '-tt',
        '-q',
        '-e',
        '-l',
        '--immediate-mode',
        `tcp and src net ${ADDRESSES.serverSubnet}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], label: 'tcpdump' },
    );
    const pid = child.pid as number;
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`tcpdump did not start listening within ${options.readyTimeoutMs ?? 5000} ms: ${stderr.trim()}`)),
        options.readyTimeoutMs ?? 5000,
      );
      child.stderr?.on('data', (s: string) => {
        stderr += s;
        if (/listening on/.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`tcpdump exited (code ${code}) before listening: ${stderr.trim()}`));
      });
    });
    const startMs = Date.now();
    binner.start(startMs);
    // Idle periods still produce (empty) bins; 1 s of slack for packets still in tcpdump's pipe.
    const idleTimer = setInterval(() => binner.advance(Math.max(lastT * 1000, Date.now() - 1000)), 500);
    const lines = readline.createInterface({ input: child.stdout!, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      const p = parseTcpdumpLine(line);
      if (!p) {
        unparsed++;
        if (unparsedExamples.length < 3) unparsedExamples.push(line.slice(0, 200));
        return;
      }
      const port = String(p.srcPort);
      lastT = Math.max(lastT, p.t);
      binner.add(port, p.t * 1000, p.payloadBytes, p.frameBytes);
      packets[port] = (packets[port] ?? 0) + 1;
      bytes[port] = (bytes[port] ?? 0) + p.payloadBytes;
    });
    const linesClosed = new Promise<void>((resolve) => lines.once('close', () => resolve()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const done = (async (): Promise<WireCaptureSummary> => {
      await exited;
      await linesClosed;
      clearInterval(idleTimer);
      binner.finish(Math.max(lastT * 1000, Date.now()));
      const stats = parseTcpdumpStats(stderr);
      const summary: WireCaptureSummary = {
        out: options.out,
        packetsByPort: packets,
        bytesByPort: bytes,
        ...stats,
        unparsedLines: unparsed,
        unparsedExamples,
      };
      writer.write({ kind: 'capture-stop', t: Date.now() / 1000, ...summary });
      await writer.close();
      return summary;
    })();
    try {
      await ready;
    } catch (err) {
      await testbed.stop(pid, 500);
      await done.catch(() => undefined);
      throw err;
    }
    return new WireCapture(testbed, pid, done);
  }

  /** Stops tcpdump (SIGTERM, so it prints its counts), flushes the last bins. Idempotent. */
  stop(): Promise<WireCaptureSummary> {
    this.stopping ??= (async () => {
      await this.testbed.stop(this.pid, 3000);
      return this.done;
    })();
    return this.stopping;
  }
}
