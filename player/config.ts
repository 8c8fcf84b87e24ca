/**
 * The player's options in one place: a defaults table and one
 * `normalizeConfig()` that checks every option a page passes to
 * `Sprint.createPlayer` and fills in the rest, with a clear error naming the
 * option, what it got and what it takes. An option name the player does not
 * know is an error too (a typo would otherwise be ignored silently).
 */
import type { MediaPlayerClass, MediaPlayerSettingClass } from 'dashjs';
import { parseAbrPreset, type AbrPreset } from './abr/presets';
import { parseMode, type RequestedMode, type SprintPlayerOptions } from './options';
import { DEFAULT_MAX_RANGE_SEC, parseSwitchPolicy, type SprintXSwitchPolicy } from '../src/sprintx/switch-policy';
import { MAX_CHUNK_BYTES } from './estimates/estimate-hub';
import { DEFAULT_WINDOW_BDPS, isWindowBdps, MAX_WINDOW_BDPS } from '../src/model/outstanding-window';

export const SPRINT_TRANSPORTS = ['auto', 'extension', 'fetch'] as const;
export type SprintTransportChoice = (typeof SPRINT_TRANSPORTS)[number];
export const SPRINT_AUDIO_POLICIES = ['train', 'own'] as const;
export type SprintAudioPolicy = (typeof SPRINT_AUDIO_POLICIES)[number];
export const RTT_PROBE_POLICIES = ['every-second', 'when-quiet'] as const;
export type RttProbePolicy = (typeof RTT_PROBE_POLICIES)[number];

/** Every option after normalizeConfig: defaults filled in, values checked. */
export interface PlayerConfig {
  mode: RequestedMode;
  abr: AbrPreset;
  sprintTransport: SprintTransportChoice;
  dashSettings: MediaPlayerSettingClass | undefined;
  autoPlay: boolean;
  epsilon: number;
  /** undefined: Program 1's chunk from the current estimates. */
  chunkBytes: number | undefined;
  minimumTrain: boolean;
  sprintWindowBdps: number;
  sprintAudio: SprintAudioPolicy;
  sprintxSwitch: SprintXSwitchPolicy;
  /** undefined: two segments' duration. */
  sprintxSafetySec: number | undefined;
  sprintxMaxRangeSec: number;
  /** 0: audio loads segment by segment (dash.js); otherwise the media time one expanded audio request covers. */
  sprintxAudioSec: number;
  rttProbes: RttProbePolicy;
  log: boolean;
  beforeAttach: ((dashPlayer: MediaPlayerClass) => void) | undefined;
}

/** The defaults (options.ts documents each option). */
export const PLAYER_CONFIG_DEFAULTS: Readonly<PlayerConfig> = Object.freeze({
  mode: 'auto',
  abr: 'dash-default',
  sprintTransport: 'auto',
  dashSettings: undefined,
  autoPlay: true,
  epsilon: 0.1,
  chunkBytes: undefined,
  minimumTrain: true,
  sprintWindowBdps: DEFAULT_WINDOW_BDPS,
  sprintAudio: 'train',
  sprintxSwitch: 'after-chunk',
  sprintxSafetySec: undefined,
  sprintxMaxRangeSec: DEFAULT_MAX_RANGE_SEC,
  sprintxAudioSec: 0,
  rttProbes: 'every-second',
  log: true,
  beforeAttach: undefined,
});

const KNOWN = Object.keys(PLAYER_CONFIG_DEFAULTS) as Array<keyof PlayerConfig>;

function fail(option: string, expected: string, got: unknown): never {
  const shown = typeof got === 'string' ? JSON.stringify(got) : typeof got === 'function' ? 'a function' : String(got);
  throw new RangeError(`Sprint.createPlayer: ${option} must be ${expected}, got ${shown}`);
}

function bool(option: string, v: unknown, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') fail(option, 'true or false', v);
  return v;
}

function oneOf<T extends string>(option: string, allowed: readonly T[], v: unknown, dflt: T): T {
  if (v === undefined) return dflt;
  if (!(allowed as readonly unknown[]).includes(v)) fail(option, `one of ${allowed.map((a) => `"${a}"`).join(', ')}`, v);
  return v as T;
}

