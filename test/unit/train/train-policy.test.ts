// Tests for Sprint's train policy (paper §IV-B1): the outstanding window
// bounds what is in flight; an unspent train may go past the player's buffer
// target (the minimum train), a spent one may not; retargeting follows the
// current chunk size; "without MPT" keeps the buffer rule inside trains.

import { TrainPolicy, trainWindow, type IssueContext } from '../../../src/train/train-policy';

/** A buffer well above a 12 s target: only an unspent minimum train may issue. */
const full: IssueContext = { outstanding: 0, bufferSec: 20, inFlightSec: 0, segmentSec: 4, bufferTargetSec: 12 };
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

  test('an unspent train issues past the buffer target, never beyond the outstanding window', () => {
    const p = new TrainPolicy();
    p.begin(1_000_000, 3, 0);
    expect(p.overridesBufferTarget).toBe(true);
    expect(p.mayIssue(full)).toBe(true);
    expect(p.mayIssue({ ...full, outstanding: 2 })).toBe(true);
    expect(p.mayIssue({ ...full, outstanding: 3 })).toBe(false);
    expect(p.mayIssue({ ...room, outstanding: 3 })).toBe(false);
  });

  test('a train is spent once its target bytes are requested, and ends when the last response completes', () => {
    const p = new TrainPolicy();
    p.begin(1_000_000, 2, 0);
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
    p.begin(34_000_000, 2, 0); // bootstrap guess
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
    p.begin(1000, 2, 0);
    p.end(5);
    expect(p.retarget(9999)).toBe(false);
    expect(p.train?.targetBytes).toBe(1000);
    expect(() => p.retarget(0)).toThrow(RangeError);
    expect(() => p.retarget(NaN)).toThrow(RangeError);
  });

  test('without the minimum train (paper Fig. 11 "w/o MPT"), an unspent train still stops at the buffer target', () => {
    const p = new TrainPolicy({ minimumTrain: false });
    p.begin(1_000_000, 2, 0);
    expect(p.trainUnspent).toBe(true);
    expect(p.overridesBufferTarget).toBe(false);
    expect(p.mayIssue(full)).toBe(false);
    expect(p.mayIssue(room)).toBe(true);
    expect(p.mayIssue({ ...room, outstanding: 2 })).toBe(false);
  });

  test('end() stops an unspent train: it no longer overrides the buffer target', () => {
    const p = new TrainPolicy();
    p.begin(1_000_000, 2, 0);
    p.end(7);
    expect(p.trainUnspent).toBe(false);
    expect(p.train?.endedAtMs).toBe(7);
    expect(p.mayIssue(full)).toBe(false);
  });

  test('begin rejects a non-positive target and a window below 2', () => {
    const p = new TrainPolicy();
    expect(() => p.begin(0, 2, 0)).toThrow(RangeError);
    expect(() => p.begin(1000, 1, 0)).toThrow(RangeError);
    expect(() => p.begin(1000, 2.5, 0)).toThrow(RangeError);
  });

  test('trainWindow covers one fair BDP with segments, at least 2', () => {
    expect(trainWindow(120_000, 700_000)).toBe(2);
    expect(trainWindow(1_000_000, 150_000)).toBe(7);
  });
});
