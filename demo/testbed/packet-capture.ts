// Header-only packet captures at the router (`sprint ab --packets`), for
// tracing how each flow meets the bottleneck queue (demo/harness/flow-figures.ts):
// tcpdump writes classic pcap (-s 96: Ethernet, IPv4 and TCP headers with
// their options) to a pipe, and the harness gzips the stream into the run
// folder as it comes, so no raw capture is ever on disk. Stopped by PID
// (SIGTERM, so tcpdump flushes and prints its counts, which say whether the
// kernel dropped packets the capture never saw).

import { createWriteStream, statSync } from 'fs';
import { pipeline } from 'stream/promises';
import { createGzip } from 'zlib';
import { ADDRESSES } from './names';
import { parseTcpdumpStats } from './tcpdump-parse';
import type { Testbed } from './topology';

/** Bytes kept of each packet: enough for Ethernet + IPv4 + TCP with options. */
export const PACKET_SNAPLEN = 96;

/**
 * The two sides of the router: `server` is its server-facing interface,
 * inbound, the server's data before the tbf queue; `client` is the
 * bottleneck (client-facing) interface both ways, the data after the queue
 * and the receiver's ACKs.
 */
export type CaptureSide = 'server' | 'client';

export const PACKET_FILES: Readonly<Record<CaptureSide, string>> = {
  server: 'packets-server.pcap.gz',
  client: 'packets-client.pcap.gz',
};

export interface PacketCaptureSummary {
  readonly side: CaptureSide;
  /** File name in the run folder. */
  readonly file: string;
  readonly dev: string;
  readonly filter: string;
  readonly captured: number | null;
  readonly droppedByKernel: number | null;
  /** Compressed size, bytes. */
  readonly bytes: number | null;
}

/** tcpdump's arguments for one side (writes pcap to stdout). */
export function packetCaptureArgs(side: CaptureSide, dev: string): { args: string[]; filter: string } {
  const filter = side === 'server' ? `tcp and src net ${ADDRESSES.serverSubnet}` : 'tcp';
  return {
    args: ['-i', dev, ...(side === 'server' ? ['-Q', 'in'] : []), '-s', String(PACKET_SNAPLEN), '-n', '-w', '-', filter],
    filter,
  };
}

export class PacketCapture {
  private stopping: Promise<PacketCaptureSummary> | null = null;

  private constructor(
    private readonly testbed: Testbed,
    private readonly pid: number,
    private readonly done: Promise<PacketCaptureSummary>,
  ) {}

  /** Starts tcpdump on one side of the router, writing `out` (gzip), and resolves once it is listening. */
  static async start(testbed: Testbed, side: CaptureSide, out: string, readyTimeoutMs = 5000): Promise<PacketCapture> {
    const dev = side === 'server' ? testbed.names.routerServerDev : testbed.bottleneckDev;
    const { args, filter } = packetCaptureArgs(side, dev);
    const child = testbed.exec(testbed.routerNs, 'tcpdump', args, { stdio: ['ignore', 'pipe', 'pipe'], label: `tcpdump ${side}` });
    const pid = child.pid as number;
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`tcpdump (${side} side) did not start listening within ${readyTimeoutMs} ms: ${stderr.trim()}`)),
        readyTimeoutMs,
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
        reject(new Error(`tcpdump (${side} side) exited (code ${code}) before listening: ${stderr.trim()}`));
      });
    });
    const written = pipeline(child.stdout!, createGzip(), createWriteStream(out));
    written.catch(() => undefined); // awaited below, once tcpdump has exited
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const done = (async (): Promise<PacketCaptureSummary> => {
      await exited;
      await written;
      let bytes: number | null = null;
      try {
        bytes = statSync(out).size;
      } catch {
        bytes = null;
      }
      return { side, file: PACKET_FILES[side], dev, filter, ...parseTcpdumpStats(stderr), bytes };
    })();
    try {
      await ready;
    } catch (err) {
      await testbed.stop(pid, 500);
      await done.catch(() => undefined);
      throw err;
    }
    return new PacketCapture(testbed, pid, done);
  }

  /** Stops tcpdump by its PID and waits for the compressed file to be complete. Idempotent. */
  stop(): Promise<PacketCaptureSummary> {
    this.stopping ??= (async () => {
      await this.testbed.stop(this.pid, 3000);
      return this.done;
    })();
    return this.stopping;
  }
}
