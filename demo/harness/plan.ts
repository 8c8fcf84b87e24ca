// The A/B plan: which runs an evaluation makes and in what order. Paper §V-A/B
// compares players under identical conditions; we run repeats with
// median and min–max, and a bulk-vs-bulk control per configuration. For every
// network condition (one, or a `--grid` sweep like paper Fig. 6) and every
// repeat, the plan runs:
//   - each player alone against the bulk flows (like the paper's figures);
//   - optionally all players together against the bulk flows (`--together`);
//   - optionally pairs of players in one run (`--pairs stock+sprint,…`; with
//     `--bulk 0` two video flows alone on the link: paper Table I's
//     video-vs-video rows);
//   - the control: one extra bulk flow in the video's place (`--control`, on by default).
// Variants are interleaved within each repeat (A, B, control, A, B, control…)
// so slow drift of the machine affects every variant alike. Pure: no I/O.

import { UsageError } from '../../src/cli/args';
import type { CongestionControl } from '../testbed/topology';
import type { PrimerSettings } from './primer';
import { Schedule } from './schedule';

/** One player under comparison: a data plane mode with an ABR preset. */
export interface PlayerSpec {
  /** Name in reports, e.g. "stock" or "sprint-x/bw-80". */
  readonly label: string;
  /** Requested data plane mode (the page's `mode`). */
  readonly mode: string;
  /** ABR preset (the page's `abr`). */
  readonly abr: string;
  /** This player's own page query (`MODE[/ABR]?k=v&…`), applied after --page-query; '' when none. */
  readonly query?: string;
}

/** One point of the network grid. */
export interface Condition {
  /** Directory-safe key, e.g. "3mbit-256kb". */
  readonly key: string;
  readonly rateBitsPerSec: number;
  readonly queueBytes: number;
}

export type VariantKind = 'player' | 'together' | 'control';

export interface Variant {
  readonly kind: VariantKind;
  /** Directory-safe name: a player's label, "together", a pair's "stock-vs-sprint" or "control". */
  readonly name: string;
  /** Players in the run (none for the control). */
  readonly players: readonly PlayerSpec[];
}

/** The players' origin servers `--origin` can name besides ours over HTTP/1.1. */
export type PlayersOrigin = 'nginx' | 'h2' | 'nginx-h2';
export const PLAYERS_ORIGINS: readonly PlayersOrigin[] = ['nginx', 'h2', 'nginx-h2'];

/** Whether the players' origin speaks HTTPS + HTTP/2 (a certificate per run, an https player URL). */
export function originIsH2(origin: PlayersOrigin | undefined): boolean {
  return origin === 'h2' || origin === 'nginx-h2';
}

/** Whether the players' origin is nginx. */
export function originIsNginx(origin: PlayersOrigin | undefined): boolean {
  return origin === 'nginx' || origin === 'nginx-h2';
}

/** Settings shared by every run of an evaluation. */
export interface CommonSettings {
  readonly bulkFlows: number;
  readonly congestionControl: CongestionControl;
  /** One-way propagation delay per direction, ms (0 = none). */
  readonly delayMs: number;
  readonly slowStartAfterIdle: boolean;
  /**
   * The players' origin server: absent = ours over HTTP/1.1 (demo/server), 'nginx' = nginx
   * (demo/server/nginx-origin.ts), 'h2' = ours over HTTPS + HTTP/2 (demo/server/h2-origin.ts),
   * 'nginx-h2' = nginx over HTTPS + HTTP/2. Bulk flows always use ours over HTTP/1.1.
   */
  readonly origin?: PlayersOrigin;
  readonly layout: 'chunked' | 'unchunked';
  readonly contentSet: string;
  readonly warmupS: number;
  readonly measureS: number;
  readonly schedule: Schedule;
  /** A primer flow before the schedule (primer.ts, `--primer`); absent = none (the key is left out so older folders' plans still match on --resume). */
  readonly primer?: PrimerSettings;
  /**
   * `--preload-pages`: every player page is loaded (held, `hold=1`) on the idle
   * link before anything of the run starts, the players' origins then close
   * the page's connections, and each player is created at its scheduled start;
   * absent = off (left out so older folders' plans still match on --resume).
   */
  readonly pagePreload?: true;
  /**
   * `--packets`: header-only captures on both sides of the router's queue
   * (demo/testbed/packet-capture.ts) in every run, read by `sprint flows`;
   * absent = off (left out so older folders' plans still match on --resume).
   */
  readonly packets?: true;
}

