// Stores a results folder's raw run files compressed: every JSON-lines file,
// log and capture becomes NAME.gz, checked to decompress to the same bytes
// before the plain file is removed. Summaries, records and READMEs stay plain;
// readers take either form (../testbed/raw-files.ts, docs/evaluation-data.md).

import { existsSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'fs';
import * as path from 'path';
import { gunzipSync, gzipSync } from 'zlib';
import { GZIP_SUFFIX, plainName } from '../testbed/raw-files';

/** Raw files by name: what a run writes as it goes (logs, samples, captures), never a summary or record. */
export const RAW_FILE = /\.(jsonl|log|pcap)$/;

export interface CompactResult {
  files: number;
  bytesBefore: number;
  bytesAfter: number;
}

/** The raw files under `dir` (recursively) that are not compressed yet, sorted. */
export function rawFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (RAW_FILE.test(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Compresses one raw file in place (NAME -> NAME.gz) after checking the round trip; returns the compressed size. */
export function compactFile(file: string): number {
  const plain = readFileSync(file);
  const packed = gzipSync(plain, { level: 9 });
  if (!gunzipSync(packed).equals(plain)) throw new Error(`${file}: compressed copy does not read back the same`);
  writeFileSync(file + GZIP_SUFFIX, packed);
  unlinkSync(file);
  return packed.length;
}

/** Compresses every raw file under `dir` (none if it does not exist); with `dryRun`, only counts them. */
export function compactFolder(dir: string, dryRun = false): CompactResult {
  const result: CompactResult = { files: 0, bytesBefore: 0, bytesAfter: 0 };
  if (!existsSync(dir)) return result;
  for (const file of rawFilesUnder(dir)) {
    const size = statSync(file).size;
    result.files += 1;
    result.bytesBefore += size;
    result.bytesAfter += dryRun ? size : compactFile(file);
  }
  return result;
}

/** Removes the raw files of one run folder, plain or compressed (not its subfolders). */
export function removeRawFiles(runDir: string): void {
  for (const name of readdirSync(runDir)) if (RAW_FILE.test(plainName(name))) rmSync(path.join(runDir, name), { force: true });
}
