// Unit tests of byte binning (demo/testbed/bins.ts), JSON-lines files and the
// conversion of wire-capture records into per-flow series (wire-series.ts).

import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Bin, Binner } from '../../../demo/testbed/bins';
import { JsonlWriter, readJsonl } from '../../../demo/testbed/jsonl';
import { readWireSeries, seriesFromWireRecords, WireRecord } from '../../../demo/testbed/wire-series';

describe('Binner', () => {
  it('emits aligned, gap-free bins with per-flow counts', () => {
    const bins: Array<{ startMs: number; flows: Record<string, number> }> = [];
    const b = new Binner(100, (bin: Bin) =>
      bins.push({ startMs: bin.startMs, flows: Object.fromEntries([...bin.flows].map(([k, c]) => [k, c.bytes])) }),
    );
    b.start(1050);
    b.add('8001', 1060, 10, 76);
    b.add('8002', 1099, 5);
    b.add('8001', 1350, 7); // bins 1100 and 1200 are idle
    b.finish(1360);
    expect(bins).toEqual([
      { startMs: 1000, flows: { '8001': 10, '8002': 5 } },
      { startMs: 1100, flows: {} },
      { startMs: 1200, flows: {} },
      { startMs: 1300, flows: { '8001': 7 } },
    ]);
  });

  it('counts a late sample into the open bin instead of rewriting history', () => {
    const out: number[] = [];
    const b = new Binner(100, (bin) => out.push(bin.flows.get('x')?.bytes ?? 0));
    b.add('x', 250, 1);
    b.advance(400);
    b.add('x', 310, 2); // time already advanced past 300–400
    b.finish(450);
    expect(out).toEqual([1, 0, 2]);
  });

  it('rejects bad widths and samples', () => {
    expect(() => new Binner(0, () => undefined)).toThrow(/positive/);
    expect(() => new Binner(100, () => undefined).add('x', NaN, 1)).toThrow(/bad sample/);
  });
});

describe('JSON lines and wire series', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'testbed-unit-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes and reads records; tolerates only a partial last line', async () => {
    const file = path.join(dir, 'a.jsonl');
    const w = new JsonlWriter(file);
    w.write({ a: 1 });
    w.write({ b: 2 });
    await w.close();
    expect(() => w.write({ c: 3 })).toThrow(/closed/);
    expect(readJsonl(file)).toEqual([{ a: 1 }, { b: 2 }]);
    writeFileSync(file, '{"a":1}\n{"b":');
    expect(readJsonl(file)).toEqual([{ a: 1 }]);
    writeFileSync(file, '{"a":1}\nxx\n{"b":2}\n');
    expect(() => readJsonl(file)).toThrow(/a\.jsonl:2: not JSON/);
  });

  it('zero-fills flows over the whole capture', () => {
    const recs: WireRecord[] = [
      { kind: 'wire', t: 10.0, binMs: 100, flows: { '8001': { bytes: 100, wireBytes: 166, packets: 1 } } },
      { kind: 'wire', t: 10.1, binMs: 100, flows: {} },
      {
        kind: 'wire',
        t: 10.2,
        binMs: 100,
        flows: { '8002': { bytes: 50, wireBytes: 116, packets: 1 }, '8001': { bytes: 1, wireBytes: 67, packets: 1 } },
      },
    ];
    const s = seriesFromWireRecords(recs);
    expect(s.t0S).toBe(10);
    expect(s.binS).toBeCloseTo(0.1, 12);
    expect(s.bytes).toEqual({ '8001': [100, 0, 1], '8002': [0, 0, 50] });
    expect(seriesFromWireRecords(recs, 'wireBytes').bytes['8001']).toEqual([166, 0, 67]);
    const file = path.join(dir, 'wire.jsonl');
    writeFileSync(file, `${recs.map((r) => JSON.stringify(r)).join('\n')}\n{"kind":"capture-stop"}\n`);
    expect(readWireSeries(file).bytes).toEqual(s.bytes);
  });

  it('refuses records with mixed bin widths', () => {
    expect(() =>
      seriesFromWireRecords([
        { kind: 'wire', t: 0, binMs: 100, flows: {} },
        { kind: 'wire', t: 1, binMs: 50, flows: {} },
      ]),
    ).toThrow(/mix bin widths/);
  });
});
