// Static file resolution for the demo origin: maps a URL path under one root
// directory to an open regular file, refusing anything that could leave the
// root (".." segments, encoded or not; symbolic links pointing outside), and
// names the Content-Type by extension. Opening the file here and answering from
// the open handle means the size in the headers is the size of what is sent.

import { promises as fs } from 'fs';
import * as path from 'path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.mpd': 'application/dash+xml',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.m4s': 'video/mp4',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.m4a': 'audio/mp4',
  '.webm': 'video/webm',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.vtt': 'text/vtt; charset=utf-8',
};

/** Content-Type for a file name by its extension; application/octet-stream when unknown. */
export function contentTypeFor(fileName: string): string {
  return CONTENT_TYPES[path.extname(fileName).toLowerCase()] ?? 'application/octet-stream';
}

/** An open regular file inside a root. The caller owns `handle` and must close it. */
export interface OpenedFile {
  readonly kind: 'file';
  readonly handle: fs.FileHandle;
  readonly realPath: string;
  readonly size: number;
  readonly mtime: Date;
  readonly contentType: string;
}

export type Resolution =
  | OpenedFile
  | { readonly kind: 'not-found' }
  /** The path tried to leave the root; `reason` says how. */
  | { readonly kind: 'forbidden'; readonly reason: string }
  /** The path cannot be decoded (bad percent-encoding, NUL). */
  | { readonly kind: 'bad-path'; readonly reason: string };

/**
 * Splits a URL path (already stripped of the query, not yet percent-decoded)
 * into decoded segments. "." and empty segments vanish; ".." is refused.
 */
export function safeSegments(
  urlPath: string,
): { ok: true; segments: string[] } | { ok: false; kind: 'forbidden' | 'bad-path'; reason: string } {
  const segments: string[] = [];
  for (const raw of urlPath.split('/')) {
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return { ok: false, kind: 'bad-path', reason: `invalid percent-encoding in path segment ${JSON.stringify(raw)}` };
    }
    if (seg.includes('\0')) return { ok: false, kind: 'bad-path', reason: 'NUL byte in path' };
    // A decoded "/" or "\" would smuggle in extra levels: refuse rather than guess.
    if (seg.includes('/') || seg.includes('\\')) {
      return { ok: false, kind: 'forbidden', reason: `path segment ${JSON.stringify(raw)} contains an encoded separator` };
    }
    if (seg === '..') return { ok: false, kind: 'forbidden', reason: 'path contains a ".." segment' };
    if (seg === '' || seg === '.') continue;
    segments.push(seg);
  }
  return { ok: true, segments };
}

/** Errors that mean "there is no such file for this URL"; anything else is a server fault. */
function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'ELOOP' || code === 'ENAMETOOLONG';
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * Opens the file named by `urlPath` (relative to `root`, URL-encoded) if it is
 * a regular file whose real path lies inside the real path of `root`.
 * Directories and missing files are `not-found`.
 */
export async function openUnderRoot(root: string, urlPath: string): Promise<Resolution> {
  const split = safeSegments(urlPath);
  if (!split.ok) return { kind: split.kind, reason: split.reason };
  if (split.segments.length === 0) return { kind: 'not-found' };
  let realRoot: string;
  let realPath: string;
  let handle: fs.FileHandle;
  try {
    realRoot = await fs.realpath(root);
    realPath = await fs.realpath(path.join(realRoot, ...split.segments));
    if (!isInside(realRoot, realPath)) {
      return { kind: 'forbidden', reason: 'path resolves (through a symbolic link) outside the served root' };
    }
    // Check the type before opening: opening a FIFO for reading would block.
    if (!(await fs.stat(realPath)).isFile()) return { kind: 'not-found' };
    handle = await fs.open(realPath, 'r');
  } catch (err) {
    if (isMissing(err)) return { kind: 'not-found' };
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      return { kind: 'not-found' };
    }
    return { kind: 'file', handle, realPath, size: st.size, mtime: st.mtime, contentType: contentTypeFor(realPath) };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
