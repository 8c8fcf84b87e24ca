/**
 * Headless Debian Firefox ESR for end-to-end tests of the page-only modes,
 * driven by puppeteer-core over WebDriver BiDi, on the launch wrapper the
 * Chromium tests use (browser.ts). Firefox has no flag that trusts one
 * certificate by its SPKI hash: the session accepts invalid certificates
 * (BiDi `acceptInsecureCerts`), which is why only loopback test origins
 * are ever opened in it.
 */
import { existsSync } from 'fs';
import puppeteer from 'puppeteer-core';

import type { H2Origin, H2OriginOptions } from '../../../demo/server/h2-origin';
import { startH2Origin } from '../../../demo/server/h2-origin';
import { startOrigin, type OriginOptions } from '../../../demo/server/origin';
import { launchWithProfile, type TestBrowser } from './browser';
import { startStackWith, type Stack } from './playback';

export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** Preferences on top of puppeteer's (which already turn off updates, telemetry and first-run pages). */
const FIREFOX_PREFS: Record<string, unknown> = {
  // Play without a user gesture, silent.
  'media.autoplay.default': 0,
  'media.volume_scale': '0.0',
  // The machine's network is closed; the tests speak to loopback only.
  'network.http.http3.enable': false,
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
};

export function firefoxInstalled(): boolean {
  return existsSync(FIREFOX);
}

export function launchFirefox(): Promise<TestBrowser> {
  return launchWithProfile('sprint-firefox-', (profileDir) =>
    puppeteer.launch({
      browser: 'firefox',
      protocol: 'webDriverBiDi',
      executablePath: FIREFOX,
      headless: true,
      userDataDir: profileDir,
      acceptInsecureCerts: true,
      extraPrefsFirefox: FIREFOX_PREFS,
    }),
  );
}

/** The test content on the HTTP/1.1 origin, and Firefox. */
export function startFirefoxStack(originOptions: OriginOptions = {}): Promise<Stack> {
  return startStackWith((logFile) => startOrigin({ logFile, ...originOptions }), launchFirefox);
}

/** The test content on the HTTPS + HTTP/2 origin (its self-signed certificate accepted for the session), and Firefox. */
export function startFirefoxH2Stack(originOptions: H2OriginOptions = {}): Promise<Stack<H2Origin>> {
  return startStackWith((logFile) => startH2Origin({ logFile, ...originOptions }), launchFirefox);
}