function seconds(option: string, v: unknown, min: 'zero' | 'positive'): number | undefined {
  if (v === undefined) return undefined;
  const ok = typeof v === 'number' && Number.isFinite(v) && (min === 'zero' ? v >= 0 : v > 0);
  if (!ok) fail(option, `a number of seconds ${min === 'zero' ? '>= 0' : '> 0'}`, v);
  return v;
}

/** Checks `options` and fills in the defaults; throws a RangeError naming the first bad option. */
export function normalizeConfig(options: SprintPlayerOptions | undefined): PlayerConfig {
  const o = (options ?? {}) as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) fail('options', 'an object', options);
  const unknown = Object.keys(o).filter((k) => !(KNOWN as string[]).includes(k));
  if (unknown.length > 0)
    throw new RangeError(
      `Sprint.createPlayer: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; the options are ${KNOWN.join(', ')}`,
    );

  const wrap = <T>(parse: () => T): T => {
    try {
      return parse();
    } catch (e) {
      throw new RangeError(`Sprint.createPlayer: ${(e as Error).message.replace(/^Sprint: /, '')}`);
    }
  };
  const d = PLAYER_CONFIG_DEFAULTS;
  const epsilon = o['epsilon'] ?? d.epsilon;
  if (!(typeof epsilon === 'number' && epsilon > 0 && epsilon < 1)) fail('epsilon', 'a number in (0, 1)', epsilon);
  const chunkBytes = o['chunkBytes'];
  if (
    chunkBytes !== undefined &&
    !(typeof chunkBytes === 'number' && Number.isInteger(chunkBytes) && chunkBytes > 0 && chunkBytes <= MAX_CHUNK_BYTES)
  )
    fail('chunkBytes', `a positive integer number of bytes, at most ${MAX_CHUNK_BYTES}`, chunkBytes);
  const transport = o['sprintTransport'] ?? d.sprintTransport;
  if (!(SPRINT_TRANSPORTS as readonly unknown[]).includes(transport))
    fail('sprintTransport', `one of ${SPRINT_TRANSPORTS.map((t) => `"${t}"`).join(', ')}`, transport);
  const dashSettings = o['dashSettings'];
  if (dashSettings !== undefined && (typeof dashSettings !== 'object' || dashSettings === null || Array.isArray(dashSettings)))
    fail('dashSettings', 'an object of dash.js settings', dashSettings);
  const sprintWindowBdps = o['sprintWindowBdps'] ?? d.sprintWindowBdps;
  if (!isWindowBdps(sprintWindowBdps)) fail('sprintWindowBdps', `a number of fair BDPs in [1, ${MAX_WINDOW_BDPS}]`, sprintWindowBdps);
  const beforeAttach = o['beforeAttach'];
  if (beforeAttach !== undefined && typeof beforeAttach !== 'function') fail('beforeAttach', 'a function', beforeAttach);

  return {
    mode: wrap(() => parseMode(o['mode'])),
    abr: wrap(() => parseAbrPreset(o['abr'])),
    sprintTransport: transport as SprintTransportChoice,
    dashSettings: dashSettings as MediaPlayerSettingClass | undefined,
    autoPlay: bool('autoPlay', o['autoPlay'], d.autoPlay),
    epsilon,
    chunkBytes: chunkBytes as number | undefined,
    minimumTrain: bool('minimumTrain', o['minimumTrain'], d.minimumTrain),
    sprintWindowBdps,
    sprintAudio: oneOf('sprintAudio', SPRINT_AUDIO_POLICIES, o['sprintAudio'], d.sprintAudio),
    sprintxSwitch: wrap(() => parseSwitchPolicy(o['sprintxSwitch'])),
    sprintxSafetySec: seconds('sprintxSafetySec', o['sprintxSafetySec'], 'zero'),
    sprintxMaxRangeSec: seconds('sprintxMaxRangeSec', o['sprintxMaxRangeSec'], 'positive') ?? d.sprintxMaxRangeSec,
    sprintxAudioSec: seconds('sprintxAudioSec', o['sprintxAudioSec'], 'zero') ?? d.sprintxAudioSec,
    rttProbes: oneOf('rttProbes', RTT_PROBE_POLICIES, o['rttProbes'], d.rttProbes),
    log: bool('log', o['log'], d.log),
    beforeAttach: beforeAttach as PlayerConfig['beforeAttach'],
  };
}
