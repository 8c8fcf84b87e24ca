// Unit tests of the progress bar with ETA (demo/harness/progress.ts) and of
// the DevTools pipe transport's message framing (demo/harness/pipe-transport.ts).

import { PassThrough } from 'stream';
import { NulSplitter, PipeTransport } from '../../../demo/harness/pipe-transport';
import { etaSeconds, fractionDone, Progress, progressLine } from '../../../demo/harness/progress';

describe('progress', () => {
  it('estimates the time left from the schedule and the measured overhead', () => {
    const state = { scheduleS: [100, 100, 100], done: 1, currentElapsedS: 40, overheadS: 10, elapsedS: 150 };
    // 60 s left of run 2, 100 s of run 3, overhead for runs 2 and 3.
    expect(etaSeconds(state)).toBe(60 + 100 + 20);
    expect(fractionDone(state)).toBeCloseTo(1 - 180 / 330, 6);
    expect(etaSeconds({ ...state, done: 3 })).toBe(0);
    expect(progressLine(state, '3mbit-256kb stock r1')).toMatch(
      /^\[#+-+\]\s+45% run 2\/3 3mbit-256kb stock r1 00:40\/01:40 \| elapsed 02:30 \| ETA 03:00$/,
    );
  });

  it('prints whole lines when not on a terminal, and redraws one line on a terminal', () => {
    let now = 0;
    const plain: string[] = [];
    const p = new Progress([60, 60], { write: (s: string) => plain.push(s) }, () => now);
    p.startRun('a');
    for (let i = 1; i <= 30; i++) {
      now = i * 1000;
      p.tick(i);
    }
    p.message('a: done');
    now = 75_000;
    p.endRun();
    expect(plain.every((s) => s.endsWith('\n'))).toBe(true);
    expect(plain.filter((s) => s.startsWith('['))).toHaveLength(1); // a minute has not passed since the first line
    const tty: string[] = [];
    const q = new Progress([60], { write: (s: string) => tty.push(s), isTTY: true, columns: 200 }, () => now);
    q.startRun('b');
    q.tick(5);
    q.message('hello');
    q.finish();
    expect(tty[0]).toMatch(/^\r\[.*\x1b\[K$/);
    expect(tty).toContain('hello\n');
    expect(tty[tty.length - 1]).toBe('\r\x1b[K');
  });
});

describe('DevTools pipe framing', () => {
  it('splits NUL-terminated messages across arbitrary chunks', () => {
    const s = new NulSplitter();
    expect(s.push(Buffer.from('{"id":1}\0{"id"'))).toEqual(['{"id":1}']);
    expect(s.push(Buffer.from(':2'))).toEqual([]);
    expect(s.push(Buffer.from('}\0{"id":3}\0'))).toEqual(['{"id":2}', '{"id":3}']);
    // A multi-byte character split between chunks survives.
    const bytes = Buffer.from('"é"\0');
    expect([...s.push(bytes.subarray(0, 2)), ...s.push(bytes.subarray(2))]).toEqual(['"é"']);
  });

  it('writes each message with a NUL and delivers what the browser sends', async () => {
    const toBrowser = new PassThrough();
    const fromBrowser = new PassThrough();
    const t = new PipeTransport(toBrowser, fromBrowser);
    const got: string[] = [];
    t.onmessage = (m) => got.push(m);
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    t.send('{"method":"Browser.getVersion"}');
    expect(toBrowser.read().toString()).toBe('{"method":"Browser.getVersion"}\0');
    fromBrowser.write('{"id":1,"result":{}}\0');
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['{"id":1,"result":{}}']);
    fromBrowser.end();
    fromBrowser.resume();
    await closed;
  });
});
