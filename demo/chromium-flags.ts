/**
 * Headless Chromium as measured to work on this machine
 * (docs/browser-facts.md), shared by the evaluation harness and the
 * end-to-end tests: the binary, and the flags that keep it off the network
 * (this machine's network is closed), playing without a user gesture and
 * silent.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
  '--mute-audio',
];
