// `sprint flows` (demo/harness/flow-figures.ts, flows-cli.ts) on a scenario
// written as pcap bytes and read back through the real reader
// (demo/testbed/pcap.ts): a burst that loses its last two segments at the
// queue and sends them again, stretch and duplicate ACKs with SACK, the
// window scale from the SYN, sequence numbers that wrap; the CLI on gzip
// captures in a run folder; and the errors for cut-short and non-pcap files.

import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gzipSync } from 'zlib';
import { FlowFigures, flowFigures, responseKey, unwrapSeq } from '../../../demo/harness/flow-figures';
import { main } from '../../../demo/harness/flows-cli';
import { packetCaptureArgs } from '../../../demo/testbed/packet-capture';
import { readPcap, TCP_ACK, TCP_PSH, TCP_SYN, TcpPacket } from '../../../demo/testbed/pcap';
import { captureIo } from '../capture-io';

const SERVER = [10, 201, 1, 2];
const CLIENT = [10, 201, 2, 2];
const SPORT = 8001;
const CPORT = 40000;
const MSS = 1448;
/** The server's initial sequence number: its data wraps past 2^32 within the first burst. */
const ISN = 2 ** 32 - 5000;
const SNAPLEN = 96;

interface Pkt {
  t: number;
  fromServer: boolean;
  seq: number;
  ack: number;
  flags: number;
  win: number;
  payload?: number;
  opts?: number[];
}

function tcpOptions(o: { mss?: number; wscale?: number; sackOk?: boolean; sack?: Array<[number, number]> }): number[] {
  const out: number[] = [];
  if (o.mss !== undefined) out.push(2, 4, o.mss >> 8, o.mss & 0xff);
  if (o.sackOk) out.push(4, 2);
  if (o.wscale !== undefined) out.push(1, 3, 3, o.wscale);
  if (o.sack) {
    out.push(1, 1, 5, 2 + 8 * o.sack.length);
    for (const [l, r] of o.sack) for (const v of [l, r]) out.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  }
  while (out.length % 4 !== 0) out.push(0);
  return out;
}

/** Ethernet + IPv4 + TCP headers of one packet (the payload only counted in the IP length), cut at the snap length. */
function frame(p: Pkt, link: 'ethernet' | 'cooked' | 'raw' = 'ethernet'): { bytes: Buffer; orig: number } {
  const opts = p.opts ?? [];
  const tcp = Buffer.alloc(20 + opts.length);
  tcp.writeUInt16BE(p.fromServer ? SPORT : CPORT, 0);
  tcp.writeUInt16BE(p.fromServer ? CPORT : SPORT, 2);
  tcp.writeUInt32BE(p.seq % 2 ** 32, 4);
  tcp.writeUInt32BE(p.ack % 2 ** 32, 8);
  tcp[12] = (tcp.length / 4) << 4;
  tcp[13] = p.flags;
  tcp.writeUInt16BE(p.win, 14);
  Buffer.from(opts).copy(tcp, 20);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + tcp.length + (p.payload ?? 0), 2);
  ip.writeUInt16BE(0x4000, 6);
  ip[8] = 64;
  ip[9] = 6;
  Buffer.from(p.fromServer ? SERVER : CLIENT).copy(ip, 12);
  Buffer.from(p.fromServer ? CLIENT : SERVER).copy(ip, 16);
  let head: Buffer;
  if (link === 'ethernet') head = Buffer.from([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00]);
  else if (link === 'cooked') head = Buffer.from([0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 2, 0, 0, 0x08, 0x00]);
  else head = Buffer.alloc(0);
  const full = Buffer.concat([head, ip, tcp]);
  return { bytes: full.subarray(0, SNAPLEN), orig: full.length + (p.payload ?? 0) };
}

