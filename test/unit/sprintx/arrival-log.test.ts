/** Wire timing of segments cut out of one streamed body (paper §IV-B2; keeps dash.js's throughput estimate true). */
import { ArrivalLog } from '../../../src/sprintx/arrival-log';

function bytes(from: number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (from + i) & 0xff);
}

describe('ArrivalLog', () => {
  it('extracts exact bytes spanning pieces with their arrival times', () => {
    const log = new ArrivalLog(1000, 0);
    log.append(bytes(1000, 100), 10);
    log.append(bytes(1100, 100), 20);
    log.append(bytes(1200, 100), 30);
    expect(log.covers({ start: 1050, end: 1250 })).toBe(true);
    expect(log.covers({ start: 1050, end: 1300 })).toBe(false);
    const s = log.extract({ start: 1150, end: 1249 });
    expect(Array.from(s.data)).toEqual(Array.from(bytes(1150, 100)));
    // starts when the byte before it (1149) arrived, ends with byte 1249
    expect(s.startMs).toBe(20);
    expect(s.firstByteMs).toBe(20);
    expect(s.endMs).toBe(30);
    expect(s.traces.reduce((a, t) => a + t.bytes, 0)).toBe(100);
  });

  it('gives the first segment the request time as its start', () => {
    const log = new ArrivalLog(0, 5);
    log.append(bytes(0, 50), 40);
    log.append(bytes(50, 50), 60);
    const s = log.extract({ start: 0, end: 99 });
    expect(s.startMs).toBe(5);
    expect(s.firstByteMs).toBe(40);
    expect(s.endMs).toBe(60);
    // dash.js drops trace[0] as latency: the rest must hold bytes over real time
    const rest = s.traces.slice(1);
    expect(rest.reduce((a, t) => a + t.bytes, 0)).toBe(50);
    expect(rest.reduce((a, t) => a + t.durationMs, 0)).toBe(20);
  });

  it('always yields at least two traces', () => {
    const log = new ArrivalLog(0, 0);
    log.append(bytes(0, 1000), 8);
    const s = log.extract({ start: 200, end: 299 });
    expect(s.traces.length).toBeGreaterThanOrEqual(2);
    expect(s.traces[0]?.bytes).toBe(0);
  });

  it('refuses ranges not yet received and times going backwards', () => {
    const log = new ArrivalLog(0, 0);
    log.append(bytes(0, 10), 5);
    expect(() => log.extract({ start: 0, end: 10 })).toThrow(/not fully received/);
    expect(() => log.append(bytes(10, 1), 4)).toThrow(/backwards/);
  });

  it('keeps timing after releasing consumed pieces', () => {
    const log = new ArrivalLog(0, 0);
    log.append(bytes(0, 10), 1);
    log.append(bytes(10, 10), 2);
    log.append(bytes(20, 10), 3);
    log.releaseBefore(20);
    const s = log.extract({ start: 20, end: 29 });
    expect(s.startMs).toBe(2);
    expect(Array.from(s.data)).toEqual(Array.from(bytes(20, 10)));
  });
});
