/**
 * End-to-end fixture: the `test` content set, an origin on loopback with its
 * access log, headless Chromium on the demo page, and bounded waits on what
 * the player reports. Everything started here is stopped by `close()`.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { Page } from 'puppeteer-core';
import { ensureContent } from '../../../demo/content/generate';
import { startOrigin, type Origin, type OriginOptions, type AccessRecord } from '../../../demo/server/origin';
import { startH2Origin, type H2Origin, type H2OriginOptions } from '../../../demo/server/h2-origin';
import type { SprintStats } from '../../../player/stats/types';
import { launchBrowser, type TestBrowser } from './browser';

export const TEST_SET = 'test';

export interface Stack<O extends Origin = Origin> {
  origin: O;
  browser: TestBrowser;
  page: Page;
  dir: string;
  close(): Promise<void>;
}

export async function ensureTestContent(): Promise<void> {
  await ensureContent({ set: TEST_SET, log: (l) => process.stderr.write(`${l}\n`) });
}

export async function startStack(originOptions: OriginOptions = {}): Promise<Stack> {
  return startStackWith(
    (logFile) => startOrigin({ logFile, ...originOptions }),
    () => launchBrowser(),
  );
}

/**
 * The same stack on the HTTPS + HTTP/2 origin (demo/server/h2-origin.ts):
 * a fresh self-signed certificate, and Chromium trusting exactly that one by
 * its SPKI hash.
 */
export async function startH2Stack(originOptions: H2OriginOptions = {}): Promise<Stack<H2Origin>> {
  return startStackWith(
    (logFile) => startH2Origin({ logFile, ...originOptions }),
    (origin) => launchBrowser([], { spkiList: [origin.spkiHash] }),
  );
}

