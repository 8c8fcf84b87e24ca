// `sprint wire` (demo/harness/wire-log.ts, wire-log-cli.ts): a real origin's
// access log of pipelined and sequential requests grouped into bursts (the
// pipelined ones in one, the late one in its own, probes left out), nginx's
// lines grouped by response gaps, targets matched from a player's log, and
// the command's errors.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startOrigin, type Origin } from '../../../demo/server/origin';
import { main, trainIdleFlagged } from '../../../demo/harness/wire-log-cli';
import {
  bursts,
  idleInside,
  matchPlanned,
  mediaTypesOf,
  parseWireLine,
  plannedTransfers,
  rangeBytes,
  trainsOnWire,
  issuedWhileArriving,
  playerTransfers,
  wireGapsMs,
  type TrainOnWire,
  type WireRequest,
} from '../../../demo/harness/wire-log';
import { makeFixture, patternBytes, RawClient, request, waitForRecords, type Fixture } from '../server/helpers';
import { captureIo } from '../capture-io';

const parsed = (lines: string[]): WireRequest[] => lines.map(parseWireLine).filter((r): r is WireRequest => r !== null);

describe('bursts from a real origin log', () => {
  let fx: Fixture;
  let origin: Origin;
  let logFile: string;

  beforeAll(async () => {
    fx = makeFixture();
    // Larger than the socket buffers: requests written with it arrive while it streams.
    fs.writeFileSync(path.join(fx.mediaDir, 'big.m4s'), patternBytes(8 * 1024 * 1024, 3));
    logFile = path.join(fx.root, 'access.jsonl');
    origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, logFile });
  });

  afterAll(async () => {
    await origin.close();
    fx.remove();
  });

  test('pipelined requests form one burst, a request sent after the responses starts another, probes are left out', async () => {
    const c = await RawClient.connect(origin.port);
    const probe = await RawClient.connect(origin.port);
    try {
      c.send(
        request('/media/big.m4s') +
          request('/media/big.m4s', { Range: 'bytes=0-99999' }) +
          request('/media/big.m4s', { Range: 'bytes=100000-299999' }),
      );
      for (let i = 0; i < 3; i += 1) await c.readResponse();
      c.send(request('/media/big.m4s', { Range: 'bytes=300000-349999' }));
      await c.readResponse();
      probe.send(request('/media/big.m4s', { Range: 'bytes=0-0' }));
      await probe.readResponse();
      await waitForRecords(origin, 5);
    } finally {
      await c.close();
      await probe.close();
    }
    // The log file is written through a stream: wait (bounded) for its lines.
    let lines: string[] = [];
    for (let i = 0; i < 100 && lines.length < 5; i += 1) {
      lines = fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
      if (lines.length < 5) await new Promise((r) => setTimeout(r, 50));
    }
    expect(lines).toHaveLength(5);
    const got = bursts(parsed(lines));
    expect(got.map((b) => [b.requests, b.pipelined, b.bytes])).toEqual([
      [3, 2, 8 * 1024 * 1024 + 100000 + 200000],
      [1, 0, 50000],
    ]);
    expect(new Set(got.map((b) => b.conn)).size).toBe(1);
    expect(got.every((b) => b.arrivalsKnown && b.incomplete === 0)).toBe(true);
    // what the Range headers asked for: unknown when a request had none
    expect(got.map((b) => b.requestedBytes)).toEqual([null, 50000]);
  });
});

describe('nginx lines', () => {
  const line = (conn: number, endS: number, tookS: number, bytes: number): string =>
    JSON.stringify({
      conn,
      seq: 1,
      url: '/media/demo/unchunked/rep-1.mp4',
      range: 'bytes=1-2',
      status: 206,
      bytes,
      end: endS,
      requestTimeS: tookS,
      server: 'nginx',
    });

  test('without arrival times, responses starting within the gap continue a burst', () => {
    const got = bursts(parsed([line(7, 100.0, 1.0, 10), line(7, 101.0, 0.998, 20), line(7, 105.0, 1.0, 30)]));
    expect(got.map((b) => [b.requests, b.bytes, b.arrivalsKnown, b.pipelined])).toEqual([
      [2, 30, false, 0],
      [1, 30, false, 0],
    ]);
  });

  test('a closed single range says how many bytes it asks for', () => {
    expect([
      rangeBytes('bytes=0-99'),
      rangeBytes('100-100'),
      rangeBytes('bytes=5-'),
      rangeBytes('bytes=0-1,5-9'),
      rangeBytes('bytes=9-1'),
      rangeBytes(null),
    ]).toEqual([100, 1, null, null, null, null]);
  });

  test('lines that are not access records are skipped', () => {
    expect(parseWireLine('not json')).toBeNull();
    expect(parseWireLine('[1,2]')).toBeNull();
    expect(parseWireLine(JSON.stringify({ conn: 1, url: '/x.mp4' }))).toBeNull();
  });
});

