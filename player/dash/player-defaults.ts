/**
 * dash.js settings the Sprint player changes from dash.js's own defaults in
 * every mode (stock included, so an A/B comparison measures data planes, not
 * a dash.js estimate bug), applied before the page's `dashSettings`, which
 * therefore always win. Each is a correction, documented in docs/api.md:
 *
 * - `streaming.abr.throughput.useResourceTimingApi: false`. With it on,
 *   dash.js takes a segment's throughput from the FIRST Resource Timing entry
 *   whose name equals the request URL. For content addressed by byte ranges
 *   (one file per representation, the layout Sprint-x needs) every segment of
 *   a representation has the same URL, so every sample repeats the timing of
 *   the first request made to that file (its index and initialisation bytes),
 *   and once the browser's timing buffer is full no new entry is added at all.
 *   Measured on loopback with plain dash.js 5.2.1 and the demo content: the
 *   estimate stays at ~2.7 Mbit/s and playback at 1.5 Mbit/s with it on;
 *   ~1.7 Gbit/s and the 6 Mbit/s top rung with it off. dash.js then measures
 *   from its own request traces and dates (what the Sprint modes keep true;
 *   docs/dashjs-integration.md, "Throughput estimation").
 */
import type { MediaPlayerClass } from 'dashjs';

/** What the player sets unless the page's `dashSettings` say otherwise. */
export const PLAYER_DASH_DEFAULTS = {
  streaming: { abr: { throughput: { useResourceTimingApi: false } } },
} as const;

export function applyPlayerDefaults(dash: MediaPlayerClass): void {
  dash.updateSettings(PLAYER_DASH_DEFAULTS as never);
}
