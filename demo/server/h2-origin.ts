// The demo origin over HTTPS + HTTP/2 (node:http2): the same resources as the
// HTTP/1.1 origin (origin.ts) — the demo page, /dist/, /media/ with Range
// (206/416), /probe, /bulk?bytes=N, CORS with Timing-Allow-Origin, no-store —
// planned by the same router (routes.ts, range.ts, static-files.ts,
// body-source.ts), so the two origins differ only in how bytes reach the
// wire. It exists so Sprint's trains can run on the page's own `fetch`
// (player/sprint/fetch-transport.ts): over HTTP/2 a train's requests are
// streams of one connection, and cancelling one (RST_STREAM) leaves the
// connection and its congestion window up (paper §IV-B1 and §IV-B2: what a
// page cannot get on HTTP/1.1).
//
// The access log has the HTTP/1.1 origin's record shape (access-log.ts) plus
// `protocol: 'h2'` and `stream` (the HTTP/2 stream id); `conn` is one id per
// HTTP/2 session (= one TLS connection) and `seq` counts the session's streams
// in arrival order, so a test can tell which requests shared a connection and
// whether a train's request k+1 arrived before response k ended. A stream the
// client cancels is logged with error `client-reset` and the body bytes sent
// until then.
//
// HTTP/2 only (`allowHTTP1: false`): a client that does not offer h2 in ALPN
// is refused in the TLS handshake instead of silently getting HTTP/1.1, so a
// test or run that meant HTTP/2 cannot measure HTTP/1.1 by accident (the
// HTTP/1.1 origin is origin.ts). Browsers need TLS for HTTP/2; the
// certificate is self-signed (tls-cert.ts) and the browser trusts it by its
// SPKI hash (demo/chromium-flags.ts `spkiTrustFlags`).
//
//   const origin = await startH2Origin({ mediaDir, logFile });
//   origin.url;       // "https://127.0.0.1:PORT"
//   origin.spkiHash;  // for --ignore-certificate-errors-spki-list
//   await origin.close();
//
// Size (533 lines): the HTTP/2 server with its session bookkeeping, fault
// options and access records in one place, as origin.ts + connection.ts are
// for HTTP/1.1; the resources come from the shared router.

import * as http2 from 'http2';
import type * as net from 'net';
import { AccessLog, nowMs, type AccessRecord } from './access-log';
import { PIECE_BYTES, type BodySource } from './body-source';
import { resolveOriginOptions, type OriginOptions, type ResolvedOriginOptions } from './options';
import type { Origin, OriginStats } from './origin';
import { Pacer } from './pacer';
import type { RangeOutcome } from './range';
import type { ParsedRequest } from './request-parser';
import { errorPlan, type ResponsePlan } from './responses';
import { planResponse } from './routes';
import { makeSelfSignedCert, type TlsIdentity } from './tls-cert';

export { makeSelfSignedCert, spkiHashOf, type TlsIdentity } from './tls-cert';

/** One request (stream) as the HTTP/2 origin saw it: the HTTP/1.1 record plus the protocol and stream id. */
export interface H2AccessRecord extends AccessRecord {
  readonly protocol: 'h2';
  /** HTTP/2 stream id (odd, increasing per session). */
  readonly stream: number;
}

/**
 * Options of the HTTP/2 origin: those of the HTTP/1.1 origin that mean the
 * same here. The connection-level faults of HTTP/1.1 (pipelining limits,
 * HTTP/1.0, cuts, misordering, head sizes) do not apply and are refused.
 */
export type H2OriginOptions = Pick<
  OriginOptions,
  | 'host'
  | 'port'
  | 'mediaDir'
  | 'pageDir'
  | 'distDir'
  | 'logFile'
  | 'logRingSize'
  | 'idleTimeoutMs'
  | 'maxBulkBytes'
  | 'onServerError'
  | 'noRange'
  | 'noCors'
  | 'requireToken'
  | 'refuseRangeOverBytes'
  | 'delayMs'
  | 'rateLimitBitsPerSec'
>;

const HTTP1_ONLY_OPTIONS = [
  'maxHeaderBytes',
  'maxQueuedRequests',
  'lingerMs',
  'maxRequestsPerConnection',
  'closeAfterEachResponse',
  'http10',
  'resetAfterBytes',
  'resetCount',
  'resetWith',
  'misorderResponses',
] as const;

export interface H2Origin extends Origin {
  /** "https://host:port" (no trailing slash; IPv6 hosts in brackets). */
  readonly url: string;
  /** base64 SHA-256 of the certificate's SubjectPublicKeyInfo: `--ignore-certificate-errors-spki-list=<spkiHash>`. */
  readonly spkiHash: string;
  /** The certificate served (PEM). */
  readonly cert: string;
  records(): readonly H2AccessRecord[];
  on(event: 'request', listener: (record: H2AccessRecord) => void): H2Origin;
  off(event: 'request', listener: (record: H2AccessRecord) => void): H2Origin;
  /** `peakQueuedRequests` here is the most streams open at once on one session. */
  stats(): OriginStats;
}

