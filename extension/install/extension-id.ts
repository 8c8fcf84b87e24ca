// The Sprint extension's ID, derived from the public key in
// extension/manifest.json ("stable ID via a manifest key").
// Chrome's rule: SHA-256 of the DER-encoded public key, first 16 bytes, each
// hex digit 0-f mapped to a letter a-p. The installer writes the resulting
// origin into the native host manifest's allowed_origins, and
// extension/host/allowlist.go carries the same origin.
import { createHash } from 'crypto';
import { readFileSync } from 'fs';

/** The 32-letter extension ID for a manifest `key` (base64 DER SubjectPublicKeyInfo). */
export function extensionIdFromKey(keyBase64: string): string {
  const der = Buffer.from(keyBase64, 'base64');
  if (der.length < 64 || der.toString('base64') !== keyBase64.replace(/\s+/g, '')) {
    throw new Error('manifest "key" is not base64 of a DER public key');
  }
  const hex = createHash('sha256').update(der).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode('a'.charCodeAt(0) + parseInt(c, 16))).join('');
}

/** Reads a manifest.json and returns its extension ID; throws if it has no `key`. */
export function extensionIdFromManifest(manifestPath: string): string {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { key?: unknown };
  if (typeof manifest.key !== 'string') throw new Error(`${manifestPath} has no "key": the extension ID would not be stable`);
  return extensionIdFromKey(manifest.key);
}

/** The origin Chrome passes to the native host and lists in allowed_origins. */
export function extensionOrigin(id: string): string {
  return `chrome-extension://${id}/`;
}
