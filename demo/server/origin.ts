// The demo origin server: serves the demo page, the player bundle and the DASH
// content over HTTP/1.1 keep-alive with pipelining, Range, CORS, an RTT probe
// and generated bulk downloads, and logs every request with its arrival time
// and the times its response started and ended (see access-log.ts). Built on
// `net` with its own request parser so pipelined trains (paper §IV-B1) are
// observable and the fault options (options.ts) control the connection.
//
//   const origin = await startOrigin({ mediaDir, logFile });
//   ... fetch(`${origin.url}/media/...`) ...
//   await origin.close();

import * as net from 'net';
import { AccessLog, type AccessRecord } from './access-log';
import { Connection } from './connection';
import { resolveOriginOptions, type OriginOptions, type ResolvedOriginOptions } from './options';
import { planResponse } from './routes';
import { Pacer } from './pacer';

export type { AccessRecord } from './access-log';
export type { OriginOptions, ResolvedOriginOptions } from './options';
export type { RangeOutcome } from './range';

export interface OriginStats {
  /** Connections open now. */
  readonly connectionsOpen: number;
  /** Connections accepted since start. */
  readonly connectionsTotal: number;
  /** Most parsed requests waiting at once on any connection (bounded by maxQueuedRequests). */
  readonly peakQueuedRequests: number;
}

export interface Origin {
  /** "http://host:port" (no trailing slash; IPv6 hosts in brackets). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The options in force, defaults filled in. */
  readonly options: ResolvedOriginOptions;
  /** Stops listening, destroys open connections (their records are logged), flushes the log file. */
  close(): Promise<void>;
  /**
   * Closes every connection open now once it has nothing left to answer
   * (idle ones at once, with a FIN); later connections are not affected.
   * Returns how many were open and how many of them were idle.
   */
  closeConnectionsWhenIdle(): { readonly open: number; readonly idle: number };
  /** Access records in memory, oldest first. */
  records(): readonly AccessRecord[];
  on(event: 'request', listener: (record: AccessRecord) => void): Origin;
  off(event: 'request', listener: (record: AccessRecord) => void): Origin;
  stats(): OriginStats;
}

/** Starts an origin; rejects with a clear message if the options are invalid or the address cannot be bound. */
export async function startOrigin(opts: OriginOptions = {}): Promise<Origin> {
  const options = resolveOriginOptions(opts);
  const log = new AccessLog({ ...(options.logFile !== null ? { file: options.logFile } : {}), ringSize: options.logRingSize });
  try {
    await log.ready();
  } catch (err) {
    await log.close().catch(() => undefined);
    throw err;
  }

  const connections = new Set<Connection>();
  let nextId = 1;
  let peakQueued = 0;
  const ctx = {
    options,
    log,
    plan: (req: Parameters<typeof planResponse>[0]) => planResponse(req, options),
    faults: { resetsLeft: options.resetAfterBytes === null ? 0 : options.resetCount },
    pacer: options.rateLimitBitsPerSec === null ? null : new Pacer(options.rateLimitBitsPerSec, options.rateLimitPieceBytes ?? undefined),
    reportError: options.onServerError,
  };

  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    const conn = new Connection(nextId, socket, ctx);
    nextId += 1;
    connections.add(conn);
    void conn.whenClosed().then(() => {
      peakQueued = Math.max(peakQueued, conn.peakQueued);
      connections.delete(conn);
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      reject(new Error(`origin cannot listen on ${options.host}:${options.port}: ${err.code ?? err.message}`));
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => ctx.reportError(`listener: ${err.message}`));

  const address = server.address() as net.AddressInfo;
  const hostForUrl = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;

  const origin: Origin = {
    url: `http://${hostForUrl}:${address.port}`,
    host: address.address,
    port: address.port,
    options,
    close(): Promise<void> {
      if (!closing) {
        closing = (async () => {
          const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
          const open = [...connections];
          for (const conn of open) conn.destroy('server-closed');
          await Promise.all(open.map((c) => c.whenClosed()));
          await listenerClosed;
          await log.close();
        })();
      }
      return closing;
    },
    closeConnectionsWhenIdle() {
      const open = [...connections];
      return { open: open.length, idle: open.filter((c) => c.closeWhenIdle()).length };
    },
    records: () => log.records(),
    on(event, listener) {
      log.on(event, listener);
      return origin;
    },
    off(event, listener) {
      log.off(event, listener);
      return origin;
    },
    stats: () => ({
      connectionsOpen: connections.size,
      connectionsTotal: nextId - 1,
      peakQueuedRequests: Math.max(peakQueued, ...[...connections].map((c) => c.peakQueued)),
    }),
  };
  return origin;
}
