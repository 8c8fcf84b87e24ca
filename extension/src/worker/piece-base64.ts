/**
 * Base64 of body pieces for the worker → content script hop without
 * re-encoding (bytes streamed to the page). Each host `data`
 * event arrives as base64 and is decoded into its own buffer; a body piece
 * the HTTP parser cuts from it is a view of that buffer. When the view starts
 * on a 3-byte boundary and ends on one (or at the end of the chunk), its
 * base64 is a substring of what the host sent, so the worker forwards that
 * substring instead of encoding the bytes again. Anything else is encoded.
 */
import { encodeBase64 } from '../shared/base64';

const sourceOf = new WeakMap<ArrayBufferLike, string>();

/** Records that `bytes` (a whole, freshly decoded buffer) is the decoding of `b64`. */
export function rememberBase64(bytes: Uint8Array, b64: string): void {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) sourceOf.set(bytes.buffer, b64);
}

/** Base64 of `piece`, from the remembered source when possible. */
export function pieceBase64(piece: Uint8Array): string {
  const src = sourceOf.get(piece.buffer);
  const off = piece.byteOffset;
  if (src !== undefined && off % 3 === 0) {
    const start = (off / 3) * 4;
    if (off + piece.byteLength === piece.buffer.byteLength) return src.slice(start);
    if (piece.byteLength % 3 === 0) return src.slice(start, start + (piece.byteLength / 3) * 4);
  }
  return encodeBase64(piece);
}
