// Unit tests of the small dash.js adapters in player/dash/ (the dash.js code
// they rely on is pinned by dashjs-contract.test.ts): the settings Sprint's
// trains need and the warnings when they override the page's own, the
// quota-exceeded subscription, and the segment ranges of a representation.

import { applyTrainSettings } from '../../../player/dash/train-settings';
import { onQuotaExceeded } from '../../../player/dash/core-events';
import { segmentMediaRanges } from '../../../player/dash/representation-segments';
import { fakeEventBus } from './fake-dash';

/** dash.js's settings calls and event bus, as MediaPlayer exposes them. */
function fakeDash() {
  const updates: unknown[] = [];
  const bus = fakeEventBus();
  return {
    updates,
    emit: bus.emit,
    listeners: bus.listeners,
    dash: { updateSettings: (s: unknown) => void updates.push(s), on: bus.on, off: bus.off } as never,
  };
}

describe('applyTrainSettings', () => {
  it('turns fast switching, request abandonment and the init segment cache off', () => {
    const f = fakeDash();
    expect(applyTrainSettings(f.dash, undefined)).toEqual([]);
    expect(f.updates).toEqual([
      {
        streaming: {
          buffer: { fastSwitchEnabled: false },
          abr: { rules: { abandonRequestsRule: { active: false } } },
          cacheInitSegments: false,
        },
      },
    ]);
  });

  it("says so where that overrides the page's own dashSettings, and only there", () => {
    const f = fakeDash();
    const page = {
      streaming: {
        buffer: { fastSwitchEnabled: true },
        abr: { rules: { abandonRequestsRule: { active: true } } },
        cacheInitSegments: true,
      },
    };
    const warnings = applyTrainSettings(f.dash, page);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/fastSwitchEnabled off \(the page set true\)/);
    expect(warnings[1]).toMatch(/abandonRequestsRule off \(the page set it active\)/);
    expect(warnings[2]).toMatch(/cacheInitSegments off \(the page set it on\)/);
    expect(
      applyTrainSettings(f.dash, {
        streaming: { buffer: { fastSwitchEnabled: false }, abr: { rules: { abandonRequestsRule: { active: false } } } },
      }),
    ).toEqual([]);
    expect(applyTrainSettings(f.dash, { streaming: { buffer: { stableBufferTime: 20 } } })).toEqual([]);
  });
});

describe('onQuotaExceeded', () => {
  it("hands over the media type of dash.js's quotaExceeded event until unsubscribed", () => {
    const f = fakeDash();
    const seen: Array<string | undefined> = [];
    const off = onQuotaExceeded(f.dash, (t) => void seen.push(t));
    f.emit('quotaExceeded', { mediaType: 'video', criticalBufferLevel: 30 });
    off();
    f.emit('quotaExceeded', { mediaType: 'audio' });
    expect(seen).toEqual(['video']);
    expect(f.listeners()).toBe(0);
  });
});

describe('segmentMediaRanges', () => {
  it('lists the mediaRange of every segment dash.js parsed from the index', () => {
    expect(segmentMediaRanges({ segments: [{ mediaRange: '900-1999' }, { mediaRange: '2000-2999' }] })).toEqual(['900-1999', '2000-2999']);
  });
  it('is null when dash.js has not listed them, lists one, or one lacks a range', () => {
    expect(segmentMediaRanges(null)).toBeNull();
    expect(segmentMediaRanges({})).toBeNull();
    expect(segmentMediaRanges({ segments: [{ mediaRange: '0-9' }] })).toBeNull();
    expect(segmentMediaRanges({ segments: [{ mediaRange: '0-9' }, { media: 'x' }] })).toBeNull();
  });
});
