// Unit tests of the A/B plan's parsing and expansion (demo/harness/schedule.ts,
// grid.ts, plan.ts): schedules like paper Fig. 12, grid sweeps like Fig. 6,
// player lists, the interleaved run order with a control per condition, and
// when a run checks the server's congestion control (run.ts).

import { UsageError } from '../../../src/cli/args';
import { crossConditions, joinGridWords, parseGrid, parseQueues, parseRates } from '../../../demo/harness/grid';
import { parseAbArgs } from '../../../demo/harness/ab-cli';
import { buildPlan, flowsOf, formatBytesShort, formatRateShort, parsePairs, parsePlayers } from '../../../demo/harness/plan';
import { congestionCheckOffsetsS, playerUrl } from '../../../demo/harness/run';
import { planNeedsExtension } from '../../../demo/harness/extension';
import { formatSchedule, parseSchedule, resolveSchedule } from '../../../demo/harness/schedule';
import { SETTINGS } from './fixtures';

describe('schedule', () => {
  it('places video alone, both, then bulk alone (paper Fig. 12)', () => {
    const { schedule, measureS } = resolveSchedule(parseSchedule('video:60s,both,bulk:60s'), 90, 300);
    expect(measureS).toBe(300);
    expect(schedule.totalS).toBe(510);
    expect(schedule.both).toEqual({ fromS: 60, toS: 450 });
    expect(schedule.video).toEqual({ fromS: 0, toS: 450 });
    expect(schedule.bulk).toEqual({ fromS: 60, toS: 510 });
    expect(formatSchedule(schedule)).toBe('video:60s,both:390s,bulk:60s');
  });

  it('derives the measured time from a both phase with a length', () => {
    const { schedule, measureS } = resolveSchedule(parseSchedule('both:5m'), 90, null);
    expect(measureS).toBe(210);
    expect(schedule.totalS).toBe(300);
  });

  it('refuses schedules that cannot be measured or would restart a flow', () => {
    expect(() => parseSchedule('video:60s,bulk:60s')).toThrow(/no "both" phase/);
    expect(() => parseSchedule('both,video:10s')).not.toThrow();
    expect(() => parseSchedule('video:10s,bulk:10s,both')).toThrow(/stop and start again/);
    expect(() => parseSchedule('video,both')).toThrow(/needs a length/);
    expect(() => parseSchedule('both,both')).toThrow(/twice/);
    expect(() => parseSchedule('idle:5s,both')).toThrow(/unknown phase "idle"/);
    expect(() => resolveSchedule(parseSchedule('both:60s'), 90, null)).toThrow(/nothing to measure/);
    expect(() => resolveSchedule(parseSchedule('both:400s'), 90, 300)).toThrow(/disagrees/);
    expect(() => parseSchedule('both:10')).toThrow(UsageError);
  });
});

describe('congestion control check', () => {
  it('checks 5 s after the competition starts, then at doubling delays until the warm-up ends', () => {
    expect(congestionCheckOffsetsS(0, 90)).toEqual([5, 10, 20, 40, 80, 90]);
    expect(congestionCheckOffsetsS(60, 150)).toEqual([65, 70, 80, 100, 140, 210]);
    // No warm-up to speak of: one check, at 5 s.
    expect(congestionCheckOffsetsS(0, 0)).toEqual([5]);
    expect(congestionCheckOffsetsS(0, 5)).toEqual([5]);
  });
});

describe('grid', () => {
  it('parses rates (decimal) and queues (binary) and crosses them', () => {
    expect(parseRates('1.5mbit,25mbit')).toEqual([1_500_000, 25_000_000]);
    expect(parseQueues('64kb,1536kb')).toEqual([65536, 1572864]);
    const g = parseGrid('rate=1.5mbit,3mbit queue=64kb,256kb');
    const c = crossConditions(g.rates, g.queues);
    expect(c.map((x) => x.key)).toEqual(['1.5mbit-64kb', '1.5mbit-256kb', '3mbit-64kb', '3mbit-256kb']);
    expect(parseGrid('queue=256kb;rate=3mbit')).toEqual({ rates: [3e6], queues: [262144] });
  });

  it('joins a --grid value the shell split into words', () => {
    expect(joinGridWords(['--grid', 'rate=1mbit,2mbit', 'queue=64kb', '--bulk', '2'])).toEqual([
      '--grid',
      'rate=1mbit,2mbit queue=64kb',
      '--bulk',
      '2',
    ]);
  });

  it('says what is wrong', () => {
    expect(() => parseRates('3mbps')).toThrow(/ambiguous/);
    expect(() => parseRates('3mbit,')).toThrow(/empty entry/);
    expect(() => parseQueues('100')).toThrow(/outside/);
    expect(() => parseGrid('speed=3mbit')).toThrow(/unknown axis "speed"/);
    expect(() => crossConditions([3e6, 3e6], [262144])).toThrow(/twice/);
  });

  it('names conditions the way tc writes them', () => {
    expect(formatRateShort(1_500_000)).toBe('1.5mbit');
    expect(formatRateShort(800_000)).toBe('800kbit');
    expect(formatBytesShort(1572864)).toBe('1536kb');
  });
});

