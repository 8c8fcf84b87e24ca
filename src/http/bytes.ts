// Byte helpers for the HTTP/1.1 layer (paper §IV-B1 trains): ASCII/latin1
// conversion without TextEncoder/Buffer, so the same code runs in a Chrome
// extension service worker and in Node. HTTP heads are octets; we map each
// octet to the code point of the same value (latin1) and back.

/** Decodes bytes [start, end) of `bytes` as latin1 (one char per octet). */
export function latin1(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = '';
  // String.fromCharCode with many arguments is fast; slice to stay far below argument limits.
  for (let i = start; i < end; i += 4096) {
    out += String.fromCharCode(...bytes.subarray(i, Math.min(end, i + 4096)));
  }
  return out;
}

/** Encodes a string whose every char is ASCII (0x00-0x7f); throws if one is not (callers validate first). */
export function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) throw new RangeError(`asciiBytes: non-ASCII char U+${c.toString(16).padStart(4, '0')} at index ${i}`);
    out[i] = c;
  }
  return out;
}

/** Concatenates byte arrays into a new one. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Printable form of one octet for error messages: 'A', '\r', '0x00'. */
export function describeByte(b: number): string {
  if (b === 0x0d) return "'\\r'";
  if (b === 0x0a) return "'\\n'";
  if (b === 0x09) return "'\\t'";
  if (b >= 0x20 && b < 0x7f) return `'${String.fromCharCode(b)}'`;
  return `0x${b.toString(16).padStart(2, '0')}`;
}
