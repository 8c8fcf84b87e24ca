// `sprint serve --h2` (demo/server/cli.ts): the flag and its companions map to
// the HTTP/2 origin's options, HTTP/1.1-only flags are refused with a clear
// message, and a real run prints the https URL, the certificate's SPKI hash
// and the Chromium flag that trusts it — the hash being that of the
// certificate a client actually receives.

import { X509Certificate, createHash } from 'crypto';
import * as fs from 'fs';
import * as http2 from 'http2';
import * as path from 'path';
import type { TLSSocket } from 'tls';
import { main, parseServeArgs } from '../../../demo/server/cli';
import { makeSelfSignedCert } from '../../../demo/server/tls-cert';
import { makeFixture, type Fixture } from './helpers';
import { captureIo } from '../capture-io';

let fx: Fixture;
beforeAll(() => {
  fx = makeFixture();
});
afterAll(() => fx.remove());

describe('sprint serve --h2 arguments', () => {
  test('--h2 alone: HTTP/2 on 8443', () => {
    expect(parseServeArgs(['--h2'])).toEqual({ host: '127.0.0.1', port: 8443, h2: true });
  });

  test('options that apply to HTTP/2 map as for HTTP/1.1', () => {
    expect(
      parseServeArgs([
        '--h2',
        '--port',
        '0',
        '--log',
        'l.jsonl',
        '--no-cors',
        '--no-range',
        '--delay',
        '5ms',
        '--rate-limit',
        '8mbit',
        '--cert',
        'c.pem',
        '--key',
        'k.pem',
      ]),
    ).toEqual({
      host: '127.0.0.1',
      port: 0,
      logFile: 'l.jsonl',
      noCors: true,
      noRange: true,
      delayMs: 5,
      rateLimitBitsPerSec: 8e6,
      h2: true,
      certFile: 'c.pem',
      keyFile: 'k.pem',
    });
  });

  test.each([
    [['--h2', '--http10'], /--http10: HTTP\/1.1 connection options, not available with --h2/],
    [['--h2', '--reset-after-bytes', '10', '--misorder-responses'], /--reset-after-bytes, --misorder-responses: HTTP\/1.1/],
    [['--h2', '--cert', 'c.pem'], /--cert and --key go together/],
    [['--cert', 'c.pem', '--key', 'k.pem'], /need --h2/],
  ])('%j → exit 2 with a clear message', async (argv, message) => {
    const c = captureIo();
    expect(await main(argv, c.io)).toBe(2);
    expect(c.err()).toMatch(message);
  });

  test('--help documents --h2', async () => {
    const c = captureIo();
    expect(await main(['--help'], c.io)).toBe(0);
    expect(c.out()).toMatch(/--h2 .*HTTP\/2/);
    expect(c.out()).toMatch(/--ignore-certificate-errors-spki-list/);
  });

  test('unreadable --cert is exit 2 naming the file', async () => {
    const c = captureIo();
    expect(
      await main(['--h2', '--port', '0', '--cert', path.join(fx.root, 'nope.pem'), '--key', path.join(fx.root, 'nope.key')], c.io),
    ).toBe(2);
    expect(c.err()).toMatch(/--cert .*nope\.pem/);
  });
});

/** Runs `sprint serve` with argv until the URL is printed; returns its stdout lines and a stop function. */
async function run(argv: string[]): Promise<{ lines: string[]; stop: () => Promise<number>; err: () => string }> {
  const c = captureIo();
  const stop = new AbortController();
  const done = main(argv, c.io, stop.signal);
  const deadline = Date.now() + 15000;
  while (!c.out().includes('chromium flag')) {
    if (Date.now() > deadline) {
      stop.abort();
      await done;
      throw new Error(`sprint serve --h2 printed no flag line within 15 s; stderr: ${c.err()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    lines: c.out().trim().split('\n'),
    stop: async () => {
      stop.abort();
      return done;
    },
    err: c.err,
  };
}

/** GET /probe over HTTP/2 without verifying the certificate; resolves with the body and the server's SPKI hash. */
function probe(url: string): Promise<{ body: string; spki: string }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url, { rejectUnauthorized: false });
    session.once('error', reject);
    const req = session.request({ ':path': '/probe' });
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('error', reject);
    req.on('end', () => {
      const raw = (session.socket as TLSSocket).getPeerCertificate().raw;
      const der = new X509Certificate(raw).publicKey.export({ type: 'spki', format: 'der' });
      session.close();
      resolve({ body: Buffer.concat(chunks).toString(), spki: createHash('sha256').update(der).digest('base64') });
    });
  });
}

describe('sprint serve --h2 run', () => {
  const dirs = (): string[] => ['--media', fx.mediaDir, '--page', fx.pageDir, '--dist', fx.distDir];

  test('prints the https URL, the SPKI hash of the certificate served and the Chromium flag', async () => {
    const r = await run(['--h2', '--port', '0', ...dirs()]);
    try {
      const [url, hashLine, flagLine] = r.lines;
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
      const hash = /^spki-sha256 (\S+)$/.exec(hashLine ?? '')?.[1];
      expect(hash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      expect(flagLine).toBe(`chromium flag: --ignore-certificate-errors-spki-list=${hash}`);
      const got = await probe((url as string).replace(/\/$/, ''));
      expect(got.body).toBe('ok');
      expect(got.spki).toBe(hash);
    } finally {
      expect(await r.stop()).toBe(0);
    }
    expect(r.err()).toMatch(/closed \(1 requests logged/);
  });

  test('--cert/--key serve the given certificate', async () => {
    const id = makeSelfSignedCert();
    const certFile = path.join(fx.root, 'cert.pem');
    const keyFile = path.join(fx.root, 'key.pem');
    fs.writeFileSync(certFile, id.cert);
    fs.writeFileSync(keyFile, id.key);
    const r = await run(['--h2', '--port', '0', '--cert', certFile, '--key', keyFile, ...dirs()]);
    try {
      expect(r.lines[1]).toBe(`spki-sha256 ${id.spkiHash}`);
      const got = await probe((r.lines[0] as string).replace(/\/$/, ''));
      expect(got.spki).toBe(id.spkiHash);
    } finally {
      expect(await r.stop()).toBe(0);
    }
  });
});
