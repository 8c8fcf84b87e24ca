// The primer (demo/harness/primer.ts), as root, end to end: a bulk-vs-bulk
// control at 3 Mbit/s × 256 KB with `--primer 8s:5s` through the real
// testbed. Asserts on what the wire and the server's TCP state show: the
// primer's port carried bytes before the run's flows started and none inside
// the measured window; it is not one of the run's flows; and both flows of
// the run, which open behind the primer's full queue, never measured an
// RTT near zero (their lowest RTT, `ss`'s min RTT, is a good part of the
// queue's 0.7 s) — the point of the primer. The same control without the
// primer is run too, to show the RTT check can fail: there both flows open
// on an idle link (lowest RTT ≈ 0). And a stock player with
// `--primer 8s:playing+4s`: the primer leaves 4 s after the player's log
// first shows it playing, before measuring. And `--preload-pages` with a
// stock player: the page and bundle load on the idle link before the
// primer, on connections the origin then closed; every manifest and media
// request of the player arrives after the schedule started, on connections
// opened after that. No fair-share figure is asserted.
// Needs `npm run build` first.

import { existsSync, mkdtempSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkCanRun, runAb, AbResult } from '../../../demo/harness/ab';
import { parseAbArgs } from '../../../demo/harness/ab-cli';
import type { ProbeResult } from '../../../demo/harness/page-probe';
import { hasStartedPlaying } from '../../../demo/harness/player-session';
import { PRIMER_PORT } from '../../../demo/harness/primer';
import { readJsonl } from '../../../demo/testbed/jsonl';
import { readWireSeries } from '../../../demo/testbed/wire-series';

const ARGS = [
  '--players',
  'none',
  '--rate',
  '3mbit',
  '--queue',
  '256kb',
  '--bulk',
  '1',
  '--duration',
  '20s',
  '--warmup',
  '10s',
  '--repeat',
  '1',
  '--cc',
  'cubic',
];
const PRIMER = ['--primer', '8s:5s'];
/** A stock player on the test content at 3 Mbit/s × 256 KB, 10 s measured (each block adds its warm-up and primer). */
const PLAYER = [
  '--players',
  'stock',
  '--set',
  'test',
  '--rate',
  '3mbit',
  '--queue',
  '256kb',
  '--bulk',
  '1',
  '--duration',
  '10s',
  '--repeat',
  '1',
  '--no-control',
];

/** Runs `sprint ab` with these arguments into a results folder. */
async function runInto(resultsDir: string, args: string[]): Promise<AbResult> {
  const parsed = parseAbArgs([...args, '--results', resultsDir]);
  const problems = await checkCanRun(parsed.plan);
  if (problems.length > 0) throw new Error(`cannot run the primer test here:\n  - ${problems.join('\n  - ')}`);
  return runAb({
    resultsDir: parsed.resultsDir,
    plan: parsed.plan,
    argv: args,
    defaultAbr: parsed.defaultAbr,
    progress: { write: () => undefined },
  });
}

/**
 * Runs `sprint ab` once for a describe block, into a fresh temporary folder
 * removed after the block; the function it returns gives the result and that folder.
 */
function runForBlock(prefix: string, args: string[]): () => { dir: string; result: AbResult } {
  let dir = '';
  let result: AbResult | null = null;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    result = await runInto(path.join(dir, 'results'), args);
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!result) throw new Error(`sprint ab ${args.join(' ')} did not finish`);
    return { dir, result };
  };
}

