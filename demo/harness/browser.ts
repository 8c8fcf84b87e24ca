// One headless Chromium inside the testbed's client namespace, driven by
// puppeteer-core over the DevTools pipe (pipe-transport.ts). Started through
// the testbed (`tb.exec`), so it is a tracked process group that the testbed
// kills on destroy, error and Ctrl-C; a fresh profile directory per run is
// removed on close. Flags are the ones measured to work headless on this
// machine (docs/browser-facts.md, test/e2e/support/browser.ts) plus
// what keeps several players honest in one browser: each player gets its own
// window (windows stay `visible`; a background tab is `hidden`) and timer
// throttling / renderer backgrounding are off.

import { closeSync, mkdtempSync, openSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Readable, Writable } from 'stream';
import type { Browser, Page } from 'puppeteer-core';
import { registerCleanup } from '../testbed/cleanup';
import type { Testbed } from '../testbed/topology';
import { prepareProfile, SprintExtension } from './extension';
import { PipeTransport } from './pipe-transport';
import { CHROMIUM, CHROMIUM_FLAGS as BASE_CHROMIUM_FLAGS } from '../chromium-flags';

export { CHROMIUM };

/** The shared headless flags, plus what keeps several players in one browser honest. */
export const CHROMIUM_FLAGS: readonly string[] = [
  ...BASE_CHROMIUM_FLAGS,
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

export interface NamespaceBrowser {
  readonly browser: Browser;
  readonly pid: number;
  readonly profileDir: string;
  /** Opens a new window (not a tab: a background tab is throttled). */
  newWindow(): Promise<Page>;
  /** Closes the browser (kills its process group if it does not exit), removes the profile. Idempotent. */
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Chromium's stderr goes here (appended). */
  readonly logPath: string;
  /** Extra Chromium flags. */
  readonly extraArgs?: readonly string[];
  /** How long to wait for the DevTools connection (default 30000 ms). */
  readonly connectTimeoutMs?: number;
  /** Load the Sprint extension and register its socket host in the profile (sprint players). */
  readonly extension?: SprintExtension | null;
}

/** Loads puppeteer-core lazily so the rest of the harness (report, plan) works without it. */
function loadPuppeteer(): typeof import('puppeteer-core') {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('puppeteer-core') as typeof import('puppeteer-core');
  } catch (err) {
    throw new Error(`puppeteer-core is not installed (npm install in the repository): ${(err as Error).message}`);
  }
}

/** Temporary Chromium profiles of A/B runs: `<tmp>/sprint-ab-chromium-<harness pid>-<random>`. */
export const PROFILE_PREFIX = 'sprint-ab-chromium-';

export async function launchBrowserInNamespace(tb: Testbed, options: LaunchOptions): Promise<NamespaceBrowser> {
  const puppeteer = loadPuppeteer();
  // Named after this harness process, so concurrent evaluations (and the
  // smoke test's leftover check) can tell their profiles apart.
  const profileDir = mkdtempSync(path.join(os.tmpdir(), `${PROFILE_PREFIX}${process.pid}-`));
  // Removed on every exit path, even if the harness dies before close().
  const unregister = registerCleanup(() => rmSync(profileDir, { recursive: true, force: true }));
  const logFd = openSync(options.logPath, 'a');
  let pid: number | undefined;
  try {
    const extensionArgs = options.extension ? prepareProfile(profileDir, options.extension) : [];
    const child = tb.exec(
      tb.clientNs,
      CHROMIUM,
      [
        ...CHROMIUM_FLAGS,
        '--remote-debugging-pipe',
        `--user-data-dir=${profileDir}`,
        ...extensionArgs,
        ...(options.extraArgs ?? []),
        'about:blank',
      ],
      { stdio: ['ignore', logFd, logFd, 'pipe', 'pipe'], label: 'chromium' },
    );
    pid = child.pid as number;
    const toBrowser = child.stdio[3] as Writable | null;
    const fromBrowser = child.stdio[4] as Readable | null;
    if (!toBrowser || !fromBrowser) throw new Error('chromium started without its DevTools pipes (fd 3/4)');
    const transport = new PipeTransport(toBrowser, fromBrowser);
    const exited = new Promise<never>((_, reject) => {
      child.once('exit', (code, signal) =>
        reject(new Error(`chromium exited (code ${code}, signal ${signal}) before DevTools connected; see ${options.logPath}`)),
      );
    });
    const timeoutMs = options.connectTimeoutMs ?? 30000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`chromium did not answer on its DevTools pipe within ${timeoutMs} ms; see ${options.logPath}`)),
        timeoutMs,
      );
    });
    let browser: Browser;
    try {
      browser = await Promise.race([puppeteer.connect({ transport, defaultViewport: null, protocolTimeout: 60000 }), exited, timeout]);
    } finally {
      clearTimeout(timer);
      exited.catch(() => undefined);
    }
    let closing: Promise<void> | null = null;
    const thePid = pid;
    return {
      browser,
      pid: thePid,
      profileDir,
      newWindow: () => browser.newPage({ type: 'window' }),
      close: () =>
        (closing ??= (async () => {
          try {
            await Promise.race([browser.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
          } finally {
            await tb.stop(thePid, 2000);
            closeSync(logFd);
            rmSync(profileDir, { recursive: true, force: true });
            unregister();
          }
        })()),
    };
  } catch (err) {
    if (pid !== undefined) await tb.stop(pid, 1000);
    closeSync(logFd);
    rmSync(profileDir, { recursive: true, force: true });
    unregister();
    throw err;
  }
}
