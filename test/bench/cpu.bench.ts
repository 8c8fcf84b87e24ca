/**
 * CPU benchmark of the data planes (prints tables, asserts only that bytes
 * moved): CPU seconds per megabyte of video on the wire, by process kind.
 *
 * Playback runs: the `test` set, unchunked, at a fixed top rung (demo page
 * `quality=top`: ABR off, 6 Mbit/s) through stock, Sprint-x, Sprint over the
 * extension and Sprint over the page's fetch, on a paced loopback origin
 * (startOrigin's rateLimitBitsPerSec) at each rate, for a fixed stretch of
 * wall-clock time from navigation. Download-only runs: the same top-rung file
 * fetched in 2 MB ranges (4 in flight) through the extension's transport or
 * the page's fetch by a page that only counts the bytes
 * (test/bench/page/download-page.ts): no SourceBuffer, no decoding, so these
 * rows are the data path alone; playback minus download-only is what
 * decoding and the player cost.
 *
 * CPU: utime+stime of every process of the browser tree (and the socket
 * host, which the browser starts) from /proc (support/proc-cpu.ts), sampled
 * from navigation to the end of the window. MB: media body bytes in the
 * origin's access log (the page is closed right after the last CPU sample,
 * so a response cut there counts the bytes it had sent). Page main thread:
 * CDP Performance.getMetrics TaskDuration and ScriptDuration deltas (every
 * task of the page's renderer main thread, content script included).
 *
 * Each run gets a fresh browser and a fresh origin. Figures on a shared
 * machine are noisy: repeat runs (SPRINT_BENCH_REPEAT) and compare medians.
 *
 * Run:  npm run bench:cpu
 * Env:  SPRINT_BENCH_RATES=5,10,25   link rates, Mbit/s
 *       SPRINT_BENCH_SECONDS=20      window per run, s
 *       SPRINT_BENCH_MODES=stock,sprint-x,sprint,sprint-fetch,dl-fetch,dl-extension
 *       SPRINT_BENCH_REPEAT=1
 *       SPRINT_BENCH_PIECE=8192      the origin's paced write size, bytes: a
 *         smooth link, as a real one delivers a few packets at a time (65536:
 *         the origin's default 64 KB bursts)
 *       SPRINT_BENCH_PROFILE=<dir>   also write CPU profiles of the page, the
 *         extension's service worker (.cpuprofile, open in DevTools) and the
 *         socket host (pprof) for the Sprint runs, and print their top items
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'fs';
import { spawnSync } from 'child_process';
import { join } from 'path';
import type { CDPSession, Page } from 'puppeteer-core';
import { startOrigin, type Origin } from '../../demo/server/origin';
import { ensureContent } from '../../demo/content/generate';
import { buildArtifacts, launchExtBrowser, runWebpack, ROOT, type Artifacts } from '../e2e/extension/support/ext-stack';
import { launchBrowser, type TestBrowser } from '../e2e/support/browser';
import { stats } from '../e2e/support/playback';
import { PROC_KINDS, TreeCpu, type ProcKind } from './support/proc-cpu';
import { topRungQuery } from './support/bench-page';

const SET = 'test';
const RATES = (process.env.SPRINT_BENCH_RATES ?? '5,10,25').split(',').map(Number);
const SECONDS = Number(process.env.SPRINT_BENCH_SECONDS ?? 20);
const REPEAT = Number(process.env.SPRINT_BENCH_REPEAT ?? 1);
const ALL_MODES = ['stock', 'sprint-x', 'sprint', 'sprint-fetch', 'dl-fetch', 'dl-extension'] as const;
type Mode = (typeof ALL_MODES)[number];
const MODES = (process.env.SPRINT_BENCH_MODES ?? ALL_MODES.join(',')).split(',') as Mode[];
const PROFILE_DIR = process.env.SPRINT_BENCH_PROFILE;
const PIECE = Number(process.env.SPRINT_BENCH_PIECE ?? 8192);
const TOP_FILE = `/media/${SET}/unchunked/rep-4.mp4`;

interface Row {
  mode: Mode;
  rateMbit: number;
  mb: number;
  wireMbit: number;
  cpu: Record<ProcKind, number>;
  taskSec: number | null;
  scriptSec: number | null;
  note: string;
}

jest.setTimeout(3_600_000);

let art: Artifacts;
let benchPage: string;

beforeAll(async () => {
  for (const m of MODES)
    if (!ALL_MODES.includes(m)) throw new Error(`SPRINT_BENCH_MODES: unknown mode ${m}; expected ${ALL_MODES.join(', ')}`);
  await ensureContent({ set: SET, log: (l) => process.stderr.write(`${l}\n`) });
  art = await buildArtifacts();
  benchPage = join(art.dir, 'bench-page');
  mkdirSync(benchPage);
  await runWebpack({
    mode: 'production',
    devtool: false,
    context: ROOT,
    target: 'web',
    entry: { 'bench-page': './test/bench/page/download-page.ts' },
    output: { path: benchPage, filename: '[name].js' },
    resolve: { extensions: ['.ts', '.js'] },
    module: {
      rules: [
        {
          test: /\.ts$/,
          loader: 'ts-loader',
          options: { configFile: join(ROOT, 'player', 'tsconfig.json'), onlyCompileBundledFiles: true },
          exclude: /node_modules/,
        },
      ],
    },
    stats: 'errors-warnings',
  });
  writeFileSync(
    join(benchPage, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>sprint-bench</title></head><body><script src="/bench-page.js"></script></body></html>\n',
  );
});

afterAll(() => art?.close());

function mediaBytes(origin: Origin): number {
  let n = 0;
  for (const r of origin.records()) if (r.url !== null && r.url.startsWith('/media/') && !r.url.endsWith('.mpd')) n += r.bytes;
  return n;
}

async function metrics(page: Page): Promise<{ task: number; script: number }> {
  const m = await page.metrics();
  return { task: m.TaskDuration ?? 0, script: m.ScriptDuration ?? 0 };
}

async function startProfiler(s: CDPSession): Promise<void> {
  await s.send('Profiler.enable');
  await s.send('Profiler.setSamplingInterval', { interval: 500 });
  await s.send('Profiler.start');
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** Top self-time items of a V8 CPU profile, as "ms  %  function (file:line)". */
function topItems(
  profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[]; startTime: number; endTime: number },
  n = 12,
): string[] {
  const self = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} (${f.url.split('/').pop() || '-'}:${f.lineNumber + 1})`;
    self.set(key, (self.get(key) ?? 0) + hits);
    total += hits;
  }
  const msPerHit = total > 0 ? (profile.endTime - profile.startTime) / 1000 / total : 0;
  return [...self.entries()]
    .filter(([k]) => !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, hits]) => `${(hits * msPerHit).toFixed(0).padStart(7)} ms  ${((hits / total) * 100).toFixed(1).padStart(5)} %  ${k}`);
}

async function runOne(mode: Mode, rateMbit: number, rep: number): Promise<Row> {
  const ext = mode === 'sprint' || mode === 'dl-extension';
  const dl = mode.startsWith('dl-');
  const origin = await startOrigin({
    rateLimitBitsPerSec: rateMbit * 1e6,
    rateLimitPieceBytes: PIECE,
    ...(dl ? { pageDir: benchPage } : {}),
    onServerError: () => undefined,
  });
  const profDir = PROFILE_DIR && ext ? join(PROFILE_DIR, `${mode}-${rateMbit}-${rep}`) : undefined;
  if (profDir) mkdirSync(profDir, { recursive: true });
  let b: TestBrowser | undefined;
  try {
    b = ext ? await launchExtBrowser(art, { env: profDir ? { SPRINT_HOST_CPUPROFILE_DIR: profDir } : {} }) : await launchBrowser();
    const pid = b.browser.process()?.pid;
    if (pid === undefined) throw new Error('no browser PID');
    const page = await b.newPage();
    let worker: CDPSession | null = null;
    let pageProf: CDPSession | null = null;
    if (profDir) {
      pageProf = await page.createCDPSession();
      await startProfiler(pageProf);
      const t = await b.browser.waitForTarget((x) => x.type() === 'service_worker' && x.url().startsWith('chrome-extension://'), {
        timeout: 10_000,
      });
      worker = await t.createCDPSession();
      await startProfiler(worker);
    }
    const cpu = new TreeCpu(pid);
    const m0 = { task: 0, script: 0 };
    cpu.start();
    const t0 = Date.now();
    let note = '';
    if (dl) {
      await page.goto(`${origin.url}/`, { waitUntil: 'load' });
      const size = statSync(join(ROOT, 'demo', 'media', SET, 'unchunked', 'rep-4.mp4')).size;
      const r = (await page.evaluate(
        (o) => (window as unknown as { sprintBench: { download(o: unknown): Promise<unknown> } }).sprintBench.download(o),
        {
          via: mode === 'dl-extension' ? 'extension' : 'fetch',
          url: `${origin.url}${TOP_FILE}`,
          fileBytes: size,
          rangeBytes: 2 << 20,
          outstanding: 4,
          durationMs: SECONDS * 1000 - 1500,
        },
      )) as { bytes: number; requests: number; pieces: number; errors: string[] };
      note = `${r.requests} requests, ${r.pieces} pieces (${r.pieces ? (r.bytes / r.pieces / 1024).toFixed(0) : '–'} KB avg)${r.errors.length ? `, errors: ${r.errors[0]}` : ''}`;
      const left = t0 + SECONDS * 1000 - Date.now();
      if (left > 0) await new Promise((res) => setTimeout(res, left));
    } else {
      await page.goto(`${origin.url}/?${topRungQuery(SET, mode).toString()}`);
      await new Promise((res) => setTimeout(res, SECONDS * 1000));
      const s = await stats(page);
      note = `mode ${s.mode}${s.estimates.transport ? `/${s.estimates.transport}` : ''}, ${s.playback.videoBitrate === null ? '–' : (s.playback.videoBitrate / 1e6).toFixed(1)} Mbit/s rung, played ${s.playback.currentTimeSec.toFixed(1)} s, buffer ${s.playback.videoBufferSec.toFixed(1)} s${s.playback.errors.length ? `, errors: ${s.playback.errors[0]}` : ''}`;
    }
    const m1 = await metrics(page);
    const used = cpu.stop();
    const elapsed = (Date.now() - t0) / 1000;
    if (profDir && pageProf && worker) {
      const { profile: pp } = (await pageProf.send('Profiler.stop')) as { profile: Parameters<typeof topItems>[0] };
      const { profile: wp } = (await worker.send('Profiler.stop')) as { profile: Parameters<typeof topItems>[0] };
      writeFileSync(join(profDir, 'page.cpuprofile'), JSON.stringify(pp));
      writeFileSync(join(profDir, 'worker.cpuprofile'), JSON.stringify(wp));
      console.log(
        [
          `profile ${mode} at ${rateMbit} Mbit/s — page renderer (page + content script), self time:`,
          ...topItems(pp),
          'extension service worker, self time:',
          ...topItems(wp),
        ].join('\n'),
      );
    }
    await page.close();
    await new Promise((res) => setTimeout(res, 300));
    const mb = mediaBytes(origin) / 1e6;
    return {
      mode,
      rateMbit,
      mb,
      wireMbit: (mb * 8) / elapsed,
      cpu: used,
      taskSec: m1.task - m0.task,
      scriptSec: m1.script - m0.script,
      note,
    };
  } finally {
    await b?.close();
    await origin.close();
    if (profDir) printHostProfile(profDir, mode, rateMbit);
  }
}

function printHostProfile(dir: string, mode: string, rate: number): void {
  const files = readdirSync(dir).filter((f) => f.endsWith('.pprof'));
  for (const f of files) {
    const r = spawnSync('go', ['tool', 'pprof', '-top', '-nodecount=15', art.hostBinary, join(dir, f)], { encoding: 'utf8' });
    console.log(`socket host profile (${mode} at ${rate} Mbit/s, ${f}):\n${r.stdout || r.stderr}`);
  }
}

function table(rows: Row[]): string {
  const kinds = PROC_KINDS.filter((k) => rows.some((r) => r.cpu[k] > 0.005));
  const head = [
    'mode'.padEnd(13),
    'Mbit/s',
    'wire',
    '   MB',
    ...kinds.map((k) => k.slice(0, 9).padStart(9)),
    '    total',
    ' page task',
    ' script',
  ].join(' ');
  const lines = rows.map((r) => {
    const per = (x: number): string => (r.mb > 0 ? (x / r.mb).toFixed(3) : '–').padStart(9);
    const total = PROC_KINDS.reduce((a, k) => a + r.cpu[k], 0);
    return [
      r.mode.padEnd(13),
      String(r.rateMbit).padStart(6),
      r.wireMbit.toFixed(1).padStart(4),
      r.mb.toFixed(1).padStart(5),
      ...kinds.map((k) => per(r.cpu[k])),
      per(total),
      (r.taskSec === null ? '–' : r.mb > 0 ? (r.taskSec / r.mb).toFixed(3) : '–').padStart(10),
      (r.scriptSec === null ? '–' : r.mb > 0 ? (r.scriptSec / r.mb).toFixed(3) : '–').padStart(7),
    ].join(' ');
  });
  return [head, ...lines].join('\n');
}

it('CPU seconds per MB of video on the wire, by process kind', async () => {
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const rate of RATES) {
    for (let rep = 0; rep < REPEAT; rep += 1) {
      for (const mode of MODES) {
        const row = await runOne(mode, rate, rep);
        rows.push(row);
        notes.push(`${mode.padEnd(13)} ${String(rate).padStart(3)} Mbit/s: ${row.note}`);
        process.stderr.write(`[bench:cpu] ${table([row]).split('\n')[1]}\n`);
      }
    }
  }
  console.log(
    [
      `CPU seconds per MB of media on the wire (${SET} set, unchunked, top rung fixed; ${SECONDS} s from navigation; loopback origin paced in ${PIECE}-byte writes).`,
      "Columns: CPU s/MB per process kind (renderer = the page's, content script included; extension = the extension renderer with its service worker; host = sprint-host),",
      'page task / script = the page renderer main thread (CDP TaskDuration / ScriptDuration) per MB. dl-* rows download without decoding.',
      table(rows),
      ...notes,
    ].join('\n'),
  );
  expect(rows.every((r) => r.mb > 0)).toBe(true);
});
