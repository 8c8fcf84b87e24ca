/**
 * Headless browsers for end-to-end tests, driven by puppeteer-core: Debian
 * Chromium here (flags measured to work on this machine,
 * docs/browser-facts.md), Firefox ESR in firefox.ts. Every launch gets a
 * fresh profile directory that `close()` removes, and the browser process is
 * killed by PID if it does not exit.
 */
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { homedir, tmpdir } from 'os';
import { join } from 'path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

import { CHROMIUM, CHROMIUM_FLAGS, spkiTrustFlags } from '../../../demo/chromium-flags';

export { CHROMIUM, CHROMIUM_FLAGS };

export interface TestBrowser {
  browser: Browser;
  profileDir: string;
  /** Console lines of every page opened with `newPage`. */
  console: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export interface LaunchBrowserOptions {
  /** Unpacked extension directories to load. */
  extensions?: string[];
  /** Extra environment for the browser (and the native hosts it starts). */
  env?: Record<string, string>;
  /** Called with the fresh profile directory before the browser starts. */
  prepareProfile?: (profileDir: string) => void;
  /** SPKI hashes (base64 SHA-256) of certificates to trust, e.g. the HTTP/2 origin's `spkiHash`. */
  spkiList?: string[];
}

/** Chromium writes crash reports here even with a custom profile. */
const CRASH_DIR = join(homedir(), '.config', 'chromium', 'Crash Reports');

export async function launchBrowser(extraArgs: string[] = [], options: LaunchBrowserOptions = {}): Promise<TestBrowser> {
  const crashDirExisted = existsSync(CRASH_DIR);
  return launchWithProfile(
    'sprint-chromium-',
    (profileDir) => {
      options.prepareProfile?.(profileDir);
      return puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        pipe: true,
        args: [...CHROMIUM_FLAGS, `--user-data-dir=${profileDir}`, ...spkiTrustFlags(options.spkiList ?? []), ...extraArgs],
        enableExtensions: options.extensions ?? false,
        env: { ...process.env, ...(options.env ?? {}) } as Record<string, string>,
      });
    },
    () => {
      if (!crashDirExisted) rmSync(CRASH_DIR, { recursive: true, force: true });
    },
  );
}

/**
 * The launch wrapper both browsers share: `launch` starts the browser on a
 * fresh profile directory (named `prefix`...); the result collects the
 * console of its pages, and `close()` closes the browser (5 s at most), kills
 * its process by PID, removes the profile and runs `cleanup`.
 */
export async function launchWithProfile(
  prefix: string,
  launch: (profileDir: string) => Promise<Browser>,
  cleanup: () => void = () => {},
): Promise<TestBrowser> {
  const profileDir = mkdtempSync(join(tmpdir(), prefix));
  const cleanupFiles = (): void => {
    rmSync(profileDir, { recursive: true, force: true });
    cleanup();
  };
  let browser: Browser;
  try {
    browser = await launch(profileDir);
  } catch (e) {
    cleanupFiles();
    throw e;
  }
  const pid = browser.process()?.pid;
  const consoleLines: string[] = [];
  return {
    browser,
    profileDir,
    console: consoleLines,
    async newPage() {
      const page = await browser.newPage();
      page.on('console', (m) => {
        consoleLines.push(`${m.type()}: ${m.text()}`);
        if (process.env.SPRINT_TEST_CONSOLE) console.log(`[page] ${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => consoleLines.push(`pageerror: ${(e as Error).message}`));
      return page;
    },
    async close() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([browser.close(), new Promise((r) => (timer = setTimeout(r, 5000)))]);
      } finally {
        clearTimeout(timer);
        if (pid !== undefined) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        cleanupFiles();
      }
    },
  };
}