/** A classic pcap file (little-endian, microseconds) of the packets. */
function pcapBytes(packets: readonly Pkt[], link: 'ethernet' | 'cooked' | 'raw' = 'ethernet'): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(SNAPLEN, 16);
  header.writeUInt32LE(link === 'ethernet' ? 1 : link === 'cooked' ? 113 : 101, 20);
  const records = packets.map((p) => {
    const f = frame(p, link);
    const r = Buffer.alloc(16);
    const sec = Math.floor(p.t);
    r.writeUInt32LE(sec, 0);
    r.writeUInt32LE(Math.round((p.t - sec) * 1e6), 4);
    r.writeUInt32LE(f.bytes.length, 8);
    r.writeUInt32LE(f.orig, 12);
    return Buffer.concat([r, f.bytes]);
  });
  return Buffer.concat([header, ...records]);
}

/** Server sequence number of data segment n (1-based), absolute. */
const seg = (n: number): number => ISN + 1 + (n - 1) * MSS;
const CISN = 1000;
const data = (t: number, n: number): Pkt => ({
  t,
  fromServer: true,
  seq: seg(n),
  ack: CISN + 1,
  flags: TCP_ACK | TCP_PSH,
  win: 500,
  payload: MSS,
});
const ackTo = (t: number, segs: number, opts: number[] = [], win = 502): Pkt => ({
  t,
  fromServer: false,
  seq: CISN + 1,
  ack: seg(segs + 1),
  flags: TCP_ACK,
  win,
  opts,
});

/**
 * The scenario. Handshake (client wscale 7, server 9). Burst 1: ten segments
 * back to back; the queue drops 9 and 10. ACK at 2 and 4 segments, then a
 * stretch ACK at 8. Burst 2: segments 11 and 12 get through; the receiver
 * answers with two duplicate ACKs at 8 carrying SACK for 11-12. Burst 3: 9
 * and 10 sent again, delivered; a stretch ACK to 12.
 */
function scenario(): { server: Pkt[]; client: Pkt[] } {
  const syn: Pkt = {
    t: 100,
    fromServer: false,
    seq: CISN,
    ack: 0,
    flags: TCP_SYN,
    win: 64240,
    opts: tcpOptions({ mss: 1460, sackOk: true, wscale: 7 }),
  };
  const synAck = (t: number): Pkt => ({
    t,
    fromServer: true,
    seq: ISN,
    ack: CISN + 1,
    flags: TCP_SYN | TCP_ACK,
    win: 65160,
    opts: tcpOptions({ mss: 1460, sackOk: true, wscale: 9 }),
  });
  const server: Pkt[] = [synAck(100.001)];
  const client: Pkt[] = [syn, synAck(100.002), { t: 100.003, fromServer: false, seq: CISN + 1, ack: ISN + 1, flags: TCP_ACK, win: 502 }];
  for (let n = 1; n <= 10; n++) server.push(data(100.01 + (n - 1) * 1e-5, n));
  for (let n = 1; n <= 8; n++) client.push(data(100.02 + (n - 1) * 0.004, n));
  client.push(ackTo(100.025, 2), ackTo(100.033, 4), ackTo(100.05, 8));
  server.push(data(100.2, 11), data(100.20001, 12));
  client.push(data(100.21, 11), data(100.214, 12));
  const sack = tcpOptions({ sack: [[seg(11) % 2 ** 32, seg(13) % 2 ** 32]] });
  client.push(ackTo(100.215, 8, sack), ackTo(100.219, 8, sack));
  server.push(data(100.4, 9), data(100.40001, 10));
  client.push(data(100.41, 9), data(100.414, 10), ackTo(100.42, 12, [], 1000));
  return { server, client };
}

const read = (packets: Pkt[], link?: 'ethernet' | 'cooked' | 'raw'): TcpPacket[] => readPcap(pcapBytes(packets, link), 'test').packets;

describe('the captures', () => {
  it("take the server's data inbound before the queue, and both directions after it, headers only, as pcap on stdout", () => {
    expect(packetCaptureArgs('server', 'rs0').args).toEqual([
      '-i',
      'rs0',
      '-Q',
      'in',
      '-s',
      '96',
      '-n',
      '-w',
      '-',
      'tcp and src net 10.201.1.0/24',
    ]);
    expect(packetCaptureArgs('client', 'rc0').args).toEqual(['-i', 'rc0', '-s', '96', '-n', '-w', '-', 'tcp']);
  });
});

