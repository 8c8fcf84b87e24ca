/**
 * The seam between the Sprint player and a data plane implementation.
 *
 * A data plane decides how the media bytes dash.js asks for travel over the
 * network (one request per segment, expanded ranges, pipelined trains). It
 * never decides which bitrate to fetch: dash.js's ABR rules do, at the moment
 * each segment request is issued (paper §IV: the data plane "simply ensures
 * that a chunk size of data is continuously downloaded").
 *
 * Lifecycle: `install` is called once, after the dash.js player is created
 * and initialised with the video element and before the source is attached,
 * so `extend()` hooks are registered in time. `destroy` releases timers,
 * sockets and listeners. Implementations record every wire transfer and every
 * segment they hand to dash.js in `ctx.stats`.
 */
import type { MediaPlayerClass } from 'dashjs';
import type { DataPlaneMode } from '../options';
import type { StatsRecorder } from '../stats/recorder';
import type { Logger } from '../log';

export interface DataPlaneContext {
  /** The dash.js MediaPlayer instance. */
  dash: MediaPlayerClass;
  /** The dash.js module namespace (for `MediaPlayer.events`, `FactoryMaker`). */
  dashjs: import('../dash/dashjs').DashjsNamespace;
  /** Absolute manifest URL. */
  manifestUrl: string;
  /** Builds and counts every request Sprint sends itself, as dash.js would build it (request-path.ts). */
  requests: import('./request-path').RequestPath;
  stats: StatsRecorder;
  log: Logger;
  /** ε of paper §IV-A. */
  epsilon: number;
  /** A fixed chunk size in bytes instead of Program 1's (experiments); undefined: the model's. */
  chunkBytes?: number;
  /** Sprint: enforce the minimum train past dash.js's buffer target (§IV-B1); false is "Sprint without MPT" (Fig. 11). */
  minimumTrain: boolean;
  /** Sprint: the outstanding window in fair BDPs (src/model/outstanding-window.ts; §IV-B1 asks for at least one). */
  sprintWindowBdps: number;
  /** Sprint on a one-connection transport: audio rides the train's connection (`train`) or dash.js's (`own`). */
  sprintAudio: import('../config').SprintAudioPolicy;
  /** Sprint-x: when a bitrate switch may cancel an expanded request (src/sprintx/switch-policy.ts). */
  sprintxSwitch: import('../../src/sprintx/switch-policy').SprintXSwitchPolicy;
  /** Sprint-x: below this much buffered video a switch is never held, seconds; undefined: two segments' duration. */
  sprintxSafetySec?: number;
  /** Sprint-x: the most media time one expanded request covers, seconds (src/sprintx/range-plan.ts). */
  sprintxMaxRangeSec: number;
  /** Sprint-x: media time of one expanded audio request, seconds; 0: audio left to dash.js. */
  sprintxAudioSec: number;
  /** RTT samples: a probe each second, or idle media requests' first bytes and a probe when quiet (estimate-hub.ts). */
  rttProbes: import('../config').RttProbePolicy;
  /** The page's own `dashSettings` (a mode that must override one of them says so: player/dash/train-settings.ts). */
  pageDashSettings?: unknown;
}

export interface DataPlane {
  readonly mode: DataPlaneMode;
  install(ctx: DataPlaneContext): void;
  destroy(): void;
}
