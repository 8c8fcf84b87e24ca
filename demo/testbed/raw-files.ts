// Raw run files (JSON lines, access logs, captures) as committed: plain or
// gzip-compressed beside the same name (`NAME.gz`), read the same either way,
// so every reader takes the plain name (docs/evaluation-data.md).

import { existsSync, readFileSync } from 'fs';
import { gunzipSync } from 'zlib';

export const GZIP_SUFFIX = '.gz';

/** The file at `p`, else its compressed copy `p.gz`; null when neither exists. */
export function rawFile(p: string): string | null {
  if (existsSync(p)) return p;
  if (!p.endsWith(GZIP_SUFFIX) && existsSync(p + GZIP_SUFFIX)) return p + GZIP_SUFFIX;
  return null;
}

/** Whether a raw file exists at `p`, plain or compressed. */
export const rawFileExists = (p: string): boolean => rawFile(p) !== null;

/** The bytes of a raw file by its plain name (or its `.gz` name), decompressed; throws naming the file if neither exists or it is not gzip. */
export function readRawBytes(p: string): Buffer {
  const file = rawFile(p);
  if (file === null) throw new Error(`${p}: no such file (nor ${p}${GZIP_SUFFIX})`);
  const bytes = readFileSync(file);
  if (!file.endsWith(GZIP_SUFFIX)) return bytes;
  try {
    return gunzipSync(bytes);
  } catch (err) {
    throw new Error(`${file}: not a readable gzip file: ${(err as Error).message}`);
  }
}

/** The text of a raw file (UTF-8), as readRawBytes. */
export const readRawText = (p: string): string => readRawBytes(p).toString('utf8');

/** A file name without its `.gz`: how a compressed raw file is matched by its plain name. */
export const plainName = (name: string): string => (name.endsWith(GZIP_SUFFIX) ? name.slice(0, -GZIP_SUFFIX.length) : name);