describe('the pcap reader', () => {
  it('reads Ethernet, Linux cooked and raw IP captures alike, with the payload from the IP length and the options', () => {
    const { client } = scenario();
    const eth = read(client);
    expect(read(client, 'cooked')).toEqual(eth);
    expect(read(client, 'raw')).toEqual(eth);
    expect(eth[0]).toMatchObject({
      src: '10.201.2.2',
      dst: '10.201.1.2',
      srcPort: CPORT,
      dstPort: SPORT,
      flags: TCP_SYN,
      mss: 1460,
      wscale: 7,
      sackPermitted: true,
    });
    const sacked = eth.find((p) => p.sack);
    expect(sacked?.sack).toEqual([[seg(11) % 2 ** 32, seg(13) % 2 ** 32]]);
    expect(eth.filter((p) => p.payload === MSS)).toHaveLength(12);
  });

  it('places wrapped sequence numbers next to their neighbours', () => {
    expect(unwrapSeq(100, 2 ** 32 - 100)).toBe(2 ** 32 + 100);
    expect(unwrapSeq(2 ** 32 - 100, 2 ** 32 + 100)).toBe(2 ** 32 - 100);
  });
});

describe('flow figures', () => {
  const { server, client } = scenario();
  const [f, ...others] = flowFigures(read(server), read(client), { burstGapS: 0.0002 }).flows;

  it('counts the queue drops, their episode and the resends', () => {
    expect(others).toHaveLength(0);
    expect(f).toMatchObject({
      serverPort: SPORT,
      clientPort: CPORT,
      mss: MSS,
      segmentsBefore: 14,
      segmentsAfter: 12,
      dropped: 2,
      dropEpisodes: 1,
      retransmissions: 2,
    });
    expect(f?.bytesBefore).toBe(14 * MSS);
    // Segments 5-8 left at 100.010 and their ACK reached the router at 100.050: the median of the ten first sends.
    expect(f?.rttS).toBeCloseTo(0.04, 3);
  });

  it('does not count segments still in the queue when the capture stopped', () => {
    const queued = flowFigures(read([...server, data(100.5, 13), data(100.50001, 14)]), read(client), { burstGapS: 0.0002 }).flows[0];
    expect(queued).toMatchObject({ segmentsBefore: 16, dropped: 2, dropEpisodes: 1 });
  });

  it('finds the bursts and the drops at the end of the first', () => {
    expect(f?.bursts.count).toBe(3);
    expect(f?.bursts.size).toEqual({ n: 3, median: 2, p90: 10, max: 10 });
    expect(f?.bursts.withDrops).toBe(1);
    expect(f?.bursts.sizeWithDrops?.median).toBe(10);
    expect(f?.bursts.dropsFromEnd).toEqual([1, 1, 0, 0]);
    expect(f?.bursts.dropPosition?.median).toBe(9.5);
  });

  it('reads the ACK stream: stretch ACKs, duplicate ACKs with SACK, bytes per ACK', () => {
    expect(f?.acks).toMatchObject({ count: 7, stretch: 2, duplicate: 2, sack: 2 });
    expect(f?.acks.bytesPerAck).toEqual({ n: 4, median: 3 * MSS, p90: 4 * MSS, max: 4 * MSS });
    expect(f?.acks.spacingS?.max).toBeCloseTo(0.201, 6);
  });

  it('scales the receive window by the window scale of the SYN', () => {
    expect(f?.receiveWindow.scale).toBe(7);
    expect(f?.receiveWindow.bytes?.median).toBe(502 * 128);
    expect(f?.receiveWindow.bytes?.max).toBe(1000 * 128);
    // Without the handshake in the capture the scale is unknown and the window unscaled.
    const late = flowFigures(read(server.slice(1)), read(client.slice(3)), { burstGapS: 0.0002 }).flows[0];
    expect(late?.receiveWindow.scale).toBeNull();
    expect(late?.receiveWindow.bytes?.median).toBe(502);
    expect(late?.dropped).toBe(2);
  });

  it('keeps to the window', () => {
    const w = flowFigures(read(server), read(client), { burstGapS: 0.0002, window: { fromS: 100.1, toS: 101 } }).flows[0];
    expect(w).toMatchObject({ segmentsBefore: 4, dropped: 0, retransmissions: 2 });
  });

  it('places the drops by offset into the responses, counting the stream from the SYN-ACK', () => {
    expect(f?.responses).toBeNull();
    // Two responses: the first (head and body) five segments long, so segments 6-12 are the second's 0-6.
    const starts = new Map([[responseKey(SPORT, '10.201.2.2', CPORT), [0, 5 * MSS]]]);
    const r = flowFigures(read(server), read(client), { burstGapS: 0.0002, responseStarts: starts, offsetBinBytes: 2 * MSS }).flows[0]
      ?.responses;
    // First sends by offset bin (two segments each): segments 1-2, 3-4, 5 | 6-7, 8-9, 10-11, 12. Drops: 9 (bin 1) and 10 (bin 2).
    expect(r).toEqual({ binBytes: 2 * MSS, responses: 2, sent: [4, 4, 3, 1], own: [0, 1, 1, 0], others: [0, 0, 0, 0] });
  });
});

