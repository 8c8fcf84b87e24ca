// Unit tests of the parsers behind the wire and server-side measurements:
// tcpdump summaries, `ss -tinH`, `tc -s -j qdisc`, and the congestion-control
// check. Inputs are real outputs captured on this machine.

import { checkCongestionControl } from '../../../demo/testbed/congestion';
import { parseQdiscJson } from '../../../demo/testbed/qdisc-parse';
import { parseBps, parseSsOutput, splitAddrPort } from '../../../demo/testbed/ss-parse';
import { parseTcpdumpLine, parseTcpdumpStats } from '../../../demo/testbed/tcpdump-parse';

const SS_CUBIC = [
  '0      165072 10.201.1.2:8001 10.201.2.2:35870',
  '\t cubic wscale:10,10 rto:340 rtt:137.464/14.374 ato:40 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:45 ssthresh:28 bytes_sent:586440 bytes_retrans:2896 bytes_acked:521280 bytes_received:79 segs_out:406 segs_in:198 data_segs_out:405 data_segs_in:1 send 3792120bps lastsnd:8 lastrcv:1480 lastack:8 pacing_rate 4550512bps delivery_rate 2869176bps delivered:361 busy:1448ms unacked:45 retrans:0/2 rcv_space:14480 rcv_ssthresh:64088 notsent:99912 minrtt:0.021 snd_wnd:81920',
  '0      0 10.201.1.2:8002 10.201.2.2:40000',
  '\t ts sack bbr wscale:7,7 rto:204 rtt:1.5/0.75 mss:1448 cwnd:10 bytes_acked:1 bbr:(bw:1Mbps,mrtt:0.1) delivery_rate 1.5Mbps',
].join('\n');

describe('ss -tinH parser', () => {
  it('reads the sender state of each connection', () => {
    const [a, b] = parseSsOutput(SS_CUBIC, 1234.5);
    expect(a).toMatchObject({
      t: 1234.5,
      localAddr: '10.201.1.2',
      localPort: 8001,
      peerAddr: '10.201.2.2',
      peerPort: 35870,
      recvQBytes: 0,
      sendQBytes: 165072,
      cc: 'cubic',
      cwnd: 45,
      ssthresh: 28,
      mss: 1448,
      rttMs: 137.464,
      rttVarMs: 14.374,
      minRttMs: 0.021,
      bytesSent: 586440,
      bytesAcked: 521280,
      bytesRetrans: 2896,
      retransTotal: 2,
      unacked: 45,
      deliveryRateBitsPerSec: 2869176,
      pacingRateBitsPerSec: 4550512,
      // busy printed without rwnd_limited/sndbuf_limited: never limited by either
      busyMs: 1448,
      rwndLimitedMs: 0,
      sndbufLimitedMs: 0,
      sndWndBytes: 81920,
    });
    expect(b).toMatchObject({ localPort: 8002, cc: 'bbr', cwnd: 10, ssthresh: null, deliveryRateBitsPerSec: 1.5e6 });
    // nothing printed: unknown, not zero
    expect(b).toMatchObject({ busyMs: null, rwndLimitedMs: null, sndbufLimitedMs: null, sndWndBytes: null });
  });

  it('reads the time the receiver window and the send buffer held the sender back', () => {
    const [s] = parseSsOutput(
      '0 0 10.201.1.2:8001 10.201.2.2:5000\n\t cubic cwnd:20 busy:300000ms rwnd_limited:24000ms(8.0%) sndbuf_limited:300ms(0.1%) snd_wnd:65535\n',
      1,
    );
    expect(s).toMatchObject({ busyMs: 300000, rwndLimitedMs: 24000, sndbufLimitedMs: 300, sndWndBytes: 65535 });
  });

  it('accepts a State column and IPv4-mapped addresses', () => {
    const [s] = parseSsOutput('ESTAB 0 0 [::ffff:10.201.1.2]:8001 [::ffff:10.201.2.2]:5000\n\t reno cwnd:3\n', 1);
    expect(s).toMatchObject({ localAddr: '10.201.1.2', localPort: 8001, cc: 'reno', cwnd: 3 });
  });

  it('reports an unparseable socket line with its text', () => {
    expect(() => parseSsOutput('garbage here\n', 1)).toThrow(/line 1: "garbage here"/);
    expect(() => splitAddrPort('nocolon')).toThrow(/nocolon/);
    expect(parseBps('12Kbps')).toBe(12000);
    expect(parseBps('fast')).toBeNull();
  });
});

describe('congestion-control check', () => {
  const samples = parseSsOutput(SS_CUBIC, 1);
  it('passes only when every selected connection runs the expected algorithm', () => {
    expect(checkCongestionControl(samples, 'cubic', [8001]).ok).toBe(true);
    const mixed = checkCongestionControl(samples, 'cubic');
    expect(mixed.ok).toBe(false);
    expect(mixed.seen).toEqual({ cubic: 1, bbr: 1 });
    expect(mixed.detail).toMatch(/bbr×1/);
  });

  it('fails when there is nothing to verify', () => {
    const r = checkCongestionControl(samples, 'cubic', [9999]);
    expect(r.ok).toBe(false);
    expect(r.detail).toMatch(/no established connections/);
  });
});

describe('tcpdump line parser', () => {
  it('reads time, frame length, ports and payload', () => {
    const p = parseTcpdumpLine(
      '1795316888.558642 6a:1f:2c:00:00:01 > 6a:1f:2c:00:00:02, IPv4, length 1514: 10.201.1.2.8001 > 10.201.2.2.35870: tcp 1448',
    );
    expect(p).toEqual({
      t: 1795316888.558642,
      frameBytes: 1514,
      srcAddr: '10.201.1.2',
      srcPort: 8001,
      dstAddr: '10.201.2.2',
      dstPort: 35870,
      payloadBytes: 1448,
    });
  });

  it('estimates the frame length without -e', () => {
    expect(parseTcpdumpLine('1795316888.558670 IP 10.201.2.2.35870 > 10.201.1.2.8001: tcp 0')).toMatchObject({
      frameBytes: 66,
      payloadBytes: 0,
      srcPort: 35870,
    });
  });

  it('ignores other lines and reads the exit counts', () => {
    expect(parseTcpdumpLine('listening on x, link-type EN10MB (Ethernet), snapshot length 96 bytes')).toBeNull();
    expect(parseTcpdumpStats('5 packets captured\n28 packets received by filter\n0 packets dropped by kernel\n')).toEqual({
      captured: 5,
      droppedByKernel: 0,
    });
  });
});

describe('tc qdisc JSON parser', () => {
  it('reads backlog and drops of the root qdisc', () => {
    const json =
      '[{"kind":"tbf","handle":"8001:","root":true,"refcnt":3,"options":{"rate":375000,"burst":5119,"lat":685397},"bytes":1000,"packets":10,"drops":3,"overlimits":7,"requeues":0,"backlog":4542,"qlen":3}]';
    expect(parseQdiscJson(json, 9, 'r1')).toEqual({
      t: 9,
      dev: 'r1',
      qdisc: 'tbf',
      backlogBytes: 4542,
      backlogPackets: 3,
      drops: 3,
      sentBytes: 1000,
      sentPackets: 10,
      overlimits: 7,
    });
  });

  it('says what is wrong with bad output', () => {
    expect(() => parseQdiscJson('nope', 0, 'r1')).toThrow(/not JSON/);
    expect(() => parseQdiscJson('[]', 0, 'r1')).toThrow(/no qdisc/);
    expect(() => parseQdiscJson('[{"kind":"tbf","backlog":"x"}]', 0, 'r1')).toThrow(/"backlog"/);
  });
});
