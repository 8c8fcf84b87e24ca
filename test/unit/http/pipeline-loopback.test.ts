// Sprint's pipelined client (paper §IV-B1) over real loopback TCP against the
// project's demo origin (demo/server/origin.ts), whose access log shows what
// happened on the wire: a train's requests on one connection, each arriving
// before the previous response finished; a keep-alive request limit (answered
// requests complete, the rest are re-issued on a new connection); and the
// origin's HTTP/1.0, close-after-each-response and misordering faults
// reported as pipelineUnsafe. A net.Socket is adapted to ByteTransport here
// (the extension adapts its native host the same way).

import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { startOrigin, type Origin, type OriginOptions } from '../../../demo/server/origin';
import type { PipelineUnsafeReason } from '../../../src/http/connection-state';
import { PipelinedClient, type ConnectionClosed, type RequestFailure, type RequestHandle } from '../../../src/http/pipeline';
import type { ByteRange } from '../../../src/http/request';
import type { ByteTransport } from '../../../src/http/transport';

const WAIT_MS = 10000;
const SEGMENT = 256 * 1024;
const FILE_BYTES = 4 * SEGMENT;

let dir: string;
let file: Buffer;
const origins: Origin[] = [];
const sockets: net.Socket[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sprint-http-'));
  for (const d of ['media', 'page', 'dist']) fs.mkdirSync(path.join(dir, d));
  file = Buffer.alloc(FILE_BYTES);
  for (let i = 0; i < FILE_BYTES; i += 1) file[i] = (i * 13 + 7) % 251;
  fs.writeFileSync(path.join(dir, 'media', 'video.m4s'), file);
});

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(origins.splice(0).map((o) => o.close()));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function origin(faults: OriginOptions = {}): Promise<Origin> {
  const o = await startOrigin({
    mediaDir: path.join(dir, 'media'),
    pageDir: path.join(dir, 'page'),
    distDir: path.join(dir, 'dist'),
    lingerMs: 200,
    ...faults,
  });
  origins.push(o);
  return o;
}

interface Run {
  readonly client: PipelinedClient;
  readonly bodies: Buffer[][];
  readonly failures: Array<RequestFailure | null>;
  readonly unsafe: PipelineUnsafeReason[];
  readonly closed: ConnectionClosed[];
  /** Resolves when every request has completed or failed. */
  settled(): Promise<void>;
  enqueue(range: ByteRange): RequestHandle;
}

/** Opens a loopback connection and wraps it in a PipelinedClient (the ByteTransport adapter lives here). */
async function connect(port: number): Promise<Run> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const transport: ByteTransport = {
    write: (b) => void socket.write(b),
    close: () => void socket.destroy(),
  };
  const unsafe: PipelineUnsafeReason[] = [];
  const closed: ConnectionClosed[] = [];
  const client = new PipelinedClient(transport, { onPipelineUnsafe: (r) => unsafe.push(r), onClosed: (c) => closed.push(c) });
  let ended = false;
  socket.on('data', (chunk: Buffer) => client.onData(chunk, performance.now()));
  socket.on('end', () => {
    ended = true;
    client.onClose({ kind: 'eof', message: 'FIN' }, performance.now());
  });
  socket.on('error', (err) => {
    ended = true;
    client.onClose({ kind: 'error', message: err.message }, performance.now());
  });
  socket.on('close', () => {
    if (!ended) client.onClose({ kind: 'local', message: 'socket closed' }, performance.now());
  });

  const bodies: Buffer[][] = [];
  const failures: Array<RequestFailure | null> = [];
  let open = 0;
  let wake: (() => void) | null = null;
  const done = () => {
    open -= 1;
    if (open === 0) wake?.();
  };
  return {
    client,
    bodies,
    failures,
    unsafe,
    closed,
    enqueue(range) {
      const k = bodies.length;
      bodies.push([]);
      failures.push(null);
      open += 1;
      return client.enqueue(
        { host: `127.0.0.1:${port}`, target: '/media/video.m4s', range, userAgent: 'sprint-test' },
        {
          onBody: (p) => (bodies[k] as Buffer[]).push(Buffer.from(p)),
          onComplete: done,
          onFailed: (f) => {
            failures[k] = f;
            done();
          },
        },
      );
    },
    settled: () =>
      open === 0
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const t = setTimeout(() => reject(new Error(`${open} request(s) not settled after ${WAIT_MS} ms`)), WAIT_MS);
            wake = () => {
              clearTimeout(t);
              resolve();
            };
          }),
  };
}

