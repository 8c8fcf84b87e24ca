/**
 * Base64 for the Sprint extension's message hops (bytes
 * streamed to the page): extension messaging is JSON, so the socket host's
 * bytes travel as base64 to the service worker, and body pieces travel as
 * base64 from the worker to the content script. Uses the native
 * `Uint8Array.fromBase64` / `toBase64` (Chromium 140+) when present, else
 * atob/btoa. Pure: runs in the worker, the content script and Node (tests).
 */

interface Base64Native {
  fromBase64?: (s: string) => Uint8Array;
}
interface Base64NativeProto {
  toBase64?: (this: Uint8Array) => string;
}

const nativeFrom = (Uint8Array as unknown as Base64Native).fromBase64;
const nativeTo = (Uint8Array.prototype as unknown as Base64NativeProto).toBase64;

/** Decodes standard padded base64; throws Error naming the defect on malformed input. */
export function decodeBase64(s: string): Uint8Array {
  if (nativeFrom) {
    try {
      return nativeFrom(s);
    } catch (err) {
      throw new Error(`malformed base64 (${s.length} characters): ${(err as Error).message}`);
    }
  }
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) throw new Error(`malformed base64 (${s.length} characters)`);
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i += 1) out[i] = bin.charCodeAt(i);
  return out;
}

/** Encodes bytes as standard padded base64. */
export function encodeBase64(bytes: Uint8Array): string {
  if (nativeTo) return nativeTo.call(bytes);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 8192) bin += String.fromCharCode(...bytes.subarray(i, Math.min(bytes.length, i + 8192)));
  return btoa(bin);
}
