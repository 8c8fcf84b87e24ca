// `sprint restarts` (demo/harness/restarts.ts, restarts-cli.ts): a player log
// with a train after a 30 s pause whose second segment landed 20 s in (the
// draw-down recomputed from the segments, the time it caught up), a train
// after a short gap with its own recorded draw-down, and stalls put on the
// buffer that ran out and on the train they fell in; with the origin's log,
// a train that began on a new connection; the command's table, JSON and
// errors.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { restartRows, servingConnections, stallBuffer, stallCount } from '../../../demo/harness/restarts';
import { main } from '../../../demo/harness/restarts-cli';
import { captureIo } from '../capture-io';

const video = (requestMs: number, endMs: number, bytes = 500_000, bandwidth = 1e6) => ({
  kind: 'segment',
  mediaType: 'video',
  segmentKind: 'media',
  url: 'http://10.0.0.2:8001/media/set/unchunked/rep-3.mp4',
  range: `${requestMs}-${requestMs + bytes - 1}`,
  requestMs,
  endMs,
  bytes,
  bandwidth,
  status: 'ok',
});

/** The origin's log line for a segment requested at `requestMs` (its range), served on connection `conn`. */
const served = (conn: number, requestMs: number, extra: Record<string, unknown> = {}) => ({
  conn,
  url: '/media/set/unchunked/rep-3.mp4',
  range: `bytes=${requestMs}-${requestMs + 500_000 - 1}`,
  status: 206,
  bytes: 500_000,
  start: requestMs / 1000,
  end: requestMs / 1000 + 1,
  complete: true,
  error: null,
  ...extra,
});

/** Train 1 and train 2's first segment on different connections; train 3 on train 2's; train 2's first re-issued after a cut. */
function originLog(): Record<string, unknown>[] {
  return [
    served(1, 0),
    served(1, 130_000, { complete: false, error: 'server-closed' }),
    served(2, 130_000),
    served(2, 130_100),
    ...[0, 1, 2, 3, 4, 5].map((k) => served(2, 150_000 + k * 10)),
    served(2, 200_000),
  ];
}

const poll = (sec: number, rebufferCount: number, videoBufferSec: number, audioBufferSec: number) => ({
  kind: 'poll',
  ready: true,
  t: sec,
  playback: { rebufferCount, videoBufferSec, audioBufferSec },
});

const train = (id: number, startMs: number, endMs: number | null, extra: Record<string, unknown> = {}) => ({
  kind: 'train',
  mediaType: 'video',
  id,
  startMs,
  endMs,
  rttEstimateSec: 0.6,
  resumeBufferSec: 14,
  restartReserveSec: 15,
  ...extra,
});

function log(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [{ kind: 'open', t: 0 }];
  rows.push(video(0, 4000), train(1, 0, 100_000));
  // Train 2 after a 30 s pause: 12.5 s to the first segment, 20 s to the second (requested with it), then one a second.
  rows.push(video(130_000, 142_500), video(130_100, 150_000));
  for (let k = 0; k < 6; k++) rows.push(video(150_000 + k * 10, 151_000 + k * 1000));
  rows.push(train(2, 130_000, 199_500));
  // Train 3 after half a second: no restart; its record carries its draw-down.
  rows.push(video(200_000, 201_000), train(3, 200_000, 260_000, { restartDrawDownSec: 3.3 }));
  // Polls: a stall in train 1 (counted in the log's total only), a video stall 17 s into train 2, one of both 5 s into train 3.
  let count = 0;
  for (let s = 40; s <= 210; s++) {
    if (s === 50 || s === 147 || s === 205) count += 1;
    const videoBuf = s === 146 ? 0.1 : 10;
    const audioBuf = s === 146 ? 2.0 : s === 204 ? 10.1 : 10;
    rows.push(poll(s, count, videoBuf, audioBuf));
  }
  return rows;
}

