// A pipelined flow for the testbed: keeps `depth` requests of one path
// outstanding on one keep-alive connection (HTTP/1.1 pipelining through the
// project's own client, src/http/pipeline.ts, over a net.Socket), issuing
// the next as each response completes, until the duration ends. It is
// Sprint's train on the wire (paper §IV-B1: requests back to back on a
// connection the client controls) with no browser, extension or player in
// the loop, so the testbed can compare a never-idle pipelined flow with a
// bulk download on their own (flow-client.ts `pipeline`; bulk-vs-sequential
// `pipeline`). A connection that closes is replaced after a short pause;
// what it had not answered is requested again on the new one.

import * as net from 'net';
import { performance } from 'perf_hooks';
import { PipelinedClient } from '../../src/http/pipeline';
import type { TransportCloseReason } from '../../src/http/transport';
import type { FlowClientOptions, FlowSummary } from './flow-client';
import { FlowLog } from './flow-log';

export async function runPipelinedFlow(o: FlowClientOptions, depth: number): Promise<FlowSummary> {
  const log = new FlowLog(o);
  const deadline = log.startMs + o.durationS * 1000;
  let requests = 0;
  let completed = 0;
  let errors = 0;
  let stopping = false;
  let socket: net.Socket | null = null;
  let wake: (() => void) | null = null;
  const stop = (): void => {
    stopping = true;
    socket?.destroy();
    wake?.();
  };
  const deadlineTimer = setTimeout(stop, Math.max(0, deadline - Date.now()));
  o.signal?.addEventListener('abort', stop, { once: true });

  /** One connection, kept `depth` deep until it closes or the flow stops. */
  const connection = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const s = net.connect({ host: o.host, port: o.port });
      socket = s;
      let client: PipelinedClient | null = null;
      let ended = false;
      const end = (reason: TransportCloseReason): void => {
        if (ended) return;
        ended = true;
        client?.onClose(reason, performance.now());
        resolve();
      };
      const issue = (c: PipelinedClient): void => {
        requests++;
        const t0Ms = Date.now();
        let bytes = 0;
        c.enqueue(
          { host: `${o.host}:${o.port}`, target: o.path, userAgent: 'sprint-testbed' },
          {
            onBody: (piece) => {
              bytes += piece.length;
              log.received(piece.length);
            },
            onComplete: (r) => {
              completed++;
              log.request({ t0Ms, bytes, status: r.head.status, complete: true });
              fill(c);
            },
            onFailed: (f) => {
              if (!stopping) errors++;
              log.request({ t0Ms, bytes, status: null, complete: false, error: `${f.code}: ${f.message}` });
            },
          },
        );
      };
      const fill = (c: PipelinedClient): void => {
        while (!stopping && c.canEnqueue && c.inFlight < depth) issue(c);
      };
      s.once('connect', () => {
        const c = new PipelinedClient({ write: (b) => void s.write(b), close: () => void s.destroy() });
        client = c;
        s.on('data', (chunk: Buffer) => c.onData(chunk, performance.now()));
        fill(c);
      });
      s.on('end', () => end({ kind: 'eof', message: 'FIN' }));
      s.on('error', (err) => {
        if (!client && !stopping) errors++;
        end({ kind: 'error', message: err.message });
      });
      s.on('close', () => end({ kind: 'local', message: 'socket closed' }));
    });

  try {
    while (!stopping && Date.now() < deadline) {
      await connection();
      socket = null;
      if (stopping) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, o.retryMs ?? 200);
      });
      wake = null;
    }
  } finally {
    clearTimeout(deadlineTimer);
    o.signal?.removeEventListener('abort', stop);
    await log.close();
  }
  return { label: o.label, bytes: log.total, requests, completed, errors, durationS: (Date.now() - log.startMs) / 1000 };
}
