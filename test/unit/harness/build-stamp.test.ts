// Unit tests of the player build a run records (demo/harness/build-stamp.ts):
// the stamp `npm run build` writes names the commit only while dist/ still
// holds the bundles it was written for; a bundle changed after it leaves the
// commit unknown but the fingerprint tells the builds apart.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  BuildRecord,
  buildRecord,
  bundleFingerprint,
  countBuilds,
  describeBuild,
  writeBuildStamp,
} from '../../../demo/harness/build-stamp';
import { buildLines } from '../../../demo/harness/report-md';
import type { RunSummary } from '../../../demo/harness/run-summary';

let dist: string;
beforeEach(() => {
  dist = mkdtempSync(path.join(os.tmpdir(), 'sprint-build-stamp-'));
  mkdirSync(path.join(dist, 'player'));
  mkdirSync(path.join(dist, 'extension', 'unpacked'), { recursive: true });
  writeFileSync(path.join(dist, 'player', 'sprint.js'), 'player v1');
  writeFileSync(path.join(dist, 'player', 'demo-page.js'), 'page');
  writeFileSync(path.join(dist, 'extension', 'unpacked', 'background.js'), 'bg');
});
afterEach(() => rmSync(dist, { recursive: true, force: true }));

const COMMIT = 'a'.repeat(40);

describe('build stamp', () => {
  it('names the commit while dist/ holds the bundles it was written for', () => {
    const stamp = writeBuildStamp(dist, { commit: COMMIT, dirty: false }, new Date('2026-11-26T00:00:00Z'));
    expect(stamp.bundle).toMatch(/^[0-9a-f]{12}$/);
    expect(buildRecord(dist)).toEqual({ bundle: stamp.bundle, commit: COMMIT, dirty: false, builtAt: '2026-11-26T00:00:00.000Z' });
    expect(describeBuild(buildRecord(dist))).toBe('build aaaaaaa');
  });

  it('leaves the commit unknown once a bundle changed after the stamp, and tells the two builds apart', () => {
    const stamp = writeBuildStamp(dist, { commit: COMMIT, dirty: true });
    expect(describeBuild(buildRecord(dist))).toBe('build aaaaaaa+');
    writeFileSync(path.join(dist, 'player', 'sprint.js'), 'player v2');
    const after = buildRecord(dist);
    expect(after.commit).toBeNull();
    expect(after.bundle).not.toBe(stamp.bundle);
    expect(describeBuild(after)).toBe(`bundle ${after.bundle}`);
  });

  it('has no fingerprint without bundles and no commit without a stamp', () => {
    expect(buildRecord(dist)).toMatchObject({ commit: null, builtAt: null });
    const empty = mkdtempSync(path.join(os.tmpdir(), 'sprint-build-empty-'));
    try {
      expect(bundleFingerprint(empty)).toBeNull();
      expect(describeBuild(buildRecord(empty))).toBe('build unknown');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("lists the builds a folder's runs served", () => {
    const run = (build?: BuildRecord): RunSummary =>
      ({ host: { loadAvgStart: [], loadAvgEnd: [], cpus: 2, ...(build ? { build } : {}) } }) as unknown as RunSummary;
    const b = { bundle: '0123456789ab', commit: COMMIT, dirty: false, builtAt: 'x' };
    expect(buildLines([run(b), run(b), run()])).toEqual(['build aaaaaaa (2 run(s))', 'not recorded (1 run(s))']);
    expect(buildLines([run()])).toEqual([]);
  });

  it('counts runs of the same bundles built at different commits as one build, naming both commits', () => {
    const run = (build?: BuildRecord): RunSummary =>
      ({ host: { loadAvgStart: [], loadAvgEnd: [], cpus: 2, ...(build ? { build } : {}) } }) as unknown as RunSummary;
    const at = (commit: string, bundle: string): BuildRecord => ({ bundle, commit, dirty: false, builtAt: 'x' });
    const first = at(COMMIT, '0123456789ab');
    const rebuilt = at('b'.repeat(40), '0123456789ab');
    const changed = at('c'.repeat(40), 'ba9876543210');
    expect(buildLines([run(first), run(rebuilt), run(first), run(changed)])).toEqual([
      'build aaaaaaa = bbbbbbb (bundle 0123456789ab) (3 run(s))',
      'build ccccccc (1 run(s))',
    ]);
    // the same bundle also served once when the stamp did not describe it: still one build, named by its commit
    const unstamped: BuildRecord = { bundle: '0123456789ab', commit: null, dirty: null, builtAt: null };
    expect(buildLines([run(first), run(unstamped)])).toEqual(['build aaaaaaa (2 run(s))']);
    // two different bundles built from one dirty tree: told apart by fingerprint
    const dirtyA: BuildRecord = { bundle: '111111111111', commit: COMMIT, dirty: true, builtAt: 'x' };
    const dirtyB: BuildRecord = { bundle: '222222222222', commit: COMMIT, dirty: true, builtAt: 'y' };
    expect(buildLines([run(dirtyA), run(dirtyB)])).toEqual([
      'build aaaaaaa+ (bundle 111111111111) (1 run(s))',
      'build aaaaaaa+ (bundle 222222222222) (1 run(s))',
    ]);
    expect(
      countBuilds(
        [run(first), run()],
        (r) => r.host?.build,
        () => 'source unknown',
      ),
    ).toEqual([
      { label: 'build aaaaaaa', runs: 1 },
      { label: 'source unknown', runs: 1 },
    ]);
  });
});