describe('sprint ab --primer (root)', () => {
  let dir: string;
  let result: AbResult;
  let without: AbResult;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-ab-primer-'));
    result = await runInto(path.join(dir, 'results'), [...ARGS, ...PRIMER]);
    without = await runInto(path.join(dir, 'without'), ARGS);
  }, 240_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ran the primer before the flows and stopped it within the warm-up', () => {
    expect(result.status).toBe('ok');
    const run = result.made[0]!;
    expect(run.status).toBe('ok');
    const t = run.times;
    expect(t.primerStartS).not.toBeNull();
    expect(t.primerStopS).not.toBeNull();
    expect(t.scheduleStartS! - t.primerStartS!).toBeGreaterThanOrEqual(8);
    // Stopped 5 s after both flows started (the default schedule starts them together), well before measuring.
    expect(t.primerStopS! - t.scheduleStartS!).toBeGreaterThanOrEqual(5);
    expect(t.primerStopS! - t.scheduleStartS!).toBeLessThan(8);
    expect(run.flows.map((f) => f.port)).toEqual([8001, 9001]);
    const runDir = path.join(dir, 'results', run.spec.dir);
    expect(existsSync(path.join(runDir, `bulk-${PRIMER_PORT}.jsonl`))).toBe(true);

    const wire = readWireSeries(path.join(runDir, 'wire.jsonl'), 'bytes');
    const primer = wire.bytes[String(PRIMER_PORT)] ?? [];
    const binOf = (s: number): number => Math.floor((s - wire.t0S) / wire.binS);
    const before = primer.slice(0, binOf(t.scheduleStartS!)).reduce((a, b) => a + b, 0);
    // 8 s alone at 3 Mbit/s: most of 3 MB.
    expect(before).toBeGreaterThan(1_000_000);
    const summary = result.report!.runs[0]!;
    expect(summary.window).not.toBeNull();
    expect(summary.window!.fromS).toBeGreaterThan(t.primerStopS!);
    const inWindow = primer.slice(binOf(summary.window!.fromS), binOf(summary.window!.toS)).reduce((a, b) => a + b, 0);
    expect(inWindow).toBe(0);
    expect(summary.flows.map((f) => f.id)).toEqual(['8001', '9001']);
    expect(summary.warnings.filter((w) => /primer/.test(w))).toEqual([]);
  });

  it("opened both of the run's connections behind a full queue (neither ever saw an RTT near zero)", () => {
    const summary = result.report!.runs[0]!;
    for (const id of ['8001', '9001']) {
      const lowest = summary.tcp[id]!.lowestRttMs;
      expect(lowest).not.toBeNull();
      // The 256 KB queue at 3 Mbit/s is ~0.7 s; an idle link gives < 1 ms.
      expect(lowest!).toBeGreaterThan(100);
    }
  });

  it('without the primer the same two flows open on an idle link (the check above can fail)', () => {
    expect(without.status).toBe('ok');
    const summary = without.report!.runs[0]!;
    expect(without.made[0]!.times.primerStartS).toBeUndefined();
    const lowest = ['8001', '9001'].map((id) => summary.tcp[id]!.lowestRttMs ?? Infinity);
    expect(Math.min(...lowest)).toBeLessThan(100);
  });

  it('left no namespace behind', () => {
    for (const r of [...result.made, ...without.made])
      for (const ns of r.testbed!.namespaces) expect(existsSync(`/var/run/netns/${ns}`)).toBe(false);
  });
});

// `--primer LEAD:playing+OVERLAP`: the primer stays until OVERLAP after the
// player started playing, as the player's own log shows it (its first poll
// with a startup delay), and leaves before measuring begins.
// The page is preloaded: behind the primer and the bulk flow its bundle alone took 14 s to load, which on a
// slower machine brought playing too near the primer's latest stop.
describe('sprint ab --primer …:playing+… (root)', () => {
  const block = runForBlock('sprint-ab-primer-playing-', [...PLAYER, '--warmup', '45s', '--primer', '8s:playing+4s', '--preload-pages']);

  it('stopped the primer OVERLAP after the player started playing, before measuring began', () => {
    const { dir, result } = block();
    expect(result.status).toBe('ok');
    const run = result.made[0]!;
    expect(run.status).toBe('ok');
    const t = run.times;
    const runDir = path.join(dir, 'results', run.spec.dir);
    const polls = readJsonl<ProbeResult & { kind: string; t: number }>(path.join(runDir, 'player-8001.jsonl'));
    const firstPlaying = polls.find((p) => p.kind === 'poll' && hasStartedPlaying(p));
    expect(firstPlaying).toBeDefined();
    expect(t.primerPlayersPlayingS).toBe(firstPlaying!.t);
    expect(['playing', 'schedule']).toContain(t.primerStoppedBy);
    expect(t.primerStopS! - t.primerPlayersPlayingS!).toBeGreaterThanOrEqual(4);
    expect(t.primerStopS! - t.scheduleStartS!).toBeGreaterThanOrEqual(4);
    const summary = result.report!.runs[0]!;
    expect(summary.window!.fromS).toBeGreaterThan(t.primerStopS!);
    const wire = readWireSeries(path.join(runDir, 'wire.jsonl'), 'bytes');
    const binOf = (s: number): number => Math.floor((s - wire.t0S) / wire.binS);
    const primer = wire.bytes[String(PRIMER_PORT)] ?? [];
    expect(primer.slice(binOf(summary.window!.fromS), binOf(summary.window!.toS)).reduce((a, b) => a + b, 0)).toBe(0);
    expect(summary.warnings.filter((w) => /primer/.test(w))).toEqual([]);
  });

  it('left no namespace behind', () => {
    for (const r of block().result.made) for (const ns of r.testbed!.namespaces) expect(existsSync(`/var/run/netns/${ns}`)).toBe(false);
  });
});

