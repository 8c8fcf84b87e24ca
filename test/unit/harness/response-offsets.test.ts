// Drops by offset into a connection's responses (demo/harness/response-offsets.ts):
// where responses begin from the origin's log, and the three rows of bins.
import { offsetBins, responseStarts, type ResponseRecord } from '../../../demo/harness/response-offsets';

const rec = (remote: string, seq: number, bytes: number, headBytes: number | null, complete = true): ResponseRecord => ({
  remote,
  seq,
  bytes,
  headBytes,
  complete,
});

describe('responseStarts', () => {
  it('places each response after the heads and bodies before it, per client endpoint, in request order', () => {
    const starts = responseStarts([
      rec('10.0.0.2:5000', 1, 5000, 150),
      rec('10.0.0.2:5001', 0, 10, 90),
      rec('10.0.0.2:5000', 0, 1000, 200),
      rec('10.0.0.2:5000', 2, 7, 150),
    ]);
    expect(starts.get('10.0.0.2:5000')).toEqual([0, 1200, 6350]);
    expect(starts.get('10.0.0.2:5001')).toEqual([0]);
  });

  it('stops after a response that did not complete, and gives nothing without head bytes (HTTP/2, older logs)', () => {
    const starts = responseStarts([
      rec('a:1', 0, 100, 50),
      rec('a:1', 1, 20, 50, false),
      rec('a:1', 2, 100, 50),
      rec('b:2', 0, 100, null),
      { remote: 'c:3', seq: 0, bytes: 100, complete: true },
    ]);
    expect(starts.get('a:1')).toEqual([0, 150]);
    expect(starts.has('b:2')).toBe(false);
    expect(starts.has('c:3')).toBe(false);
  });
});

describe('offsetBins', () => {
  // Two responses: 0..999 and 1000..; bins of 400 bytes.
  const starts = [0, 1000];
  const sends = [0, 400, 800, 1000, 1400, 1800, 2200].map((seq, i) => ({ t: 10 + i * 0.01, seq }));
  const all = (): boolean => true;

  it('counts the sends and the own drops by offset into their response', () => {
    const b = offsetBins({ starts, sends, drops: [{ t: 10.05, seq: 1800 }], otherDropTimes: [], inWindow: all, spanS: 0.1, binBytes: 400 });
    expect(b).toEqual({ binBytes: 400, responses: 2, sent: [2, 2, 2, 1], own: [0, 0, 1, 0], others: [0, 0, 0, 0] });
  });

  it("places another connection's drop where this sender was, within one span of its last send", () => {
    const b = offsetBins({
      starts,
      sends,
      drops: [],
      // 10.001: last send 10.00 (offset 0); 10.045: 10.04 (offset 400 of the second response); 10.5: too long after the last
      otherDropTimes: [10.5, 10.045, 10.001],
      inWindow: all,
      spanS: 0.1,
      binBytes: 400,
    });
    expect(b.others).toEqual([1, 1, 0, 0]);
  });

  it('keeps to the window for the sends and leaves out what precedes the first known response', () => {
    const b = offsetBins({
      starts: [800],
      sends,
      drops: [{ t: 10.0, seq: 0 }],
      otherDropTimes: [],
      inWindow: (t) => t >= 10.03,
      spanS: 0.1,
      binBytes: 400,
    });
    expect(b.sent).toEqual([1, 1, 1, 1]);
    expect(b.own).toEqual([0, 0, 0, 0]);
  });
});