interface SessionInfo {
  readonly id: number;
  readonly remote: string;
  nextSeq: number;
  openStreams: number;
  peakStreams: number;
  /** The peer went away (GOAWAY, socket closed): streams cut now were not reset one by one. */
  peerGone: boolean;
}

interface Pending {
  readonly seq: number;
  readonly stream: number;
  readonly method: string | null;
  readonly url: string | null;
  readonly range: string | null;
  readonly userAgent: string | null;
  readonly arrival: number;
  rangeOutcome: RangeOutcome;
  status: number | null;
  bytes: number;
  bodyBytesExpected: number;
  start: number | null;
  logged: boolean;
}

function headerText(v: string | string[] | undefined): string | undefined {
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Reads (and drops) a request body until its end, or until it is clearly not empty; resolves with the bytes seen. */
function requestBodyBytes(stream: http2.ServerHttp2Stream): Promise<number> {
  return new Promise((resolve) => {
    let n = 0;
    const done = (): void => {
      stream.off('data', onData);
      resolve(n);
    };
    const onData = (chunk: Buffer): void => {
      n += chunk.length;
      if (n > 0) done();
    };
    stream.on('data', onData);
    stream.once('end', done);
    stream.once('close', done);
  });
}

/**
 * Starts the HTTP/2 origin. `identity` is the certificate and key to serve;
 * without one a self-signed certificate for the host (and 127.0.0.1, ::1,
 * localhost) is made with openssl. Rejects with a clear message if an option
 * is invalid or HTTP/1.1-only, or the address cannot be bound.
 */
export async function startH2Origin(opts: H2OriginOptions = {}, identity?: TlsIdentity): Promise<H2Origin> {
  const given = opts as Record<string, unknown>;
  const refused = HTTP1_ONLY_OPTIONS.filter((k) => given[k] !== undefined);
  if (refused.length > 0) {
    throw new RangeError(
      `HTTP/2 origin: ${refused.join(', ')} ${refused.length === 1 ? 'is an' : 'are'} HTTP/1.1 connection option${refused.length === 1 ? '' : 's'} (use startOrigin)`,
    );
  }
  const options = resolveOriginOptions(opts);
  const pacer = options.rateLimitBitsPerSec === null ? null : new Pacer(options.rateLimitBitsPerSec);
  const tls =
    identity ??
    makeSelfSignedCert({
      hosts: [...new Set([options.host, '127.0.0.1', '::1', 'localhost'])].filter((h) => h !== '0.0.0.0' && h !== '::'),
    });
  const spkiHash = tls.spkiHash;

  const log = new AccessLog<H2AccessRecord>({
    ...(options.logFile !== null ? { file: options.logFile } : {}),
    ringSize: options.logRingSize,
  });
  try {
    await log.ready();
  } catch (err) {
    await log.close().catch(() => undefined);
    throw err;
  }

  const sessions = new Map<http2.ServerHttp2Session, SessionInfo>();
  let nextSessionId = 1;
  let peakStreams = 0;
  let closingOrigin = false;

  const server = http2.createSecureServer({
    key: tls.key,
    cert: tls.cert,
    allowHTTP1: false,
    // Chromium opens up to 100+ streams per session; a train needs only its outstanding window.
    settings: { maxConcurrentStreams: 1000 },
  });

  server.on('session', (session) => {
    const socket = session.socket as net.Socket | undefined;
    const info: SessionInfo = {
      id: nextSessionId,
      remote: `${socket?.remoteAddress ?? '?'}:${socket?.remotePort ?? '?'}`,
      nextSeq: 0,
      openStreams: 0,
      peakStreams: 0,
      peerGone: false,
    };
    nextSessionId += 1;
    sessions.set(session, info);
    if (options.idleTimeoutMs > 0) {
      session.setTimeout(options.idleTimeoutMs, () => {
        if (info.openStreams === 0) session.close();
      });
    }
    session.on('goaway', () => {
      info.peerGone = true;
    });
    socket?.once('end', () => {
      info.peerGone = true;
    });
    session.on('error', (err) => {
      if (!closingOrigin) options.onServerError(`h2 session ${info.id}: ${err.message}`);
    });
    session.once('close', () => {
      peakStreams = Math.max(peakStreams, info.peakStreams);
      sessions.delete(session);
    });
  });

  server.on('stream', (stream, headers, flags) => {
    const info = sessions.get(stream.session as http2.ServerHttp2Session);
    if (!info) {
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    void handleStream(stream, headers, flags, info).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      options.onServerError(`h2 session ${info.id} stream ${stream.id}: ${message}`);
      if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    });
  });

  async function handleStream(
    stream: http2.ServerHttp2Stream,
    headers: http2.IncomingHttpHeaders,
    flags: number,
    info: SessionInfo,
  ): Promise<void> {
    const arrival = nowMs();
    const seq = info.nextSeq;
    info.nextSeq += 1;
    info.openStreams += 1;
    info.peakStreams = Math.max(info.peakStreams, info.openStreams);

    const fields = new Map<string, string>();
    for (const [name, value] of Object.entries(headers)) {
      if (name.startsWith(':')) continue;
      const text = headerText(value);
      if (text !== undefined) fields.set(name, text);
    }
    const method = headerText(headers[':method']) ?? null;
    const target = headerText(headers[':path']) ?? null;
    const pending: Pending = {
      seq,
      stream: stream.id ?? 0,
      method,
      url: target,
      range: fields.get('range') ?? null,
      userAgent: fields.get('user-agent') ?? null,
      arrival,
      rangeOutcome: 'none',
      status: null,
      bytes: 0,
      bodyBytesExpected: 0,
      start: null,
      logged: false,
    };
    let killReason: string | null = null;
    let streamError: Error | null = null;
    const record = (complete: boolean, error: string | null, end: number): void => {
      if (pending.logged) return;
      pending.logged = true;
      log.add({
        conn: info.id,
        seq: pending.seq,
        remote: info.remote,
        method: pending.method,
        url: pending.url,
        version: 'HTTP/2',
        range: pending.range,
        rangeOutcome: pending.rangeOutcome,
        status: pending.status,
        bytes: pending.bytes,
        headBytes: null,
        bodyBytesExpected: pending.bodyBytesExpected,
        arrival: pending.arrival,
        start: pending.start,
        end,
        complete,
        error,
        connectionClose: false,
        userAgent: pending.userAgent,
        protocol: 'h2',
        stream: pending.stream,
      });
    };
    const closed = new Promise<void>((resolve) => {
      stream.on('error', (err) => {
        streamError = err;
      });
      stream.once('close', () => {
        info.openStreams -= 1;
        const end = nowMs();
        let why: string;
        if (killReason !== null) why = killReason;
        else if (closingOrigin) why = 'server-closed';
        else if (info.peerGone) why = 'client-closed';
        else if (stream.rstCode !== undefined && stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) why = 'client-reset';
        else if (streamError !== null) why = `socket-error: ${(streamError as Error).message}`;
        else why = pending.status === null ? 'not-answered' : 'client-closed';
        record(false, why, end);
        resolve();
      });
    });
    const isClosed = (): boolean => stream.destroyed || stream.closed;

    const endStream = (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0;
    const declared = fields.get('content-length');
    // A request body is refused by the router (413/405, as on HTTP/1.1). A request that does not end
    // with its headers may still have an empty body (an empty DATA frame with END_STREAM): count it.
    let bodyLength: number | 'chunked' = 0;
    if (!endStream) {
      if (declared !== undefined && /^\d+$/.test(declared) && declared !== '0') bodyLength = Number(declared);
      else bodyLength = await requestBodyBytes(stream);
    }

    let plan: ResponsePlan;
    if (method === null || target === null) {
      plan = errorPlan(400, 'request without :method or :path', { noCors: options.noCors });
    } else {
      const req: ParsedRequest = {
        method,
        target,
        // The router does not look at the version; HTTP/2 requests are framed like HTTP/1.1 ones.
        version: 'HTTP/1.1',
        headers: fields,
        bodyLength,
        arrival,
        headBytes: 0,
      };
      try {
        plan = await planResponse(req, options);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        options.onServerError(`${method} ${target}: ${message}`);
        plan = errorPlan(500, message, { noCors: options.noCors, head: method === 'HEAD' });
      }
    }
    const body = plan.body;
    try {
      if (options.delayMs > 0) await Promise.race([new Promise((r) => setTimeout(r, options.delayMs)), closed]);
      if (isClosed()) return; // the close handler logged it
      // Completion is logged inside, synchronously when the last byte is handed over: the
      // stream's 'close' may run before this function resumes.
      await writeResponse(
        stream,
        plan,
        pending,
        closed,
        isClosed,
        (reason) => {
          killReason = reason;
        },
        () => record(true, null, nowMs()),
      );
      // A request body we did not read: end the stream (forceClose is HTTP/1.1's "close the connection").
      if (plan.forceClose && !isClosed()) stream.close(http2.constants.NGHTTP2_NO_ERROR);
    } finally {
      await body?.close();
    }
  }

  /** Writes head and body with backpressure and pacing; true if every byte was handed to the session. */
  async function writeResponse(
    stream: http2.ServerHttp2Stream,
    plan: ResponsePlan,
    pending: Pending,
    closed: Promise<void>,
    isClosed: () => boolean,
    kill: (reason: string) => void,
    completed: () => void,
  ): Promise<boolean> {
    const body = plan.body;
    const toSend = body ? body.length : 0;
    const head: http2.OutgoingHttpHeaders = { ':status': plan.status, server: 'sprint-origin' };
    for (const [name, value] of plan.headers) head[name.toLowerCase()] = value;
    if (plan.status !== 204 && plan.status !== 304) head['content-length'] = plan.contentLength;
    pending.status = plan.status;
    pending.rangeOutcome = plan.rangeOutcome;
    pending.bodyBytesExpected = toSend;

    const read = async (remaining: number): Promise<Buffer | null> => {
      try {
        const piece = await (body as BodySource).read(Math.min(PIECE_BYTES, remaining));
        if (!piece || piece.length === 0) throw new Error(`body ended with ${remaining} bytes still to send`);
        return piece;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        options.onServerError(`h2 stream ${pending.stream} ${pending.url ?? ''}: ${message}`);
        kill(`body-error: ${message}`);
        if (!isClosed()) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
        return null;
      }
    };

    // As on HTTP/1.1, the head goes out with the first (paced) body piece.
    let first: Buffer | null = null;
    if (body && toSend > 0) {
      first = await read(toSend);
      if (!first) return false;
      if (pacer) await pacer.take(first.length);
    }
    if (isClosed()) return false;
    pending.start = nowMs();
    stream.respond(head, { endStream: first === null });
    if (first === null) {
      completed();
      return true;
    }

    const write = (piece: Buffer, last: boolean): Promise<boolean> =>
      new Promise<boolean>((resolve) => {
        let settled = false;
        const done = (ok: boolean): void => {
          if (settled) return;
          settled = true;
          resolve(ok);
        };
        const counted = (err?: Error | null): void => {
          if (!err) pending.bytes += piece.length;
          if (last) {
            if (!err && pending.bytes === toSend) completed();
            done(!err);
          }
        };
        if (last) stream.end(piece, () => counted(null));
        else if (stream.write(piece, counted)) done(true);
        else stream.once('drain', () => done(true));
        void closed.then(() => done(false));
      });

    let sent = 0;
    let piece: Buffer | null = first;
    for (;;) {
      sent += piece.length;
      const last = sent >= toSend;
      if (!(await write(piece, last))) return false;
      if (last) return pending.bytes === toSend;
      piece = await read(toSend - sent);
      if (!piece) return false;
      if (pacer) await pacer.take(piece.length);
      if (isClosed()) return false;
    }
  }

  try {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        reject(new Error(`HTTP/2 origin cannot listen on ${options.host}:${options.port}: ${err.code ?? err.message}`));
      };
      server.once('error', onError);
      server.listen(options.port, options.host, () => {
        server.off('error', onError);
        resolve();
      });
    });
  } catch (err) {
    await log.close().catch(() => undefined);
    throw err;
  }
  server.on('error', (err) => options.onServerError(`h2 listener: ${err.message}`));

  const address = server.address() as net.AddressInfo;
  const hostForUrl = address.address.includes(':') ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;

  const origin: H2Origin = {
    url: `https://${hostForUrl}:${address.port}`,
    host: address.address,
    port: address.port,
    options: options as ResolvedOriginOptions,
    spkiHash,
    cert: tls.cert,
    close(): Promise<void> {
      if (!closing) {
        closing = (async () => {
          closingOrigin = true;
          const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
          const open = [...sessions.keys()];
          await Promise.all(
            open.map(
              (s) =>
                new Promise<void>((resolve) => {
                  if (s.destroyed) return resolve();
                  s.once('close', () => resolve());
                  s.destroy();
                }),
            ),
          );
          await listenerClosed;
          await log.close();
        })();
      }
      return closing;
    },
    closeConnectionsWhenIdle() {
      // A graceful close: GOAWAY now, the socket ends once its open streams are done.
      const open = [...sessions.entries()].filter(([s]) => !s.closed && !s.destroyed);
      const idle = open.filter(([, info]) => info.openStreams === 0).length;
      for (const [s] of open) s.close();
      return { open: open.length, idle };
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
      connectionsOpen: sessions.size,
      connectionsTotal: nextSessionId - 1,
      peakQueuedRequests: Math.max(peakStreams, ...[...sessions.values()].map((s) => s.peakStreams)),
    }),
  };
  return origin;
}
