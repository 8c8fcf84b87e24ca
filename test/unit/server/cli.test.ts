// `sprint serve`: argument mapping, clear usage errors, and a real run that
// prints its URL, serves, and closes cleanly when told to stop.

import * as fs from 'fs';
import * as path from 'path';
import { main, parseServeArgs } from '../../../demo/server/cli';
import { fetchRaw, makeFixture, request, type Fixture } from './helpers';
import { captureIo } from '../capture-io';

let fx: Fixture;
beforeAll(() => {
  fx = makeFixture();
});
afterAll(() => fx.remove());

describe('sprint serve arguments', () => {
  test('defaults', () => {
    expect(parseServeArgs([])).toEqual({ host: '127.0.0.1', port: 8080 });
  });

  test('every option maps to an origin option', () => {
    expect(
      parseServeArgs([
        '--host',
        '0.0.0.0',
        '--port',
        '0',
        '--media',
        'm',
        '--page',
        'p',
        '--dist',
        'd',
        '--log',
        'l.jsonl',
        '--max-header-bytes',
        '8kb',
        '--max-queued-requests',
        '8',
        '--idle-timeout',
        '30s',
        '--max-bulk-bytes',
        '1gb',
        '--no-range',
        '--no-cors',
        '--max-requests-per-connection',
        '100',
        '--close-after-each-response',
        '--http10',
        '--reset-after-bytes',
        '64kb',
        '--reset-count',
        'every',
        '--reset-with',
        'rst',
        '--delay',
        '50ms',
        '--latency',
        '600ms',
        '--misorder-responses',
      ]),
    ).toEqual({
      host: '0.0.0.0',
      port: 0,
      mediaDir: 'm',
      pageDir: 'p',
      distDir: 'd',
      logFile: 'l.jsonl',
      maxHeaderBytes: 8192,
      maxQueuedRequests: 8,
      idleTimeoutMs: 30000,
      maxBulkBytes: 1024 ** 3,
      noRange: true,
      noCors: true,
      maxRequestsPerConnection: 100,
      closeAfterEachResponse: true,
      http10: true,
      resetAfterBytes: 65536,
      resetCount: Number.POSITIVE_INFINITY,
      resetWith: 'rst',
      delayMs: 50,
      latencyMs: 600,
      misorderResponses: true,
    });
  });

  test.each([
    [['--port', '70000'], /--port/],
    [['--port', 'x'], /--port/],
    [['--bogus'], /unknown option --bogus/],
    [['--reset-with', 'rst'], /need --reset-after-bytes/],
    [['--fault-path', 'rep-4.mp4'], /need --reset-after-bytes/],
    [['--reset-after-bytes', '1', '--reset-with', 'maybe'], /fin, rst or stall/],
    [['--delay', '50'], /--delay.*no unit/],
    [['--max-requests-per-connection', '0'], /--max-requests-per-connection/],
  ])('%j → exit 2 with a clear message', async (argv, message) => {
    const c = captureIo();
    expect(await main(argv, c.io)).toBe(2);
    expect(c.err()).toMatch(message);
  });

  test('--help prints usage', async () => {
    const c = captureIo();
    expect(await main(['--help'], c.io)).toBe(0);
    expect(c.out()).toMatch(/Usage: sprint serve/);
  });
});

describe('sprint serve run', () => {
  test('prints the URL, serves, closes on stop and flushes the log', async () => {
    const log = path.join(fx.root, 'cli.jsonl');
    const c = captureIo();
    const stop = new AbortController();
    const run = main(
      ['--port', '0', '--media', fx.mediaDir, '--page', fx.pageDir, '--dist', fx.distDir, '--log', log, '--no-cors'],
      c.io,
      stop.signal,
    );
    try {
      const deadline = Date.now() + 10000;
      while (!c.out().includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const url = c.out().split('\n')[0] as string;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const r = await fetchRaw(Number(new URL(url).port), request('/media/manifest.mpd'));
      expect(r.body.toString()).toBe('<MPD/>\n');
      expect(r.headers.has('access-control-allow-origin')).toBe(false);
    } finally {
      stop.abort();
    }
    expect(await run).toBe(0);
    const lines = fs.readFileSync(log, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ url: '/media/manifest.mpd', status: 200 });
  });

  test('a port in use is reported, exit 1', async () => {
    const first = captureIo();
    const stop = new AbortController();
    const run = main(['--port', '0', '--media', fx.mediaDir, '--page', fx.pageDir, '--dist', fx.distDir], first.io, stop.signal);
    try {
      const deadline = Date.now() + 10000;
      while (!first.out().includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const port = new URL(first.out().split('\n')[0] as string).port;
      const second = captureIo();
      expect(await main(['--port', port, '--media', fx.mediaDir], second.io)).toBe(1);
      expect(second.err()).toMatch(/cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/);
    } finally {
      stop.abort();
    }
    expect(await run).toBe(0);
  });
});
