// A pair of players alone on the link (`sprint ab --pairs stock+stock
// --bulk 0 --players none --no-control`: paper Table I's video-vs-video
// rows), as root, end to end through the real testbed: two stock players in
// one Chromium, each in its own window and fed by its own origin port, and
// no bulk flow. Asserts on what the wire and the origins' logs show: the
// run's only flows are the two players' ports, both carried bytes in the
// measured window (their shares of the fair share sum to 200 %: the fair
// share is the total over two flows), each origin served its own player's
// media segments, and the report names the pair and its unfairness. Also
// that the run recorded the player build it served (dist/build.json, which
// `npm run build` writes). No fairness figure is asserted.
// Needs `npm run build` first.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkCanRun, runAb, AbResult } from '../../../demo/harness/ab';
import { parseAbArgs } from '../../../demo/harness/ab-cli';
import { repoRoot } from '../../../demo/testbed/delay-element';

const ARGS = [
  '--players',
  'none',
  '--no-control',
  '--pairs',
  'stock+stock',
  '--bulk',
  '0',
  '--set',
  'test',
  '--abr',
  'buffer',
  '--rate',
  '3mbit',
  '--queue',
  '256kb',
  '--duration',
  '20s',
  '--warmup',
  '10s',
  '--repeat',
  '1',
  '--cc',
  'cubic',
];

describe('sprint ab --pairs with no bulk flow (root)', () => {
  let dir: string;
  let result: AbResult;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-ab-pairs-'));
    const parsed = parseAbArgs([...ARGS, '--results', path.join(dir, 'results')]);
    const problems = await checkCanRun(parsed.plan);
    if (problems.length > 0) throw new Error(`cannot run the pairs test here:\n  - ${problems.join('\n  - ')}`);
    result = await runAb({
      resultsDir: parsed.resultsDir,
      plan: parsed.plan,
      argv: ARGS,
      defaultAbr: parsed.defaultAbr,
      progress: { write: () => undefined },
    });
  }, 240_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ran the two players alone on the link and measured both on the wire', () => {
    expect(result.status).toBe('ok');
    expect(result.made.map((r) => `${r.spec.variant.name}:${r.status}`)).toEqual(['stock-vs-stock:ok']);
    const s = result.report!.runs[0]!;
    expect(s.window).not.toBeNull();
    expect(s.flows.map((f) => `${f.id}:${f.role}:${f.label}`)).toEqual(['8001:player:stock#1', '8002:player:stock#2']);
    for (const f of s.flows) expect(f.bitsPerSec).toBeGreaterThan(0);
    expect(s.flows[0]!.percentOfFairShare + s.flows[1]!.percentOfFairShare).toBeCloseTo(200, 6);
    expect(s.unfairnessAll).not.toBeNull();
    for (const p of s.players) {
      expect(p.ready).toBe(true);
      expect(p.everHidden).toBe(false);
      expect(p.videoSegments).toBeGreaterThan(0);
    }
  });

  it("fed each player from its own origin, none from a bulk flow's", () => {
    const runDir = path.join(dir, 'results', result.made[0]!.spec.dir);
    for (const port of [8001, 8002]) {
      const log = readFileSync(path.join(runDir, `origin-${port}.log`), 'utf8');
      // The manifest and the media requests of this port's own player (rep-N.mp4: video and audio representations).
      expect(log).toContain('"url":"/media/test/unchunked/manifest.mpd"');
      expect((log.match(/"url":"\/media\/test\/unchunked\/rep-\d+\.mp4"/g) ?? []).length).toBeGreaterThan(2);
    }
    expect(existsSync(path.join(runDir, 'origin-9001.log'))).toBe(false);
    expect(existsSync(path.join(runDir, 'bulk-9001.jsonl'))).toBe(false);
  });

  it('reports the pair and its unfairness, and says there was no bulk flow', () => {
    const r = result.report!;
    expect(r.aggregate.columns.map((c) => c.key)).toEqual(['stock-vs-stock:stock#1', 'stock-vs-stock:stock#2']);
    const md = readFileSync(r.files.summaryMd, 'utf8');
    expect(md).toContain('No bulk flow: the video flows of each run share the link alone.');
    expect(md).toContain('| queue | stock vs stock |');
  });

  it('recorded the player build it served', () => {
    const build = result.made[0]!.host.build;
    expect(build?.bundle).toMatch(/^[0-9a-f]{12}$/);
    // The commit dist/build.json names (npm run build wrote it for these very bundles), not HEAD: a commit may have landed since.
    const stamp = JSON.parse(readFileSync(path.join(repoRoot(), 'dist', 'build.json'), 'utf8')) as {
      commit: string | null;
      bundle: string;
    };
    expect(stamp.bundle).toBe(build?.bundle);
    expect(build?.commit).toBe(stamp.commit);
  });

  it('left no namespace behind', () => {
    for (const ns of result.made[0]!.testbed!.namespaces) expect(existsSync(`/var/run/netns/${ns}`)).toBe(false);
  });
});
