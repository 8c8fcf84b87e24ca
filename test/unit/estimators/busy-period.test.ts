// Read-timing bandwidth samples of a connection's busy periods
// (src/estimators/busy-period.ts): responses side by side add up, a response
// right behind another continues its period instead of being a sample of
// its own, a sample spans two round trips while the period lasts, and what
// is left when it ends counts only if it is the period's only sample.
import { BusyPeriodMeter } from '../../../src/estimators/busy-period';

const SPAN = 2; // seconds a sample should span
const GAP_MS = 50; // a round trip

describe('BusyPeriodMeter', () => {
  it('gives one response alone its own throughput when the connection goes idle', () => {
    const m = new BusyPeriodMeter();
    expect(m.began(1000, false, GAP_MS, SPAN)).toBeNull();
    m.received(125_000);
    expect(m.ended(2000, false, SPAN)).toBeNull();
    expect(m.idle(SPAN)).toEqual({ bytes: 125_000, seconds: 1 });
    expect(m.idle(SPAN)).toBeNull();
  });

  it('adds up responses arriving side by side and samples once the period spans two round trips', () => {
    const m = new BusyPeriodMeter();
    m.began(0, false, GAP_MS, SPAN);
    m.received(100_000);
    m.began(100, true, GAP_MS, SPAN);
    m.received(100_000);
    expect(m.ended(1500, true, SPAN)).toBeNull();
    m.received(175_000);
    expect(m.ended(2500, false, SPAN)).toEqual({ bytes: 375_000, seconds: 2.5 });
    expect(m.idle(SPAN)).toBeNull();
  });

  it('keeps a response handed over whole right behind the last one in the last one’s period', () => {
    const m = new BusyPeriodMeter();
    m.began(0, false, GAP_MS, SPAN);
    m.received(300_000);
    // 2.4 s of arrival: a sample
    expect(m.ended(2400, false, SPAN)).toEqual({ bytes: 300_000, seconds: 2.4 });
    // the next response, pipelined behind it, is read whole 1 ms later: 64 KB
    // in 1 ms would read 524 Mbit/s; it is the period's short tail
    expect(m.began(2400, false, GAP_MS, SPAN)).toBeNull();
    m.received(65_536);
    expect(m.ended(2401, false, SPAN)).toBeNull();
    expect(m.idle(SPAN)).toBeNull();
  });

  it('carries a period across responses one behind another until it spans two round trips', () => {
    const m = new BusyPeriodMeter();
    m.began(0, false, GAP_MS, SPAN);
    m.received(100_000);
    expect(m.ended(800, false, SPAN)).toBeNull();
    // begins 20 ms after: less than a round trip, same period
    expect(m.began(820, false, GAP_MS, SPAN)).toBeNull();
    m.received(100_000);
    expect(m.ended(1600, false, SPAN)).toBeNull();
    m.began(1600, false, GAP_MS, SPAN);
    m.received(65_536);
    expect(m.ended(1601, false, SPAN)).toBeNull();
    m.began(1601, false, GAP_MS, SPAN);
    m.received(100_000);
    expect(m.ended(2400, false, SPAN)).toEqual({ bytes: 365_536, seconds: 2.4 });
  });

  it('ends a period at a pause of a round trip or more: what was left is a sample of its own if it was the only one', () => {
    const m = new BusyPeriodMeter();
    m.began(0, false, GAP_MS, SPAN);
    m.received(50_000);
    expect(m.ended(500, false, SPAN)).toBeNull();
    // a request sent after the last response ended: its bytes begin a round trip later at the earliest
    expect(m.began(600, false, GAP_MS, SPAN)).toEqual({ bytes: 50_000, seconds: 0.5 });
    m.received(40_000);
    expect(m.ended(1000, false, SPAN)).toBeNull();
    expect(m.idle(SPAN)).toEqual({ bytes: 40_000, seconds: 0.4 });
  });

  it('drops a short tail after a sample when the period ends at a pause', () => {
    const m = new BusyPeriodMeter();
    m.began(0, false, GAP_MS, SPAN);
    m.received(250_000);
    m.began(10, true, GAP_MS, SPAN);
    m.received(250_000);
    expect(m.ended(2000, true, SPAN)).toEqual({ bytes: 500_000, seconds: 2 });
    m.received(10_000);
    expect(m.ended(2010, false, SPAN)).toBeNull();
    expect(m.began(5000, false, GAP_MS, SPAN)).toBeNull();
  });

  it('does not count the bytes of a response that failed or was aborted mid-way', () => {
    const m = new BusyPeriodMeter();
    m.began(0, false, GAP_MS, SPAN);
    m.received(900_000); // then the response fails: no ended()
    // the next one begins with nothing else arriving: a new period
    m.began(3000, false, GAP_MS, SPAN);
    m.received(100_000);
    expect(m.ended(4000, false, SPAN)).toBeNull();
    expect(m.idle(SPAN)).toEqual({ bytes: 100_000, seconds: 1 });
  });

  it('treats an unknown round trip (0) as no gap allowed, and a response right behind as the same period', () => {
    const m = new BusyPeriodMeter();
    m.began(0, false, 0, SPAN);
    m.received(10_000);
    m.ended(100, false, SPAN);
    expect(m.began(100, false, 0, SPAN)).toBeNull();
    m.received(10_000);
    m.ended(200, false, SPAN);
    expect(m.began(201, false, 0, SPAN)).toEqual({ bytes: 20_000, seconds: 0.2 });
  });
});
