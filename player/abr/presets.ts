/**
 * ABR presets a page or the evaluation harness can name: dash.js's defaults,
 * the buffer-based rule of §V-A, or BW-x of §V-C. A preset other than the
 * default turns dash.js's built-in quality rules off and registers one
 * Sprint rule, so exactly that rule chooses the bitrate.
 */
import type { MediaPlayerClass } from 'dashjs';
import { bufferBasedRuleFactory, BUFFER_RULE_NAME } from './buffer-based-rule';
import { bwRuleFactory, bwRuleName } from './bw-x-rule';
import type { DashjsForRules } from './rule-types';

export type AbrPreset = 'dash-default' | 'buffer' | `bw-${number}`;

export function parseAbrPreset(value: unknown): AbrPreset {
  if (value === undefined || value === null || value === '' || value === 'dash-default') return 'dash-default';
  if (value === 'buffer') return 'buffer';
  if (typeof value === 'string') {
    const m = /^bw-(\d{1,4})$/.exec(value);
    if (m && Number(m[1]) > 0 && Number(m[1]) <= 1000) return value as AbrPreset;
  }
  throw new RangeError(`Sprint: unknown ABR preset ${JSON.stringify(value)}; expected dash-default, buffer or bw-<percent>`);
}

const BUILT_IN_QUALITY_RULES = ['throughputRule', 'bolaRule', 'insufficientBufferRule', 'switchHistoryRule', 'droppedFramesRule', 'l2ARule', 'loLPRule'];

export function applyAbrPreset(dash: MediaPlayerClass, dashjs: unknown, preset: AbrPreset): void {
  if (preset === 'dash-default') return;
  const rules: Record<string, { active: boolean }> = {};
  for (const r of BUILT_IN_QUALITY_RULES) rules[r] = { active: false };
  dash.updateSettings({ streaming: { abr: { rules } } } as never);
  const d = dashjs as DashjsForRules;
  if (preset === 'buffer') {
    dash.addABRCustomRule('qualitySwitchRules', BUFFER_RULE_NAME, bufferBasedRuleFactory(d) as object);
  } else {
    const percent = Number(preset.slice(3));
    dash.addABRCustomRule('qualitySwitchRules', bwRuleName(percent), bwRuleFactory(d, percent) as object);
  }
}