// `--preload-pages`: the page loads before anything of the run starts, and
// none of its connections carries the player's requests.
describe('sprint ab --preload-pages (root)', () => {
  const block = runForBlock('sprint-ab-preload-', [...PLAYER, '--warmup', '20s', '--primer', '8s:5s', '--preload-pages']);

  it('loaded the page before the primer and played from the scheduled start on connections opened then', () => {
    const { dir, result } = block();
    expect(result.status).toBe('ok');
    const run = result.made[0]!;
    expect(run.status).toBe('ok');
    expect(run.settings.pagePreload).toBe(true);
    const t = run.times;
    expect(t.pagesPreloadedS).not.toBeNull();
    expect(t.pageCloseRequestedS!).toBeGreaterThanOrEqual(t.pagesPreloadedS!);
    expect(t.primerStartS!).toBeGreaterThanOrEqual(t.pageCloseRequestedS!);
    expect(t.pageConnectionsLeft).toBe(0);
    expect(t.scheduleStartS! - t.primerStartS!).toBeGreaterThanOrEqual(8);

    const runDir = path.join(dir, 'results', run.spec.dir);
    const lines = readJsonl<ProbeResult & { kind: string; t: number; url?: string }>(path.join(runDir, 'player-8001.jsonl'));
    expect(lines[0]!.kind).toBe('open');
    expect(new URL(lines[0]!.url!).searchParams.get('hold')).toBe('1');
    const release = lines.find((l) => l.kind === 'release');
    expect(release).toBeDefined();
    expect(release!.t).toBeGreaterThanOrEqual(t.scheduleStartS!);
    // No poll before the release, and the player played.
    expect(lines.filter((l) => l.kind === 'poll').every((l) => l.t >= release!.t)).toBe(true);
    expect(lines.some((l) => l.kind === 'poll' && hasStartedPlaying(l))).toBe(true);

    // The origin's log: the page and the bundle came before the primer; the player's requests after the schedule started.
    const records = readJsonl<{ conn: number; url: string | null; arrival: number; remote: string }>(path.join(runDir, 'origin-8001.log'));
    const page = records.filter((r) => r.url !== null && (r.url.startsWith('/?') || r.url.startsWith('/dist/')));
    const player = records.filter((r) => r.url !== null && r.url.startsWith('/media/'));
    expect(page.some((r) => r.url!.startsWith('/dist/'))).toBe(true);
    expect(player.length).toBeGreaterThan(0);
    for (const r of page) expect(r.arrival / 1000).toBeLessThan(t.pageCloseRequestedS!);
    for (const r of player) expect(r.arrival / 1000).toBeGreaterThanOrEqual(t.scheduleStartS!);
    // Every connection that carried the player's media carried nothing before the schedule started...
    const mediaConns = new Set(player.map((r) => r.conn));
    for (const r of records.filter((x) => mediaConns.has(x.conn))) expect(r.arrival / 1000).toBeGreaterThanOrEqual(t.scheduleStartS!);
    // ...and did not exist then: ss never saw its client port established before the schedule started.
    const clientPorts = new Set(player.map((r) => Number(/:(\d+)$/.exec(r.remote)![1])));
    const early = readJsonl<{ kind: string; t: number; localPort?: number; peerPort?: number }>(path.join(runDir, 'ss.jsonl')).filter(
      (x) => x.kind === 'ss' && x.localPort === 8001 && clientPorts.has(x.peerPort!) && x.t < t.scheduleStartS!,
    );
    expect(early).toEqual([]);
    expect(result.report!.runs[0]!.warnings.filter((w) => /primer/.test(w))).toEqual([]);
  });

  it('left no namespace behind', () => {
    for (const r of block().result.made) for (const ns of r.testbed!.namespaces) expect(existsSync(`/var/run/netns/${ns}`)).toBe(false);
  });
});