/** How long one run lasts from the first flow to the end of the schedule, seconds (the primer's lead included). */
export function runLengthS(settings: Pick<CommonSettings, 'schedule' | 'primer'>): number {
  return settings.schedule.totalS + (settings.primer?.leadS ?? 0);
}

export interface RunSpec {
  /** Results-relative directory, e.g. "runs/3mbit-256kb/stock/r1". */
  readonly dir: string;
  /** Position in the plan, from 0. */
  readonly index: number;
  readonly condition: Condition;
  readonly variant: Variant;
  /** Repeat number, from 1. */
  readonly repeat: number;
}

export interface Plan {
  readonly settings: CommonSettings;
  readonly conditions: readonly Condition[];
  readonly variants: readonly Variant[];
  readonly repeats: number;
  readonly runs: readonly RunSpec[];
}

/** First port of the video flows (player i on VIDEO_BASE_PORT + i) and of the bulk flows. */
export const VIDEO_BASE_PORT = 8001;
export const BULK_BASE_PORT = 9001;

/** A flow of one run, identified on the wire by its server port. */
export interface FlowSpec {
  /** The server port as a string: the key of the wire series. */
  readonly id: string;
  readonly port: number;
  /** `video` flows follow the schedule's video stretch; the control's stand-in is a bulk download on a video slot. */
  readonly slot: 'video' | 'bulk';
  /** What runs on it: a player, a bulk download, or the control's stand-in bulk download. */
  readonly role: 'player' | 'bulk' | 'control';
  /** Label in reports: the player's label, "bulk 1", "control". */
  readonly label: string;
  readonly player: PlayerSpec | null;
}

/** The flows of a run with their ports. */
export function flowsOf(variant: Variant, bulkFlows: number): FlowSpec[] {
  const flows: FlowSpec[] = [];
  if (variant.kind === 'control') {
    flows.push({ id: String(VIDEO_BASE_PORT), port: VIDEO_BASE_PORT, slot: 'video', role: 'control', label: 'control', player: null });
  } else {
    variant.players.forEach((p, i) => {
      const port = VIDEO_BASE_PORT + i;
      flows.push({ id: String(port), port, slot: 'video', role: 'player', label: p.label, player: p });
    });
  }
  for (let j = 0; j < bulkFlows; j++) {
    const port = BULK_BASE_PORT + j;
    flows.push({ id: String(port), port, slot: 'bulk', role: 'bulk', label: `bulk ${j + 1}`, player: null });
  }
  return flows;
}

const MODES = ['stock', 'sprint-x', 'sprint', 'auto'];
/**
 * Other players on the same content and page stats (demo/page/peer.html): Shaka Player on the
 * MPD, hls.js on the HLS playlists. Each runs its own ABR (recorded as PEER_ABR).
 */
export const PEER_MODES: readonly string[] = ['shaka', 'hlsjs'];
/** The ABR of a peer player: its own. */
export const PEER_ABR = 'own';
const ABR = /^(dash-default|buffer|bw-\d{1,4})$/;

/** Whether a mode is a peer player (demo/page/peer.html) rather than a Sprint demo page mode. */
export function isPeerMode(mode: string): boolean {
  return PEER_MODES.includes(mode);
}

/**
 * Page query keys the harness sets itself: the player's mode and ABR, the content (--set, --layout)
 * and `hold` (--preload-pages). Neither --page-query nor a player's ?QUERY may set them: it would
 * silently replace the harness's value, and the page would run other than what the run records.
 */
export const HARNESS_PAGE_KEYS: readonly string[] = ['mode', 'abr', 'set', 'layout', 'hold'];

/** The harness's own keys (HARNESS_PAGE_KEYS) a page query sets, and any empty key. */
export function reservedPageKeys(query: string): string[] {
  return [...new URLSearchParams(query).keys()].filter((k) => k === '' || HARNESS_PAGE_KEYS.includes(k));
}