/** An origin started by `start` (its access log in the stack's directory) and a browser from `launch`. */
export async function startStackWith<O extends Origin>(
  start: (logFile: string) => Promise<O>,
  launch: (origin: O) => Promise<TestBrowser>,
): Promise<Stack<O>> {
  await ensureTestContent();
  const dir = mkdtempSync(join(tmpdir(), 'sprint-e2e-'));
  let origin: O;
  try {
    origin = await start(join(dir, 'access.jsonl'));
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  let browser: TestBrowser | undefined;
  try {
    browser = await launch(origin);
    const page = await browser.newPage();
    const b = browser;
    return {
      origin,
      browser,
      page,
      dir,
      async close() {
        await b.close();
        await origin.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await browser?.close();
    await origin.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

export function demoUrl(origin: Origin, params: Record<string, string>): string {
  const q = new URLSearchParams({ set: TEST_SET, ...params });
  return `${origin.url}/?${q.toString()}`;
}

export async function stats(page: Page): Promise<SprintStats> {
  return page.evaluate(() => {
    const p = (window as unknown as { sprintPlayer?: { stats(): unknown } }).sprintPlayer;
    if (!p) throw new Error('window.sprintPlayer is not set: the demo page did not start');
    return JSON.parse(JSON.stringify(p.stats()));
  }) as Promise<SprintStats>;
}

/** What the demo page heard through `player.on` (its `window.sprintEvents`), with the stats read at the same moment. */
export interface HeardEvents {
  counts: Record<string, number>;
  /** Record ids of the transferEnd and trainEnd events the page heard, in order. */
  ids: Record<string, number[]>;
  stats: SprintStats;
}

/** The ids of the `name` events the page heard, and of the records that should have sent one, both sorted. */
export function heardAndRecorded(
  heard: HeardEvents,
  name: 'transferEnd' | 'trainEnd',
  records: ReadonlyArray<{ id: number; endMs: number | null }>,
) {
  const byId = (a: number, b: number): number => a - b;
  return {
    heard: [...(heard.ids[name] ?? [])].sort(byId),
    recorded: records
      .filter((r) => r.endMs !== null)
      .map((r) => r.id)
      .sort(byId),
  };
}

export async function heardEvents(page: Page): Promise<HeardEvents> {
  return page.evaluate(() => {
    const w = window as unknown as {
      sprintPlayer?: { stats(): unknown };
      sprintEvents?: { counts: Record<string, number>; ids: Record<string, number[]> };
    };
    if (!w.sprintPlayer || !w.sprintEvents) throw new Error('the demo page did not start or does not listen to player events');
    return JSON.parse(JSON.stringify({ counts: w.sprintEvents.counts, ids: w.sprintEvents.ids, stats: w.sprintPlayer.stats() }));
  }) as Promise<HeardEvents>;
}

/**
 * Polls the player's stats every `intervalMs` until `pred` holds and returns
 * them; fails after `timeoutMs` with what the player reported last (mode and
 * why, playback time, errors, segments fetched, its last three transfers).
 * An exception thrown by `pred` ends the wait with that error.
 */
export async function waitForStats(
  page: Page,
  what: string,
  pred: (s: SprintStats) => boolean,
  timeoutMs: number,
  intervalMs = 250,
): Promise<SprintStats> {
  const deadline = Date.now() + timeoutMs;
  let s = await stats(page);
  while (!pred(s)) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; mode=${s.mode} (${s.modeReason}) time=${s.playback.currentTimeSec} errors=${JSON.stringify(s.playback.errors)} segments=${s.segments.length} transfers=${JSON.stringify(s.transfers.slice(-3))}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
    s = await stats(page);
  }
  return s;
}

/**
 * Waits until playback has advanced to at least `seconds` (waitForStats,
 * polling every half second); fails at once if the player reports errors, or
 * with the last stats if `timeoutMs` passes first.
 */
export function waitForPlayback(page: Page, seconds: number, timeoutMs: number): Promise<SprintStats> {
  const reached = (s: SprintStats): boolean => {
    if (s.playback.errors.length > 0) throw new Error(`player errors: ${s.playback.errors.join('; ')}`);
    return s.playback.currentTimeSec >= seconds;
  };
  return waitForStats(page, `playback to reach ${seconds}s`, reached, timeoutMs, 500);
}

export type MediaRecord = AccessRecord & { url: string };

/** Access-log records of media bytes (not manifests, probes or the page). */
export function mediaRecords<R extends AccessRecord>(origin: { records(): readonly R[] }): Array<R & { url: string }> {
  return origin
    .records()
    .filter(
      (r): r is R & { url: string } => r.url !== null && r.url.startsWith('/media/') && !r.url.endsWith('.mpd') && r.method === 'GET',
    );
}

/** How many requests arrived before the previous one's response had ended (arrival order). */
export function overlapping(records: ReadonlyArray<{ arrival: number; end: number }>): number {
  const sorted = [...records].sort((a, b) => a.arrival - b.arrival);
  let n = 0;
  for (let i = 1; i < sorted.length; i++) if ((sorted[i]?.arrival as number) < (sorted[i - 1]?.end as number)) n += 1;
  return n;
}

/** The length of a record's `bytes=a-b` Range, or NaN. */
export function rangeBytes(r: AccessRecord): number {
  const m = /^bytes=(\d+)-(\d+)$/.exec(r.range ?? '');
  return m ? Number(m[2]) - Number(m[1]) + 1 : NaN;
}

/** Switches video to representation `index` by hand on the demo page's player (dash.js's automatic switching off for video). */
export async function switchVideoByHand(page: Page, index: number): Promise<void> {
  await page.evaluate((idx) => {
    const p = (
      window as unknown as {
        sprintPlayer: { dash: { updateSettings(s: unknown): void; setRepresentationForTypeByIndex(t: string, i: number): void } };
      }
    ).sprintPlayer;
    p.dash.updateSettings({ streaming: { abr: { autoSwitchBitrate: { video: false } } } });
    p.dash.setRepresentationForTypeByIndex('video', idx);
  }, index);
}