/**
 * Two connections through one queue, as packets: each `send` puts segments
 * before the queue 0.1 ms apart, the ones not dropped after it 30 ms later,
 * and the receiver's cumulative ACK 0.1 ms after each.
 */
function twoFlows(): { server: TcpPacket[]; client: TcpPacket[] } {
  const server: TcpPacket[] = [];
  const client: TcpPacket[] = [];
  const next = new Map<number, number>();
  const delivered = new Map<number, Set<number>>();
  const send = (port: number, t0: number, count: number, drop: number): void => {
    const first = next.get(port) ?? 1;
    next.set(port, first + count);
    const got = delivered.get(port) ?? new Set<number>();
    delivered.set(port, got);
    const packet = (t: number, fromServer: boolean, seq: number, ack: number, payload: number): TcpPacket => ({
      t,
      src: fromServer ? '10.201.1.2' : '10.201.2.2',
      dst: fromServer ? '10.201.2.2' : '10.201.1.2',
      srcPort: fromServer ? port : port + 30000,
      dstPort: fromServer ? port + 30000 : port,
      seq,
      ack,
      flags: TCP_ACK,
      window: 500,
      payload,
    });
    for (let k = 0; k < count; k++) {
      const i = first + k;
      server.push(packet(t0 + k * 1e-4, true, 1000 + (i - 1) * MSS, 1, MSS));
      if (k === drop) continue;
      const out = t0 + 0.03 + k * 5e-4;
      client.push(packet(out, true, 1000 + (i - 1) * MSS, 1, MSS));
      got.add(i);
      let upTo = 1;
      while (got.has(upTo)) upTo++;
      client.push(packet(out + 1e-4, false, 1, 1000 + (upTo - 1) * MSS, 0));
    }
  };
  send(8001, 1.0, 6, 4); // both connections lose in the first overflow event,
  send(9001, 1.01, 6, 3);
  send(8001, 2.0, 4, 3); // then each alone, 8001 twice
  send(9001, 3.0, 4, 3);
  send(8001, 4.0, 4, 3);
  send(8001, 5.0, 2, -1); // (later segments out of the queue: the drops above were not still queued)
  send(9001, 5.0, 2, -1);
  return { server: server.sort((a, b) => a.t - b.t), client: client.sort((a, b) => a.t - b.t) };
}

