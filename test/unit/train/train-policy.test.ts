// Tests for Sprint's train policy (paper §IV-B1): the outstanding window
// bounds what is in flight; an unspent train may go past the player's buffer
// target (the minimum train), a spent one may not; retargeting follows the
// current chunk size; "without MPT" keeps the buffer rule inside trains.

import { TrainPolicy, requestLevelSec, type IssueContext } from '../../../src/train/train-policy';

/** A buffer well above a 12 s target: only an unspent minimum train may issue. */
const full: IssueContext = {
  outstanding: 0,
  unreceivedBytes: 0,
  arrivingBytes: 0,
  fairBdpBytes: 300_000,
  bufferSec: 20,
  inFlightSec: 0,
  segmentSec: 4,
  bufferTargetSec: 12,
};
/** Two 150 KB requests outstanding, the first arriving: 250 KB unreceived, below two 300 KB BDPs plus 150 KB arriving. */
const smallSegments = { outstanding: 2, unreceivedBytes: 250_000, arrivingBytes: 150_000 };
/** Four of them: 550 KB unreceived; full for a window of one BDP (450 KB with the arriving response), not of two (750 KB). */
const fullForOneBdp = { outstanding: 4, unreceivedBytes: 550_000, arrivingBytes: 150_000 };
/** Six of them: 850 KB unreceived, the default window (two BDPs plus the arriving response: 750 KB) is full. */
const windowFull = { outstanding: 6, unreceivedBytes: 850_000, arrivingBytes: 150_000 };
/** A buffer with room below the target. */
const room: IssueContext = { ...full, bufferSec: 2 };

