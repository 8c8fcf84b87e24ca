// How each TCP connection of a run met the bottleneck queue, from the two
// header captures of `sprint ab --packets` (demo/testbed/packet-capture.ts):
// the server's data before the queue, and after it with the receiver's ACKs.
// Per connection over a window: the segments the queue dropped (seen before
// it and never after), grouped into drop episodes (drops within one RTT of an
// episode's first), the sender's retransmissions; its bursts (segments that
// left the server back to back) and where in them the drops fell; the ACK
// stream as the sender got it (spacing, bytes per ACK, stretch and duplicate
// ACKs, SACK) and the receive window it advertised, scaled by the window
// scale of its SYN; how soon the receiver ACKed data after it came out of the
// queue; and, across connections, the queue's overflow events (drops of any
// connection within one RTT) and which connections lost in each; given where
// its responses begin, its drops by offset into them (response-offsets.ts).
// Pure: packets in, figures out (`sprint flows` prints them).

import { TCP_ACK, TCP_FIN, TCP_RST, TCP_SYN, TcpPacket } from '../testbed/pcap';
import { offsetBins, type OffsetBins, type StreamPoint } from './response-offsets';

/** Segments released by one ACK leave the server within this of each other unless told otherwise (seconds). */
export const DEFAULT_BURST_GAP_S = 0.0002;
/** An ACK advancing more than this many segments is a stretch ACK. */
export const STRETCH_SEGMENTS = 2;

export interface Spread {
  readonly n: number;
  readonly median: number;
  readonly p90: number;
  readonly max: number;
}

export interface FlowFigures {
  /** "SERVER:PORT-CLIENT:PORT". */
  readonly key: string;
  readonly serverAddr: string;
  readonly serverPort: number;
  readonly clientAddr: string;
  readonly clientPort: number;
  /** Largest payload the server sent (bytes): the segment size the counts below use. */
  readonly mss: number;
  /** Data segments (and their payload bytes) before the queue, inside the window. */
  readonly segmentsBefore: number;
  readonly bytesBefore: number;
  readonly segmentsAfter: number;
  /** Segments seen before the queue and never after it (not counting those still queued when the capture stopped). */
  readonly dropped: number;
  readonly dropEpisodes: number;
  /** Segments the sender sent again (starting below the highest sequence it had sent). */
  readonly retransmissions: number;
  /** Median time from a segment leaving the server to the ACK covering it reaching the router, seconds (null without pairs). */
  readonly rttS: number | null;
  readonly bursts: {
    readonly count: number;
    /** Segments per burst. */
    readonly size: Spread | null;
    /** Of the bursts that lost a segment. */
    readonly withDrops: number;
    readonly sizeWithDrops: Spread | null;
    /** Where the dropped segments were in their bursts: [last, second to last, third to last, earlier]. */
    readonly dropsFromEnd: readonly [number, number, number, number];
    /** Dropped segments' position in their burst from its start (1 = first). */
    readonly dropPosition: Spread | null;
  };
  readonly acks: {
    readonly count: number;
    /** Gap between consecutive ACKs at the router, seconds. */
    readonly spacingS: Spread | null;
    /** Bytes each advancing ACK acknowledged. */
    readonly bytesPerAck: Spread | null;
    /** ACKs advancing more than STRETCH_SEGMENTS × mss. */
    readonly stretch: number;
    /** ACKs repeating the previous one (no data, same window) while data was outstanding. */
    readonly duplicate: number;
    /** ACKs carrying SACK blocks. */
    readonly sack: number;
    /** Time from the last data segment out of the queue to the receiver's next ACK, seconds: the receiver's promptness. */
    readonly delayS: Spread | null;
  };
  readonly receiveWindow: {
    /** The receiver's window scale from its SYN (null: no SYN in the capture, windows unscaled). */
    readonly scale: number | null;
    /** Advertised window, bytes. */
    readonly bytes: Spread | null;
  };
  /** The queue's overflow events in the window (see `overflowEvents`) this connection lost a segment in. */
  readonly overflow: {
    /** Events it lost in. */
    readonly lostIn: number;
    /** Events only it lost in. */
    readonly lostAlone: number;
  };
  /** Drops by offset into its responses (null: where its responses begin is not known). */
  readonly responses: OffsetBins | null;
}