describe('overflow events and ACK delay', () => {
  const { server, client } = twoFlows();
  const { flows, overflow } = flowFigures(server, client, { burstGapS: 0.0002 });
  const byPort = (port: number): FlowFigures | undefined => flows.find((f) => f.serverPort === port);

  it('groups the drops of all connections into events one RTT long and says who lost in each', () => {
    expect(overflow.events).toBe(4);
    // The longest connection RTT: 30 ms in the queue plus the 0.1-0.5 ms spacing of the segments after it.
    expect(overflow.spanS).toBeGreaterThan(0.03);
    expect(overflow.spanS).toBeLessThan(0.032);
    expect(byPort(8001)).toMatchObject({ dropped: 3, overflow: { lostIn: 3, lostAlone: 2 } });
    expect(byPort(9001)).toMatchObject({ dropped: 2, overflow: { lostIn: 2, lostAlone: 1 } });
  });

  it('measures how soon the receiver ACKed data out of the queue', () => {
    expect(byPort(8001)?.acks.delayS?.median).toBeCloseTo(1e-4, 6);
    expect(byPort(8001)?.acks.delayS?.max).toBeCloseTo(1e-4, 6);
  });

  it('counts each drop as its own event when they are further apart than the RTT', () => {
    const late = twoFlows();
    // 9001's first drop moved 0.5 s later: the first event splits in two.
    const moved = late.server.map((p) => (p.srcPort === 9001 && p.t >= 1.01 && p.t < 1.02 ? { ...p, t: p.t + 0.5 } : p));
    const movedOut = late.client.map((p) =>
      (p.srcPort === 9001 || p.dstPort === 9001) && p.t >= 1.03 && p.t < 1.05 ? { ...p, t: p.t + 0.5 } : p,
    );
    const r = flowFigures(
      moved.sort((a, b) => a.t - b.t),
      movedOut.sort((a, b) => a.t - b.t),
      { burstGapS: 0.0002 },
    );
    expect(r.overflow.events).toBe(5);
    expect(r.flows.find((f) => f.serverPort === 9001)?.overflow).toEqual({ lostIn: 2, lostAlone: 2 });
  });
});

