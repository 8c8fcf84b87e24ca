// The origin's access log as tests and the evaluation harness read it: a
// JSON-lines file with every field, the in-memory ring and 'request' events,
// and close() ending every connection with its records flushed.

import * as fs from 'fs';
import * as path from 'path';
import { startOrigin, type AccessRecord } from '../../../demo/server/origin';
import { makeFixture, patternBytes, RawClient, request, waitForRecords, type Fixture } from './helpers';

let fx: Fixture;
beforeAll(() => {
  fx = makeFixture();
  fs.writeFileSync(path.join(fx.mediaDir, 'big.m4s'), patternBytes(16 * 1024 * 1024));
});
afterAll(() => fx.remove());

const FIELDS = [
  'conn',
  'seq',
  'remote',
  'method',
  'url',
  'version',
  'range',
  'rangeOutcome',
  'status',
  'bytes',
  'headBytes',
  'bodyBytesExpected',
  'arrival',
  'start',
  'end',
  'complete',
  'error',
  'connectionClose',
  'userAgent',
].sort();

describe('access log', () => {
  test('JSON lines file with every field, matching the in-memory records and events', async () => {
    const logFile = path.join(fx.root, 'access.jsonl');
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, logFile });
    const events: AccessRecord[] = [];
    origin.on('request', (r) => events.push(r));
    const c = await RawClient.connect(origin.port);
    const heads: string[] = [];
    try {
      c.send(request('/media/video.m4s', { Range: 'bytes=10-19', 'User-Agent': 'jest-raw' }) + request('/probe'));
      heads.push((await c.readResponse()).rawHead, (await c.readResponse()).rawHead);
    } finally {
      await c.close();
    }
    const second = await RawClient.connect(origin.port);
    second.send(request('/media/missing.m4s'));
    await second.readResponse();
    await second.close();
    await waitForRecords(origin, 3);
    await origin.close();

    const lines = fs.readFileSync(logFile, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const recs = lines.map((l) => JSON.parse(l) as AccessRecord);
    for (const r of recs) expect(Object.keys(r).sort()).toEqual(FIELDS);
    expect(recs).toEqual(origin.records());
    expect(recs).toEqual(events);

    const [a, b, m] = recs as [AccessRecord, AccessRecord, AccessRecord];
    expect(a).toMatchObject({
      conn: 1,
      seq: 0,
      method: 'GET',
      url: '/media/video.m4s',
      version: 'HTTP/1.1',
      range: 'bytes=10-19',
      rangeOutcome: 'partial',
      status: 206,
      bytes: 10,
      bodyBytesExpected: 10,
      complete: true,
      error: null,
      connectionClose: false,
      userAgent: 'jest-raw',
    });
    expect(a.remote).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(b).toMatchObject({ conn: 1, seq: 1, url: '/probe', range: null, status: 200, bytes: 2, userAgent: null });
    // The heads' bytes as the client read them (rawHead stops before the closing CRLF CRLF).
    expect([a.headBytes, b.headBytes]).toEqual(heads.map((h) => Buffer.byteLength(h, 'latin1') + 4));
    expect(m).toMatchObject({ conn: 2, seq: 0, status: 404 });
    for (const r of recs) {
      // Epoch milliseconds, ordered within a record.
      expect(r.arrival).toBeGreaterThan(1.6e12);
      expect(r.start!).toBeGreaterThanOrEqual(r.arrival);
      expect(r.end).toBeGreaterThanOrEqual(r.start!);
    }
    expect(b.start!).toBeGreaterThanOrEqual(a.end);
  });

  test('the file is appended to, not replaced', async () => {
    const logFile = path.join(fx.root, 'append.jsonl');
    fs.writeFileSync(logFile, '{"earlier":true}\n');
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, logFile });
    const c = await RawClient.connect(origin.port);
    c.send(request('/probe'));
    await c.readResponse();
    await c.close();
    await waitForRecords(origin, 1);
    await origin.close();
    const lines = fs.readFileSync(logFile, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] as string)).toEqual({ earlier: true });
  });

  test('an unwritable log path fails at start with the path in the message', async () => {
    const bad = path.join(fx.root, 'no-such-dir', 'x.jsonl');
    await expect(startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, logFile: bad })).rejects.toThrow(
      /no-such-dir/,
    );
  });

  test('the ring keeps the newest records', async () => {
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, logRingSize: 3 });
    let seen = 0;
    origin.on('request', () => {
      seen += 1;
    });
    const c = await RawClient.connect(origin.port);
    try {
      c.send(Array.from({ length: 5 }, (_, i) => request(`/bulk?bytes=${i}`)).join(''));
      for (let i = 0; i < 5; i += 1) await c.readResponse();
    } finally {
      await c.close();
      const deadline = Date.now() + 5000;
      while (seen < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await origin.close();
    }
    expect(seen).toBe(5);
    expect(origin.records().map((r) => r.seq)).toEqual([2, 3, 4]);
  });

  test('close() ends every connection, logs the response it cut and flushes the file', async () => {
    const logFile = path.join(fx.root, 'close.jsonl');
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, logFile });
    const idle = await RawClient.connect(origin.port);
    idle.send(request('/probe'));
    await idle.readResponse();
    const busy = await RawClient.connect(origin.port);
    busy.send(request('/media/big.m4s') + request('/probe'));
    await busy.waitReceived(10000);
    busy.socket.pause(); // keep the big response in progress
    expect(origin.stats().connectionsOpen).toBe(2);

    await origin.close();
    expect(origin.stats().connectionsOpen).toBe(0);
    busy.socket.resume();
    await idle.waitEnd();
    await busy.waitEnd();
    await Promise.all([idle.close(), busy.close()]);

    const recs = fs
      .readFileSync(logFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as AccessRecord);
    expect(recs.map((r) => [r.conn, r.seq, r.complete, r.error])).toEqual([
      [1, 0, true, null],
      [2, 0, false, 'server-closed'],
      [2, 1, false, 'not-answered'],
    ]);
    // A second close is harmless; the port no longer accepts connections.
    await origin.close();
    await expect(RawClient.connect(origin.port)).rejects.toThrow(/ECONNREFUSED/);
  });
});
