// A request's time limit in Sprint's trains (player/sprint/time-limit.ts):
// within the limit it runs; past it, a response still arriving whose rest
// would be in sooner than a new request could bring anything finishes; one
// that stopped arriving, or would take longer, or outstays the bound, fails.
// The data plane applying it on the wire: sprint-data-plane.test.ts.

import { announcedLength, askAgainMs, timeLimitVerdict, type TimeLimitState } from '../../../player/sprint/time-limit';

const BASE: TimeLimitState = {
  limitMs: 20_000,
  clockFromMs: 0,
  nowMs: 20_500,
  bytes: 166_095,
  expectedBytes: 168_356,
  lastByteMs: 20_400,
  rttSec: 1.5,
};

describe('timeLimitVerdict', () => {
  it('runs within the limit', () => {
    expect(timeLimitVerdict({ ...BASE, nowMs: 19_000 })).toBe('running');
    expect(timeLimitVerdict({ ...BASE, nowMs: 20_000, bytes: 0, lastByteMs: null })).toBe('running');
  });

  it('lets the testbed case finish: 166,095 of 168,356 bytes in after 20 s, arriving, at a 1.5 s round trip', () => {
    // the rest at 8.3 KB/s is 0.27 s; a new connection needs two round trips, 3 s
    expect(askAgainMs(1.5)).toBe(3000);
    expect(timeLimitVerdict(BASE)).toBe('grace');
    // every byte in, the end not yet seen
    expect(timeLimitVerdict({ ...BASE, bytes: 168_356 })).toBe('grace');
  });

  it('fails a response that stopped arriving, has no known length, or got nothing', () => {
    expect(timeLimitVerdict({ ...BASE, lastByteMs: 17_000 })).toBe('expired');
    expect(timeLimitVerdict({ ...BASE, expectedBytes: null })).toBe('expired');
    expect(timeLimitVerdict({ ...BASE, bytes: 0, lastByteMs: null })).toBe('expired');
  });

  it('fails a response whose rest would take longer than asking again', () => {
    // half in after 20 s: 20 s more
    expect(timeLimitVerdict({ ...BASE, bytes: 84_000 })).toBe('expired');
    // on a short path a new request is taken to need 1 s at least
    expect(askAgainMs(0.01)).toBe(1000);
    expect(timeLimitVerdict({ ...BASE, rttSec: 0.01, bytes: 160_000 })).toBe('expired');
    expect(timeLimitVerdict({ ...BASE, rttSec: 0.01, bytes: 167_500 })).toBe('grace');
  });

  it('ends the grace two ask-again times past the limit, arriving or not', () => {
    expect(timeLimitVerdict({ ...BASE, nowMs: 26_000, lastByteMs: 25_900 })).toBe('grace');
    expect(timeLimitVerdict({ ...BASE, nowMs: 26_001, lastByteMs: 26_000 })).toBe('expired');
  });

  it("reads the body's length from the response head when the request has no range (one file per segment)", () => {
    expect(announcedLength({ 'content-length': '168356' })).toBe(168_356);
    expect(announcedLength({ 'content-length': ' 42 ' })).toBe(42);
    expect(announcedLength({})).toBeNull();
    expect(announcedLength({ 'content-length': '12, 12' })).toBeNull();
    expect(announcedLength({ 'content-length': '-1' })).toBeNull();
  });
});