describe('players', () => {
  it('takes MODE or MODE/ABR', () => {
    expect(parsePlayers('stock,sprint-x/bw-80', 'buffer')).toEqual([
      { label: 'stock', mode: 'stock', abr: 'buffer' },
      { label: 'sprint-x/bw-80', mode: 'sprint-x', abr: 'bw-80' },
    ]);
    expect(() => parsePlayers('dash', 'buffer')).toThrow(/unknown mode "dash"/);
    expect(() => parsePlayers('stock/fast', 'buffer')).toThrow(/unknown ABR preset "fast"/);
    expect(() => parsePlayers('stock,stock', 'buffer')).toThrow(/twice/);
    // peers: their own ABR, a page query of their own
    expect(parsePlayers('shaka,shaka?prefetch=4,hlsjs', 'buffer')).toEqual([
      { label: 'shaka', mode: 'shaka', abr: 'own' },
      { label: 'shaka?prefetch=4', mode: 'shaka', abr: 'own', query: 'prefetch=4' },
      { label: 'hlsjs', mode: 'hlsjs', abr: 'own' },
    ]);
    expect(() => parsePlayers('shaka/buffer', 'buffer')).toThrow(/runs its own ABR/);
    // only the bulk-vs-bulk control
    expect(parsePlayers('none', 'buffer')).toEqual([]);
    expect(parseAbArgs(['--players', 'none', '--repeat', '2']).plan.runs.map((r) => r.dir)).toEqual([
      'runs/3mbit-256kb/control/r1',
      'runs/3mbit-256kb/control/r2',
    ]);
    expect(() => parseAbArgs(['--players', 'none', '--no-control'])).toThrow(/nothing to run/);
  });

  it('gives a player its own page query after ?, in its label, its URL and the extension check', () => {
    const players = parsePlayers('sprint-x,sprint-x?sxswitch=immediate,sprint/bw-80?transport=fetch', 'buffer');
    expect(players).toEqual([
      { label: 'sprint-x', mode: 'sprint-x', abr: 'buffer' },
      { label: 'sprint-x?sxswitch=immediate', mode: 'sprint-x', abr: 'buffer', query: 'sxswitch=immediate' },
      { label: 'sprint/bw-80?transport=fetch', mode: 'sprint', abr: 'bw-80', query: 'transport=fetch' },
    ]);
    const settings = parseAbArgs(['--players', 'stock']).plan.settings;
    // the player's query wins over --page-query
    const url = new URL(
      playerUrl('10.201.1.2', 8001, settings, 'sprint-x', 'buffer', 'sxswitch=after-chunk&chunk=9', 'sxswitch=immediate'),
    );
    expect(url.searchParams.get('sxswitch')).toBe('immediate');
    expect(url.searchParams.get('chunk')).toBe('9');
    // a peer opens its own page (demo/page/peer.html) and needs no extension
    const peer = new URL(playerUrl('10.201.1.2', 8001, settings, 'shaka', 'own', '', 'prefetch=4'));
    expect([peer.pathname, peer.searchParams.get('mode'), peer.searchParams.get('prefetch')]).toEqual(['/peer.html', 'shaka', '4']);
    expect(new URL(playerUrl('10.201.1.2', 8001, settings, 'stock', 'buffer')).pathname).toBe('/');
    expect(planNeedsExtension(parseAbArgs(['--players', 'stock,shaka,hlsjs']).plan, '')).toBe(false);
    // sprint on fetch needs no extension; sprint on the default transport does
    expect(planNeedsExtension(parseAbArgs(['--players', 'stock,sprint?transport=fetch']).plan, '')).toBe(false);
    expect(planNeedsExtension(parseAbArgs(['--players', 'stock,sprint?transport=fetch,sprint']).plan, '')).toBe(true);
    expect(planNeedsExtension(parseAbArgs(['--players', 'sprint']).plan, 'transport=fetch')).toBe(false);
    // the query may not redefine what the harness sets, nor be empty
    expect(() => parsePlayers('stock?mode=sprint', 'buffer')).toThrow(/not mode, abr, set, layout or hold/);
    expect(() => parsePlayers('stock?hold=1', 'buffer')).toThrow(/not mode, abr, set, layout or hold/);
    expect(() => parsePlayers('stock?', 'buffer')).toThrow(/page query/);
    expect(() => parsePlayers('sprint-x?sxswitch=immediate,sprint-x?sxswitch=immediate', 'buffer')).toThrow(/twice/);
  });
});

