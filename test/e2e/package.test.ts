/**
 * The npm package as a site would install it: `npm pack` of this repository,
 * the tarball installed into an empty folder, then
 *  - the tarball holds the player (UMD and ES module), its type declarations,
 *    the extension archive and the CLI, and no sources or tests;
 *  - TypeScript resolves the types from the installed package (a wrong
 *    option is a type error, so the types are real, not `any`);
 *  - the bundle's gzip copy decodes to the bundle, and a plain page with one
 *    <script> tag of the installed bundle plays the test content with the
 *    copy on the wire (the origin's log has its length); an ES module import
 *    gives the same API.
 * Needs `npm run build` (it packs dist/). Dependencies come from npm's cache
 * (`--prefer-offline`): the repository's own install filled it.
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { gunzipSync } from 'zlib';
import { startOrigin, type Origin } from '../../demo/server/origin';
import { launchBrowser, type TestBrowser } from './support/browser';
import { ensureTestContent, TEST_SET } from './support/playback';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
const NPM_TIMEOUT_MS = 300_000;

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', timeout: NPM_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the npm package, installed into an empty project', () => {
  let dir: string;
  let consumer: string;
  let files: string[];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sprint-pack-'));
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], root)) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const first = packed[0];
    if (!first) throw new Error('npm pack reported nothing');
    files = first.files.map((f) => f.path);
    consumer = join(dir, 'site');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'a-video-site', version: '1.0.0', private: true }));
    npm(['install', join(dir, first.filename), '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], consumer);
  }, NPM_TIMEOUT_MS * 2);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the player, its types, the extension archive and the CLI, and no sources or tests', () => {
    for (const f of [
      'dist/player/sprint.js',
      'dist/player/sprint.js.gz',
      'dist/player/sprint.mjs',
      'dist/types/player/index.d.ts',
      'dist/extension/sprint-extension.zip',
      'bin/sprint.js',
      'dist/src/cli/model.js',
      'LICENSE',
      'README.md',
      // the README's picture and the docs it links
      'docs/fig6.svg',
      'docs/results.md',
    ]) {
      expect(files).toContain(f);
    }
    const installed = join(consumer, 'node_modules', pkg.name, 'dist', 'player');
    expect(gunzipSync(readFileSync(join(installed, 'sprint.js.gz'))).equals(readFileSync(join(installed, 'sprint.js')))).toBe(true);
    expect(
      files.filter(
        (f) =>
          /^(test|player|src)\//.test(f) || /\.ts$/.test(f.replace(/\.d\.ts$/, '')) || f.startsWith('demo/media/') || /_test\.go$/.test(f),
      ),
    ).toEqual([]);
  });

  it('type-checks a site that imports it (types resolve from the installed package)', () => {
    writeFileSync(
      join(consumer, 'site.ts'),
      [
        "import { createPlayer, version, COUNTERS, type SprintStats, type CounterName, type TransferRecord } from 'sprint-player';",
        'declare const video: HTMLVideoElement;',
        "const player = createPlayer(video, '/movie.mpd', { mode: 'auto', abr: 'bw-80' });",
        "player.on('transferEnd', (t: TransferRecord) => console.log(t.bytes, t.via));",
        'const s: SprintStats = player.stats();',
        "const c: CounterName = 'sprint.trains';",
        'console.log(version, s.mode, c, COUNTERS[c]);',
        '// @ts-expect-error an option the player does not have',
        "createPlayer(video, '/movie.mpd', { chunkSize: 5 });",
        '// @ts-expect-error not an ABR preset',
        "createPlayer(video, '/movie.mpd', { abr: 'bola' });",
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          lib: ['ES2022', 'DOM'],
          types: [],
          noEmit: true,
          skipLibCheck: true,
        },
        files: ['site.ts'],
      }),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    let out = '';
    try {
      out = execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer, encoding: 'utf8', timeout: 120_000 });
    } catch (e) {
      throw new Error(
        `tsc failed in the site project:\n${(e as { stdout?: string }).stdout ?? ''}${(e as { stderr?: string }).stderr ?? ''}`,
      );
    }
    expect(out).toBe('');
  });

  describe('in headless Chromium', () => {
    let origin: Origin;
    let browser: TestBrowser;
    let pages: string;
    beforeAll(async () => {
      await ensureTestContent();
      pages = join(dir, 'pages');
      mkdirSync(pages);
      const manifest = `/media/${TEST_SET}/unchunked/manifest.mpd`;
      writeFileSync(
        join(pages, 'index.html'),
        `<!doctype html><title>site</title><video id="v" muted playsinline></video>
<script src="/dist/sprint.js"></script>
<script>
  window.heard = [];
  window.player = Sprint.createPlayer(document.getElementById('v'), '${manifest}', { mode: 'sprint-x' });
  window.player.on('modeResolved', (e) => window.heard.push(e.mode));
</script>`,
      );
      writeFileSync(
        join(pages, 'esm.html'),
        `<!doctype html><title>esm</title>
<script type="module">
  import { createPlayer, version } from '/dist/sprint.mjs';
  window.esm = { version, createPlayer: typeof createPlayer };
</script>`,
      );
      origin = await startOrigin({
        mediaDir: join(root, 'demo', 'media'),
        pageDir: pages,
        distDir: join(consumer, 'node_modules', pkg.name, 'dist', 'player'),
      });
      browser = await launchBrowser();
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await origin?.close();
    });

    it('one <script> tag of the installed bundle plays the content', async () => {
      const page = await browser.newPage();
      await page.goto(`${origin.url}/`);
      await page.waitForFunction(() => (document.getElementById('v') as HTMLVideoElement).currentTime > 3, {
        timeout: 90_000,
        polling: 250,
      });
      const seen = await page.evaluate(() => {
        const w = window as unknown as { Sprint: { version: string }; heard: string[]; player: { stats(): { mode: string | null } } };
        return { version: w.Sprint.version, heard: w.heard, mode: w.player.stats().mode };
      });
      expect(seen).toEqual({ version: pkg.version, heard: ['sprint-x'], mode: 'sprint-x' });
      const bundle = origin.records().filter((r) => r.url === '/dist/sprint.js');
      const copy = statSync(join(consumer, 'node_modules', pkg.name, 'dist', 'player', 'sprint.js.gz')).size;
      expect(bundle.map((r) => [r.status, r.bytes])).toEqual([[200, copy]]);
      await page.close();
    });

    it('the ES module build gives the same API', async () => {
      const page = await browser.newPage();
      await page.goto(`${origin.url}/esm.html`);
      await page.waitForFunction(() => (window as unknown as { esm?: unknown }).esm !== undefined, { timeout: 30_000 });
      expect(await page.evaluate(() => (window as unknown as { esm: unknown }).esm)).toEqual({
        version: pkg.version,
        createPlayer: 'function',
      });
      await page.close();
    });
  });
});
