// Unit tests of the periodic sampler (records and error records in a
// JSON-lines file, clean stop), the exit-path clean-up registry, and the delay
// element's statistics output.

import { mkdtempSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { registerCleanup, registeredCleanupCount } from '../../../demo/testbed/cleanup';
import { parseDelayStats } from '../../../demo/testbed/delay-element';
import { readJsonl } from '../../../demo/testbed/jsonl';
import { PeriodicSampler } from '../../../demo/testbed/sampler';

describe('PeriodicSampler', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sampler-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes each sample, records failures and stops cleanly', async () => {
    const out = path.join(dir, 's.jsonl');
    let n = 0;
    const s = new PeriodicSampler({
      name: 'test',
      out,
      intervalMs: 20,
      sample: async (t) => {
        n++;
        if (n === 2) throw new Error('tool failed');
        return [{ kind: 'x', n, t }];
      },
    }).start();
    await new Promise((r) => setTimeout(r, 150));
    const summary = await s.stop();
    const again = await s.stop();
    expect(again).toBe(summary);
    const rows = readJsonl<{ kind: string; n?: number; message?: string }>(out);
    expect(summary.errors).toBe(1);
    expect(rows.find((r) => r.kind === 'error')?.message).toBe('tool failed');
    expect(rows.filter((r) => r.kind === 'x').length).toBe(summary.records);
    expect(summary.records).toBe(n - 1);
    const after = n;
    await new Promise((r) => setTimeout(r, 60));
    expect(n).toBe(after); // no sampling after stop
  });
});

describe('clean-up registry', () => {
  it('registers and unregisters exit-path clean-ups', () => {
    const before = registeredCleanupCount();
    const listeners = process.listenerCount('SIGINT');
    const un = registerCleanup(() => undefined);
    expect(registeredCleanupCount()).toBe(before + 1);
    expect(process.listenerCount('SIGINT')).toBeGreaterThanOrEqual(listeners);
    un();
    expect(registeredCleanupCount()).toBe(before);
  });
});

describe('delay element statistics', () => {
  it('reads the JSON lines printed at exit', () => {
    const out =
      'ready spx1d\n{"direction":"down","delayMs":20,"sent":5,"dropped":0,"lateP50Ms":0.2,"lateP99Ms":1,"lateMaxMs":2,"over1Ms":0,"over2Ms":0}\n';
    expect(parseDelayStats(out)).toEqual([
      { direction: 'down', delayMs: 20, sent: 5, dropped: 0, lateP50Ms: 0.2, lateP99Ms: 1, lateMaxMs: 2, over1Ms: 0, over2Ms: 0 },
    ]);
  });
});
