// When a bitrate switch may keep Sprint's window full (player/dash/
// quality-switch-hook.ts drainReason): only when dash.js's own switch
// preparation would have nothing to do; every other switch is named.

import { drainReason, type QualityChangeEventLike } from '../../../player/dash/quality-switch-hook';

const rep = (over: Record<string, unknown> = {}) => ({
  id: '1',
  mimeType: 'video/mp4',
  codecFamily: 'avc1',
  mseTimeOffset: 0,
  mediaInfo: { segmentAlignment: true },
  ...over,
});
const change = (over: Partial<QualityChangeEventLike> = {}, to: Record<string, unknown> = {}): QualityChangeEventLike => ({
  newRepresentation: rep({ id: '2', ...to }),
  oldRepresentation: rep(),
  isAdaptationSetSwitch: false,
  reason: {},
  ...over,
});

describe('drainReason', () => {
  it('is null for an aligned same-codec switch inside one AdaptationSet with fast switching off', () => {
    expect(drainReason(change(), false)).toBeNull();
    expect(drainReason(change({ reason: null }), false)).toBeNull();
    expect(drainReason(change({}, { mediaInfo: { subSegmentAlignment: true } }), false)).toBeNull();
    expect(drainReason(change({}, { mseTimeOffset: NaN }), false)).toBe('timestamp offset change');
    expect(
      drainReason({ ...change(), newRepresentation: rep({ mseTimeOffset: NaN }), oldRepresentation: rep({ mseTimeOffset: NaN }) }, false),
    ).toBeNull();
  });

  it.each([
    ['representations unknown', { oldRepresentation: undefined }, {}, false],
    ['AdaptationSet switch', { isAdaptationSetSwitch: true }, {}, false],
    ['buffer replacement requested', { reason: { forceReplace: true } }, {}, false],
    ['request abandoned', { reason: { forceAbandon: true } }, {}, false],
    ['fast switching on', {}, {}, true],
    ['enhancement layer', {}, { dependentRepresentation: {} }, false],
    ['codec change (changeType)', {}, { codecFamily: 'hev1' }, false],
    ['codec change (changeType)', {}, { mimeType: 'video/webm' }, false],
    ['timestamp offset change', {}, { mseTimeOffset: 2 }, false],
    ['segments not aligned', {}, { mediaInfo: {} }, false],
  ] as const)('%s → dash.js prepares the switch', (why, over, to, fast) => {
    expect(drainReason(change(over as Partial<QualityChangeEventLike>, to as Record<string, unknown>), fast)).toBe(why);
  });
});
