// Parser for tcpdump's one-line packet summaries as the wire capture runs it
// (`tcpdump -n -tt -q -e`), e.g.
//   1795316888.558642 02:..:01 > 02:..:02, IPv4, length 1514: 10.201.1.2.8001 > 10.201.2.2.35870: tcp 1448
// giving the capture time, frame length (bytes on the wire, what tbf
// counts), addresses, ports and TCP payload length. Lines that are not IPv4
// TCP summaries (e.g. status messages) give null.

export interface WirePacket {
  /** Capture time, seconds since the epoch. */
  readonly t: number;
  /** Frame length, bytes (link + IP + TCP headers + payload). */
  readonly frameBytes: number;
  readonly srcAddr: string;
  readonly srcPort: number;
  readonly dstAddr: string;
  readonly dstPort: number;
  /** TCP payload length, bytes. */
  readonly payloadBytes: number;
}

const IPV4_PORT = String.raw`(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})\.(\d+)`;
const LINE = new RegExp(String.raw`^(\d+\.\d+) .*?length (\d+): ${IPV4_PORT} > ${IPV4_PORT}: tcp (\d+)`);
const LINE_NO_LINK = new RegExp(String.raw`^(\d+\.\d+) IP ${IPV4_PORT} > ${IPV4_PORT}: tcp (\d+)`);

/** Parses one tcpdump line; null when it is not an IPv4 TCP packet summary. */
export function parseTcpdumpLine(line: string): WirePacket | null {
  const m = LINE.exec(line);
  if (m) {
    return {
      t: Number(m[1]),
      frameBytes: Number(m[2]),
      srcAddr: m[3] as string,
      srcPort: Number(m[4]),
      dstAddr: m[5] as string,
      dstPort: Number(m[6]),
      payloadBytes: Number(m[7]),
    };
  }
  // Without -e there is no frame length: estimate it from Ethernet + IPv4 + TCP (timestamps) headers.
  const n = LINE_NO_LINK.exec(line);
  if (n) {
    const payload = Number(n[6]);
    return {
      t: Number(n[1]),
      frameBytes: payload + 66,
      srcAddr: n[2] as string,
      srcPort: Number(n[3]),
      dstAddr: n[4] as string,
      dstPort: Number(n[5]),
      payloadBytes: payload,
    };
  }
  return null;
}

/** Parses tcpdump's exit statistics ("N packets captured", "N packets dropped by kernel"). */
export function parseTcpdumpStats(stderr: string): { captured: number | null; droppedByKernel: number | null } {
  const captured = /(\d+) packets? captured/.exec(stderr);
  const dropped = /(\d+) packets? dropped by kernel/.exec(stderr);
  return {
    captured: captured ? Number(captured[1]) : null,
    droppedByKernel: dropped ? Number(dropped[1]) : null,
  };
}