const segment = (k: number): ByteRange => ({ first: k * SEGMENT, last: (k + 1) * SEGMENT - 1 });
const expected = (k: number): Buffer => file.subarray(k * SEGMENT, (k + 1) * SEGMENT);

async function waitForRecords(o: Origin, n: number): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (o.records().length < n) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} access records (have ${o.records().length})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a train of 4 on one connection: request k+1 arrives before response k ends; bytes exact', async () => {
  const o = await origin();
  const run = await connect(o.port);
  for (let k = 0; k < 4; k += 1) run.enqueue(segment(k));
  expect(run.client.inFlight).toBe(4);
  expect(run.client.inFlightBytes).toBe(FILE_BYTES);
  await run.settled();
  expect(run.failures).toEqual([null, null, null, null]);
  for (let k = 0; k < 4; k += 1) expect(Buffer.concat(run.bodies[k] as Buffer[]).equals(expected(k))).toBe(true);
  await waitForRecords(o, 4);
  const recs = o.records();
  expect(new Set(recs.map((r) => r.conn)).size).toBe(1);
  expect(recs.map((r) => [r.seq, r.status, r.range])).toEqual(
    [0, 1, 2, 3].map((k) => [k, 206, `bytes=${k * SEGMENT}-${(k + 1) * SEGMENT - 1}`]),
  );
  for (let k = 0; k < 3; k += 1)
    expect((recs[k + 1] as (typeof recs)[number]).arrival).toBeLessThan((recs[k] as (typeof recs)[number]).end);
  expect(run.unsafe).toEqual([]);
  run.client.close();
});

test('keep-alive request limit: 2 of 4 answered, the other 2 re-issued on a new connection', async () => {
  const o = await origin({ maxRequestsPerConnection: 2 });
  const first = await connect(o.port);
  for (let k = 0; k < 4; k += 1) first.enqueue(segment(k));
  await first.settled();
  expect(first.failures.map((f) => f?.code ?? 'ok')).toEqual(['ok', 'ok', 'connection-closed', 'connection-closed']);
  expect(first.unsafe).toEqual([]);
  const retry = first.closed[0]?.retry ?? [];
  expect(retry.map((h) => h.request.range)).toEqual([segment(2), segment(3)]);

  const second = await connect(o.port);
  for (const h of retry) second.enqueue(h.request.range as ByteRange);
  await second.settled();
  expect(second.failures).toEqual([null, null]);
  const all = [...(first.bodies.slice(0, 2) as Buffer[][]), ...(second.bodies as Buffer[][])].map((b) => Buffer.concat(b));
  expect(Buffer.concat(all).equals(file)).toBe(true);
  await waitForRecords(o, 6);
  const answered = o.records().filter((r) => r.complete);
  expect(answered.map((r) => [r.conn, r.seq])).toEqual([
    [1, 0],
    [1, 1],
    [2, 0],
    [2, 1],
  ]);
  second.client.close();
});

test.each([
  ['http10', 'http-1.0', { http10: true }],
  ['closeAfterEachResponse', 'closes-after-each-response', { closeAfterEachResponse: true }],
  ['misorderResponses', 'mismatched-response', { misorderResponses: true, delayMs: 50 }],
] as Array<[string, string, OriginOptions]>)(
  'origin fault %s → pipelineUnsafe %s, nothing delivered wrong',
  async (_name, code, faults) => {
    const o = await origin(faults);
    const run = await connect(o.port);
    for (let k = 0; k < 3; k += 1) run.enqueue(segment(k));
    await run.settled();
    expect(run.unsafe.map((u) => u.code)).toEqual([code]);
    expect(run.closed[0]?.pipelineUnsafe?.code).toBe(code);
    run.failures.forEach((f, k) => {
      if (f === null) expect(Buffer.concat(run.bodies[k] as Buffer[]).equals(expected(k))).toBe(true);
      else expect(f.retryable).toBe(true);
    });
    expect(run.failures.filter((f) => f !== null).length).toBeGreaterThan(0);
  },
);
