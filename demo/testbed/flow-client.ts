// An HTTP download flow for the testbed, run inside the client namespace:
// requests `path` from host:port one request at a time over one keep-alive
// connection, counts received bytes into time bins (bins.ts) and writes them
// as JSON lines, until a fixed duration has passed.
//
// Two uses (paper §V-A, testbed.md "sequential" experiment):
//   - a bulk download: one request for a huge body, re-issued if it ends
//     early (bulk-client.ts);
//   - a sequential segment client: back-to-back requests of one segment size
//     with no pauses, like a video player that keeps downloading
//     (segment-client.ts); with `pipeline` N > 1 it keeps N requests
//     outstanding on its one connection instead (pipelined-flow.ts: Sprint's
//     train on the wire with no browser in the loop).
// Connection errors are logged and retried after a short pause, bounded by
// the duration. Stops cleanly (flushes its file) on SIGTERM/SIGINT too.

import * as http from 'http';
import { FlowLog } from './flow-log';
import { runPipelinedFlow } from './pipelined-flow';

export interface FlowClientOptions {
  readonly host: string;
  readonly port: number;
  /** Request path, e.g. "/bulk?bytes=1250000". */
  readonly path: string;
  /** Run time, seconds. */
  readonly durationS: number;
  /** Output JSON-lines file. */
  readonly out: string;
  /** Flow name written into every record. */
  readonly label: string;
  /** Bin width, milliseconds (default 100). */
  readonly binMs?: number;
  /** Pause after a failed request before retrying, milliseconds (default 200). */
  readonly retryMs?: number;
  /** Stop early when this signal aborts (used for SIGTERM). */
  readonly signal?: AbortSignal;
  /** Requests kept outstanding on the connection (HTTP/1.1 pipelining); default 1: one at a time. */
  readonly pipeline?: number;
}

export interface FlowSummary {
  readonly label: string;
  readonly bytes: number;
  readonly requests: number;
  readonly completed: number;
  readonly errors: number;
  readonly durationS: number;
}

export type { FlowRecord } from './flow-log';

export async function runFlowClient(options: FlowClientOptions): Promise<FlowSummary> {
  if (!(options.durationS > 0)) throw new Error(`flow client ${options.label}: duration must be positive, got ${options.durationS}`);
  if (!Number.isInteger(options.port) || options.port <= 0 || options.port > 65535) {
    throw new Error(`flow client ${options.label}: bad port ${options.port}`);
  }
  const depth = options.pipeline ?? 1;
  if (!Number.isInteger(depth) || depth < 1 || depth > 64)
    throw new Error(`flow client ${options.label}: pipeline must be 1..64, got ${depth}`);
  if (depth > 1) return runPipelinedFlow(options, depth);
  const log = new FlowLog(options);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const startMs = log.startMs;
  const deadline = startMs + options.durationS * 1000;
  let requests = 0;
  let completed = 0;
  let errors = 0;
  let current: http.ClientRequest | null = null;
  let stopping = false;
  let wake: (() => void) | null = null;

  const stop = (): void => {
    stopping = true;
    current?.destroy();
    wake?.();
  };
  const deadlineTimer = setTimeout(stop, Math.max(0, deadline - Date.now()));
  options.signal?.addEventListener('abort', stop, { once: true });

  try {
    while (!stopping && Date.now() < deadline) {
      requests++;
      const t0 = Date.now();
      const result = await new Promise<{ bytes: number; status: number | null; complete: boolean; error?: string }>((resolve) => {
        let bytes = 0;
        let status: number | null = null;
        const req = http.get({ host: options.host, port: options.port, path: options.path, agent }, (res) => {
          status = res.statusCode ?? null;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            log.received(chunk.length);
          });
          res.on('end', () => resolve({ bytes, status, complete: res.complete }));
          res.on('error', (err) => resolve({ bytes, status, complete: false, error: err.message }));
          res.on('close', () =>
            resolve({ bytes, status, complete: res.complete, error: res.complete ? undefined : 'connection closed mid-response' }),
          );
        });
        req.on('error', (err) => resolve({ bytes, status, complete: false, error: err.message }));
        current = req;
      });
      current = null;
      const ok = result.complete && result.status !== null && result.status >= 200 && result.status < 300;
      if (ok) completed++;
      else if (!stopping) errors++;
      log.request({ t0Ms: t0, ...result });
      if (!ok && !stopping) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, options.retryMs ?? 200);
        });
        wake = null;
      }
    }
  } finally {
    clearTimeout(deadlineTimer);
    options.signal?.removeEventListener('abort', stop);
    agent.destroy();
    await log.close();
  }
  return { label: options.label, bytes: log.total, requests, completed, errors, durationS: (Date.now() - startMs) / 1000 };
}

/** Shared CLI runner: SIGTERM/SIGINT stop the flow cleanly; exit 1 when nothing was received. */
export async function runFlowCli(options: Omit<FlowClientOptions, 'signal'>): Promise<number> {
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    const summary = await runFlowClient({ ...options, signal: abort.signal });
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return summary.bytes > 0 ? 0 : 1;
  } finally {
    process.removeListener('SIGTERM', onSignal);
    process.removeListener('SIGINT', onSignal);
  }
}