describe('targets from the player log', () => {
  const video = (fromMs: number, toMs: number, range: string) =>
    bursts(
      parsed([
        JSON.stringify({
          conn: 1,
          url: '/m/rep-1.mp4',
          range,
          status: 206,
          bytes: 5,
          arrival: fromMs,
          start: fromMs,
          end: toMs,
          error: null,
        }),
      ]),
    )[0]!;
  const player = [
    { kind: 'segment', mediaType: 'video', url: 'http://h/m/rep-1.mp4' },
    { kind: 'segment', mediaType: 'audio', url: 'http://h/m/rep-5.mp4' },
    { kind: 'train', id: 1, mediaType: 'video', targetBytes: 9e6, initialTargetBytes: 9e6, startMs: 1000, endMs: null },
    { kind: 'train', id: 1, mediaType: 'video', targetBytes: 5e6, initialTargetBytes: 9e6, startMs: 1000, endMs: 8000 },
    {
      kind: 'train',
      id: 2,
      mediaType: 'video',
      targetBytes: 4e6,
      initialTargetBytes: 4e6,
      startMs: 9000,
      endMs: null,
      resumeBufferSec: 18.2,
      restartReserveSec: 18.6,
    },
    {
      kind: 'transfer',
      via: 'sprint-x',
      id: 3,
      url: 'http://h/m/rep-1.mp4',
      range: '100-3000099',
      targetChunkBytes: 3e6,
      startMs: 20000,
      endMs: 30000,
    },
    { kind: 'transfer', via: 'stock', id: 4, url: 'http://h/m/rep-1.mp4', range: '1-2', startMs: 20000, endMs: 30000 },
  ];

  test("a train's last record wins; expanded requests carry their range", () => {
    const planned = plannedTransfers(player);
    expect(planned.map((p) => [p.label, p.targetBytes, p.initialTargetBytes])).toEqual([
      ['train #1', 5e6, 9e6],
      ['train #2', 4e6, 4e6],
      ['sprint-x #3', 3e6, 3e6],
    ]);
    // The buffer a train began with and the restart reserve then in force, when the log has them.
    expect(planned.map((p) => [p.resumeBufferSec ?? null, p.restartReserveSec ?? null])).toEqual([
      [null, null],
      [18.2, 18.6],
      [null, null],
    ]);
    expect(mediaTypesOf(player)).toEqual(
      new Map([
        ['rep-1.mp4', 'video'],
        ['rep-5.mp4', 'audio'],
      ]),
    );
  });

  test('a burst matches the train it overlaps most, an expanded request its own range, audio nothing', () => {
    const planned = plannedTransfers(player);
    expect(matchPlanned(video(2000, 8500, 'bytes=1-2'), planned, 99999, 'video')?.label).toBe('train #1');
    expect(matchPlanned(video(8600, 12000, 'bytes=1-2'), planned, 99999, 'video')?.label).toBe('train #2');
    expect(matchPlanned(video(21000, 29000, 'bytes=100-3000099'), planned, 99999, 'video')?.label).toBe('sprint-x #3');
    expect(matchPlanned(video(2000, 8500, 'bytes=1-2'), planned, 99999, 'audio')).toBeNull();
  });
});

