// nginx as the demo origin (demo/server/nginx-origin.ts), the A/B harness's
// `--origin nginx`: the configuration it writes, and — with nginx installed
// (.ci/run installs nginx-light) — a real nginx on loopback answering what
// the players need: /probe, Range (206, Content-Range), CORS headers, and
// three Range requests pipelined on one connection answered in order (the
// access log shows them on one connection), the player bundle's gzip copy
// to a client that accepts gzip, then a clean stop.

import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { gunzipSync, gzipSync } from 'zlib';
import { DEFAULT_NGINX, nginxConfig } from '../../../demo/server/nginx-origin';
import { ResponseParser, type ResponseHead } from '../../../src/http/response-parser';
import { serializeRequest } from '../../../src/http/request';

import { HAVE_NGINX as haveNginx, startNginxCli, type NginxCliOrigin } from './nginx-cli-fixture';

describe('nginxConfig', () => {
  const base = { host: '10.201.1.2', port: 8001, prefix: '/tmp/p', mediaDir: '/m', pageDir: '/pg', distDir: '/d/', logPath: '/tmp/a.log' };

  it('serves the demo resources on host:port with Range-friendly CORS and a no-store probe', () => {
    const c = nginxConfig(base);
    expect(c).toContain('listen 10.201.1.2:8001;');
    expect(c).toContain('alias "/m/";');
    expect(c).toContain('alias "/d/";');
    expect(c).toMatch(/location \/dist\/ \{[^}]*gzip_static on;[^}]*gzip_vary on;/);
    expect(c).not.toMatch(/location \/media\/ \{[^}]*gzip/);
    expect(c).toMatch(/location = \/probe \{[^}]*Cache-Control "no-store"[^}]*return 200 "ok";/);
    expect(c).toContain('Access-Control-Expose-Headers "Content-Range, Content-Length, Accept-Ranges"');
    expect(c).toContain('access_log "/tmp/a.log" sprint;');
    expect(c).toContain('pid "/tmp/p/nginx.pid";');
    expect(nginxConfig({ ...base, logPath: null })).toContain('access_log off;');
    expect(c).not.toMatch(/^user /m);
    expect(nginxConfig({ ...base, workerUser: 'root' })).toMatch(/^user "root";$/m);
    expect(nginxConfig({ ...base, host: '::1' })).toContain('listen [::1]:8001;');
  });

  it.each(['/m"; evil', '/m;x', '/m{', '/m$x', '/m\nx'])('refuses a path nginx would misread: %p', (bad) => {
    expect(() => nginxConfig({ ...base, mediaDir: bad })).toThrow(/unsupported character/);
  });

  it.each(['0.0.0.0:80; include /etc/passwd', 'example.com', ''])('refuses a host that is not an IP address: %p', (host) => {
    expect(() => nginxConfig({ ...base, host })).toThrow(/host must be an IP address/);
  });
});

interface Answer {
  head: ResponseHead;
  body: Buffer;
}

/** Writes `requests` back to back on one connection and parses the answers in order. */
async function pipelined(port: number, requests: Uint8Array[], count: number): Promise<Answer[]> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  const answers: Answer[] = [];
  try {
    return await new Promise<Answer[]>((resolve, reject) => {
      let current: { head: ResponseHead; pieces: Buffer[] } | null = null;
      const parser = new ResponseParser({
        onHead: (head) => {
          current = { head, pieces: [] };
        },
        onBody: (piece) => current?.pieces.push(Buffer.from(piece)),
        onEnd: () => {
          if (current) answers.push({ head: current.head, body: Buffer.concat(current.pieces) });
          current = null;
          if (answers.length === count) resolve(answers);
        },
        onError: (e) => reject(e),
      });
      for (let i = 0; i < count; i += 1) parser.expect('GET');
      const timer = setTimeout(() => reject(new Error(`only ${answers.length} of ${count} answers in 10 s`)), 10_000);
      socket.once('connect', () => socket.write(Buffer.concat(requests.map((r) => Buffer.from(r)))));
      socket.on('data', (b: Buffer) => parser.push(b, Date.now()));
      socket.once('error', reject);
      socket.once('close', () => clearTimeout(timer));
    });
  } finally {
    socket.destroy();
  }
}