describe('restartRows', () => {
  test('the pause, the resume, how the video arrived and the stalls of each train after the first', () => {
    const rows = restartRows(log(), 4);
    expect(rows.map((r) => r.train)).toEqual([2, 3]);
    const [second, third] = rows;
    expect(second).toMatchObject({
      pauseSec: 30,
      restart: true,
      bitrate: 1e6,
      resumeBufferSec: 14,
      reserveSec: 15,
      firstSegmentSec: 12.5,
      drawDownFrom: 'segments',
      caughtUpSec: 24,
    });
    expect(second?.drawDownSec).toBeCloseTo(16, 9); // the second segment, 20 s in, with 4 s of media before it
    expect(second?.stalls).toEqual([{ atSec: 17, buffer: 'video', videoBufferSec: 0.1, audioBufferSec: 2 }]);
    expect(third).toMatchObject({ pauseSec: 0.5, restart: false, drawDownSec: 3.3, drawDownFrom: 'record', firstSegmentSec: 1 });
    expect(third?.stalls).toEqual([{ atSec: 5, buffer: 'both', videoBufferSec: 10, audioBufferSec: 10.1 }]);
    expect(stallCount(log())).toBe(3);
    expect(rows.map((r) => r.newConnection)).toEqual([null, null]); // no origin log
  });

  test("with the origin's log: the train that began on another connection than the previous one's", () => {
    const conns = servingConnections(originLog());
    expect(conns.get('rep-3.mp4 130000-629999')).toBe(2); // the whole response, not the cut one
    expect(restartRows(log(), 4, conns).map((r) => [r.train, r.newConnection])).toEqual([
      [2, true],
      [3, false],
    ]);
    // A segment the origin log does not have: unknown, not "same".
    const partial = new Map([...conns].filter(([k]) => !k.startsWith('rep-3.mp4 0-')));
    expect(restartRows(log(), 4, partial)[0]?.newConnection).toBeNull();
  });

  test('a train whose media never catches up has a draw-down but no catch-up; a train logged twice counts once', () => {
    const rows: Record<string, unknown>[] = [video(0, 4000), train(1, 0, 10_000)];
    rows.push(video(40_000, 60_000), video(60_000, 80_000), train(2, 40_000, null), train(2, 40_000, 90_000));
    const [only, ...rest] = restartRows(rows, 4);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ train: 2, caughtUpSec: null, firstSegmentSec: 20 });
    expect(only?.drawDownSec).toBeCloseTo(36, 9); // 40 s less the 4 s before the second
  });

  test('the buffer that ran out: the one 0.3 s or more below the other', () => {
    expect(stallBuffer(0.1, 4)).toBe('video');
    expect(stallBuffer(4, 0.2)).toBe('audio');
    expect(stallBuffer(0.1, 0.3)).toBe('both');
  });
});

describe('sprint restarts', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sprint-restarts-'));
    fs.writeFileSync(
      path.join(dir, 'player-8001.jsonl'),
      log()
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify({ window: { fromS: 100, toS: 400 } }));
    fs.writeFileSync(
      path.join(dir, 'origin-8001.log'),
      originLog()
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a run folder: one table per player log, times from the window start', async () => {
    const c = captureIo();
    expect(await main([dir], c.io)).toBe(0);
    const out = c.out();
    expect(out).toContain(
      '2 trains after the first, 1 after a pause long enough for a restart; 1 of 3 stalls in the log came during those',
    );
    expect(out).toContain('0 of 1 resumed with at least their draw-down buffered; 1 of 2 began on a new connection');
    const line = out.split('\n').find((l) => /^\s+2\s/.test(l)) as string;
    expect(line.trim().split(/\s{2,}/)).toEqual([
      '2',
      '30',
      '30.0',
      'yes',
      '1.00',
      '14.0',
      '15.0',
      '12.5',
      '16.0*',
      '24.0',
      'new',
      '17 s video',
    ]);
  });

  test('--json gives the rows', async () => {
    const c = captureIo();
    expect(await main([path.join(dir, 'player-8001.jsonl'), '--json'], c.io)).toBe(0);
    const parsed = JSON.parse(c.out()) as { windowStartMs: number; restarts: Array<{ train: number; drawDownSec: number }> };
    expect(parsed.windowStartMs).toBe(100_000);
    expect(parsed.restarts.map((r) => [r.train, Math.round(r.drawDownSec * 10) / 10])).toEqual([
      [2, 16],
      [3, 3.3],
    ]);
  });

  test('errors: no such path, a bad --segment-sec, a log without trains', async () => {
    const missing = captureIo();
    expect(await main([path.join(dir, 'nope')], missing.io)).toBe(2);
    expect(missing.err()).toContain('no such file or folder');
    const bad = captureIo();
    expect(await main([dir, '--segment-sec', '0'], bad.io)).toBe(2);
    expect(bad.err()).toContain('--segment-sec must be above 0');
    const stock = path.join(dir, 'stock.jsonl');
    fs.writeFileSync(stock, JSON.stringify(video(0, 1000)) + '\n');
    const none = captureIo();
    expect(await main([stock], none.io)).toBe(1);
    expect(none.err()).toContain('no video train records');
  });
});
