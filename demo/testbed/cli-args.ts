// Command-line parsing shared by the testbed's small programs (bulk-client,
// segment-client, selftest): `--name value` options, numbers checked, and a
// usage error that names the bad option.

import { parseArgs } from 'util';

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parses `--key value` options; every option is a string, all are optional here. */
export function parseOptions(argv: readonly string[], names: readonly string[]): Record<string, string | undefined> {
  const spec: Record<string, { type: 'string' }> = {};
  for (const n of names) spec[n] = { type: 'string' };
  try {
    const { values } = parseArgs({ args: [...argv], options: spec, strict: true, allowPositionals: false });
    return values as Record<string, string | undefined>;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Required string option. */
export function required(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (v === undefined || v === '') throw new UsageError(`missing --${name}`);
  return v;
}

/** Number option with a default; must be finite and > 0 unless allowZero. */
export function numberOption(values: Record<string, string | undefined>, name: string, fallback?: number, allowZero = false): number {
  const v = values[name];
  if (v === undefined) {
    if (fallback === undefined) throw new UsageError(`missing --${name}`);
    return fallback;
  }
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0))
    throw new UsageError(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got "${v}"`);
  return n;
}
