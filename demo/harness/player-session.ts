// One player under test: a browser window on the demo page
// (`/?set=…&layout=…&mode=…&abr=…`, demo/page) served by the player's own
// origin port, polled once a second for `window.sprintPlayer.stats()`
// (page-probe.ts). Everything goes to one JSON-lines file per player:
//   {"kind":"open",…}      the URL and what was asked for
//   {"kind":"release",…}   with --preload-pages: when the held page created its player
//   {"kind":"poll",…}      playback state, mode in force and why, estimates, counters
//   {"kind":"segment"|"transfer"|"train",…}  each record once, when it has ended
//                          (transfers and trains still open at the end once more, with openAtEnd)
//   {"kind":"console"|"pageerror",…}         the page's own log (bounded)
//   {"kind":"poll-error"|"close",…}
// With --preload-pages (preload()) the page is opened with `hold=1` before
// the run starts, loads on the idle link and waits; release() creates its
// player at the scheduled start (demo/page/demo.ts).
// Paper §V-A: the data plane is judged on the wire, the control plane by the
// bitrate, buffer and rebuffering the player itself reports.

import type { Page } from 'puppeteer-core';
import { JsonlWriter } from '../testbed/jsonl';
import type { NamespaceBrowser } from './browser';
import { PROBE_EXPRESSION, ProbeResult } from './page-probe';

/** Console lines kept per page (the data plane logs each cancellation and fallback). */
export const MAX_CONSOLE_LINES = 5000;

/** True once a held page (demo/page/demo.ts, `hold=1`) has loaded and waits to be released. */
const HELD_EXPRESSION = "typeof window.sprintRelease === 'function'";
/** Releases a held page: it creates its player. */
const RELEASE_EXPRESSION = `(() => {
  if (typeof window.sprintRelease !== 'function') throw new Error('window.sprintRelease is gone: the page was released already or reloaded');
  window.sprintRelease();
})()`;

/** How long a preloaded page (`hold=1`, on the idle link) may take to load and be ready to release. */
export const PRELOAD_TIMEOUT_S = 60;

export interface PlayerSessionOptions {
  readonly url: string;
  readonly out: string;
  readonly label: string;
  readonly port: number;
  readonly mode: string;
  readonly abr: string;
}

export class PlayerSession {
  private readonly writer: JsonlWriter;
  private consoleLines = 0;
  private polling: Promise<void> | null = null;
  private closed = false;
  /** Transfers in progress at the last poll (written with openAtEnd when the player closes). */
  private openTransfers: readonly Record<string, unknown>[] = [];
  private openTrains: readonly Record<string, unknown>[] = [];
  /** The last successful poll. */
  last: ProbeResult | null = null;
  /** Page errors seen so far (uncaught exceptions in the page). */
  readonly pageErrors: string[] = [];
  /** When the page was opened, or, preloaded, when its player was released (page errors count from here). */
  openedAtS: number;
  /** When a poll first found the player playing (it reported its startup delay: the video's first `playing` event); null until then. */
  playingSinceS: number | null = null;

  private constructor(
    readonly options: PlayerSessionOptions,
    private readonly page: Page,
    writer: JsonlWriter,
  ) {
    this.writer = writer;
    this.openedAtS = Date.now() / 1000;
  }

  /** Opens a window on the player page; returns once navigation has been started (not finished). */
  static async open(browser: NamespaceBrowser, options: PlayerSessionOptions): Promise<PlayerSession> {
    const session = await PlayerSession.openWindow(browser, options);
    // Navigation finishes in the background: the page loads through the bottleneck.
    session.page.goto(options.url, { waitUntil: 'domcontentloaded', timeout: 120000 }).catch((err: Error) => {
      if (!session.closed) session.write({ kind: 'poll-error', t: Date.now() / 1000, message: `navigation: ${err.message}` });
    });
    return session;
  }

