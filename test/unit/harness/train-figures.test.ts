// The report's train figures (demo/harness/train-figures.ts): counted from an
// origin access log and a player log the way `sprint wire` counts them, none
// for a player that ran no train, and the label the Runs table shows.

import { trainFigures, trainLabel } from '../../../demo/harness/train-figures';

const origin = (conn: number, file: string, arrival: number, start: number, end: number): Record<string, unknown> => ({
  conn,
  url: `/media/demo/unchunked/${file}`,
  range: 'bytes=100-199',
  status: 206,
  bytes: 100,
  arrival,
  start,
  end,
  complete: true,
  error: null,
});

describe('train figures for the report', () => {
  const player: Record<string, unknown>[] = [
    { kind: 'train', id: 1, mediaType: 'video', targetBytes: 300, initialTargetBytes: 300, startMs: 900, endMs: 5000 },
    // Issued 1000, 1500 (while 1 arrives), 3500 (nothing arriving: 2 ended at 3000).
    { kind: 'transfer', id: 1, via: 'sprint', startMs: 1000, endMs: 2000 },
    { kind: 'transfer', id: 2, via: 'sprint', startMs: 1500, endMs: 3000 },
    { kind: 'transfer', id: 3, via: 'sprint', startMs: 3500, endMs: 4500 },
    ...[1, 2, 3].map((transferId) => ({ kind: 'segment', mediaType: 'video', transferId, url: '/media/demo/unchunked/rep-1.mp4' })),
  ];
  // At the origin: 2 arrives before 1 is written; 3 arrives after 2 was written, 500 ms idle.
  const log = [
    origin(4, 'rep-1.mp4', 1000, 1000, 2000),
    origin(4, 'rep-1.mp4', 1600, 2000, 3000),
    origin(4, 'rep-1.mp4', 3500, 3500, 4500),
  ];

  test('counted as sprint wire counts them', () => {
    const t = trainFigures(log, player);
    expect(t).toEqual({
      trains: 1,
      playerFollowing: 2,
      issuedWhileArriving: 1,
      originFollowing: 2,
      originPipelined: 1,
      idleShareMax: 500 / 3500,
      idleFlagged: 1,
    });
    expect(trainLabel(t!)).toBe('1 train: 1/2 issued while arriving, 1/2 at the origin, idle ≤ 14.3 %, 1 idle over 5 %');
  });

  test("with the run's wire capture: gaps on the wire decide the flag, not the origin's idle", () => {
    // The origin idles 500 ms (3000-3500) but the port's bytes kept crossing the wire: no gap, not flagged.
    const busy = { t0Ms: 0, binMs: 100, bytes: Array.from({ length: 60 }, () => 15000) };
    const t = trainFigures(log, player, busy);
    expect([t?.idleShareMax, t?.wireGapShareMax, t?.idleFlagged]).toEqual([500 / 3500, 0, 0]);
    expect(trainLabel(t!)).toBe('1 train: 1/2 issued while arriving, 1/2 at the origin, idle at the origin ≤ 14.3 %, wire gaps ≤ 0.0 %');
    // Nothing on the wire from 3000 to 3500 either: a 500 ms gap, flagged.
    const gap = { ...busy, bytes: busy.bytes.map((b, i) => (i >= 30 && i < 35 ? 0 : b)) };
    const g = trainFigures(log, player, gap);
    expect([g?.wireGapShareMax, g?.idleFlagged]).toEqual([500 / 3500, 1]);
    expect(trainLabel(g!)).toMatch(/wire gaps ≤ 14\.3 %, 1 with wire gaps over 5 %$/);
  });

  test('none for a player without trains, or without an origin log', () => {
    expect(
      trainFigures(
        log,
        player.filter((l) => l['kind'] !== 'train'),
      ),
    ).toBeNull();
    expect(trainFigures([], player)).toBeNull();
  });
});