describe('sprint wire', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sprint-wire-'));
    const rec = (conn: number, arrival: number, end: number, range: string) =>
      JSON.stringify({
        conn,
        seq: 0,
        url: '/media/rep-1.mp4',
        range,
        status: 206,
        bytes: 1000,
        arrival,
        start: arrival + 1,
        end,
        complete: true,
        error: null,
      });
    fs.writeFileSync(
      path.join(dir, 'origin-8001.log'),
      [rec(3, 1000, 2000, 'bytes=1-1000'), rec(3, 1500, 3000, 'bytes=1001-2000'), rec(3, 5000, 6000, 'bytes=2001-3000')].join('\n') + '\n',
    );
    fs.writeFileSync(
      path.join(dir, 'player-8001.jsonl'),
      [
        JSON.stringify({ kind: 'segment', mediaType: 'video', url: 'http://h/media/rep-1.mp4' }),
        JSON.stringify({
          kind: 'train',
          id: 1,
          mediaType: 'video',
          targetBytes: 2000,
          initialTargetBytes: 2000,
          startMs: 990,
          endMs: 3000,
        }),
        '{"cut short',
      ].join('\n'),
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a run folder: bursts with their train', async () => {
    const c = captureIo();
    expect(await main([dir], c.io)).toBe(0);
    expect(c.out()).toContain('3 requests (0.00 MB) on 1 connection(s), 1 pipelined');
    expect(c.out()).toMatch(/2 +1 +0\.00 .*train #1/);
    // The train's row: 2 requests, 1 pipelined (100 %), no transfers in this player log, no idle time (the second response started before the first ended).
    expect(c.out()).toMatch(/train #1 .* 2 +1 \(100 %\) +– +0\.0 +0\.0 /);
    expect(c.out()).toContain('0 of 1 trains idle over 5 %');
    const j = captureIo();
    expect(await main([dir, '--json', '--type', 'video'], j.io)).toBe(0);
    const doc = JSON.parse(j.out()) as { bursts: { burst: { requests: number }; planned: { label: string } | null }[] };
    expect(doc.bursts.map((b) => [b.burst.requests, b.planned?.label ?? null])).toEqual([
      [2, 'train #1'],
      [1, null],
    ]);
  });

  test("a run folder with its wire capture: the train's wire gaps, and IDLE by them", async () => {
    const withWire = fs.mkdtempSync(path.join(os.tmpdir(), 'sprint-wire-gaps-'));
    try {
      for (const f of ['origin-8001.log', 'player-8001.jsonl']) fs.copyFileSync(path.join(dir, f), path.join(withWire, f));
      // 100 ms bins from 0.5 s to 3.5 s: the player's port busy except 1.5-2.0 s (500 ms), the bulk flow's port busy throughout.
      const lines = [];
      for (let i = 5; i < 35; i++) {
        const t = i / 10;
        const gap = t >= 1.5 - 1e-9 && t < 2.0 - 1e-9;
        lines.push(
          JSON.stringify({
            kind: 'wire',
            t,
            binMs: 100,
            flows: {
              ...(gap ? {} : { '8001': { bytes: 15000, wireBytes: 15600, packets: 11 } }),
              '9001': { bytes: 15000, wireBytes: 15600, packets: 11 },
            },
          }),
        );
      }
      fs.writeFileSync(path.join(withWire, 'wire.jsonl'), `${lines.join('\n')}\n`);
      const c = captureIo();
      expect(await main([withWire], c.io)).toBe(0);
      // Train #1 spans 1.001-3.0 s at the origin with no idle there; on the wire 0.5 s of it was empty: 25 %.
      expect(c.out()).toMatch(/train #1 .* 2 +1 \(100 %\) +– +0\.0 +0\.0 +0\.5 +25\.0 .*IDLE/);
      expect(c.out()).toContain('1 of 1 trains idle over 5 % of their time on the wire.');
    } finally {
      fs.rmSync(withWire, { recursive: true, force: true });
    }
  });

  test('a burst that begins with audio riding the train still counts as video', async () => {
    const mixed = fs.mkdtempSync(path.join(os.tmpdir(), 'sprint-wire-mixed-'));
    const rec = (file: string, arrival: number, end: number) =>
      JSON.stringify({
        conn: 4,
        seq: 0,
        url: `/media/${file}`,
        range: 'bytes=1-1000',
        status: 206,
        bytes: 1000,
        arrival,
        start: arrival,
        end,
        error: null,
      });
    fs.writeFileSync(path.join(mixed, 'origin-8001.log'), [rec('rep-9.mp4', 1000, 2000), rec('rep-1.mp4', 1500, 3000)].join('\n') + '\n');
    fs.writeFileSync(
      path.join(mixed, 'player-8001.jsonl'),
      [
        JSON.stringify({ kind: 'segment', mediaType: 'video', url: 'http://h/media/rep-1.mp4' }),
        JSON.stringify({ kind: 'segment', mediaType: 'audio', url: 'http://h/media/rep-9.mp4' }),
      ].join('\n'),
    );
    const j = captureIo();
    expect(await main([mixed, '--json', '--type', 'video'], j.io)).toBe(0);
    const doc = JSON.parse(j.out()) as { bursts: { burst: { requests: number; files: string[] }; type: string }[] };
    expect(doc.bursts.map((b) => [b.type, b.burst.requests, b.burst.files])).toEqual([['video', 2, ['rep-9.mp4', 'rep-1.mp4']]]);
    const a = captureIo();
    expect(await main([mixed, '--json', '--type', 'audio'], a.io)).toBe(0);
    expect((JSON.parse(a.out()) as { bursts: unknown[] }).bursts).toEqual([]);
    fs.rmSync(mixed, { recursive: true, force: true });
  });

  test('clear errors for bad invocations', async () => {
    for (const argv of [
      [],
      [path.join(dir, 'missing.log')],
      [path.join(dir, 'origin-8001.log'), '--type', 'video'],
      [dir, '--type', 'subtitles'],
      [dir, '--player', 'x'],
    ]) {
      const c = captureIo();
      expect(await main(argv, c.io)).toBe(2);
      expect(c.err()).toMatch(/^sprint wire: /);
    }
    // a player log corrupt before its last line is an error, not skipped
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'sprint-wire-bad-'));
    fs.copyFileSync(path.join(dir, 'origin-8001.log'), path.join(bad, 'origin-8001.log'));
    fs.writeFileSync(path.join(bad, 'player-8001.jsonl'), '{"kind":"segment"}\nnot json\n{"kind":"segment"}\n');
    const b = captureIo();
    expect(await main([bad], b.io)).toBe(1);
    expect(b.err()).toMatch(/player-8001\.jsonl:2: not JSON/);
    fs.rmSync(bad, { recursive: true, force: true });
    const empty = path.join(dir, 'empty.log');
    fs.writeFileSync(empty, 'nothing here\n');
    const c = captureIo();
    expect(await main([empty], c.io)).toBe(1);
    expect(c.err()).toContain('no access-log records');
  });
});