/** "stock,sprint-x,sprint-x/bw-80" → player specs (mode, optional /abr overriding the default). */
export function parsePlayers(text: string, defaultAbr: string): PlayerSpec[] {
  // "none": only the bulk-vs-bulk control (the baseline of a configuration).
  if (text.trim() === 'none') return [];
  const items = text.split(',').map((s) => s.trim());
  if (items.length === 0 || items.some((s) => s === '')) throw new UsageError(`--players: ${JSON.stringify(text)} has an empty entry`);
  const out: PlayerSpec[] = [];
  for (const item of items) {
    const q = item.indexOf('?');
    const base = q < 0 ? item : item.slice(0, q);
    const query = q < 0 ? '' : item.slice(q + 1);
    if (q >= 0 && (query === '' || /[#\s]/.test(query) || reservedPageKeys(query).length > 0)) {
      throw new UsageError(
        `--players: ${JSON.stringify(item)}: the part after ? must be a page query such as sxswitch=immediate (not ${HARNESS_PAGE_KEYS.slice(0, -1).join(', ')} or ${HARNESS_PAGE_KEYS.at(-1)})`,
      );
    }
    const [mode, abr, extra] = base.split('/');
    if (extra !== undefined) throw new UsageError(`--players: ${JSON.stringify(item)} should be MODE, MODE/ABR or either with ?QUERY`);
    if (!MODES.includes(mode as string) && !isPeerMode(mode as string))
      throw new UsageError(
        `--players: unknown mode ${JSON.stringify(mode)} in ${JSON.stringify(item)}; modes are ${MODES.join(', ')}, peers ${PEER_MODES.join(', ')}`,
      );
    if (isPeerMode(mode as string) && abr !== undefined)
      throw new UsageError(`--players: ${JSON.stringify(item)}: a peer player runs its own ABR (no /ABR)`);
    const chosenAbr = isPeerMode(mode as string) ? PEER_ABR : (abr ?? defaultAbr);
    if (!isPeerMode(mode as string) && !ABR.test(chosenAbr))
      throw new UsageError(
        `--players: unknown ABR preset ${JSON.stringify(chosenAbr)} in ${JSON.stringify(item)}; presets are dash-default, buffer, bw-<percent>`,
      );
    const label = (abr === undefined ? (mode as string) : `${mode}/${abr}`) + (query ? `?${query}` : '');
    if (out.some((p) => p.label === label)) throw new UsageError(`--players: ${JSON.stringify(label)} is listed twice`);
    out.push(query ? { label, mode: mode as string, abr: chosenAbr, query } : { label, mode: mode as string, abr: chosenAbr });
  }
  return out;
}

/** ABR presets the page accepts. */
export function checkAbr(text: string): string {
  if (!ABR.test(text))
    throw new UsageError(`--abr: unknown preset ${JSON.stringify(text)}; presets are dash-default, buffer, bw-<percent>`);
  return text;
}

/**
 * "stock+sprint,sprint+sprint" → pairs of player specs (each side as in
 * --players). A pair of the same player gets labels "sprint#1" and
 * "sprint#2" so its two flows stay apart in the reports.
 */
export function parsePairs(text: string, defaultAbr: string): Array<readonly [PlayerSpec, PlayerSpec]> {
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new UsageError(`--pairs: ${JSON.stringify(text)} has an empty entry`);
  const out: Array<readonly [PlayerSpec, PlayerSpec]> = [];
  for (const item of items) {
    const sides = item.split('+').map((s) => s.trim());
    if (sides.length !== 2 || sides.some((s) => s === '' || s === 'none'))
      throw new UsageError(`--pairs: ${JSON.stringify(item)} should be two players joined by +, e.g. stock+sprint`);
    const [a, b] = sides.map((side) => {
      try {
        return parsePlayers(side, defaultAbr)[0] as PlayerSpec;
      } catch (err) {
        throw new UsageError((err as Error).message.replace(/^--players/, `--pairs (${item})`));
      }
    }) as [PlayerSpec, PlayerSpec];
    const pair: readonly [PlayerSpec, PlayerSpec] =
      a.label === b.label
        ? [
            { ...a, label: `${a.label}#1` },
            { ...b, label: `${b.label}#2` },
          ]
        : [a, b];
    const same = (p: readonly [PlayerSpec, PlayerSpec]): boolean =>
      pairName(p) === pairName(pair) || pairName([p[1], p[0]]) === pairName(pair);
    if (out.some(same)) throw new UsageError(`--pairs: ${JSON.stringify(item)} is listed twice (a pair is the same in either order)`);
    out.push(pair);
  }
  return out;
}

/** A pair's directory name: "stock-vs-sprint" (a player paired with itself: "sprint-vs-sprint"). */
export function pairName(pair: readonly [PlayerSpec, PlayerSpec]): string {
  return pair.map((p) => safeName(p.label.replace(/#\d+$/, ''))).join('-vs-');
}

/** Whether a variant is a pair (`--pairs`) rather than all players together (`--together`). */
export function isPairVariant(v: { readonly kind: string; readonly name: string }): boolean {
  return v.kind === 'together' && v.name !== 'together';
}

function pairVariant(pair: readonly [PlayerSpec, PlayerSpec]): Variant {
  return { kind: 'together', name: pairName(pair), players: [...pair] };
}

/** Directory-safe form of a label ("sprint-x/bw-80" → "sprint-x_bw-80"). */
export function safeName(label: string): string {
  return label.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** "3mbit-256kb" style key of a condition. */
export function conditionKey(rateBitsPerSec: number, queueBytes: number): string {
  return `${formatRateShort(rateBitsPerSec)}-${formatBytesShort(queueBytes)}`;
}

/** 3000000 → "3mbit", 1500000 → "1.5mbit", 800000 → "800kbit". */
export function formatRateShort(bitsPerSec: number): string {
  if (bitsPerSec >= 1e6) return `${+(bitsPerSec / 1e6).toFixed(3)}mbit`;
  if (bitsPerSec >= 1e3) return `${+(bitsPerSec / 1e3).toFixed(3)}kbit`;
  return `${bitsPerSec}bit`;
}

/** 262144 → "256kb", 1572864 → "1536kb", 100 → "100b". */
export function formatBytesShort(bytes: number): string {
  if (bytes % 1024 === 0) return `${bytes / 1024}kb`;
  return `${bytes}b`;
}

export interface PlanOptions {
  readonly settings: CommonSettings;
  readonly conditions: readonly Condition[];
  readonly players: readonly PlayerSpec[];
  readonly repeats: number;
  readonly control: boolean;
  readonly together: boolean;
  /** Pairs of players run together (`--pairs`), each a variant of kind 'together'. */
  readonly pairs?: ReadonlyArray<readonly [PlayerSpec, PlayerSpec]>;
}

export function buildPlan(options: PlanOptions): Plan {
  const { conditions, players, repeats } = options;
  if (conditions.length === 0) throw new UsageError('no network conditions to run');
  const pairs = options.pairs ?? [];
  if (players.length === 0 && !options.control && pairs.length === 0)
    throw new UsageError('nothing to run: no players, no pairs and no control');
  if (!Number.isInteger(repeats) || repeats < 1) throw new UsageError(`--repeat must be a whole number >= 1, got ${repeats}`);
  const keys = new Set(conditions.map((c) => c.key));
  if (keys.size !== conditions.length) throw new UsageError('the grid lists the same condition twice');
  const variants: Variant[] = players.map((p) => ({ kind: 'player', name: safeName(p.label), players: [p] }));
  if (options.together && players.length >= 2) variants.push({ kind: 'together', name: 'together', players: [...players] });
  for (const pair of pairs) variants.push(pairVariant(pair));
  if (options.control) variants.push({ kind: 'control', name: 'control', players: [] });
  if (options.settings.bulkFlows < 1) {
    const alone = variants.filter((v) => v.players.length < 2).map((v) => v.name);
    if (alone.length > 0)
      throw new UsageError(
        `--bulk 0 leaves ${alone.join(', ')} alone on the link: with no bulk flow every run needs two video flows (--pairs, with --players none --no-control)`,
      );
    if (options.settings.schedule.phases.some((p) => p.name !== 'both'))
      throw new UsageError(
        '--bulk 0: a schedule with video or bulk phases needs bulk flows (without them the link would sit idle); use the default schedule',
      );
  }
  const names = new Set(variants.map((v) => v.name));
  if (names.size !== variants.length)
    throw new UsageError(`two variants share a directory name: ${variants.map((v) => v.name).join(', ')}`);
  return { settings: options.settings, conditions: [...conditions], variants, repeats, runs: enumerateRuns(conditions, variants, repeats) };
}

/**
 * Every run of a plan in its canonical order: condition, then repeat, then
 * variant (interleaved). buildPlan uses it; merge.ts rebuilds a sharded
 * plan's full run list from it.
 */
export function enumerateRuns(conditions: readonly Condition[], variants: readonly Variant[], repeats: number): RunSpec[] {
  const runs: RunSpec[] = [];
  for (const condition of conditions) {
    for (let repeat = 1; repeat <= repeats; repeat++) {
      for (const variant of variants) {
        runs.push({ dir: `runs/${condition.key}/${variant.name}/r${repeat}`, index: runs.length, condition, variant, repeat });
      }
    }
  }
  return runs;
}
