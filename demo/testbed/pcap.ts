// A reader for the header captures of `sprint ab --packets`
// (packet-capture.ts): classic pcap (microsecond or nanosecond, either byte
// order; gzip read transparently), link types Ethernet, Linux cooked (v1 and
// v2) and raw IP, keeping the IPv4/TCP packets with what the flow figures
// need (demo/harness/flow-figures.ts): addresses, ports, sequence and
// acknowledgement numbers, flags, the advertised window, the payload length
// from the IP header (the capture keeps only the headers) and the TCP options
// (MSS, window scale, SACK blocks). Anything else is counted and skipped.
// Pure: bytes in, packets out; errors say which file and where.

import { readFileSync } from 'fs';
import { gunzipSync } from 'zlib';

export class PcapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PcapError';
  }
}

export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;
export const TCP_PSH = 0x08;
export const TCP_ACK = 0x10;

export interface TcpPacket {
  /** Capture time, epoch seconds. */
  readonly t: number;
  readonly src: string;
  readonly dst: string;
  readonly srcPort: number;
  readonly dstPort: number;
  /** 32-bit sequence and acknowledgement numbers as on the wire. */
  readonly seq: number;
  readonly ack: number;
  /** TCP flag bits (TCP_SYN, TCP_ACK, …). */
  readonly flags: number;
  /** The advertised window field, unscaled. */
  readonly window: number;
  /** TCP payload bytes (from the IP total length: the capture may hold none of it). */
  readonly payload: number;
  /** Options present in the captured bytes. */
  readonly mss?: number;
  readonly wscale?: number;
  readonly sackPermitted?: boolean;
  /** SACK blocks, [left, right) as 32-bit sequence numbers. */
  readonly sack?: ReadonlyArray<readonly [number, number]>;
}

export interface PcapRead {
  readonly linkType: number;
  readonly snaplen: number;
  readonly records: number;
  readonly packets: TcpPacket[];
  /** Records that were not IPv4/TCP (or too short to read). */
  readonly skipped: number;
}

/** Link types read: Ethernet, raw IP (two numbers), IPv4, Linux cooked v1 and v2. */
export const LINK_TYPES: Readonly<Record<number, string>> = {
  1: 'Ethernet',
  12: 'raw IP',
  101: 'raw IP',
  228: 'IPv4',
  113: 'Linux cooked',
  276: 'Linux cooked v2',
};

/** Offset of the IP header in a frame of this link type, or null when the frame carries no IPv4. */
function ipOffset(linkType: number, frame: Buffer): number | null {
  switch (linkType) {
    case 1: {
      if (frame.length < 14) return null;
      let type = frame.readUInt16BE(12);
      let off = 14;
      while ((type === 0x8100 || type === 0x88a8) && frame.length >= off + 4) {
        type = frame.readUInt16BE(off + 2);
        off += 4;
      }
      return type === 0x0800 ? off : null;
    }
    case 12:
    case 101:
    case 228:
      return 0;
    case 113:
      return frame.length >= 16 && frame.readUInt16BE(14) === 0x0800 ? 16 : null;
    case 276:
      return frame.length >= 20 && frame.readUInt16BE(0) === 0x0800 ? 20 : null;
    default:
      return null;
  }
}