/** The queue's overflow events over all connections. */
export interface OverflowEvents {
  /** Groups of drops (any connection) each within `spanS` of the group's first drop. */
  readonly events: number;
  readonly spanS: number;
}

export interface FlowFiguresResult {
  readonly flows: FlowFigures[];
  readonly overflow: OverflowEvents;
}

export interface FlowFiguresOptions {
  /** Epoch seconds; absent: all packets. */
  readonly window?: { readonly fromS: number; readonly toS: number } | null;
  /** Gap that ends a burst, seconds (default DEFAULT_BURST_GAP_S). */
  readonly burstGapS?: number;
  /** Where each connection's responses begin on its byte stream, by `responseKey` (response-offsets.ts responseStarts). */
  readonly responseStarts?: ReadonlyMap<string, readonly number[]>;
  /** Bin width of the response offsets, bytes (default DEFAULT_OFFSET_BIN_BYTES). */
  readonly offsetBinBytes?: number;
}

/** Whether epoch second `t` is inside the options' window (every time is without one). */
function inWindowOf(options: FlowFiguresOptions): (t: number) => boolean {
  const w = options.window;
  return (t) => !w || (t >= w.fromS && t < w.toS);
}

/** The key of a connection in `responseStarts`: its server port and client endpoint. */
export function responseKey(serverPort: number, clientAddr: string, clientPort: number): string {
  return `${serverPort}|${clientAddr}:${clientPort}`;
}

/** Median, 90th percentile (nearest rank) and max; null for none. */
export function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  return { n: s.length, median, p90: s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)] as number, max: s[s.length - 1] as number };
}

const TWO32 = 2 ** 32;
/** A 32-bit sequence number placed nearest to `near` on the unwrapped line. */
export function unwrapSeq(seq32: number, near: number): number {
  let d = (seq32 - (((near % TWO32) + TWO32) % TWO32) + TWO32) % TWO32;
  if (d >= TWO32 / 2) d -= TWO32;
  return near + d;
}

/** One connection's packets, both captures. */
interface Conn {
  serverAddr: string;
  serverPort: number;
  clientAddr: string;
  clientPort: number;
  before: TcpPacket[];
  after: TcpPacket[];
}

const endpoint = (addr: string, port: number): string => `${addr}:${port}`;

/**
 * Connections of both captures, each with its server: the side that answered
 * a SYN, else the side that sent more payload.
 */
function connections(server: readonly TcpPacket[], client: readonly TcpPacket[]): Conn[] {
  const byPair = new Map<string, { a: string; b: string; before: TcpPacket[]; after: TcpPacket[] }>();
  const add = (p: TcpPacket, before: boolean): void => {
    const x = endpoint(p.src, p.srcPort);
    const y = endpoint(p.dst, p.dstPort);
    const key = x < y ? `${x}|${y}` : `${y}|${x}`;
    let c = byPair.get(key);
    if (!c) byPair.set(key, (c = { a: x < y ? x : y, b: x < y ? y : x, before: [], after: [] }));
    (before ? c.before : c.after).push(p);
  };
  for (const p of server) add(p, true);
  for (const p of client) add(p, false);
  const out: Conn[] = [];
  for (const c of byPair.values()) {
    const isSyn = (p: TcpPacket): boolean => (p.flags & (TCP_SYN | TCP_ACK)) === TCP_SYN;
    const synFrom = c.after.find(isSyn) ?? c.before.find(isSyn);
    let serverEnd: string;
    if (synFrom) serverEnd = endpoint(synFrom.dst, synFrom.dstPort);
    else {
      let fromA = 0;
      let fromB = 0;
      for (const p of [c.before, c.after].flat())
        if (endpoint(p.src, p.srcPort) === c.a) fromA += p.payload;
        else fromB += p.payload;
      serverEnd = fromA >= fromB ? c.a : c.b;
    }
    const clientEnd = serverEnd === c.a ? c.b : c.a;
    const [sAddr, sPort] = serverEnd.split(':') as [string, string];
    const [cAddr, cPort] = clientEnd.split(':') as [string, string];
    out.push({
      serverAddr: sAddr,
      serverPort: Number(sPort),
      clientAddr: cAddr,
      clientPort: Number(cPort),
      before: c.before.sort((x, y) => x.t - y.t),
      after: c.after.sort((x, y) => x.t - y.t),
    });
  }
  return out;
}

