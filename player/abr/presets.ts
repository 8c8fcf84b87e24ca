/**
 * ABR presets a page or the evaluation harness can name: dash.js's defaults,
 * the buffer-based rule of §V-A, or BW-x of §V-C. A preset other than the
 * default turns dash.js's built-in quality rules off and registers one
 * Sprint rule, so exactly that rule chooses the bitrate.
 *
 * The buffer-based rule moves one rung per 10 s of buffer change, so it needs
 * room to move: Huang et al.'s rule ran with a 240 s buffer, and the paper
 * (§V-A) relies on it never filling the buffer while the top bitrate exceeds
 * the fair share. Under dash.js's default 18 s target the buffer fills before
 * the rule passes the second rung (measured on the 3 Mbit/s testbed: stuck at
 * 0.7 Mbit/s with a 1.4 Mbit/s fair share, pausing every few seconds). So the
 * `buffer` preset sets dash.js's buffer targets to BUFFER_RULE_TARGET_SEC.
 * Both presets also turn off dash.js's request abandonment and fast
 * switching (see applyAbrPreset): the preset's rule alone decides, and stock
 * and Sprint players under one preset run the same control plane. Settings
 * the page set itself in `dashSettings` are left alone.
 */
import type { MediaPlayerClass, MediaPlayerSettingClass } from 'dashjs';
import { bufferBasedRuleFactory, BUFFER_RULE_NAME } from './buffer-based-rule';
import { bwRuleFactory, bwRuleName, type WireEstimate } from './bw-x-rule';
import type { DashjsForRules } from './rule-types';
import { bwPercentOf } from '../../src/abr/bw-preset';

export type AbrPreset = 'dash-default' | 'buffer' | `bw-${number}`;

export function parseAbrPreset(value: unknown): AbrPreset {
  if (value === undefined || value === null || value === '' || value === 'dash-default') return 'dash-default';
  if (value === 'buffer') return 'buffer';
  const percent = bwPercentOf(value);
  if (percent !== null && percent > 0 && percent <= 1000) return value as AbrPreset;
  throw new RangeError(`Sprint: unknown ABR preset ${JSON.stringify(value)}; expected dash-default, buffer or bw-<percent>`);
}

/** dash.js buffer target under the buffer-based rule, seconds (Huang et al.'s 240 s buffer). */
export const BUFFER_RULE_TARGET_SEC = 240;
const BUFFER_TARGET_SETTINGS = ['bufferTimeDefault', 'bufferTimeAtTopQuality', 'bufferTimeAtTopQualityLongForm'] as const;

const BUILT_IN_QUALITY_RULES = [
  'throughputRule',
  'bolaRule',
  'insufficientBufferRule',
  'switchHistoryRule',
  'droppedFramesRule',
  'l2ARule',
  'loLPRule',
];

/**
 * Applies `preset` to `dash`. `pageSettings` are the dash.js settings the
 * page passed (`dashSettings`): buffer targets, fast switching and the
 * abandonment rule set there are left alone. `wireEstimate` is what BW-x
 * reads (player/abr/bw-x-rule.ts); without it, dash.js's own average.
 */
export function applyAbrPreset(
  dash: MediaPlayerClass,
  dashjs: unknown,
  preset: AbrPreset,
  pageSettings?: MediaPlayerSettingClass,
  wireEstimate?: WireEstimate,
): void {
  if (preset === 'dash-default') return;
  const pageBuffer = (pageSettings?.streaming?.buffer ?? {}) as Record<string, unknown>;
  const pageRules = (pageSettings?.streaming?.abr?.rules ?? {}) as Record<string, { active?: unknown } | undefined>;
  const rules: Record<string, { active: boolean }> = {};
  for (const r of BUILT_IN_QUALITY_RULES) rules[r] = { active: false };
  // Abandonment re-requests a segment at another bitrate: a second rule.
  if (pageRules.abandonRequestsRule?.active === undefined) rules.abandonRequestsRule = { active: false };
  const buffer: Record<string, number | boolean> = {};
  // Fast switching re-downloads buffered segments after an up-switch, so the
  // buffer falls right after it: the buffer-based rule then steps straight
  // back down (measured: 45% of video segments fetched twice, the bitrate
  // stuck between the two lowest rungs), and stock fetches bytes the Sprint
  // data planes (which cannot replace buffered segments) would not.
  if (pageBuffer.fastSwitchEnabled === undefined) buffer.fastSwitchEnabled = false;
  if (preset === 'buffer') {
    for (const key of BUFFER_TARGET_SETTINGS) if (pageBuffer[key] === undefined) buffer[key] = BUFFER_RULE_TARGET_SEC;
  }
  dash.updateSettings({ streaming: { abr: { rules }, buffer } } as never);
  const d = dashjs as DashjsForRules;
  if (preset === 'buffer') {
    dash.addABRCustomRule('qualitySwitchRules', BUFFER_RULE_NAME, bufferBasedRuleFactory(d) as object);
  } else {
    const percent = bwPercentOf(preset) as number;
    dash.addABRCustomRule('qualitySwitchRules', bwRuleName(percent), bwRuleFactory(d, percent, wireEstimate) as object);
  }
}
