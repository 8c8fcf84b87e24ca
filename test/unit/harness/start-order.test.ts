// Unit tests of the start-order warning (demo/harness/start-order.ts): a
// player whose busiest media connection opened after the primer stopped is
// named in its run's summary with when it opened and the lowest round trips;
// one that opened before, a run without a primer, and a connection that only
// loaded the page are not. Access logs in both origins' formats (ours in
// epoch ms, nginx's in epoch seconds).

import { summarizeRun } from '../../../demo/harness/run-summary';
import { busiestMediaConnection, lateStartWarnings } from '../../../demo/harness/start-order';
import { runData, T0, testPlan } from './fixtures';

const plan = testPlan(undefined, 1);
const stockRun = plan.runs.find((r) => r.variant.name === 'stock')!;

/** An access-log line of our origin: a request on connection `conn` from client port `port`, sent over [fromS, toS] after T0. */
function ours(conn: number, port: number, url: string, bytes: number, fromS: number, toS = fromS): Record<string, unknown> {
  return {
    conn,
    remote: `10.201.2.2:${port}`,
    url,
    bytes,
    arrival: (T0 + fromS) * 1000,
    start: (T0 + fromS) * 1000,
    end: (T0 + toS) * 1000,
  };
}

/** ss samples of one connection every 0.5 s from fromS to toS after T0. */
function conn(serverPort: number, clientPort: number, fromS: number, toS: number, minRttMs: number): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let t = fromS; t <= toS; t += 0.5)
    out.push({ kind: 'ss', t: T0 + t, localPort: serverPort, peerPort: clientPort, minRttMs, bytesSent: (t - fromS) * 1e5 });
  return out;
}

/** Stock's page on one connection from +1 s; its media on a second one opened at `mediaAtS`. */
function pageThenMedia(mediaAtS: number): Array<Record<string, unknown>> {
  return [
    ours(1, 50001, '/?mode=stock', 1466, 1),
    ours(1, 50001, '/dist/sprint.js', 268_000, 1.2, mediaAtS - 1),
    ours(1, 50001, '/media/eval/unchunked/manifest.mpd', 3717, mediaAtS - 0.5),
    ours(2, 50002, '/media/eval/unchunked/rep-3.mp4', 2_000_000, mediaAtS, mediaAtS + 10),
    ours(2, 50002, '/media/eval/unchunked/rep-3.mp4', 3_000_000, mediaAtS + 10, mediaAtS + 20),
  ];
}

function primed(primerStopAfterS: number) {
  const data = runData(stockRun, 1.5);
  const record = {
    ...data.record,
    settings: { ...data.record.settings, primer: { leadS: 30, overlapS: primerStopAfterS } },
    times: { ...data.record.times, primerStartS: T0 - 30, primerStopS: T0 + primerStopAfterS },
  };
  return { data, record };
}

describe('start order against the primer', () => {
  const ss = [...conn(8001, 50001, 1, 90, 120), ...conn(8001, 50002, 24.5, 90, 556), ...conn(9001, 41000, 0.5, 90, 323)];

  it('finds the connection that carried most media, when it opened and its lowest round trip', () => {
    expect(busiestMediaConnection(pageThenMedia(24.5), ss, 8001)).toEqual({
      clientPort: 50002,
      bytes: 5_000_000,
      openedS: T0 + 24.5,
      minRttMs: 556,
    });
    // Page bytes do not count: a log of only the page has no media connection.
    expect(busiestMediaConnection(pageThenMedia(24.5).slice(0, 2), ss, 8001)).toBeNull();
  });

  it('names a player whose media connection opened after the primer left, with the round trips', () => {
    const { record } = primed(20);
    expect(lateStartWarnings(record, { '8001': pageThenMedia(24.5) }, ss)).toEqual([
      'player stock (port 8001): the connection that carried most of its media opened at +24.5 s, after the primer left at +20.0 s; ' +
        "its lowest round trip was 556 ms against bulk 1's 323 ms (one that opens after the queue's dip keeps a higher lowest round trip, and cubic leans it ahead)",
    ]);
  });

  it('claims the lean only under cubic, where it was measured', () => {
    const { record } = primed(20);
    const bbr = { ...record, settings: { ...record.settings, congestionControl: 'bbr' as const } };
    expect(lateStartWarnings(bbr, { '8001': pageThenMedia(24.5) }, ss)).toEqual([
      'player stock (port 8001): the connection that carried most of its media opened at +24.5 s, after the primer left at +20.0 s; ' +
        "its lowest round trip was 556 ms against bulk 1's 323 ms (one that opens after the queue's dip keeps a higher lowest round trip; " +
        'the lean that gives was measured under cubic, not under bbr)',
    ]);
  });

  it('is quiet when the media connection opened before the primer left, or without a primer', () => {
    const early = [...conn(8001, 50001, 1, 90, 120), ...conn(8001, 50002, 12, 90, 300), ...conn(9001, 41000, 0.5, 90, 323)];
    expect(lateStartWarnings(primed(20).record, { '8001': pageThenMedia(12) }, early)).toEqual([]);
    expect(lateStartWarnings(primed(30).record, { '8001': pageThenMedia(24.5) }, ss)).toEqual([]);
    expect(lateStartWarnings(runData(stockRun, 1.5).record, { '8001': pageThenMedia(24.5) }, ss)).toEqual([]);
  });

  it('takes the first request when ss never sampled the connection, and reads nginx logs in seconds', () => {
    const { record } = primed(20);
    const nginx = [
      { conn: 7, remote: '10.201.2.2:50010', url: '/dist/sprint.js', bytes: 268_000, end: T0 + 5, requestTimeS: 4, server: 'nginx' },
      {
        conn: 8,
        remote: '10.201.2.2:50011',
        url: '/media/eval/unchunked/rep-2.mp4',
        bytes: 4e6,
        end: T0 + 40,
        requestTimeS: 10,
        server: 'nginx',
      },
    ];
    expect(busiestMediaConnection(nginx, [], 8001)).toEqual({ clientPort: 50011, bytes: 4e6, openedS: T0 + 30, minRttMs: null });
    expect(lateStartWarnings(record, { '8001': nginx }, [])).toEqual([
      'player stock (port 8001): the connection that carried most of its media opened at +30.0 s, after the primer left at +20.0 s ' +
        "(one that opens after the queue's dip keeps a higher lowest round trip, and cubic leans it ahead)",
    ]);
  });

  it("reaches the run summary's warnings", () => {
    const { data, record } = primed(20);
    const s = summarizeRun({ ...data, record, origins: { '8001': pageThenMedia(24.5) }, ss });
    expect(s.warnings.filter((w) => /after the primer left/.test(w))).toHaveLength(1);
  });
});
