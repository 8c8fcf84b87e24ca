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

/**
 * Flags that make Chromium trust exactly the certificates whose
 * SubjectPublicKeyInfo SHA-256 (base64) is in `hashes` — the self-signed
 * certificate of the HTTP/2 demo origin (demo/server/tls-cert.ts) — and no
 * other invalid certificate. Chromium honours the list only with a
 * `--user-data-dir`, which every launch here has.
 */
export function spkiTrustFlags(hashes: readonly string[]): string[] {
  if (hashes.length === 0) return [];
  for (const h of hashes) {
    if (!/^[A-Za-z0-9+/]{43}=$/.test(h)) throw new Error(`spkiTrustFlags: ${JSON.stringify(h)} is not a base64 SHA-256 hash`);
  }
  return [`--ignore-certificate-errors-spki-list=${hashes.join(',')}`];
}