/** Items in time order, grouped so that each group holds those within `spanS` of the group's first. */
function groupWithin<T>(items: readonly T[], timeOf: (x: T) => number, spanS: number): T[][] {
  const groups: T[][] = [];
  let start = -Infinity;
  for (const x of items) {
    const t = timeOf(x);
    if (t - start > spanS) {
      groups.push([]);
      start = t;
    }
    (groups[groups.length - 1] as T[]).push(x);
  }
  return groups;
}

/** Overflow events group drops that fall within this of the event's first when no connection has an RTT (seconds). */
export const DEFAULT_EVENT_SPAN_S = 0.1;

/**
 * The figures of every connection that sent data in the window, most bytes
 * first, and the queue's overflow events: drops of any connection grouped
 * into events one RTT long (the longest connection RTT), so that each
 * connection's share of the events it lost in, and lost in alone, shows
 * which flow the full queue keeps hitting.
 */
export function flowFigures(
  server: readonly TcpPacket[],
  client: readonly TcpPacket[],
  options: FlowFiguresOptions = {},
): FlowFiguresResult {
  const measured: ConnectionResult[] = [];
  for (const c of connections(server, client)) {
    const m = connectionFigures(c, options);
    if (m.figures.segmentsBefore > 0 || m.figures.segmentsAfter > 0) measured.push(m);
  }
  const rtts = measured.map((m) => m.figures.rttS).filter((r): r is number => r !== null);
  const spanS = rtts.length > 0 ? Math.max(...rtts) : DEFAULT_EVENT_SPAN_S;
  const drops = measured.flatMap((m, flow) => m.drops.map((d) => ({ t: d.t, flow }))).sort((a, b) => a.t - b.t);
  const inWindow = inWindowOf(options);
  const events = groupWithin(drops, (d) => d.t, spanS).map((g) => new Set(g.map((d) => d.flow)));
  const flows = measured.map((m, flow) => {
    const f = m.figures;
    const starts = m.streamFromSyn ? options.responseStarts?.get(responseKey(f.serverPort, f.clientAddr, f.clientPort)) : undefined;
    return {
      ...f,
      overflow: {
        lostIn: events.filter((e) => e.has(flow)).length,
        lostAlone: events.filter((e) => e.size === 1 && e.has(flow)).length,
      },
      responses: starts
        ? offsetBins({
            starts,
            sends: m.sends,
            drops: m.drops,
            otherDropTimes: drops.filter((d) => d.flow !== flow).map((d) => d.t),
            inWindow,
            spanS,
            binBytes: options.offsetBinBytes,
          })
        : null,
    };
  });
  return {
    flows: flows.sort((a, b) => b.bytesBefore - a.bytesBefore || a.key.localeCompare(b.key)),
    overflow: { events: events.length, spanS },
  };
}

/** One connection's figures, and what the figures across connections need of it. */
interface ConnectionResult {
  readonly figures: Omit<FlowFigures, 'overflow' | 'responses'>;
  /** Its drops in the window on its byte stream. */
  readonly drops: StreamPoint[];
  /** Its first transmissions, in time order. */
  readonly sends: StreamPoint[];
  /** The byte stream's offsets count from its SYN-ACK (else from the first segment captured). */
  readonly streamFromSyn: boolean;
}