describe('TrainPolicy', () => {
  test('outside a train, requests follow the buffer target (buffer + in flight + next segment below it)', () => {
    const p = new TrainPolicy();
    expect(p.mayIssue(room)).toBe(true);
    expect(p.mayIssue(full)).toBe(false);
    expect(p.mayIssue({ ...room, inFlightSec: 5.5 })).toBe(true); // 2 + 5.5 + 4 < 12
    expect(p.mayIssue({ ...room, inFlightSec: 6 })).toBe(false); // 2 + 6 + 4 = 12 is not below 12
  });

  test('an unspent train issues past the buffer target, never beyond the outstanding window (in bytes)', () => {
    const p = new TrainPolicy();
    p.begin(1_000_000, 0);
    expect(p.overridesBufferTarget).toBe(true);
    expect(p.mayIssue(full)).toBe(true);
    // Small segments: a third (and more) request while two cover less than two BDPs plus the response arriving.
    expect(p.mayIssue({ ...full, ...smallSegments })).toBe(true);
    expect(p.mayIssue({ ...full, ...windowFull })).toBe(false);
    expect(p.mayIssue({ ...room, ...windowFull })).toBe(false);
    // Large segments: the minimum of 2.
    expect(p.mayIssue({ ...full, outstanding: 1, unreceivedBytes: 3_000_000 })).toBe(true);
    expect(p.mayIssue({ ...full, outstanding: 2, unreceivedBytes: 3_000_000, arrivingBytes: 1_500_000 })).toBe(false);
  });

  test('the hard cap on outstanding requests binds whatever the bytes', () => {
    const p = new TrainPolicy({ maxOutstanding: 3 });
    p.begin(1_000_000, 0);
    expect(p.mayIssue({ ...full, outstanding: 2, unreceivedBytes: 10 })).toBe(true);
    expect(p.mayIssue({ ...full, outstanding: 3, unreceivedBytes: 10 })).toBe(false);
    expect(() => new TrainPolicy({ maxOutstanding: 1 })).toThrow(RangeError);
  });

  test("the window is two fair BDPs by default, `windowBdps` of them when given (at least the paper's one)", () => {
    const p = new TrainPolicy();
    p.begin(10_000_000, 0);
    expect(p.mayIssue({ ...full, ...fullForOneBdp })).toBe(true); // 550 KB < 2 × 300 KB + 150 KB
    expect(p.mayIssue({ ...full, ...windowFull })).toBe(false);
    const one = new TrainPolicy({ windowBdps: 1 });
    one.begin(10_000_000, 0);
    expect(one.mayIssue({ ...full, ...smallSegments })).toBe(true);
    expect(one.mayIssue({ ...full, ...fullForOneBdp })).toBe(false); // 550 KB >= 300 KB + 150 KB
    const three = new TrainPolicy({ windowBdps: 3 });
    three.begin(10_000_000, 0);
    expect(three.mayIssue({ ...full, ...windowFull })).toBe(true); // 850 KB < 3 × 300 KB + 150 KB
    expect(() => new TrainPolicy({ windowBdps: 0.5 })).toThrow(/windowBdps must be a number of fair BDPs in \[1, 8\], got 0.5/);
    expect(() => new TrainPolicy({ windowBdps: NaN })).toThrow(RangeError);
  });

  test('the train records the most requests outstanding at once', () => {
    const p = new TrainPolicy();
    p.begin(1_000_000, 0);
    p.onIssued(150_000, 1);
    p.onIssued(150_000, 2);
    p.onIssued(150_000, 3);
    p.onCompleted(150_000, 5, 2);
    p.onIssued(150_000, 3);
    expect(p.train?.maxOutstanding).toBe(3);
  });

  test('a train is spent once its target bytes are requested, and ends when the last response completes', () => {
    const p = new TrainPolicy();
    p.begin(1_000_000, 0);
    p.onIssued(600_000);
    p.onIssued(500_000);
    expect(p.trainUnspent).toBe(false);
    expect(p.mayIssue(full)).toBe(false);
    expect(p.mayIssue(room)).toBe(true);
    p.onCompleted(600_000, 10, 1);
    expect(p.train?.endedAtMs).toBeNull();
    p.onCompleted(500_000, 20, 0);
    expect(p.train?.endedAtMs).toBe(20);
    expect(p.train?.completedBytes).toBe(1_100_000);
  });

  test('retarget holds the running train to the new chunk size; a smaller one can spend it at once', () => {
    const p = new TrainPolicy();
    p.begin(34_000_000, 0); // bootstrap guess
    p.onIssued(300_000);
    expect(p.trainUnspent).toBe(true);
    expect(p.retarget(5_000_000)).toBe(true);
    expect(p.train?.targetBytes).toBe(5_000_000);
    expect(p.train?.initialTargetBytes).toBe(34_000_000);
    expect(p.trainUnspent).toBe(true);
    p.retarget(200_000);
    expect(p.trainUnspent).toBe(false);
    expect(p.mayIssue(full)).toBe(false);
  });

  test('retarget leaves an ended train alone and rejects a non-positive size', () => {
    const p = new TrainPolicy();
    p.begin(1000, 0);
    p.end(5);
    expect(p.retarget(9999)).toBe(false);
    expect(p.train?.targetBytes).toBe(1000);
    expect(() => p.retarget(0)).toThrow(RangeError);
    expect(() => p.retarget(NaN)).toThrow(RangeError);
  });

  test('without the minimum train (paper Fig. 11 "w/o MPT"), an unspent train still stops at the buffer target', () => {
    const p = new TrainPolicy({ minimumTrain: false });
    p.begin(1_000_000, 0);
    expect(p.trainUnspent).toBe(true);
    expect(p.overridesBufferTarget).toBe(false);
    expect(p.mayIssue(full)).toBe(false);
    expect(p.mayIssue(room)).toBe(true);
    expect(p.mayIssue({ ...room, ...windowFull })).toBe(false);
  });

  test('end() stops an unspent train: it no longer overrides the buffer target', () => {
    const p = new TrainPolicy();
    p.begin(1_000_000, 0);
    p.end(7);
    expect(p.trainUnspent).toBe(false);
    expect(p.train?.endedAtMs).toBe(7);
    expect(p.mayIssue(full)).toBe(false);
  });

  test('outside a train, the restart reserve raises the level requests go out below, never lowers it', () => {
    const p = new TrainPolicy();
    // dash.js's own level is 12 - 4 = 8 s: an 8.5 s buffer pauses, unless the reserve asks for more.
    const paused: IssueContext = { ...full, bufferSec: 8.5 };
    expect(p.mayIssue(paused)).toBe(false);
    expect(p.mayIssue({ ...paused, restartReserveSec: 9 })).toBe(true);
    expect(p.mayIssue({ ...paused, restartReserveSec: 8.5 })).toBe(false); // not below the reserve
    expect(p.mayIssue({ ...room, restartReserveSec: 1 })).toBe(true); // a small reserve leaves the player's level
    // What is in flight counts toward the reserve as toward the target; the window still bounds it.
    expect(p.mayIssue({ ...paused, bufferSec: 5, inFlightSec: 4, restartReserveSec: 9 })).toBe(false);
    expect(p.mayIssue({ ...paused, ...windowFull, restartReserveSec: 30 })).toBe(false);
    expect(requestLevelSec({ bufferTargetSec: 12, segmentSec: 4 })).toBe(8);
    expect(requestLevelSec({ bufferTargetSec: 12, segmentSec: 4, restartReserveSec: 18.6 })).toBe(18.6);
  });

  test('begin rejects a non-positive target', () => {
    const p = new TrainPolicy();
    expect(() => p.begin(0, 0)).toThrow(RangeError);
    expect(() => p.begin(NaN, 0)).toThrow(RangeError);
  });
});