  /**
   * Opens a window on a held player page (`options.url` has `hold=1`) and
   * waits, PRELOAD_TIMEOUT_S in all, until it has loaded, can be released
   * (window.sprintRelease) and has had no request in flight for half a
   * second; throws a clear error otherwise (the session's file is finished).
   */
  static async preload(browser: NamespaceBrowser, options: PlayerSessionOptions): Promise<PlayerSession> {
    const session = await PlayerSession.openWindow(browser, options);
    const deadline = Date.now() + PRELOAD_TIMEOUT_S * 1000;
    const left = (): number => Math.max(1, deadline - Date.now());
    try {
      await session.page.goto(options.url, { waitUntil: 'load', timeout: left() });
      // demo-page.js defines it before the load event, or never (hold=1 not read, a page error).
      if ((await session.page.evaluate(HELD_EXPRESSION)) !== true) throw new Error('the page loaded but window.sprintRelease is missing');
      await session.page.waitForNetworkIdle({ idleTime: 500, timeout: left() });
    } catch (err) {
      const why = session.pageErrors.length > 0 ? `page error: ${session.pageErrors[0]}` : (err as Error).message;
      await session.abandon();
      throw new Error(
        `player ${options.label} (port ${options.port}): the held page was not ready within ${PRELOAD_TIMEOUT_S} s on the idle link: ${why} (${options.url})`,
      );
    }
    return session;
  }

  private static async openWindow(browser: NamespaceBrowser, options: PlayerSessionOptions): Promise<PlayerSession> {
    const page = await browser.newWindow();
    const writer = new JsonlWriter(options.out);
    const session = new PlayerSession(options, page, writer);
    page.on('console', (m) => session.onConsole(m.type(), m.text()));
    page.on('pageerror', (e) => {
      const message = e instanceof Error ? e.message : String(e);
      session.pageErrors.push(message);
      session.write({ kind: 'pageerror', t: Date.now() / 1000, message });
    });
    session.write({
      kind: 'open',
      t: Date.now() / 1000,
      url: options.url,
      label: options.label,
      port: options.port,
      mode: options.mode,
      abr: options.abr,
    });
    return session;
  }

  /** A preloaded page creates its player now (window.sprintRelease); errors are the page's, thrown. */
  async release(): Promise<void> {
    this.openedAtS = Date.now() / 1000;
    this.write({ kind: 'release', t: this.openedAtS });
    await this.page.evaluate(RELEASE_EXPRESSION);
  }

  private write(record: object): void {
    if (!this.closed) this.writer.write(record);
  }

  private onConsole(level: string, text: string): void {
    if (level === 'debug' || this.consoleLines >= MAX_CONSOLE_LINES) return;
    this.consoleLines++;
    this.write({ kind: 'console', t: Date.now() / 1000, level, text: text.slice(0, 2000) });
    if (this.consoleLines === MAX_CONSOLE_LINES)
      this.write({ kind: 'console', t: Date.now() / 1000, level: 'info', text: `(harness: console capped at ${MAX_CONSOLE_LINES} lines)` });
  }

  /** Reads the player's stats once and appends them; never overlaps itself; errors are recorded, not thrown. */
  poll(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.polling ??= (async () => {
      const t = Date.now() / 1000;
      try {
        const r = (await this.page.evaluate(PROBE_EXPRESSION)) as ProbeResult;
        const { segments, transfers, trains, openList, openTrains, ...state } = r;
        this.openTransfers = openList ?? [];
        this.openTrains = openTrains ?? [];
        this.write({ ...state, kind: 'poll', t });
        // A segment record has its own `kind` (init/media): kept as segmentKind.
        for (const s of segments ?? []) this.write({ ...s, segmentKind: s['kind'] ?? null, kind: 'segment', t });
        for (const x of transfers ?? []) this.write({ ...x, kind: 'transfer', t });
        for (const x of trains ?? []) this.write({ ...x, kind: 'train', t });
        this.last = r;
        if (this.playingSinceS === null && hasStartedPlaying(r)) this.playingSinceS = t;
      } catch (err) {
        this.write({ kind: 'poll-error', t, message: (err as Error).message });
      }
    })().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  /** Takes a last poll, closes the window (its connections end with it) and the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    await (this.polling ?? Promise.resolve());
    await this.poll();
    const t = Date.now() / 1000;
    for (const x of this.openTransfers) this.write({ ...x, kind: 'transfer', t, openAtEnd: true });
    for (const x of this.openTrains) this.write({ ...x, kind: 'train', t, openAtEnd: true });
    this.write({ kind: 'close', t });
    this.closed = true;
    await Promise.race([this.page.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
    await this.writer.close();
  }

  /** Closes the file without touching the page (the browser is already gone). */
  async abandon(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer.close();
  }
}

/** Whether a poll shows the player has started playing: it reported its startup delay (set at the video's first `playing` event). */
export function hasStartedPlaying(r: Pick<ProbeResult, 'ready' | 'playback'>): boolean {
  return r.ready && typeof r.playback?.startupDelayMs === 'number';
}