describe('sprint flows', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-flows-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const writeRun = (extra: Record<string, unknown> = {}): void => {
    const { server, client } = scenario();
    writeFileSync(path.join(dir, 'packets-server.pcap.gz'), gzipSync(pcapBytes(server)));
    writeFileSync(path.join(dir, 'packets-client.pcap.gz'), gzipSync(pcapBytes(client, 'cooked')));
    writeFileSync(
      path.join(dir, 'run.json'),
      JSON.stringify({
        format: 'sprint-ab-run',
        flows: [{ id: '8001', port: SPORT, label: 'sprint' }],
        spec: { condition: { rateBitsPerSec: 25e6 } },
        ...extra,
      }),
    );
  };

  it('prints each connection from the gzip captures, and warns of kernel drops and a missing window', async () => {
    writeRun({ packets: [{ side: 'client', file: 'packets-client.pcap.gz', droppedByKernel: 3 }] });
    const c = captureIo();
    expect(await main([dir], c.io)).toBe(0);
    const out = c.out();
    expect(out).toMatch(/^8001 sprint 10\.201\.1\.2:8001-10\.201\.2\.2:40000 \(mss 1448\)/m);
    expect(out).toMatch(/14 segments before .*, 12 after; dropped 2 in 1 episode\(s\); 2 retransmission\(s\); RTT 40 ms/);
    expect(out).toMatch(/last segment 1, 2nd last 1, 3rd last 0, earlier 0/);
    expect(out).toMatch(/stretch 2, duplicate 2, with SACK 2/);
    expect(out).toMatch(/^queue overflow events: 1 \(drops of any connection within 40 ms of the event.s first\)$/m);
    expect(out).toMatch(/overflows +lost a segment in 1 of the queue.s overflow events, alone in 1/);
    expect(out).toMatch(/ack delay +after the last data segment out of the queue median/);
    expect(out).toMatch(/scale 7: median 63 KB/);
    // 25 Mbit/s: bursts end at half a full-size frame's time.
    expect(out).toMatch(/bursts end at gaps over 0\.24 ms/);
    expect(c.err()).toMatch(/packets-client\.pcap\.gz: tcpdump reported 3 packet\(s\) dropped by the kernel/);
    expect(c.err()).toMatch(/no measured window/);
  });

  it("places the drops in the responses from the origin's access log", async () => {
    writeRun();
    const log = [
      { conn: 1, seq: 0, remote: `10.201.2.2:${CPORT}`, bytes: 5 * MSS - 300, headBytes: 300, complete: true },
      { conn: 1, seq: 1, remote: `10.201.2.2:${CPORT}`, bytes: 7 * MSS - 300, headBytes: 300, complete: true },
      { conn: 2, seq: 0, remote: '10.201.2.2:40001', bytes: 10, headBytes: 100, complete: true },
    ];
    writeFileSync(path.join(dir, `origin-${SPORT}.log.gz`), gzipSync(log.map((r) => JSON.stringify(r)).join('\n')));
    const c = captureIo();
    expect(await main([dir], c.io)).toBe(0);
    expect(c.out()).toMatch(/responses +2; by offset into the response, bins of 256 KB from its first byte:/);
    expect(c.out()).toMatch(/^ +segments sent +12$/m);
    expect(c.out()).toMatch(/^ +drops +2$/m);
  });

  it('keeps to the window of summary.json and answers in JSON', async () => {
    writeRun();
    writeFileSync(path.join(dir, 'summary.json'), JSON.stringify({ window: { fromS: 100.1, toS: 101 } }));
    const c = captureIo();
    expect(await main([dir, '--json', '--min-segments', '1'], c.io)).toBe(0);
    const out = JSON.parse(c.out()) as { window: unknown; flows: Array<{ label: string; segmentsBefore: number; dropped: number }> };
    expect(out.window).toEqual({ fromS: 100.1, toS: 101 });
    expect(out.flows).toHaveLength(1);
    expect(out.flows[0]).toMatchObject({ label: 'sprint', segmentsBefore: 4, dropped: 0 });
    expect(c.err()).toBe('');
  });

  it('says clearly when a capture is cut short, damaged, not a pcap or missing', async () => {
    const { server, client } = scenario();
    const whole = pcapBytes(client);
    writeFileSync(path.join(dir, 'packets-server.pcap.gz'), gzipSync(pcapBytes(server)));
    const run = async (): Promise<{ code: number; err: string }> => {
      const c = captureIo();
      const code = await main([dir], c.io);
      return { code, err: c.err() };
    };
    writeFileSync(path.join(dir, 'packets-client.pcap.gz'), gzipSync(whole.subarray(0, whole.length - 10)));
    expect(await run()).toEqual({
      code: 1,
      err: expect.stringMatching(/packets-client\.pcap\.gz: truncated: packet 21 at byte \d+ needs \d+ bytes, \d+ left/),
    });
    const gz = gzipSync(whole);
    writeFileSync(path.join(dir, 'packets-client.pcap.gz'), gz.subarray(0, gz.length - 30));
    expect(await run()).toEqual({ code: 1, err: expect.stringMatching(/packets-client\.pcap\.gz: the gzip data is damaged or cut short/) });
    writeFileSync(path.join(dir, 'packets-client.pcap.gz'), gzipSync(Buffer.from('{"kind":"wire","t":1}\n'.repeat(3))));
    expect(await run()).toEqual({ code: 1, err: expect.stringMatching(/packets-client\.pcap\.gz: not a pcap file \(magic 0x/) });
    writeFileSync(path.join(dir, 'packets-client.pcap.gz'), Buffer.from('short'));
    expect(await run()).toEqual({ code: 1, err: expect.stringMatching(/not a pcap file \(5 bytes/) });
    rmSync(path.join(dir, 'packets-client.pcap.gz'));
    const missing = await run();
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no packets-client\.pcap\.gz \(was the run made with sprint ab --packets\?\)/);
  });
});
