// nginx as the HTTPS + HTTP/2 origin (demo/server/nginx-origin.ts --h2, the
// A/B harness's `--origin nginx-h2`): the configuration (ssl + http2 on the
// listen line, the certificate, Timing-Allow-Origin), the CLI's argument
// checks, and — with nginx installed — a real nginx on loopback serving Range
// requests as concurrent streams of one HTTP/2 connection (its access log
// shows one connection and HTTP/2.0), with the certificate made per run.

import { spawn } from 'child_process';
import * as fs from 'fs';
import * as http2 from 'http2';
import * as path from 'path';
import { nginxConfig } from '../../../demo/server/nginx-origin';
import { makeSelfSignedCert, type TlsIdentity } from '../../../demo/server/tls-cert';
import { HAVE_NGINX as haveNginx, NGINX_CLI as cli, startNginxCli, type NginxCliOrigin } from './nginx-cli-fixture';

describe('nginxConfig with tls', () => {
  const base = { host: '10.201.1.2', port: 8001, prefix: '/tmp/p', mediaDir: '/m', pageDir: '/pg', distDir: '/d/', logPath: '/tmp/a.log' };

  it('listens with ssl and http2 and names the certificate and key', () => {
    const c = nginxConfig({ ...base, tls: { certFile: '/t/cert.pem', keyFile: '/t/key.pem' } });
    expect(c).toContain('listen 10.201.1.2:8001 ssl http2;');
    expect(c).toContain('ssl_certificate "/t/cert.pem";');
    expect(c).toContain('ssl_certificate_key "/t/key.pem";');
    expect(c).toContain('add_header Timing-Allow-Origin "*" always;');
    expect(nginxConfig(base)).not.toMatch(/ssl|http2/);
  });

  it('refuses certificate paths nginx would misread', () => {
    expect(() => nginxConfig({ ...base, tls: { certFile: '/t/c";', keyFile: '/t/k' } })).toThrow(/unsupported character/);
  });
});

function runCli(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
    child.once('exit', (code) => resolve({ code, err }));
  });
}

describe('nginx-origin --h2 arguments', () => {
  beforeAll(() => {
    if (!fs.existsSync(cli)) throw new Error(`${cli} is not built: run npm run build:node`);
  });
  it('--h2 without --cert/--key is exit 2 saying so', async () => {
    const r = await runCli(['--h2']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--h2 needs --cert FILE and --key FILE/);
  });
  it('--cert without --h2 is exit 2', async () => {
    const r = await runCli(['--cert', 'a', '--key', 'b']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/need --h2/);
  });
});

(haveNginx ? describe : describe.skip)('nginx --h2 on loopback', () => {
  let origin: NginxCliOrigin;
  let port: number;
  let file: Buffer;
  let id: TlsIdentity;

  beforeAll(async () => {
    id = makeSelfSignedCert({ hosts: ['127.0.0.1'] });
    origin = await startNginxCli('nginx-h2', (dir) => {
      fs.writeFileSync(path.join(dir, 'cert.pem'), id.cert);
      fs.writeFileSync(path.join(dir, 'key.pem'), id.key, { mode: 0o600 });
      return ['--h2', '--cert', path.join(dir, 'cert.pem'), '--key', path.join(dir, 'key.pem')];
    });
    ({ port, file } = origin);
    expect(origin.url).toBe(`https://127.0.0.1:${port}/`);
  });

  afterAll(async () => {
    await origin?.stop();
  });

  it('answers Range requests as concurrent streams of one HTTP/2 connection, with CORS and Timing-Allow-Origin', async () => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca: id.cert });
    try {
      const get = (start: number, end: number): Promise<{ headers: http2.IncomingHttpHeaders; body: Buffer }> =>
        new Promise((resolve, reject) => {
          const req = session.request({ ':path': '/media/rep.mp4', range: `bytes=${start}-${end}` });
          const chunks: Buffer[] = [];
          let headers: http2.IncomingHttpHeaders = {};
          const timer = setTimeout(() => reject(new Error('no answer in 10 s')), 10_000);
          req.on('response', (h) => (headers = h));
          req.on('data', (c: Buffer) => chunks.push(c));
          req.on('end', () => {
            clearTimeout(timer);
            resolve({ headers, body: Buffer.concat(chunks) });
          });
          req.on('error', (e) => {
            clearTimeout(timer);
            reject(e);
          });
        });
      const parts = await Promise.all([get(0, 99_999), get(100_000, 199_999), get(200_000, 299_999)]);
      parts.forEach((p, i) => {
        expect(p.headers[':status']).toBe(206);
        expect(p.headers['content-range']).toBe(`bytes ${i * 100_000}-${i * 100_000 + 99_999}/300000`);
        expect(p.headers['timing-allow-origin']).toBe('*');
        expect(p.body.equals(file.subarray(i * 100_000, (i + 1) * 100_000))).toBe(true);
      });
    } finally {
      await new Promise<void>((r) => session.close(() => r()));
    }
    // nginx writes its log line when the response ends: wait (bounded) for the three.
    const deadline = Date.now() + 10_000;
    let lines: Array<{ conn: number; version: string; status: number }> = [];
    while (Date.now() < deadline) {
      lines = origin.records() as typeof lines;
      if (lines.length >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(lines).toHaveLength(3);
    expect(new Set(lines.map((l) => l.conn)).size).toBe(1);
    for (const l of lines) {
      expect(l.version).toBe('HTTP/2.0');
      expect(l.status).toBe(206);
    }
  });
});