function connectionFigures(c: Conn, options: FlowFiguresOptions): ConnectionResult {
  const inWindow = inWindowOf(options);
  const gap = options.burstGapS ?? DEFAULT_BURST_GAP_S;
  const fromServer = (p: TcpPacket): boolean => p.src === c.serverAddr && p.srcPort === c.serverPort;
  const all = [...c.before, ...c.after];
  // The server's sequence space from its SYN-ACK, else from the first segment it sent.
  const synAck = all.find((p) => fromServer(p) && (p.flags & (TCP_SYN | TCP_ACK)) === (TCP_SYN | TCP_ACK));
  const firstData = [...all].sort((a, b) => a.t - b.t).find((p) => fromServer(p) && p.payload > 0);
  const base = synAck ? synAck.seq + 1 : (firstData?.seq ?? 0);
  const unwrapper = (): ((seq: number) => number) => {
    let last = base;
    return (seq) => (last = unwrapSeq(seq, last)) - base;
  };

  // Before the queue: the sender's data in time order.
  const seqBefore = unwrapper();
  const before = c.before.filter((p) => fromServer(p) && p.payload > 0).map((p) => ({ t: p.t, seq: seqBefore(p.seq), len: p.payload }));
  const seqAfter = unwrapper();
  const ackSeq = unwrapper();
  const afterAll = c.after.map((p) => ({
    p,
    data: fromServer(p) && p.payload > 0,
    seq: fromServer(p) ? seqAfter(p.seq) : 0,
    ack: !fromServer(p) && (p.flags & TCP_ACK) !== 0 ? ackSeq(p.ack) : null,
  }));
  const after = afterAll.filter((x) => x.data).map((x) => ({ t: x.p.t, seq: x.seq, len: x.p.payload }));
  // (no spread: a long run has more segments than a call takes arguments)
  const mss = [...before, ...after].reduce((m, s) => Math.max(m, s.len), 0);

  // Drops: copies before the queue beyond those seen after it, earliest first.
  // One number per (sequence, length): exact below 2^37 bytes of sequence (2^53 / 2^16).
  const key = (s: { seq: number; len: number }): number => s.seq * 65536 + s.len;
  const afterCount = new Map<number, number>();
  for (const s of after) afterCount.set(key(s), (afterCount.get(key(s)) ?? 0) + 1);
  const beforeCount = new Map<number, number>();
  for (const s of before) beforeCount.set(key(s), (beforeCount.get(key(s)) ?? 0) + 1);
  const seenDropped = new Map<number, number>();
  const missing = new Set<number>();
  before.forEach((s, i) => {
    const k = key(s);
    const excess = (beforeCount.get(k) ?? 0) - (afterCount.get(k) ?? 0);
    const already = seenDropped.get(k) ?? 0;
    if (already < excess) {
      seenDropped.set(k, already + 1);
      missing.add(i);
    }
  });
  // The queue is FIFO: a missing segment sent after the last one that came out was still queued when the capture stopped.
  const lastOutS = before.reduce((m, s, i) => (missing.has(i) ? m : Math.max(m, s.t)), -Infinity);
  const droppedAt = new Set([...missing].filter((i) => (before[i] as { t: number }).t < lastOutS));

  // Retransmissions: segments starting below the highest sequence sent before them.
  let highest = -Infinity;
  let retransmissions = 0;
  const isRetransmission: boolean[] = [];
  for (const s of before) {
    const again = s.seq < highest;
    isRetransmission.push(again);
    if (again && inWindow(s.t)) retransmissions++;
    highest = Math.max(highest, s.seq + s.len);
  }

  // RTT at the router: a first transmission to the first ACK (at the router) covering it.
  const acks = afterAll.filter((x): x is typeof x & { ack: number } => x.ack !== null);
  const rtts: number[] = [];
  // First transmissions leave in sequence order, so the ACK that covers each is never earlier than the last one's.
  let ai = 0;
  before.forEach((s, i) => {
    if (isRetransmission[i] || droppedAt.has(i) || !inWindow(s.t)) return;
    const covers = (a: (typeof acks)[number]): boolean => a.p.t > s.t && a.ack >= s.seq + s.len;
    while (ai < acks.length && !covers(acks[ai] as (typeof acks)[number])) ai++;
    const a = acks[ai];
    if (a) rtts.push(a.p.t - s.t);
  });
  const rtt = spread(rtts);
  const rttS = rtt ? rtt.median : null;

  // Bursts: segments that left the server less than `gap` apart.
  const burstOf: number[] = [];
  const bursts: Array<{ start: number; size: number; t: number }> = [];
  before.forEach((s, i) => {
    const prev = before[i - 1];
    if (!prev || s.t - prev.t > gap) bursts.push({ start: i, size: 0, t: s.t });
    (bursts[bursts.length - 1] as { size: number }).size++;
    burstOf.push(bursts.length - 1);
  });
  const dropsInWindow = [...droppedAt].filter((i) => inWindow((before[i] as { t: number }).t)).sort((a, b) => a - b);
  const fromEnd: [number, number, number, number] = [0, 0, 0, 0];
  const positions: number[] = [];
  const burstsWithDrops = new Set<number>();
  for (const i of dropsInWindow) {
    const b = bursts[burstOf[i] as number] as { start: number; size: number };
    burstsWithDrops.add(burstOf[i] as number);
    positions.push(i - b.start + 1);
    fromEnd[Math.min(3, b.start + b.size - 1 - i)]++;
  }
  const drops = dropsInWindow.map((i) => ({ t: (before[i] as { t: number }).t, seq: (before[i] as { seq: number }).seq }));
  const sends = before.filter((_, i) => !isRetransmission[i]).map((x) => ({ t: x.t, seq: x.seq }));
  const episodes = groupWithin(drops, (d) => d.t, rttS ?? 0).length;
  const windowBursts = bursts.filter((b) => inWindow(b.t));

  // The ACK stream at the router, as the sender will get it.
  let prevAck: { p: TcpPacket; ack: number } | null = null;
  let sentEnd = -Infinity;
  const spacing: number[] = [];
  const perAck: number[] = [];
  let stretch = 0;
  let duplicate = 0;
  let sack = 0;
  let ackCount = 0;
  let lastDataT: number | null = null;
  const delays: number[] = [];
  const windows: number[] = [];
  const clientSyn = all.find((p) => !fromServer(p) && (p.flags & (TCP_SYN | TCP_ACK)) === TCP_SYN);
  const scaled = clientSyn !== undefined && clientSyn.wscale !== undefined && synAck?.wscale !== undefined;
  const scale = clientSyn ? (scaled ? (clientSyn.wscale as number) : 0) : null;
  for (const x of afterAll) {
    if (x.data) {
      sentEnd = Math.max(sentEnd, x.seq + x.p.payload);
      lastDataT = x.p.t;
      continue;
    }
    if (x.ack === null || (x.p.flags & (TCP_SYN | TCP_RST)) !== 0) continue;
    if (inWindow(x.p.t)) {
      ackCount++;
      if (lastDataT !== null) delays.push(x.p.t - lastDataT);
      lastDataT = null;
      windows.push(x.p.window * 2 ** (scale ?? 0));
      if (x.p.sack && x.p.sack.length > 0) sack++;
      if (prevAck) {
        spacing.push(x.p.t - prevAck.p.t);
        const advance = x.ack - prevAck.ack;
        if (advance > 0) {
          perAck.push(advance);
          if (mss > 0 && advance > STRETCH_SEGMENTS * mss) stretch++;
        } else if (advance === 0 && x.p.payload === 0 && (x.p.flags & TCP_FIN) === 0 && x.p.window === prevAck.p.window && sentEnd > x.ack)
          duplicate++;
      }
    }
    prevAck = { p: x.p, ack: x.ack };
  }

  const windowBefore = before.filter((s) => inWindow(s.t));
  const figures = {
    key: `${endpoint(c.serverAddr, c.serverPort)}-${endpoint(c.clientAddr, c.clientPort)}`,
    serverAddr: c.serverAddr,
    serverPort: c.serverPort,
    clientAddr: c.clientAddr,
    clientPort: c.clientPort,
    mss,
    segmentsBefore: windowBefore.length,
    bytesBefore: windowBefore.reduce((a, s) => a + s.len, 0),
    segmentsAfter: after.filter((s) => inWindow(s.t)).length,
    dropped: dropsInWindow.length,
    dropEpisodes: episodes,
    retransmissions,
    rttS,
    bursts: {
      count: windowBursts.length,
      size: spread(windowBursts.map((b) => b.size)),
      withDrops: burstsWithDrops.size,
      sizeWithDrops: spread([...burstsWithDrops].map((i) => (bursts[i] as { size: number }).size)),
      dropsFromEnd: fromEnd,
      dropPosition: spread(positions),
    },
    acks: { count: ackCount, spacingS: spread(spacing), bytesPerAck: spread(perAck), stretch, duplicate, sack, delayS: spread(delays) },
    receiveWindow: { scale, bytes: spread(windows) },
  };
  return { figures, drops, sends, streamFromSyn: synAck !== undefined };
}
