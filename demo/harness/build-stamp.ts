// Which player build a run served. The harness runs from the source tree
// but the origin serves the bundles in dist/ (player, demo page, extension),
// which are only as new as the last `npm run build`: the checkout's commit
// alone does not say what the players ran. `npm run build` ends by writing
// dist/build.json (the commit and whether the tree had uncommitted changes,
// with a fingerprint of the bundles it built); each run records the
// fingerprint of the bundles it actually served and the stamp's commit when
// the two agree (otherwise the commit is unknown: dist was changed after the
// stamp).

import { createHash } from 'crypto';
import { existsSync, readFileSync, writeFileSync } from 'fs';
import * as path from 'path';
import type { SourceVersion } from './manifest';

export const BUILD_STAMP_FILE = 'build.json';

/** The bundles a player run is made of, relative to dist/ (the socket host binary is built by extension:install and left out). */
export const BUNDLE_FILES = [
  'player/sprint.js',
  'player/demo-page.js',
  'player/peer-shaka.js',
  'player/peer-hlsjs.js',
  'extension/unpacked/manifest.json',
  'extension/unpacked/background.js',
  'extension/unpacked/content.js',
] as const;

/** The tracked sources the bundles are built from: uncommitted changes elsewhere do not make a build "dirty". */
export const BUNDLE_SOURCES = [
  'src',
  'player',
  'extension',
  'demo/page',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
] as const;

/** A run's record of the player build it served. */
export interface BuildRecord {
  /** sha256 (first 12 hex digits) over the bundles' names and bytes; null when none is built. */
  readonly bundle: string | null;
  /** The commit `npm run build` ran from, when dist/build.json matches the bundles served; null otherwise. */
  readonly commit: string | null;
  /** Whether that tree had uncommitted changes (null when unknown). */
  readonly dirty: boolean | null;
  readonly builtAt: string | null;
}

interface Stamp {
  readonly format: 'sprint-build';
  readonly commit: string | null;
  readonly dirty: boolean | null;
  readonly builtAt: string;
  readonly bundle: string | null;
}

/** Fingerprint of the bundles in distDir: sha256 over each present file's name and bytes (missing files count as absent). */
export function bundleFingerprint(distDir: string): string | null {
  const h = createHash('sha256');
  let any = false;
  for (const f of BUNDLE_FILES) {
    const p = path.join(distDir, f);
    if (!existsSync(p)) continue;
    any = true;
    h.update(`${f}\0`);
    h.update(readFileSync(p));
    h.update('\0');
  }
  return any ? h.digest('hex').slice(0, 12) : null;
}

/** Writes distDir/build.json for the bundles there, from the given source version. */
export function writeBuildStamp(distDir: string, source: SourceVersion, now: Date = new Date()): Stamp {
  const stamp: Stamp = {
    format: 'sprint-build',
    commit: source.commit,
    dirty: source.dirty,
    builtAt: now.toISOString(),
    bundle: bundleFingerprint(distDir),
  };
  writeFileSync(path.join(distDir, BUILD_STAMP_FILE), `${JSON.stringify(stamp, null, 1)}\n`);
  return stamp;
}

/** What a run served: the bundles' fingerprint now, with the stamp's commit when the stamp describes those bundles. */
export function buildRecord(distDir: string): BuildRecord {
  let bundle: string | null;
  try {
    bundle = bundleFingerprint(distDir);
  } catch {
    // dist/ changing under the run (a rebuild cleaning it): the run goes on, its build unknown.
    bundle = null;
  }
  let stamp: Stamp | null = null;
  try {
    const s = JSON.parse(readFileSync(path.join(distDir, BUILD_STAMP_FILE), 'utf8')) as Stamp;
    if (s.format === 'sprint-build') stamp = s;
  } catch {
    stamp = null;
  }
  if (!stamp || stamp.bundle !== bundle) return { bundle, commit: null, dirty: null, builtAt: null };
  return { bundle, commit: stamp.commit, dirty: stamp.dirty, builtAt: stamp.builtAt };
}

/** "build 33d605e", "build 33d605e+" (uncommitted changes), "bundle 1a2b3c4d5e6f" (commit unknown), "build unknown". */
export function describeBuild(b: BuildRecord | undefined | null): string {
  if (!b) return 'build unknown';
  if (b.commit) return `build ${b.commit.slice(0, 7)}${b.dirty ? '+' : ''}`;
  return b.bundle ? `bundle ${b.bundle}` : 'build unknown';
}

/**
 * The builds some runs served, counted in order of first appearance. Runs whose bundles have the same
 * fingerprint served the same player whatever commit built it (a rebuild after commits that did not touch
 * the bundles' sources gives the same bytes), so they count as one build, named by every commit that built
 * it: "build 2165dc7 = de2cb1d (bundle 5692112a2cd6)". Runs without a build record count under `otherwise`.
 */
export function countBuilds<T>(
  runs: readonly T[],
  buildOf: (run: T) => BuildRecord | null | undefined,
  otherwise: (run: T) => string,
): Array<{ readonly label: string; readonly runs: number }> {
  const groups = new Map<string, { commits: Set<string>; name: string; bundle: string | null; runs: number }>();
  for (const run of runs) {
    const b = buildOf(run);
    const name = b ? describeBuild(b) : otherwise(run);
    const key = b?.bundle ? `bundle:${b.bundle}` : `name:${name}`;
    const g = groups.get(key) ?? { commits: new Set<string>(), name, bundle: b?.bundle ?? null, runs: 0 };
    if (b?.commit) g.commits.add(name.replace(/^build /, ''));
    g.runs++;
    groups.set(key, g);
  }
  const labelled = [...groups.values()].map((g) => {
    const commits = [...g.commits];
    if (commits.length > 1) return { label: `build ${commits.join(' = ')} (bundle ${g.bundle})`, runs: g.runs, bundle: g.bundle };
    return { label: commits.length === 1 ? `build ${commits[0]}` : g.name, runs: g.runs, bundle: g.bundle };
  });
  // Two bundles under one name (two builds of one dirty tree): tell them apart by fingerprint.
  return labelled.map(({ label, runs, bundle }) =>
    bundle && labelled.filter((o) => o.label === label).length > 1 && !label.includes(bundle)
      ? { label: `${label} (bundle ${bundle})`, runs }
      : { label, runs },
  );
}
