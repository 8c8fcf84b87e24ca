// ab.json: the top of a results folder — the exact command, the plan (every
// run with its condition, variant and repeat) and the settings shared by all
// runs. `sprint report DIR` rebuilds everything else from it and the run
// directories; `sprint ab --resume` checks it to continue a plan.

import { existsSync, readFileSync, writeFileSync } from 'fs';
import * as path from 'path';
import type { Plan } from './plan';

export const MANIFEST_FILE = 'ab.json';
export const MANIFEST_FORMAT = 'sprint-ab';
export const MANIFEST_VERSION = 1;

export interface AbManifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly version: typeof MANIFEST_VERSION;
  /** `sprint ab …` as typed (after the command name). */
  readonly argv: readonly string[];
  readonly createdAt: string;
  readonly plan: Plan;
  readonly defaultAbr: string;
  readonly pageQuery: string;
  readonly chromiumArgs: readonly string[];
}

export function writeManifest(dir: string, manifest: AbManifest): void {
  writeFileSync(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
}

export function readManifest(dir: string): AbManifest {
  const p = path.join(dir, MANIFEST_FILE);
  if (!existsSync(p)) throw new Error(`${dir} is not an A/B results folder: ${MANIFEST_FILE} is missing`);
  let m: AbManifest;
  try {
    m = JSON.parse(readFileSync(p, 'utf8')) as AbManifest;
  } catch (err) {
    throw new Error(`${p}: not JSON: ${(err as Error).message}`);
  }
  if (m.format !== MANIFEST_FORMAT) throw new Error(`${p}: not an A/B manifest (format ${JSON.stringify(m.format)})`);
  if (m.version !== MANIFEST_VERSION) throw new Error(`${p}: manifest version ${m.version}, this harness reads ${MANIFEST_VERSION}`);
  return m;
}

/** The plan as a comparable fingerprint (what must match for --resume). */
export function planFingerprint(plan: Plan): string {
  return JSON.stringify({ settings: plan.settings, runs: plan.runs.map((r) => r.dir) });
}