describe('trains on the wire', () => {
  const rec = (conn: number, arrival: number, end: number, file = 'rep-1.mp4') =>
    JSON.stringify({
      conn,
      seq: 0,
      url: `/m/${file}`,
      range: 'bytes=5-9',
      status: 206,
      bytes: 100,
      arrival,
      start: arrival,
      end,
      complete: true,
      error: null,
    });
  test("each train gets the video requests that arrived while it ran, on their connections, pipelined counted against the train's previous request", () => {
    const requests = parsed([
      rec(4, 1000, 1500),
      rec(4, 1400, 2500),
      rec(4, 2600, 3000),
      rec(9, 1200, 1300, 'rep-5.mp4'),
      rec(4, 9500, 9900),
    ]);
    const planned = plannedTransfers([
      { kind: 'train', id: 1, mediaType: 'video', targetBytes: 250, initialTargetBytes: 300, startMs: 990, endMs: 3100 },
      { kind: 'train', id: 2, mediaType: 'video', targetBytes: 100, initialTargetBytes: 100, startMs: 9000, endMs: null },
    ]);
    const types = new Map([
      ['rep-1.mp4', 'video'],
      ['rep-5.mp4', 'audio'],
    ]);
    const got = trainsOnWire(requests, planned, types, 10000);
    expect(got.map((w) => [w.train.label, w.conns, w.requests, w.bytes, w.pipelined, w.arrivalsKnown])).toEqual([
      ['train #1', [4], 3, 300, 1, true],
      ['train #2', [4], 1, 100, 0, true],
    ]);
  });

  test("idle time inside a train: gaps between one response's end and the next one's start, flagged over 5 %", () => {
    // One connection: 1000-2000, next 2400-3400 (400 ms gap), next 3400-4000 (none): 400 of 3000 ms idle.
    const one = parsed(
      [rec(4, 1000, 2000), rec(4, 1100, 3400), rec(4, 1200, 4000)].map((l, i) =>
        l.replace(/"start":\d+/, `"start":${[1000, 2400, 3400][i]}`),
      ),
    );
    const planned = plannedTransfers([
      { kind: 'train', id: 1, mediaType: 'video', targetBytes: 300, initialTargetBytes: 300, startMs: 900, endMs: 4100 },
    ]);
    const [w] = trainsOnWire(one, planned, new Map([['rep-1.mp4', 'video']]), 5000);
    expect([w?.requests, w?.pipelined, w?.idleMs, w?.fromMs, w?.toMs]).toEqual([3, 2, 400, 1000, 4000]);
    expect(w?.idleShare).toBeCloseTo(400 / 3000, 10);
    expect(trainIdleFlagged(w as TrainOnWire)).toBe(true);
    // A request arriving after the response ahead ended is not pipelined.
    const late = parsed([rec(4, 1000, 2000), rec(4, 2200, 3000)]);
    const [l] = trainsOnWire(late, planned, new Map([['rep-1.mp4', 'video']]), 5000);
    expect([l?.requests, l?.pipelined, l?.idleMs]).toEqual([2, 0, 200]);
    expect(trainIdleFlagged(l as TrainOnWire)).toBe(true);
    // Exactly 5 % (100 of 2000 ms) is not flagged.
    const edge = parsed([rec(4, 1000, 1950), rec(4, 1500, 3000)].map((l, i) => l.replace(/"start":\d+/, `"start":${[1000, 2050][i]}`)));
    const [e] = trainsOnWire(edge, planned, new Map([['rep-1.mp4', 'video']]), 5000);
    expect([e?.pipelined, e?.idleMs, e?.idleShare]).toEqual([1, 100, 0.05]);
    expect(trainIdleFlagged(e as TrainOnWire)).toBe(false);
  });

  test('wire gaps: only empty stretches of 300 ms or more count, and they decide the flag when the capture is there', () => {
    // 100 ms bins from t = 0: bytes except bins 5-6 (200 ms: packet timing) and 10-13 (400 ms: a gap).
    const bytes = Array.from({ length: 40 }, (_, i) => ((i >= 5 && i <= 6) || (i >= 10 && i <= 13) ? 0 : 15000));
    const wire = { t0Ms: 0, binMs: 100, bytes };
    expect(wireGapsMs(wire, 0, 4000)).toBe(400);
    // Only bins wholly inside the span: a gap cut by the span's start is too short to count.
    expect(wireGapsMs(wire, 1150, 4000)).toBe(0);
    expect(wireGapsMs(wire, 0, 1200)).toBe(0);
    // Nothing at all in the span, or a span the capture does not cover: no figure.
    expect(wireGapsMs({ ...wire, bytes: bytes.map(() => 0) }, 0, 4000)).toBeNull();
    expect(wireGapsMs(wire, 0, 4500)).toBeNull();
    expect(wireGapsMs({ ...wire, t0Ms: 100 }, 0, 3000)).toBeNull();
    // The wire lags the origin by the queue: an empty start (700 ms) is that lag, not a gap; probe-sized bins (300 B) are empty.
    const lagged = bytes.map((b, i) => (i < 7 ? 0 : i === 12 ? 300 : b));
    expect(wireGapsMs({ ...wire, bytes: lagged }, 0, 4000)).toBe(400);
    // The origin idles 400 of 3000 ms (flagged by itself), but the player's port never left the wire: not flagged.
    const one = parsed(
      [rec(4, 1000, 2000), rec(4, 1100, 3400), rec(4, 1200, 4000)].map((l, i) =>
        l.replace(/"start":\d+/, `"start":${[1000, 2400, 3400][i]}`),
      ),
    );
    const planned = plannedTransfers([
      { kind: 'train', id: 1, mediaType: 'video', targetBytes: 300, initialTargetBytes: 300, startMs: 900, endMs: 4100 },
    ]);
    const busy = { t0Ms: 0, binMs: 100, bytes: Array.from({ length: 50 }, () => 15000) };
    const [w] = trainsOnWire(one, planned, new Map([['rep-1.mp4', 'video']]), 5000, null, busy);
    expect([w?.idleMs, w?.wireGapMs, w?.wireGapShare]).toEqual([400, 0, 0]);
    expect(trainIdleFlagged(w as TrainOnWire)).toBe(false);
    // The same with 600 ms empty on the wire inside the train (20 %): flagged.
    const gappy = { ...busy, bytes: busy.bytes.map((b, i) => (i >= 20 && i < 26 ? 0 : b)) };
    const [g] = trainsOnWire(one, planned, new Map([['rep-1.mp4', 'video']]), 5000, null, gappy);
    expect(g?.wireGapMs).toBe(600);
    expect(trainIdleFlagged(g as TrainOnWire)).toBe(true);
  });

  test("audio carried on the train's connection fills the gap it fills on the wire; audio elsewhere does not", () => {
    const planned = plannedTransfers([
      { kind: 'train', id: 1, mediaType: 'video', targetBytes: 300, initialTargetBytes: 300, startMs: 900, endMs: 4100 },
    ]);
    const types = new Map([
      ['rep-1.mp4', 'video'],
      ['rep-5.mp4', 'audio'],
    ]);
    // Video 1000-2000 and 2500-3000 on connection 4; audio 2000-2500 on it, and 2000-2400 on connection 9.
    const withAudio = parsed(
      [rec(4, 1000, 2000), rec(4, 1100, 2500, 'rep-5.mp4'), rec(4, 1200, 3000), rec(9, 2000, 2400, 'rep-5.mp4')].map((l, i) =>
        l.replace(/"start":\d+/, `"start":${[1000, 2000, 2500, 2000][i]}`),
      ),
    );
    const [w] = trainsOnWire(withAudio, planned, types, 5000);
    expect([w?.requests, w?.idleMs, w?.conns]).toEqual([2, 0, [4]]);
    const elsewhere = withAudio.filter((r) => r.conn === 9 || r.url.endsWith('rep-1.mp4'));
    const [e] = trainsOnWire(elsewhere, planned, types, 5000);
    expect([e?.requests, e?.idleMs]).toEqual([2, 500]);
  });

  test("the player's side: transfers issued while an earlier one of the train was still arriving", () => {
    // 1: 1000-2000; 2 issued at 1500 (1 arriving); 3 at 2500 (2 ends 2600); 4 at 3000 (nothing arriving); 5 never ended.
    expect(
      issuedWhileArriving([
        { startMs: 2500, endMs: 3000 },
        { startMs: 1000, endMs: 2000 },
        { startMs: 1500, endMs: 2600 },
        { startMs: 3000, endMs: null },
        { startMs: 3100, endMs: 3200 },
      ]),
    ).toBe(3);
    expect(issuedWhileArriving([])).toBe(0);
    // From a player log: only the train's video transfers on Sprint's sockets count.
    const lines = [
      { kind: 'train', id: 1, mediaType: 'video', targetBytes: 300, initialTargetBytes: 300, startMs: 900, endMs: 4100 },
      { kind: 'transfer', id: 1, via: 'sprint', startMs: 1000, endMs: 2000 },
      { kind: 'transfer', id: 2, via: 'sprint', startMs: 1500, endMs: 3000 },
      { kind: 'transfer', id: 3, via: 'sprint', startMs: 3500, endMs: 4000 },
      { kind: 'transfer', id: 4, via: 'stock', startMs: 1200, endMs: 3600 },
      { kind: 'transfer', id: 5, via: 'sprint', startMs: 3300, endMs: 3400 },
      { kind: 'segment', mediaType: 'video', transferId: 1 },
      { kind: 'segment', mediaType: 'video', transferId: 2 },
      { kind: 'segment', mediaType: 'video', transferId: 3 },
      { kind: 'segment', mediaType: 'audio', transferId: 4 },
      { kind: 'segment', mediaType: 'audio', transferId: 5 },
    ];
    const transfers = playerTransfers(lines);
    expect(transfers.map((t) => [t.via, t.mediaType, t.startMs])).toEqual([
      ['sprint', 'video', 1000],
      ['stock', 'audio', 1200],
      ['sprint', 'video', 1500],
      ['sprint', 'audio', 3300],
      ['sprint', 'video', 3500],
    ]);
    const [w] = trainsOnWire(parsed([rec(4, 1000, 2000)]), plannedTransfers(lines), new Map([['rep-1.mp4', 'video']]), 5000, transfers);
    expect([w?.playerRequests, w?.playerPipelined]).toEqual([3, 1]);
    const [none] = trainsOnWire(parsed([rec(4, 1000, 2000)]), plannedTransfers(lines), new Map([['rep-1.mp4', 'video']]), 5000);
    expect([none?.playerRequests, none?.playerPipelined]).toEqual([null, null]);
  });

  test('idleInside: on parallel connections a gap counts only when no response was being written', () => {
    expect(idleInside([])).toEqual({ spanMs: 0, idleMs: 0 });
    expect(
      idleInside([
        { startMs: 0, endMs: 100 },
        { startMs: 50, endMs: 300 },
        { startMs: 120, endMs: 200 },
      ]),
    ).toEqual({ spanMs: 300, idleMs: 0 });
    expect(
      idleInside([
        { startMs: 400, endMs: 500 },
        { startMs: 0, endMs: 100 },
        { startMs: 150, endMs: 300 },
      ]),
    ).toEqual({ spanMs: 500, idleMs: 150 });
  });
});
