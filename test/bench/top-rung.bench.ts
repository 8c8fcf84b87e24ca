/**
 * Can headless Chromium on this machine play a content set's top rung?
 * (prints a table, asserts only that playback advanced). The evaluation set
 * (`--set eval`, top rung 20 Mbit/s at 960x540) is only usable for the
 * paper's 25 Mbit/s column if the browser decodes its top rung without
 * falling behind: dropped frames would load the CPU that the A/B runs share
 * with the testbed (dash.js's dropped-frames rule is off in the `buffer` and
 * `bw-<x>` presets, so they would not move those ABRs).
 *
 * Each mode plays the set's top rung (demo page `quality=top`: ABR off),
 * unchunked, from a loopback origin paced at twice the top rung, for a fixed
 * stretch; the row gives the video element's decoded and dropped frames
 * (HTMLVideoElement.getVideoPlaybackQuality), media time played against wall
 * time, stalls, and the browser tree's CPU (support/proc-cpu.ts).
 *
 * Run:  npm run bench:top-rung   (the set must exist: npx sprint content --set eval)
 * Env:  SPRINT_BENCH_SET=eval        content set
 *       SPRINT_BENCH_SECONDS=60      window per run, s
 *       SPRINT_BENCH_MODES=stock,sprint-x,sprint-fetch
 */
import { existsSync } from 'fs';
import { cpus } from 'os';
import { join } from 'path';
import { startOrigin } from '../../demo/server/origin';
import { contentDir, MARKER_FILE } from '../../demo/content/generate';
import { setRecipe } from '../../demo/content/recipe';
import { launchBrowser, type TestBrowser } from '../e2e/support/browser';
import { stats } from '../e2e/support/playback';
import { PROC_KINDS, TreeCpu } from './support/proc-cpu';
import { topRungQuery } from './support/bench-page';
import { alignColumns } from '../../demo/harness/format';

const SET = process.env.SPRINT_BENCH_SET ?? 'eval';
const SECONDS = Number(process.env.SPRINT_BENCH_SECONDS ?? 60);
const MODES = (process.env.SPRINT_BENCH_MODES ?? 'stock,sprint-x,sprint-fetch').split(',');

jest.setTimeout(1_800_000);

/** The set's top video rung, bit/s (its recipe's ladder); refuses a set that is not generated. */
function topRungBps(): number {
  const dir = contentDir(SET);
  if (!existsSync(join(dir, MARKER_FILE)))
    throw new Error(`content set ${SET} is not generated (${dir}): run npx sprint content --set ${SET} first`);
  return Math.max(...setRecipe(SET).ladder.map((r) => r.bandwidth));
}

test(`top rung of --set ${SET} in headless Chromium`, async () => {
  const top = topRungBps();
  const rows: string[][] = [
    ['mode', 'rung Mbit/s', 'played s', 'wall s', 'frames', 'dropped', 'dropped %', 'stalls', 'CPU s', 'CPU % of 1 core'],
  ];
  for (const mode of MODES) {
    const origin = await startOrigin({ rateLimitBitsPerSec: 2 * top, onServerError: () => undefined });
    let b: TestBrowser | undefined;
    try {
      b = await launchBrowser();
      const pid = b.browser.process()?.pid;
      if (pid === undefined) throw new Error('no browser PID');
      const page = await b.newPage();
      const cpu = new TreeCpu(pid);
      cpu.start();
      const t0 = Date.now();
      await page.goto(`${origin.url}/?${topRungQuery(SET, mode).toString()}`);
      await new Promise((res) => setTimeout(res, SECONDS * 1000));
      const s = await stats(page);
      const quality = await page.evaluate(() => {
        const v = document.querySelector('video');
        const pq = v?.getVideoPlaybackQuality();
        return { total: pq?.totalVideoFrames ?? 0, dropped: pq?.droppedVideoFrames ?? 0 };
      });
      const used = cpu.stop();
      const wall = (Date.now() - t0) / 1000;
      const cpuSec = PROC_KINDS.reduce((sum, k) => sum + used[k], 0);
      rows.push([
        `${mode} (${s.mode ?? '?'})`,
        s.playback.videoBitrate === null ? '–' : (s.playback.videoBitrate / 1e6).toFixed(1),
        s.playback.currentTimeSec.toFixed(1),
        wall.toFixed(1),
        String(quality.total),
        String(quality.dropped),
        quality.total > 0 ? ((100 * quality.dropped) / quality.total).toFixed(2) : '–',
        `${s.playback.rebufferCount} (${(s.playback.rebufferMs / 1000).toFixed(1)} s)`,
        cpuSec.toFixed(1),
        ((100 * cpuSec) / wall).toFixed(0),
      ]);
      expect(s.playback.errors).toEqual([]);
      expect(s.playback.currentTimeSec).toBeGreaterThan(0);
      await page.close();
    } finally {
      await b?.close();
      await origin.close();
    }
  }
  console.log(
    [
      `Top rung of --set ${SET} (${(top / 1e6).toFixed(1)} Mbit/s), ${SECONDS} s per mode, loopback paced at ${((2 * top) / 1e6).toFixed(0)} Mbit/s, ${cpus().length} cores:`,
      ...alignColumns(rows),
    ].join('\n'),
  );
});
