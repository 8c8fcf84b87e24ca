// The gzip copy of a page file, for the origin to send instead of the file
// when the client accepts gzip (routes.ts): `<name>.gz` under the same root,
// as the player build writes beside each script. A copy is used only if it
// decodes to the file's bytes: checked once per version of the two files
// (their real paths, sizes and modification times) and remembered, so a file
// replaced after the build is never answered with its old copy. A copy that
// fails the check is reported once per version (the origin's error log:
// "sprint origin: ..." on stderr), so a stale build does not go unnoticed.

import { gunzip } from 'zlib';
import { promisify } from 'util';
import { openUnderRoot, type OpenedFile } from './static-files';

const gunzipAsync = promisify(gunzip);

/** Files above this size are never checked, so never sent compressed: the check reads both whole. */
export const MAX_CHECKED_BYTES = 16 * 1024 * 1024;
/** Verdicts remembered; the memory is cleared when it fills. */
const MAX_REMEMBERED = 256;
const verdicts = new Map<string, boolean>();

function versionKey(f: OpenedFile): string {
  return `${f.realPath}\0${f.size}\0${f.mtime.getTime()}`;
}

/** Why `gz` is not a copy of `file`, or null when it decodes to exactly the file's bytes. */
async function whyNotACopy(gz: OpenedFile, file: OpenedFile): Promise<string | null> {
  if (file.size > MAX_CHECKED_BYTES || gz.size > MAX_CHECKED_BYTES) return `too large to check (over ${MAX_CHECKED_BYTES} bytes)`;
  // Whole files from the start: nothing has read these handles but at explicit positions.
  const [packed, plain] = await Promise.all([gz.handle.readFile(), file.handle.readFile()]);
  try {
    const unpacked = await gunzipAsync(packed, { maxOutputLength: MAX_CHECKED_BYTES + 1 });
    return unpacked.equals(plain) ? null : 'decodes to other bytes than the file (a copy from an older build?)';
  } catch (err) {
    return `is not gzip (${(err as Error).message})`;
  }
}

/**
 * The open gzip copy of `file` (the file at `urlPath` under `root`), or null
 * when there is none or it does not decode to the file; `report` hears why
 * (e.g. "is not gzip (…)"), once per version of the two files. The caller owns the returned handle.
 */
export async function gzipCopyOf(
  root: string,
  urlPath: string,
  file: OpenedFile,
  report: (message: string) => void = () => undefined,
): Promise<OpenedFile | null> {
  if (urlPath.endsWith('/') || urlPath.toLowerCase().endsWith('.gz')) return null;
  const r = await openUnderRoot(root, `${urlPath}.gz`);
  if (r.kind !== 'file') return null;
  let ok: boolean;
  try {
    const key = `${versionKey(r)}\0${versionKey(file)}`;
    const known = verdicts.get(key);
    if (known === undefined) {
      const why = await whyNotACopy(r, file);
      ok = why === null;
      if (verdicts.size >= MAX_REMEMBERED) verdicts.clear();
      verdicts.set(key, ok);
      if (why !== null) report(why);
    } else {
      ok = known;
    }
  } catch (err) {
    await r.handle.close();
    throw err;
  }
  if (ok) return r;
  await r.handle.close();
  return null;
}
