// The flow client (bulk and sequential-segment downloads) against a real HTTP
// server on loopback: every byte the server sent is counted in the client's
// bins, requests are logged, a bulk body that ends early is re-requested, and
// the run stops at its duration.

import { mkdtempSync, rmSync } from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { runFlowClient } from '../../../demo/testbed/flow-client';
import { readJsonl } from '../../../demo/testbed/jsonl';
import { startOrigin } from '../../../demo/server/origin';
import { makeFixture } from '../server/helpers';

describe('flow client over loopback', () => {
  let server: http.Server;
  let port: number;
  let sentBytes = 0;
  let requests = 0;
  let dir: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests++;
      const m = /bytes=(\d+)/.exec(req.url ?? '');
      const size = Math.min(Number(m?.[1] ?? 0), 200_000); // a "bulk" body that ends early
      res.writeHead(200, { 'content-length': size });
      sentBytes += size;
      res.end(Buffer.alloc(size, 7));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'flow-client-'));
    sentBytes = 0;
    requests = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts every received byte into bins and re-requests a finished download', async () => {
    const out = path.join(dir, 'bulk.jsonl');
    const summary = await runFlowClient({ host: '127.0.0.1', port, path: '/bulk?bytes=100000000000', durationS: 0.6, out, label: 'bulk' });
    const records = readJsonl<{ kind: string; bytes?: number; complete?: boolean }>(out);
    const binned = records.filter((r) => r.kind === 'bin').reduce((s, r) => s + (r.bytes ?? 0), 0);
    expect(summary.bytes).toBeGreaterThan(0);
    expect(binned).toBe(summary.bytes);
    expect(summary.completed).toBeGreaterThan(1); // restarted after the body ended
    expect(records.filter((r) => r.kind === 'request').length).toBe(summary.requests);
    expect(records[0]?.kind).toBe('start');
    expect(records[records.length - 1]).toMatchObject({ kind: 'stop', bytes: summary.bytes });
    // Bytes the server sent = bytes received, except the request cut at the deadline.
    expect(sentBytes - summary.bytes).toBeLessThanOrEqual(200_000);
    expect(requests).toBe(summary.requests);
  });

  it('logs connection errors and keeps retrying until the duration ends', async () => {
    const out = path.join(dir, 'err.jsonl');
    const summary = await runFlowClient({
      host: '127.0.0.1',
      port: 1,
      path: '/bulk?bytes=1',
      durationS: 0.5,
      out,
      label: 'x',
      retryMs: 100,
    });
    expect(summary.bytes).toBe(0);
    expect(summary.errors).toBeGreaterThanOrEqual(2);
    const errs = readJsonl<{ kind: string; error?: string }>(out).filter((r) => r.kind === 'request');
    expect(errs[0]?.error).toMatch(/ECONNREFUSED/);
  });

  it('rejects a bad port with the flow name', async () => {
    await expect(
      runFlowClient({ host: '127.0.0.1', port: 0, path: '/', durationS: 1, out: path.join(dir, 'x'), label: 'seq' }),
    ).rejects.toThrow(/seq: bad port/);
  });

  // pipeline N keeps N requests outstanding on one connection (Sprint's train
  // with no browser): judged from the project's origin's access log.
  it('with pipeline 3, keeps its requests on one connection, each arriving before the response ahead of it ended', async () => {
    const fx = makeFixture();
    // 8 Mbit/s: a 100 KB response takes ~100 ms, long enough for the next request to arrive during it
    const origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, rateLimitBitsPerSec: 8e6 });
    try {
      const out = path.join(dir, 'pipelined.jsonl');
      const url = new URL(origin.url);
      const summary = await runFlowClient({
        host: url.hostname,
        port: Number(url.port),
        path: '/bulk?bytes=100000',
        durationS: 1.5,
        out,
        label: 'train',
        pipeline: 3,
      });
      expect(summary.completed).toBeGreaterThanOrEqual(5);
      const records = readJsonl<{ kind: string; bytes?: number }>(out);
      expect(records.filter((r) => r.kind === 'bin').reduce((a, r) => a + (r.bytes ?? 0), 0)).toBe(summary.bytes);
      const bulk = origin.records().filter((r) => r.url?.startsWith('/bulk'));
      expect(new Set(bulk.map((r) => r.conn)).size).toBe(1);
      const answered = bulk.filter((r) => r.complete).sort((a, b) => a.seq - b.seq);
      expect(answered.length).toBe(summary.completed);
      for (let i = 1; i < answered.length; i++) expect(answered[i]!.arrival).toBeLessThan(answered[i - 1]!.end);
    } finally {
      await origin.close();
      fx.remove();
    }
  });

  it('refuses a pipeline depth outside 1..64', async () => {
    await expect(
      runFlowClient({ host: '127.0.0.1', port: 80, path: '/', durationS: 1, out: path.join(dir, 'x'), label: 'seq', pipeline: 0 }),
    ).rejects.toThrow(/seq: pipeline must be 1\.\.64, got 0/);
  });
});