/** Dotted addresses, one string per address (a capture holds millions of packets between a few hosts). */
const addresses = new Map<number, string>();
function ipv4(b: Buffer, at: number): string {
  const n = b.readUInt32BE(at);
  let s = addresses.get(n);
  if (s === undefined) {
    s = `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
    if (addresses.size < 4096) addresses.set(n, s);
  }
  return s;
}

/** The TCP packet in one frame, or null when it is not IPv4/TCP or too short to read. */
export function tcpOfFrame(linkType: number, frame: Buffer, t: number): TcpPacket | null {
  const ip = ipOffset(linkType, frame);
  if (ip === null || frame.length < ip + 20) return null;
  if (frame[ip]! >> 4 !== 4 || frame[ip + 9] !== 6) return null;
  // A later fragment carries no TCP header.
  if ((frame.readUInt16BE(ip + 6) & 0x1fff) !== 0) return null;
  const ihl = (frame[ip]! & 0x0f) * 4;
  const total = frame.readUInt16BE(ip + 2);
  const tcp = ip + ihl;
  if (ihl < 20 || frame.length < tcp + 20) return null;
  const doff = (frame[tcp + 12]! >> 4) * 4;
  const packet: {
    -readonly [K in keyof TcpPacket]: TcpPacket[K];
  } = {
    t,
    src: ipv4(frame, ip + 12),
    dst: ipv4(frame, ip + 16),
    srcPort: frame.readUInt16BE(tcp),
    dstPort: frame.readUInt16BE(tcp + 2),
    seq: frame.readUInt32BE(tcp + 4),
    ack: frame.readUInt32BE(tcp + 8),
    flags: frame[tcp + 13]! & 0x3f,
    window: frame.readUInt16BE(tcp + 14),
    payload: Math.max(0, total - ihl - doff),
  };
  // Options, as far as the capture kept them.
  const end = Math.min(tcp + doff, frame.length);
  for (let o = tcp + 20; o < end;) {
    const kind = frame[o]!;
    if (kind === 0) break;
    if (kind === 1) {
      o++;
      continue;
    }
    if (o + 1 >= end) break;
    const len = frame[o + 1]!;
    if (len < 2 || o + len > end) break;
    if (kind === 2 && len === 4) packet.mss = frame.readUInt16BE(o + 2);
    else if (kind === 3 && len === 3) packet.wscale = frame[o + 2]!;
    else if (kind === 4) packet.sackPermitted = true;
    else if (kind === 5 && (len - 2) % 8 === 0) {
      const blocks: Array<[number, number]> = [];
      for (let b = o + 2; b + 8 <= o + len; b += 8) blocks.push([frame.readUInt32BE(b), frame.readUInt32BE(b + 4)]);
      packet.sack = blocks;
    }
    o += len;
  }
  return packet;
}

/** Reads a classic pcap file's bytes (gzip-compressed or not). `name` goes into the errors. */
export function readPcap(input: Buffer, name = 'capture'): PcapRead {
  let bytes = input;
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (err) {
      throw new PcapError(`${name}: the gzip data is damaged or cut short (${(err as Error).message})`);
    }
  }
  if (bytes.length < 24) throw new PcapError(`${name}: not a pcap file (${bytes.length} bytes, shorter than a pcap file header)`);
  const magic = bytes.readUInt32LE(0);
  let le: boolean;
  let nanos: boolean;
  if (magic === 0xa1b2c3d4 || magic === 0xa1b23c4d) {
    le = true;
    nanos = magic === 0xa1b23c4d;
  } else if (magic === 0xd4c3b2a1 || magic === 0x4d3cb2a1) {
    le = false;
    nanos = magic === 0x4d3cb2a1;
  } else if (magic === 0x0a0d0d0a) {
    throw new PcapError(`${name}: a pcapng file; only classic pcap is read (tcpdump -w writes it; editcap -F pcap converts)`);
  } else {
    throw new PcapError(`${name}: not a pcap file (magic 0x${magic.toString(16).padStart(8, '0')})`);
  }
  const u32 = (at: number): number => (le ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
  const snaplen = u32(16);
  const linkType = u32(20) & 0x0fffffff;
  if (!(linkType in LINK_TYPES))
    throw new PcapError(
      `${name}: link type ${linkType} is not read (only ${[...new Set(Object.entries(LINK_TYPES).map(([k, v]) => `${v} (${k})`))].join(', ')})`,
    );
  const packets: TcpPacket[] = [];
  let records = 0;
  let skipped = 0;
  for (let at = 24; at < bytes.length;) {
    if (at + 16 > bytes.length)
      throw new PcapError(`${name}: truncated: packet ${records + 1} at byte ${at} has ${bytes.length - at} of its 16 header bytes`);
    const t = u32(at) + u32(at + 4) / (nanos ? 1e9 : 1e6);
    const incl = u32(at + 8);
    if (incl > Math.max(snaplen, 262144))
      throw new PcapError(`${name}: damaged: packet ${records + 1} at byte ${at} claims ${incl} bytes (snaplen ${snaplen})`);
    if (at + 16 + incl > bytes.length)
      throw new PcapError(
        `${name}: truncated: packet ${records + 1} at byte ${at} needs ${incl} bytes, ${bytes.length - at - 16} left (the capture was cut short)`,
      );
    records++;
    const p = tcpOfFrame(linkType, bytes.subarray(at + 16, at + 16 + incl), t);
    if (p) packets.push(p);
    else skipped++;
    at += 16 + incl;
  }
  return { linkType, snaplen, records, packets, skipped };
}

/** Reads a pcap file (gzip or not) from disk. */
export function readPcapFile(file: string): PcapRead {
  return readPcap(readFileSync(file), file);
}
