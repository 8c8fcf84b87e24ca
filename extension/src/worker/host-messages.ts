/**
 * Validation of what the native socket host sends the service worker
 * (extension/host/PROTOCOL.md §3–5: every message is
 * validated). The host is our own program, but it is a separate process behind
 * a pipe: the worker checks the type of every field it uses and routes
 * nothing it cannot read. Extra fields are tolerated (a newer host may add
 * some); missing or mistyped ones are not.
 */

export type HostReply =
  | { kind: 'reply'; id: number | null; ok: true; result: Record<string, unknown> }
  | { kind: 'reply'; id: number | null; ok: false; code: string; message: string };

export interface HostDataEvent {
  kind: 'data';
  conn: number;
  offset: number;
  n: number;
  t: number;
  data: string;
}

export interface HostClosedEvent {
  kind: 'closed';
  conn: number;
  reason: string;
  message: string;
  bytesRead: number;
  t: number;
}

export interface HostTcpInfoEvent {
  kind: 'tcpInfo';
  conn: number;
  t: number;
  info: TcpInfoSample;
}

/** The TCP_INFO fields Sprint uses (download-path ones: PROTOCOL.md §11). */
export interface TcpInfoSample {
  rttUs: number;
  minRttUs: number;
  bytesReceived: number;
}

export type HostMessage = HostReply | HostDataEvent | HostClosedEvent | HostTcpInfoEvent;

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

type Rec = Record<string, unknown>;
const isRec = (x: unknown): x is Rec => typeof x === 'object' && x !== null && !Array.isArray(x);
const isUint = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isStr = (x: unknown, max = 4096): x is string => typeof x === 'string' && x.length <= max;

/** Largest `n` of a data event (PROTOCOL.md §12 maxChunkBytes). */
export const MAX_HOST_CHUNK = 262144;

/** Parses one message from the host; a reason for anything malformed. */
export function parseHostMessage(x: unknown): Parsed<HostMessage> {
  if (!isRec(x)) return { ok: false, reason: 'not a JSON object' };
  if ('id' in x) {
    const id = x.id;
    if (id !== null && !(isUint(id) && id >= 1)) return { ok: false, reason: `reply id ${String(id)} is not null or an integer >= 1` };
    if (x.ok === true) {
      if (!isRec(x.result)) return { ok: false, reason: `reply ${String(id)}: result is not an object` };
      return { ok: true, value: { kind: 'reply', id, ok: true, result: x.result } };
    }
    if (x.ok === false) {
      const e = x.error;
      if (!isRec(e) || !isStr(e.code, 64) || !isStr(e.message))
        return { ok: false, reason: `reply ${String(id)}: error is not {code, message}` };
      return { ok: true, value: { kind: 'reply', id, ok: false, code: e.code, message: e.message } };
    }
    return { ok: false, reason: `reply ${String(id)}: ok is not a boolean` };
  }
  if (!isUint(x.conn) || x.conn < 1) return { ok: false, reason: `event ${String(x.event)}: conn is not an integer >= 1` };
  if (!isNum(x.t)) return { ok: false, reason: `event ${String(x.event)}: t is not a number` };
  switch (x.event) {
    case 'data': {
      if (!isUint(x.offset) || !isUint(x.n) || x.n < 1 || x.n > MAX_HOST_CHUNK)
        return { ok: false, reason: 'data event: offset/n out of range' };
      if (typeof x.data !== 'string' || x.data.length !== Math.ceil(x.n / 3) * 4)
        return { ok: false, reason: `data event: data is not the base64 of ${x.n} bytes` };
      return { ok: true, value: { kind: 'data', conn: x.conn, offset: x.offset, n: x.n, t: x.t, data: x.data } };
    }
    case 'closed': {
      if (!isStr(x.reason, 64) || !isUint(x.bytesRead)) return { ok: false, reason: 'closed event: reason/bytesRead malformed' };
      const message = isStr(x.message) ? x.message : '';
      return { ok: true, value: { kind: 'closed', conn: x.conn, reason: x.reason, message, bytesRead: x.bytesRead, t: x.t } };
    }
    case 'tcpInfo': {
      const info = parseTcpInfo(x.info);
      if (!info) return { ok: false, reason: 'tcpInfo event: info malformed' };
      return { ok: true, value: { kind: 'tcpInfo', conn: x.conn, t: x.t, info } };
    }
    default:
      return { ok: false, reason: `unknown event ${JSON.stringify(String(x.event).slice(0, 40))}` };
  }
}

export function parseTcpInfo(x: unknown): TcpInfoSample | null {
  if (!isRec(x) || !isUint(x.rttUs) || !isUint(x.minRttUs) || !isUint(x.bytesReceived)) return null;
  return { rttUs: x.rttUs, minRttUs: x.minRttUs, bytesReceived: x.bytesReceived };
}

/** The hello result fields the worker uses (PROTOCOL.md §4 hello). */
export interface HostHello {
  protocol: number;
  hostVersion: string;
  tcpInfo: boolean;
  maxWriteBytes: number;
  maxRequestsPerWrite: number;
  maxPendingWrites: number;
  maxConnections: number;
}

export function parseHelloResult(r: Rec): Parsed<HostHello> {
  const l = r.limits;
  if (!isUint(r.protocol) || !isStr(r.hostVersion, 32) || typeof r.tcpInfo !== 'boolean' || !isRec(l))
    return { ok: false, reason: 'hello result malformed' };
  if (!isUint(l.maxWriteBytes) || !isUint(l.maxRequestsPerWrite) || !isUint(l.maxPendingWrites) || !isUint(l.maxConnections)) {
    return { ok: false, reason: 'hello result: limits malformed' };
  }
  return {
    ok: true,
    value: {
      protocol: r.protocol,
      hostVersion: r.hostVersion,
      tcpInfo: r.tcpInfo,
      maxWriteBytes: l.maxWriteBytes,
      maxRequestsPerWrite: l.maxRequestsPerWrite,
      maxPendingWrites: l.maxPendingWrites,
      maxConnections: l.maxConnections,
    },
  };
}

/** The open result fields the worker uses. */
export interface HostOpened {
  conn: number;
  localAddr: string;
  remoteAddr: string;
  connectMs: number;
  t: number;
  /** The connection's flow-control window (PROTOCOL.md §6); the host's default when the reply omits it. */
  windowBytes: number;
}

/** The host's default flow-control window (PROTOCOL.md §12). */
export const DEFAULT_WINDOW_BYTES = 4 << 20;

export function parseOpenResult(r: Rec): Parsed<HostOpened> {
  if (!isUint(r.conn) || r.conn < 1 || !isStr(r.localAddr, 64) || !isStr(r.remoteAddr, 64) || !isNum(r.connectMs) || !isNum(r.t)) {
    return { ok: false, reason: 'open result malformed' };
  }
  const windowBytes = isUint(r.windowBytes) && r.windowBytes > 0 ? r.windowBytes : DEFAULT_WINDOW_BYTES;
  return {
    ok: true,
    value: { conn: r.conn, localAddr: r.localAddr, remoteAddr: r.remoteAddr, connectMs: r.connectMs, t: r.t, windowBytes },
  };
}