(haveNginx ? describe : describe.skip)('nginx origin on loopback', () => {
  let origin: NginxCliOrigin;
  let port: number;
  let file: Buffer;

  beforeAll(async () => {
    origin = await startNginxCli('nginx');
    ({ port, file } = origin);
    expect(origin.url).toBe(`http://127.0.0.1:${port}/`);
  });

  afterAll(async () => {
    await origin?.stop();
  });

  const get = (target: string, range?: { start: number; end: number }): Uint8Array =>
    serializeRequest({
      method: 'GET',
      target,
      host: `127.0.0.1:${port}`,
      range: range && { first: range.start, last: range.end },
      userAgent: 'sprint-test',
      origin: 'http://page.example',
    });

  it('answers the probe, the page and Range requests with CORS headers', async () => {
    const [probe, page, part] = await pipelined(port, [get('/probe'), get('/'), get('/media/rep.mp4', { start: 1000, end: 1999 })], 3);
    expect(probe?.head.status).toBe(200);
    expect(probe?.body.toString()).toBe('ok');
    expect(probe?.head.headers.get('cache-control')).toBe('no-store');
    expect(page?.head.status).toBe(200);
    expect(part?.head.status).toBe(206);
    expect(part?.head.headers.get('content-range')).toBe(`bytes 1000-1999/${file.length}`);
    expect(part?.head.headers.get('access-control-allow-origin')).toBe('*');
    expect(part?.head.headers.get('access-control-expose-headers')).toMatch(/Content-Range/);
    expect(part?.body.equals(file.subarray(1000, 2000))).toBe(true);
  });

  it('answers pipelined Range requests in order on one connection', async () => {
    const ranges = [
      { start: 0, end: 99_999 },
      { start: 100_000, end: 199_999 },
      { start: 200_000, end: 299_999 },
    ];
    const answers = await pipelined(
      port,
      ranges.map((r) => get('/media/rep.mp4', r)),
      3,
    );
    answers.forEach((a, i) => {
      const r = ranges[i] as { start: number; end: number };
      expect(a.head.status).toBe(206);
      expect(a.body.equals(file.subarray(r.start, r.end + 1))).toBe(true);
    });
    // nginx writes the log line when a response is done; give it a moment.
    let lines: Array<{ conn: number; seq: number; range: string }> = [];
    for (let i = 0; i < 50 && lines.length < 3; i += 1) {
      lines = (origin.records() as typeof lines).filter(
        (l) => (l as unknown as { url: string }).url === '/media/rep.mp4' && l.range !== 'bytes=1000-1999',
      );
      if (lines.length < 3) await new Promise((r) => setTimeout(r, 100));
    }
    expect(lines.map((l) => l.range)).toEqual(['bytes=0-99999', 'bytes=100000-199999', 'bytes=200000-299999']);
    expect(new Set(lines.map((l) => l.conn)).size).toBe(1);
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3]);
  });

  it("sends the bundle's gzip copy to a client that accepts gzip, and the file to one that does not", async () => {
    const bundle = Buffer.from(`window.Sprint={};${'/* the player */'.repeat(200)}\n`);
    fs.writeFileSync(path.join(origin.dir, 'dist', 'player.js'), bundle);
    fs.writeFileSync(path.join(origin.dir, 'dist', 'player.js.gz'), gzipSync(bundle, { level: 9 }));
    const fetchBundle = (headers: Record<string, string>) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path: '/dist/player.js', headers, timeout: 10_000 }, (res) => {
          const pieces: Buffer[] = [];
          res.on('data', (b: Buffer) => pieces.push(b));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(pieces) }));
          res.on('error', reject);
        });
        req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
        req.on('error', reject);
      });
    const zipped = await fetchBundle({ 'Accept-Encoding': 'gzip, deflate, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['vary']).toBe('Accept-Encoding');
    expect(zipped.body.length).toBeLessThan(bundle.length / 10);
    expect(gunzipSync(zipped.body).equals(bundle)).toBe(true);
    const plain = await fetchBundle({});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(bundle)).toBe(true);
  });

  it('stops on SIGTERM and removes its private files', async () => {
    const before = fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('sprint-nginx-') && !n.startsWith('sprint-nginx-test-'));
    const exited = new Promise<number | null>((r) => origin.child.once('exit', (code) => r(code)));
    origin.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const after = fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('sprint-nginx-') && !n.startsWith('sprint-nginx-test-'));
    expect(after.length).toBeLessThan(before.length);
  });
});

if (!haveNginx) {
  // Visible, not silent: CI installs nginx-light, so there these tests run.
  console.warn(`nginx origin tests skipped: ${DEFAULT_NGINX} is not installed (apt-get install nginx-light)`);
}
