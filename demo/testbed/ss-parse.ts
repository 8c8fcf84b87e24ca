// Parser for `ss -tinH` output: one sample per TCP connection with the
// sender-side state the paper's figures use (cwnd, RTT, slow-start threshold,
// bytes acked, retransmissions) and the congestion control in force, and
// what limited the sender: the kernel's busy time, split into time limited by
// the receiver's window (`rwnd_limited`, a reader that falls behind) and by
// the send buffer (`sndbuf_limited`), printed only once non-zero.
//
// `ss -ti` prints each connection as two lines: the socket line
// ("[State] Recv-Q Send-Q Local:Port Peer:Port") and an indented info line of
// tokens such as "cubic wscale:7,7 rtt:137.4/14.3 cwnd:45 ssthresh:28
// bytes_acked:521280 retrans:0/3 delivery_rate 2869176bps". Unknown tokens
// are ignored; a malformed socket line is reported with its text.

/** TCP congestion control names the kernel may print in `ss -ti`. */
const KNOWN_CC = new Set([
  'cubic',
  'bbr',
  'bbr2',
  'reno',
  'bic',
  'htcp',
  'vegas',
  'westwood',
  'dctcp',
  'highspeed',
  'hybla',
  'illinois',
  'lp',
  'nv',
  'scalable',
  'veno',
  'yeah',
  'cdg',
]);

export interface SsSample {
  /** Sample time, seconds since the epoch. */
  readonly t: number;
  readonly localAddr: string;
  readonly localPort: number;
  readonly peerAddr: string;
  readonly peerPort: number;
  readonly recvQBytes: number;
  readonly sendQBytes: number;
  /** Congestion control of this connection, or null if ss did not print one. */
  readonly cc: string | null;
  /** Congestion window, segments. */
  readonly cwnd: number | null;
  /** Slow-start threshold, segments (absent while still in initial slow start). */
  readonly ssthresh: number | null;
  readonly mss: number | null;
  /** Smoothed RTT and its variation, milliseconds. */
  readonly rttMs: number | null;
  readonly rttVarMs: number | null;
  readonly minRttMs: number | null;
  readonly bytesSent: number | null;
  readonly bytesAcked: number | null;
  readonly bytesRetrans: number | null;
  /** Total retransmitted segments over the connection's life. */
  readonly retransTotal: number | null;
  readonly unacked: number | null;
  readonly deliveryRateBitsPerSec: number | null;
  readonly pacingRateBitsPerSec: number | null;
  /** Time the connection had data to send over its life, ms (null: not printed). */
  readonly busyMs: number | null;
  /** Of that, time the receiver's window held the sender back, ms (0 when ss printed busy but no rwnd_limited). */
  readonly rwndLimitedMs: number | null;
  /** Of that, time the send buffer held it back, ms (0 when ss printed busy but no sndbuf_limited). */
  readonly sndbufLimitedMs: number | null;
  /** The receiver's last advertised window, bytes. */
  readonly sndWndBytes: number | null;
}

const SOCKET_LINE = /^(?:([A-Z][A-Z0-9-]*)\s+)?(\d+)\s+(\d+)\s+(\S+)\s+(\S+)/;

/** Splits "addr:port" (also "[v6]:port" and "::ffff:v4:port"). */
export function splitAddrPort(text: string): { addr: string; port: number } {
  const i = text.lastIndexOf(':');
  if (i <= 0) throw new Error(`ss: cannot parse address "${text}"`);
  let addr = text.slice(0, i).replace(/^\[|\]$/g, '');
  if (addr.startsWith('::ffff:')) addr = addr.slice(7);
  const port = Number(text.slice(i + 1));
  if (!Number.isInteger(port)) throw new Error(`ss: cannot parse port in "${text}"`);
  return { addr, port };
}

/** "2869176bps", "2.87Mbps", "120Kbps" → bits per second. */
export function parseBps(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)bps$/.exec(text);
  if (!m) return null;
  const mult = m[2] === 'K' ? 1e3 : m[2] === 'M' ? 1e6 : m[2] === 'G' ? 1e9 : 1;
  return Number(m[1]) * mult;
}

function parseInfo(line: string): Omit<SsSample, 't' | 'localAddr' | 'localPort' | 'peerAddr' | 'peerPort' | 'recvQBytes' | 'sendQBytes'> {
  const tokens = line.trim().split(/\s+/);
  const kv = new Map<string, string>();
  let cc: string | null = null;
  let deliveryRate: number | null = null;
  let pacingRate: number | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as string;
    const colon = tok.indexOf(':');
    if (colon > 0) {
      kv.set(tok.slice(0, colon), tok.slice(colon + 1));
    } else if (KNOWN_CC.has(tok) && cc === null) {
      cc = tok;
    } else if (tok === 'delivery_rate' || tok === 'pacing_rate') {
      const v = parseBps(tokens[i + 1] ?? '');
      if (v !== null) {
        if (tok === 'delivery_rate') deliveryRate = v;
        else pacingRate = v;
        i++;
      }
    }
  }
  const num = (key: string): number | null => {
    const v = kv.get(key);
    if (v === undefined) return null;
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  };
  const pair = (key: string): [number | null, number | null] => {
    const v = kv.get(key);
    if (v === undefined) return [null, null];
    const [a, b] = v.split('/');
    const na = Number(a);
    const nb = b === undefined ? NaN : Number(b);
    return [Number.isFinite(na) ? na : null, Number.isFinite(nb) ? nb : null];
  };
  /** "1448ms" or "100ms(8.1%)" → 100; absent → null. */
  const ms = (key: string): number | null => {
    const m = /^(\d+(?:\.\d+)?)ms/.exec(kv.get(key) ?? '');
    return m ? Number(m[1]) : null;
  };
  const busy = ms('busy');
  const limited = (key: string): number | null => ms(key) ?? (busy !== null ? 0 : null);
  const [rtt, rttVar] = pair('rtt');
  const [retransNow, retransTotal] = pair('retrans');
  return {
    cc,
    cwnd: num('cwnd'),
    ssthresh: num('ssthresh'),
    mss: num('mss'),
    rttMs: rtt,
    rttVarMs: rttVar,
    minRttMs: num('minrtt'),
    bytesSent: num('bytes_sent'),
    bytesAcked: num('bytes_acked'),
    bytesRetrans: num('bytes_retrans'),
    retransTotal: retransTotal ?? retransNow,
    unacked: num('unacked'),
    deliveryRateBitsPerSec: deliveryRate,
    pacingRateBitsPerSec: pacingRate,
    busyMs: busy,
    rwndLimitedMs: limited('rwnd_limited'),
    sndbufLimitedMs: limited('sndbuf_limited'),
    sndWndBytes: num('snd_wnd'),
  };
}

/** Parses a whole `ss -tinH` output taken at time t (seconds since the epoch). */
export function parseSsOutput(text: string, t: number): SsSample[] {
  const lines = text.split('\n');
  const out: SsSample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '' || /^\s/.test(line)) continue;
    const m = SOCKET_LINE.exec(line);
    if (!m) throw new Error(`ss: cannot parse socket line ${i + 1}: "${line}"`);
    const local = splitAddrPort(m[4] as string);
    const peer = splitAddrPort(m[5] as string);
    const next = lines[i + 1];
    const info = next !== undefined && /^\s/.test(next) ? parseInfo(next) : parseInfo('');
    out.push({
      t,
      localAddr: local.addr,
      localPort: local.port,
      peerAddr: peer.addr,
      peerPort: peer.port,
      recvQBytes: Number(m[2]),
      sendQBytes: Number(m[3]),
      ...info,
    });
  }
  return out;
}
