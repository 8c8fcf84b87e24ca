// JSON-lines files for the testbed's raw results: one JSON object per line,
// appended as samples arrive, readable while a run is in progress, and parsed
// back with the file name and line number in any error; `num` reads one
// numeric field of such a record.

import { createWriteStream, WriteStream } from 'fs';
import { readRawText } from './raw-files';

export class JsonlWriter {
  private readonly stream: WriteStream;
  private closed = false;
  private failure: Error | null = null;

  constructor(readonly path: string) {
    this.stream = createWriteStream(path, { flags: 'a' });
    this.stream.on('error', (err) => {
      this.failure = new Error(`writing ${path}: ${err.message}`);
    });
  }

  /** Appends one record; throws if the file could not be written or is closed. */
  write(record: object): void {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error(`writing ${this.path}: already closed`);
    this.stream.write(`${JSON.stringify(record)}\n`);
  }

  /** Flushes and closes; resolves once the data is on disk. Idempotent. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve, reject) => {
      this.stream.end(() => (this.failure ? reject(this.failure) : resolve()));
    });
  }
}

/** Reads every record of a JSON-lines file, plain or compressed beside its name (raw-files.ts). */
export function readJsonl<T = Record<string, unknown>>(path: string): T[] {
  const text = readRawText(path);
  const out: T[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch (err) {
      // A run killed mid-write can leave a partial last line; anything else is corruption.
      if (i === lines.length - 1 && !text.endsWith('\n')) continue;
      throw new Error(`${path}:${i + 1}: not JSON: ${(err as Error).message}`);
    }
  }
  return out;
}

/** A record's field as a finite number, or null when it is missing, not a number, NaN or infinite. */
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
