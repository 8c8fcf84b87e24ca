/**
 * Entry point of the embeddable bundle (`dist/player/sprint.js`). One script
 * tag gives the page `window.Sprint`:
 *   Sprint.createPlayer(videoElement, manifestUrl, { mode: 'auto' })
 * plus `Sprint.dashjs` (the pinned dash.js 5.2.1 namespace with `FactoryMaker`,
 * for ABR rules built with `Sprint.dashjs.FactoryMaker`).
 */
import { dashjs } from './dash/dashjs';
import { createPlayer, SprintPlayer } from './create-player';
import { MODES } from './options';

declare const __SPRINT_VERSION__: string;
/** The package version (package.json), set when the bundle is built. */
export const version: string = typeof __SPRINT_VERSION__ === 'string' ? __SPRINT_VERSION__ : '0.0.0-unbuilt';
export { createPlayer, SprintPlayer, MODES, dashjs };
export type { SprintPlayerOptions, RequestedMode, DataPlaneMode } from './options';
export type {
  SprintStats,
  TransferRecord,
  TrainRecord,
  SegmentRecord,
  EstimateStats,
  DeferredSwitchRecord,
  RescueRecord,
} from './stats/types';
export type { SprintEventMap, SprintEventName, SprintEventListener } from './stats/events';
export type { CounterName, Counters } from './stats/counters';
export { COUNTERS } from './stats/counters';
export { SPRINT_EVENT_NAMES } from './stats/events';
