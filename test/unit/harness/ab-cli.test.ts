// Unit tests of `sprint ab`'s argument handling (demo/harness/ab-cli.ts): the
// defaults, the paper Fig. 6 grid written as shell words, durations and
// schedules, and clear refusals (exit code 2) for bad invocations. Nothing
// here runs a testbed.

import { describePlan, main, parseAbArgs } from '../../../demo/harness/ab-cli';

const io = (): { out: string[]; err: string[]; io: { stdout: { write(s: string): void }; stderr: { write(s: string): void } } } => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: { write: (s) => void out.push(s) }, stderr: { write: (s) => void err.push(s) } } };
};

describe('sprint ab arguments', () => {
  it('defaults to stock vs sprint-x at 3 Mbit/s, 256 KB, 1 bulk flow, 90 s + 5 min, with a control', () => {
    const p = parseAbArgs([], new Date(2026, 0, 2, 3, 4, 5));
    expect(p.plan.variants.map((v) => v.name)).toEqual(['stock', 'sprint-x', 'control']);
    expect(p.plan.conditions.map((c) => c.key)).toEqual(['3mbit-256kb']);
    expect(p.plan.settings).toMatchObject({
      bulkFlows: 1,
      congestionControl: 'cubic',
      warmupS: 90,
      measureS: 300,
      contentSet: 'demo',
      layout: 'unchunked',
      delayMs: 0,
    });
    expect(p.plan.settings.schedule.totalS).toBe(390);
    expect(p.resultsDir).toMatch(/results\/ab-20260102-030405$/);
  });

  it('reads the paper Fig. 6 sweep as shell words', () => {
    const p = parseAbArgs(['--grid', 'rate=1.5mbit,3mbit,6mbit,25mbit', 'queue=64kb,256kb,512kb,1536kb', '--repeat', '3', '--no-control']);
    expect(p.plan.conditions).toHaveLength(16);
    expect(p.plan.runs).toHaveLength(16 * 3 * 2);
    expect(describePlan(p)).toMatch(/96 run\(s\) = 16 condition\(s\) × 2 variant\(s\)/);
  });

  it('takes comma lists, a schedule, delay and the other settings', () => {
    const p = parseAbArgs([
      '--players',
      'stock,sprint-x,sprint',
      '--queue',
      '256kb,512kb',
      '--schedule',
      'video:60s,both,bulk:60s',
      '--duration',
      '5m',
      '--warmup',
      '90s',
      '--delay',
      '20ms',
      '--cc',
      'bbr',
      '--bulk',
      '2',
      '--abr',
      'buffer',
      '--together',
      '--set',
      'test',
      '--layout',
      'chunked',
      '--slow-start-after-idle',
      'off',
    ]);
    expect(p.plan.conditions.map((c) => c.key)).toEqual(['3mbit-256kb', '3mbit-512kb']);
    expect(p.plan.variants.map((v) => v.name)).toEqual(['stock', 'sprint-x', 'sprint', 'together', 'control']);
    expect(p.plan.settings).toMatchObject({
      delayMs: 20,
      congestionControl: 'bbr',
      bulkFlows: 2,
      slowStartAfterIdle: false,
      layout: 'chunked',
      contentSet: 'test',
    });
    expect(p.plan.settings.schedule.totalS).toBe(60 + 390 + 60);
    expect(p.plan.variants[0]!.players[0]!.abr).toBe('buffer');
    expect(p.plan.settings.origin).toBeUndefined();
    expect(parseAbArgs(['--origin', 'nginx']).plan.settings.origin).toBe('nginx');
    expect(parseAbArgs(['--origin', 'ours']).plan.settings.origin).toBeUndefined();
  });

  it('--preload-pages: a setting only when asked for (older plans keep their hash), with our origins only', () => {
    const plain = parseAbArgs([]);
    const preload = parseAbArgs(['--preload-pages']);
    expect('pagePreload' in plain.plan.settings).toBe(false);
    expect(preload.plan.settings.pagePreload).toBe(true);
    expect(preload.planHash).not.toBe(plain.planHash);
    expect(describePlan(preload)).toMatch(/pages preloaded on the idle link/);
    expect(describePlan(plain)).not.toMatch(/preloaded/);
    expect(parseAbArgs(['--preload-pages', '--origin', 'h2']).plan.settings.pagePreload).toBe(true);
  });

  it('--packets: a setting only when asked for (older plans keep their hash)', () => {
    const plain = parseAbArgs([]);
    const packets = parseAbArgs(['--packets']);
    expect('packets' in plain.plan.settings).toBe(false);
    expect(packets.plan.settings.packets).toBe(true);
    expect(packets.planHash).not.toBe(plain.planHash);
    expect(describePlan(packets)).toMatch(/packet headers captured on both sides of the bottleneck queue/);
  });

  it('reads paper Table I video-vs-video pairs with no bulk flow', () => {
    const p = parseAbArgs([
      '--players',
      'none',
      '--no-control',
      '--bulk',
      '0',
      '--pairs',
      'stock+stock,stock+sprint,sprint+sprint',
      '--queue',
      '256kb,512kb',
    ]);
    expect(p.plan.variants.map((v) => v.name)).toEqual(['stock-vs-stock', 'stock-vs-sprint', 'sprint-vs-sprint']);
    expect(p.plan.settings.bulkFlows).toBe(0);
    expect(p.plan.runs).toHaveLength(6);
    expect(describePlan(p)).toMatch(/0 bulk/);
  });

  it.each([
    [['--rate', '3mbps'], /ambiguous/],
    [['--bulk', '0'], /--bulk 0 leaves stock, sprint-x, control alone/],
    [['--bulk', '0', '--pairs', 'stock+sprint'], /--bulk 0 leaves stock, sprint-x, control alone/],
    [['--pairs', 'stock'], /--pairs/],
    [
      ['--players', 'none', '--no-control', '--pairs', 'stock+sprint', '--bulk', '0', '--schedule', 'video:30s,both'],
      /--bulk 0: a schedule with video or bulk phases/,
    ],
    [['--cc', 'vegas'], /--cc/],
    [['--players', 'stock,netflix'], /unknown mode "netflix"/],
    [['--grid', 'rate=3mbit', '--rate', '6mbit'], /either in --grid rate=… or in --rate/],
    [['--schedule', 'both:100s', '--duration', '5m'], /disagrees/],
    [['--duration', '300'], /no unit/],
    [['--control', '--no-control'], /contradict/],
    [['--page-query', 'a=b c'], /--page-query/],
    [['--page-query', 'hold=1'], /--page-query: "hold" is not a page option the harness leaves to you/],
    [['--page-query', '=1'], /--page-query: "=1" has an empty key/],
    [
      ['--page-query', 'sxaudio=16&mode=sprint&set=demo'],
      /--page-query: "mode", "set" are not page options the harness leaves to you.*--players\/--abr/,
    ],
    [['--layout', 'flat'], /--layout/],
    [['--origin', 'apache'], /--origin/],
    [['--preload-pages', '--origin', 'nginx'], /--preload-pages needs our origin/],
    [['--preload-pages', '--origin', 'nginx-h2'], /--preload-pages needs our origin/],
    [['--frobnicate'], /unknown option --frobnicate/],
  ])('refuses %j with exit code 2', async (argv, message) => {
    const o = io();
    expect(await main(argv, o.io)).toBe(2);
    expect(o.err.join('')).toMatch(message);
  });

  it('prints its usage', async () => {
    const o = io();
    expect(await main(['--help'], o.io)).toBe(0);
    expect(o.out.join('')).toMatch(/Usage: sprint ab/);
  });
});
