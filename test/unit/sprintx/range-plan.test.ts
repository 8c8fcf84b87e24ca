/** Sprint-x range planning (paper §IV-B2): whole segments, at least the chunk size, never past a gap or the end. */
import { parseRange, planExpandedRange, rangeLength, type ByteRange } from '../../../src/sprintx/range-plan';

const seg = (sizes: number[], start = 1000): ByteRange[] => {
  let at = start;
  return sizes.map((n) => {
    const r = { start: at, end: at + n - 1 };
    at += n;
    return r;
  });
};

describe('planExpandedRange', () => {
  const segments = seg([100, 200, 300, 400, 500]);

  it('covers whole segments until the chunk size is reached', () => {
    const p = planExpandedRange(segments, 1, 450);
    expect(p).toEqual({ start: 1100, end: 1599, firstIndex: 1, lastIndex: 2, reachedEnd: false, capped: false });
    expect(rangeLength(p)).toBeGreaterThanOrEqual(450);
  });

  it('takes one segment when it alone exceeds the chunk', () => {
    expect(planExpandedRange(segments, 3, 10)).toMatchObject({ start: 1600, end: 1999, lastIndex: 3 });
  });

  it('stops at the end of the file and says so', () => {
    const p = planExpandedRange(segments, 2, 1e9);
    expect(p).toMatchObject({ start: 1300, end: 2499, lastIndex: 4, reachedEnd: true });
  });

  it('stops before a gap between segments', () => {
    const gappy = [...seg([100, 100]), { start: 5000, end: 5099 }];
    expect(planExpandedRange(gappy, 0, 1e6)).toMatchObject({ lastIndex: 1, end: 1199, reachedEnd: true });
  });

  it('rejects bad input', () => {
    expect(() => planExpandedRange(segments, 5, 10)).toThrow(/outside/);
    expect(() => planExpandedRange(segments, -1, 10)).toThrow(/outside/);
    expect(() => planExpandedRange(segments, 0, 0)).toThrow(/positive/);
    expect(() => planExpandedRange(segments, 0, 10, 0)).toThrow(/at least 1/);
  });

  it('stops at the segment cap before the chunk size, and says so', () => {
    // at a low rung the model's chunk would span the whole file
    const p = planExpandedRange(segments, 0, 1e9, 2);
    expect(p).toEqual({ start: 1000, end: 1299, firstIndex: 0, lastIndex: 1, reachedEnd: false, capped: true });
    // a chunk reached within the cap is not capped
    expect(planExpandedRange(segments, 0, 250, 3)).toMatchObject({ lastIndex: 1, capped: false });
    // the cap counts from the first segment asked for
    expect(planExpandedRange(segments, 3, 1e9, 1)).toMatchObject({ start: 1600, end: 1999, lastIndex: 3, capped: true });
  });
});

describe('parseRange', () => {
  it('parses dash.js ranges', () => {
    expect(parseRange('10-19')).toEqual({ start: 10, end: 19 });
  });
  it.each(['', '10-', '-5', '5-4', 'a-b', '1-2,3-4'])('rejects %p', (t) => {
    expect(() => parseRange(t)).toThrow(RangeError);
  });
});
