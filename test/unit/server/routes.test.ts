// The origin's resources over loopback: page, bundle, media, probe, bulk, HEAD,
// 404/403/405, path traversal, CORS on every response and preflights, and the
// bundle's gzip copy to clients that accept it.

import * as fs from 'fs';
import * as path from 'path';
import { gunzipSync, gzipSync } from 'zlib';
import { startOrigin, type Origin } from '../../../demo/server/origin';
import { fetchRaw, makeFixture, RawClient, request, type Fixture } from './helpers';

let fx: Fixture;
let origin: Origin;

beforeAll(async () => {
  fx = makeFixture();
  fs.symlinkSync(path.join(fx.root, 'secret.txt'), path.join(fx.mediaDir, 'escape.txt'));
  fs.symlinkSync(path.join(fx.mediaDir, 'manifest.mpd'), path.join(fx.mediaDir, 'alias.mpd'));
  origin = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir });
});

afterAll(async () => {
  await origin.close();
  fx.remove();
});

const get = (p: string, extra: Record<string, string> = {}) => fetchRaw(origin.port, request(p, extra));

describe('static routes', () => {
  test.each([
    ['/', 'text/html; charset=utf-8', '<!doctype html><title>demo</title>\n', 'no-cache'],
    ['/index.html', 'text/html; charset=utf-8', '<!doctype html><title>demo</title>\n', 'no-cache'],
    ['/style.css', 'text/css; charset=utf-8', 'body{}\n', 'no-cache'],
    ['/dist/sprint.js', 'text/javascript; charset=utf-8', 'window.Sprint={};\n', 'no-cache'],
    ['/media/manifest.mpd', 'application/dash+xml', '<MPD/>\n', 'no-store'],
    ['/media/manifest.mpd?x=1', 'application/dash+xml', '<MPD/>\n', 'no-store'],
    ['/media/alias.mpd', 'application/dash+xml', '<MPD/>\n', 'no-store'],
  ])('%s', async (p, type, body, cache) => {
    const r = await get(p);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(type);
    expect(r.headers.get('cache-control')).toBe(cache);
    expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(r.headers.get('accept-ranges')).toBe('bytes');
    expect(r.headers.get('last-modified')).toMatch(/GMT$/);
    expect(r.body.toString()).toBe(body);
  });

  test('media bytes are the file bytes', async () => {
    const r = await get('/media/video.m4s');
    expect(r.headers.get('content-type')).toBe('video/mp4');
    expect(r.body.equals(fx.video)).toBe(true);
    const sub = await get('/media/sub/a.mp4');
    expect(sub.body.equals(fs.readFileSync(path.join(fx.mediaDir, 'sub', 'a.mp4')))).toBe(true);
  });

  test('absolute-form request-target', async () => {
    const r = await get('http://test/media/manifest.mpd');
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('<MPD/>\n');
  });

  test('HEAD has the GET headers and no body', async () => {
    const r = await fetchRaw(origin.port, request('/media/video.m4s', {}, 'HEAD'), true);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-length')).toBe(String(fx.video.length));
    expect(r.body.length).toBe(0);
  });

  test.each([
    ['/media/nope.m4s', 404],
    ['/media/sub', 404],
    ['/media/sub/', 404],
    ['/media/', 404],
    ['/dist/', 404],
    ['/nothing-here', 404],
    ['/media/../secret.txt', 403],
    ['/media/sub/../../secret.txt', 403],
    ['/media/%2e%2e/secret.txt', 403],
    ['/media/..%2fsecret.txt', 403],
    ['/media/sub%2F..%2F..%2Fsecret.txt', 403],
    ['/media/escape.txt', 403],
    ['/media/%E0%A4%A', 400],
    ['/media/a%00b', 400],
  ])('%s → %i and no file contents', async (p, status) => {
    const r = await get(p);
    expect(r.status).toBe(status);
    expect(r.body.toString()).not.toContain('TOP-SECRET');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('unsupported methods are 405 with Allow, and the connection stays usable', async () => {
    const c = await RawClient.connect(origin.port);
    try {
      c.send(request('/media/manifest.mpd', {}, 'DELETE') + request('/media/manifest.mpd'));
      const r = await c.readResponse();
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(r.headers.get('connection')).toBeUndefined();
      const next = await c.readResponse();
      expect(next.status).toBe(200);
      expect(next.body.toString()).toBe('<MPD/>\n');
    } finally {
      await c.close();
    }
  });

  test('requests with bodies are refused and the connection closed', async () => {
    const post = await fetchRaw(origin.port, request('/media/manifest.mpd', { 'Content-Length': '3' }, 'POST') + 'abc');
    expect(post.status).toBe(405);
    expect(post.headers.get('connection')).toBe('close');
    const getBody = await fetchRaw(origin.port, request('/probe', { 'Transfer-Encoding': 'chunked' }));
    expect(getBody.status).toBe(413);
    expect(getBody.headers.get('connection')).toBe('close');
  });
});

describe('CORS', () => {
  test('every response exposes what a cross-origin player needs', async () => {
    for (const p of ['/media/video.m4s', '/probe', '/bulk?bytes=10', '/media/missing']) {
      const r = await get(p, { Origin: 'http://elsewhere.example' });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      const exposed = (r.headers.get('access-control-expose-headers') ?? '').split(',').map((s) => s.trim());
      expect(exposed).toEqual(expect.arrayContaining(['Content-Range', 'Content-Length', 'Accept-Ranges', 'Server-Timing']));
      expect(r.headers.get('timing-allow-origin')).toBe('*');
    }
  });

  test('preflight allows Range', async () => {
    const r = await fetchRaw(
      origin.port,
      request(
        '/media/video.m4s',
        {
          Origin: 'http://elsewhere.example',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'range',
        },
        'OPTIONS',
      ),
      true,
    );
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    expect((r.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toContain('range');
    expect(Number(r.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(r.headers.get('content-length')).toBe('0');
  });

  test('OPTIONS * is answered', async () => {
    const r = await fetchRaw(origin.port, request('*', {}, 'OPTIONS'), true);
    expect(r.status).toBe(204);
    expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('probe and bulk', () => {
  test('/probe is tiny and not cacheable', async () => {
    const r = await get('/probe');
    expect(r.status).toBe(200);
    expect(r.body.length).toBeGreaterThan(0);
    expect(r.body.length).toBeLessThanOrEqual(10);
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  test('/bulk?bytes=N sends exactly N pattern bytes', async () => {
    const n = 300001;
    const r = await get(`/bulk?bytes=${n}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-length')).toBe(String(n));
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body.length).toBe(n);
    let bad = -1;
    for (let i = 0; i < n && bad < 0; i += 1) if (r.body[i] !== i % 256) bad = i;
    expect(bad).toBe(-1);
  });

  test('/bulk supports a range', async () => {
    const r = await get('/bulk?bytes=1000', { Range: 'bytes=300-309' });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe('bytes 300-309/1000');
    expect([...r.body]).toEqual([44, 45, 46, 47, 48, 49, 50, 51, 52, 53]);
  });

  test('/bulk?bytes=0 is an empty 200', async () => {
    const r = await get('/bulk?bytes=0');
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(0);
  });

  test.each(['/bulk', '/bulk?bytes=', '/bulk?bytes=-1', '/bulk?bytes=1e3', '/bulk?bytes=100000000001'])(
    '%s is a 400 that says why',
    async (p) => {
      const r = await get(p);
      expect(r.status).toBe(400);
      expect(r.body.toString()).toMatch(/bytes/);
    },
  );
});

describe('gzip copies of page files', () => {
  const bundle = Buffer.from(`window.Sprint={};${'/* the player */'.repeat(200)}\n`);
  let copy: Buffer;
  beforeAll(() => {
    fs.writeFileSync(path.join(fx.distDir, 'player.js'), bundle);
    copy = gzipSync(bundle, { level: 9 });
    fs.writeFileSync(path.join(fx.distDir, 'player.js.gz'), copy);
    // a copy left from an earlier build (of the same length), and a copy that is not gzip at all
    fs.writeFileSync(path.join(fx.distDir, 'old.js'), 'window.New={};\n');
    fs.writeFileSync(path.join(fx.distDir, 'old.js.gz'), gzipSync('window.Old={};\n'));
    fs.writeFileSync(path.join(fx.distDir, 'junk.js'), 'window.Junk={};\n');
    fs.writeFileSync(path.join(fx.distDir, 'junk.js.gz'), 'not gzip');
    // media is never compressed, even with a copy beside it
    fs.writeFileSync(path.join(fx.mediaDir, 'manifest.mpd.gz'), gzipSync('<MPD/>\n'));
  });

  test('a client that accepts gzip gets the copy, which decodes to the file', async () => {
    const r = await get('/dist/player.js', { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-encoding')).toBe('gzip');
    expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(r.headers.get('vary')).toBe('Accept-Encoding');
    expect(r.headers.get('content-length')).toBe(String(copy.length));
    expect(r.headers.has('accept-ranges')).toBe(false);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.body.length).toBeLessThan(bundle.length / 10);
    expect(gunzipSync(r.body).equals(bundle)).toBe(true);
  });

  test("HEAD names the copy's length", async () => {
    const r = await fetchRaw(origin.port, request('/dist/player.js', { 'Accept-Encoding': 'gzip' }, 'HEAD'), true);
    expect(r.headers.get('content-encoding')).toBe('gzip');
    expect(r.headers.get('content-length')).toBe(String(copy.length));
    expect(r.body.length).toBe(0);
  });

  test.each([
    ['no Accept-Encoding', {}],
    ['gzip refused', { 'Accept-Encoding': 'gzip;q=0, br' }],
  ])('%s: the file as it is, marked as varying', async (_, extra: Record<string, string>) => {
    const r = await get('/dist/player.js', extra);
    expect(r.status).toBe(200);
    expect(r.headers.has('content-encoding')).toBe(false);
    expect(r.headers.get('vary')).toBe('Accept-Encoding');
    expect(r.headers.get('accept-ranges')).toBe('bytes');
    expect(r.body.equals(bundle)).toBe(true);
  });

  test("a Range request gets the file's bytes, not the copy's", async () => {
    const r = await get('/dist/player.js', { 'Accept-Encoding': 'gzip', Range: 'bytes=0-16' });
    expect(r.status).toBe(206);
    expect(r.headers.has('content-encoding')).toBe(false);
    expect(r.body.toString()).toBe('window.Sprint={};');
  });

  test.each([
    ['/dist/old.js', 'window.New={};\n'],
    ['/dist/junk.js', 'window.Junk={};\n'],
  ])('a copy that does not decode to the file is never sent: %s', async (p, body) => {
    for (let i = 0; i < 2; i += 1) {
      // the second time from the origin's memory of the check
      const r = await get(p, { 'Accept-Encoding': 'gzip' });
      expect(r.headers.has('content-encoding')).toBe(false);
      expect(r.headers.has('vary')).toBe(false);
      expect(r.body.toString()).toBe(body);
    }
  });

  test('a copy that fails its check is reported once, naming the file', async () => {
    // Files of their own: the origin remembers verdicts per version of the two files.
    fs.writeFileSync(path.join(fx.distDir, 'reported.js'), 'window.Reported=2;\n');
    fs.writeFileSync(path.join(fx.distDir, 'reported.js.gz'), gzipSync('window.Reported=1;\n'));
    const heard: string[] = [];
    const own = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, onServerError: (m) => heard.push(m) });
    try {
      for (let i = 0; i < 2; i += 1) {
        const r = await fetchRaw(own.port, request('/dist/reported.js', { 'Accept-Encoding': 'gzip' }));
        expect(r.body.toString()).toBe('window.Reported=2;\n');
      }
      expect(heard).toEqual([
        '/dist/reported.js.gz decodes to other bytes than the file (a copy from an older build?): /dist/reported.js is sent uncompressed',
      ]);
    } finally {
      await own.close();
    }
  });

  test('a file replaced after its copy was checked is sent as it is now', async () => {
    const file = path.join(fx.distDir, 'player.js');
    expect((await get('/dist/player.js', { 'Accept-Encoding': 'gzip' })).headers.get('content-encoding')).toBe('gzip');
    const changed = Buffer.from(bundle.toString().replace('window.Sprint', 'window.Sprinx'));
    fs.writeFileSync(file, changed);
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
    try {
      const r = await get('/dist/player.js', { 'Accept-Encoding': 'gzip' });
      expect(r.headers.has('content-encoding')).toBe(false);
      expect(r.body.equals(changed)).toBe(true);
    } finally {
      fs.writeFileSync(file, bundle);
    }
  });

  test('media is sent as it is', async () => {
    const r = await get('/media/manifest.mpd', { 'Accept-Encoding': 'gzip' });
    expect(r.headers.has('content-encoding')).toBe(false);
    expect(r.headers.has('vary')).toBe(false);
    expect(r.body.toString()).toBe('<MPD/>\n');
  });

  test('a file without a copy has no Vary', async () => {
    const r = await get('/dist/sprint.js', { 'Accept-Encoding': 'gzip' });
    expect(r.headers.has('content-encoding')).toBe(false);
    expect(r.headers.has('vary')).toBe(false);
    expect(r.body.toString()).toBe('window.Sprint={};\n');
  });
});