describe('plan', () => {
  const players = parsePlayers('stock,sprint-x', 'buffer');
  const conditions = crossConditions([3e6], [262144, 524288]);

  it('interleaves the variants within each repeat and adds a control per condition', () => {
    const plan = buildPlan({ settings: SETTINGS, conditions, players, repeats: 2, control: true, together: true });
    expect(plan.variants.map((v) => v.name)).toEqual(['stock', 'sprint-x', 'together', 'control']);
    expect(plan.runs).toHaveLength(2 * 2 * 4);
    expect(plan.runs.slice(0, 5).map((r) => r.dir)).toEqual([
      'runs/3mbit-256kb/stock/r1',
      'runs/3mbit-256kb/sprint-x/r1',
      'runs/3mbit-256kb/together/r1',
      'runs/3mbit-256kb/control/r1',
      'runs/3mbit-256kb/stock/r2',
    ]);
    expect(plan.runs.map((r) => r.index)).toEqual(plan.runs.map((_, i) => i));
  });

  it('gives every flow its own server port: players from 8001, bulk from 9001', () => {
    const plan = buildPlan({ settings: { ...SETTINGS, bulkFlows: 2 }, conditions, players, repeats: 1, control: true, together: true });
    const together = plan.variants.find((v) => v.kind === 'together');
    const control = plan.variants.find((v) => v.kind === 'control');
    expect(flowsOf(together!, 2).map((f) => `${f.port}:${f.role}:${f.label}`)).toEqual([
      '8001:player:stock',
      '8002:player:sprint-x',
      '9001:bulk:bulk 1',
      '9002:bulk:bulk 2',
    ]);
    expect(flowsOf(control!, 2).map((f) => `${f.port}:${f.role}:${f.slot}`)).toEqual([
      '8001:control:video',
      '9001:bulk:bulk',
      '9002:bulk:bulk',
    ]);
  });

  it('runs pairs of players as variants of their own, with or without bulk flows (paper Table I)', () => {
    const pairs = parsePairs('stock+stock, stock+sprint,sprint/bw-80+sprint', 'buffer');
    expect(pairs.map((p) => p.map((x) => x.label))).toEqual([
      ['stock#1', 'stock#2'],
      ['stock', 'sprint'],
      ['sprint/bw-80', 'sprint'],
    ]);
    const plan = buildPlan({
      settings: { ...SETTINGS, bulkFlows: 0 },
      conditions,
      players: [],
      repeats: 1,
      control: false,
      together: false,
      pairs,
    });
    expect(plan.variants.map((v) => `${v.kind}:${v.name}`)).toEqual([
      'together:stock-vs-stock',
      'together:stock-vs-sprint',
      'together:sprint_bw-80-vs-sprint',
    ]);
    expect(plan.runs.map((r) => r.dir).slice(0, 2)).toEqual(['runs/3mbit-256kb/stock-vs-stock/r1', 'runs/3mbit-256kb/stock-vs-sprint/r1']);
    // two video flows and nothing else on the link
    expect(flowsOf(plan.variants[0]!, 0).map((f) => `${f.port}:${f.role}:${f.label}`)).toEqual([
      '8001:player:stock#1',
      '8002:player:stock#2',
    ]);
    // the pair's players keep their mode and ABR
    expect(plan.variants[2]!.players.map((p) => `${p.mode}/${p.abr}`)).toEqual(['sprint/bw-80', 'sprint/buffer']);
    // with a bulk flow the pairs come after the players alone, before the control
    const mixed = buildPlan({
      settings: SETTINGS,
      conditions,
      players,
      repeats: 1,
      control: true,
      together: false,
      pairs: pairs.slice(1, 2),
    });
    expect(mixed.variants.map((v) => v.name)).toEqual(['stock', 'sprint-x', 'stock-vs-sprint', 'control']);
    expect(() => parsePairs('stock', 'buffer')).toThrow(/two players joined by \+/);
    expect(() => parsePairs('stock+sprint+sprint', 'buffer')).toThrow(/two players joined by \+/);
    expect(() => parsePairs('stock+netflix', 'buffer')).toThrow(/--pairs \(stock\+netflix\): unknown mode "netflix"/);
    expect(() => parsePairs('stock+sprint,stock+sprint', 'buffer')).toThrow(/listed twice/);
    expect(() => parsePairs('stock+sprint,', 'buffer')).toThrow(/empty entry/);
  });

  it('refuses plans with nothing to compare against', () => {
    expect(() =>
      buildPlan({ settings: { ...SETTINGS, bulkFlows: 0 }, conditions, players, repeats: 1, control: true, together: false }),
    ).toThrow(/--bulk 0 leaves stock, sprint-x, control alone on the link/);
    expect(() => buildPlan({ settings: SETTINGS, conditions, players: [], repeats: 1, control: false, together: false })).toThrow(
      /nothing to run/,
    );
    expect(() => buildPlan({ settings: SETTINGS, conditions, players, repeats: 0, control: true, together: false })).toThrow(/--repeat/);
  });
});
