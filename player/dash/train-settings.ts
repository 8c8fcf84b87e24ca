/**
 * The dash.js settings Sprint's trains need, set in one place and never
 * silently. dash.js 5.2.1's fast switch (`streaming.buffer.fastSwitchEnabled`)
 * and its request abandonment (`streaming.abr.rules.abandonRequestsRule`)
 * abort every loading request of a media type at once; with a train in
 * flight that throws away segments already on the wire (docs/
 * dashjs-integration.md). A bitrate switch keeps the window full instead
 * (quality-switch-hook.ts) or waits for the in-order completions.
 *
 * dash.js's init segment cache (`streaming.cacheInitSegments`) appends a
 * cached init segment the moment a switch back asks for it, ahead of the
 * train's segments still in flight, which are then appended after the wrong
 * init segment; Sprint mode turns it off too, so every init segment is
 * requested and appended in request order.
 *
 * Sprint mode turns all three off, also over a page's own `dashSettings`, and
 * where it overrides the page it says so: each such change is returned in
 * words, for `stats().warnings` and the console. Turning dash.js's defaults
 * off is documented (docs/api.md). The other modes leave them
 * as the page and dash.js set them.
 */
import type { MediaPlayerClass } from 'dashjs';

interface TrainSettingsView {
  streaming?: {
    buffer?: { fastSwitchEnabled?: boolean | null };
    abr?: { rules?: { abandonRequestsRule?: { active?: boolean } } };
    cacheInitSegments?: boolean;
  };
}

/**
 * Applies the settings trains need over whatever is set; returns, one
 * sentence each, where that overrides what the page itself asked for in
 * `pageSettings` (its `dashSettings`).
 */
export function applyTrainSettings(dash: MediaPlayerClass, pageSettings: unknown): string[] {
  const page = (pageSettings ?? {}) as TrainSettingsView;
  const changed: string[] = [];
  const fast = page.streaming?.buffer?.fastSwitchEnabled;
  if (fast !== undefined && fast !== null && fast !== false)
    changed.push(
      `sprint turned dash.js's streaming.buffer.fastSwitchEnabled off (the page set ${String(fast)}): a fast switch would abort the train's segments in flight`,
    );
  const abandon = page.streaming?.abr?.rules?.abandonRequestsRule?.active;
  if (abandon !== undefined && abandon !== false)
    changed.push(
      `sprint turned dash.js's abandonRequestsRule off (the page set it active): abandoning a request aborts the train's segments in flight`,
    );
  if (page.streaming?.cacheInitSegments === true)
    changed.push(
      `sprint turned dash.js's streaming.cacheInitSegments off (the page set it on): a cached init segment is appended ahead of the train's segments in flight`,
    );
  dash.updateSettings({
    streaming: {
      buffer: { fastSwitchEnabled: false },
      abr: { rules: { abandonRequestsRule: { active: false } } },
      cacheInitSegments: false,
    },
  } as never);
  return changed;
}
