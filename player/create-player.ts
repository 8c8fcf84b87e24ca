/**
 * `Sprint.createPlayer(video, manifestUrl, options)`: a dash.js 5.2.1 player
 * with a Sprint data plane underneath. dash.js keeps every control-plane job
 * (ABR rules, buffering targets, MSE); Sprint only changes how bytes are
 * fetched (paper §IV). The dash.js player is exposed as `.dash` so any ABR
 * rule can be plugged in (`addABRCustomRule`, `updateSettings`).
 */
import { dashjs } from './dash/dashjs';
import { applyPlayerDefaults } from './dash/player-defaults';
import type { MediaPlayerClass } from 'dashjs';
import type { DataPlaneMode, SprintPlayerOptions } from './options';
import { normalizeConfig } from './config';
import { StatsRecorder } from './stats/recorder';
import { PlaybackMonitor } from './stats/playback-monitor';
import type { SprintStats } from './stats/types';
import { createLogger } from './log';
import type { DataPlane, DataPlaneContext } from './dataplane/data-plane';
import { resolveMode, type ModeProvider } from './dataplane/resolve-mode';
import { modeProviders } from './dataplane/providers';
import { manifestOnce } from './dataplane/manifest-once';
import { ManifestHandoff } from './dataplane/manifest-handoff';
import { addLoadTaker, countOwnLoads } from './dash/loader-hook';
import { applyAbrPreset } from './abr/presets';
import { videoEstimate } from './abr/bw-x-rule';
import { SPRINT_EVENT_NAMES, type SprintEventListener, type SprintEventName } from './stats/events';
import { installRescue } from './abr/rescue';
import { trackRequestInterceptors } from './dash/request-interceptors';
import { RequestPath } from './dataplane/request-path';

export class SprintPlayer {
  /** The underlying dash.js MediaPlayer. */
  readonly dash: MediaPlayerClass;
  /** Resolves with the data plane mode once it is chosen and the source attached. */
  readonly ready: Promise<DataPlaneMode>;
  private readonly recorder: StatsRecorder;
  private readonly monitor: PlaybackMonitor;
  private plane: DataPlane | null = null;
  private destroyed = false;

  constructor(
    readonly video: HTMLVideoElement,
    manifestUrl: string,
    options: SprintPlayerOptions = {},
    providers?: readonly ModeProvider[],
  ) {
    if (!(video instanceof HTMLVideoElement)) throw new TypeError('Sprint.createPlayer: first argument must be a <video> element');
    if (typeof manifestUrl !== 'string' || manifestUrl === '')
      throw new TypeError('Sprint.createPlayer: manifestUrl must be a non-empty string');
    const config = normalizeConfig(options);
    const requested = config.mode;
    const absoluteManifest = new URL(manifestUrl, document.baseURI).href;
    const log = createLogger(config.log);

    this.recorder = new StatsRecorder(requested, (name, e) =>
      log.error(`a '${name}' event listener threw: ${(e as Error)?.message ?? String(e)}`),
    );
    this.dash = dashjs.MediaPlayer().create();
    // Interceptors the page adds from here on (in beforeAttach, or right after createPlayer) run on Sprint's requests too.
    const recorder = this.recorder;
    const requests = new RequestPath(trackRequestInterceptors(this.dash), (kind) => recorder.count(`requests.${kind}` as const));
    countOwnLoads(this.dash, (kind) => recorder.count(`requests.${kind}` as const));
    this.dash.initialize(video, undefined, config.autoPlay);
    applyPlayerDefaults(this.dash); // before the page's settings, which win
    if (config.dashSettings) this.dash.updateSettings(config.dashSettings);
    // BW-x reads the project's own estimator, fed by every mode's transfers, less the audio that
    // shares Sprint's connection (player/abr/bw-x-rule.ts).
    const wireEstimate = (): number | null => videoEstimate(this.recorder.estimates);
    applyAbrPreset(this.dash, dashjs, config.abr, config.dashSettings, wireEstimate);
    // Every mode, every preset: a segment that cannot arrive is asked again lower (player/abr/rescue.ts).
    installRescue(this.dash, dashjs, this.recorder, log);
    config.beforeAttach?.(this.dash);
    this.monitor = new PlaybackMonitor(video, this.dash, dashjs.MediaPlayer.events);

    const base: Omit<DataPlaneContext, 'stats'> = {
      dash: this.dash,
      dashjs,
      manifestUrl: absoluteManifest,
      requests,
      log,
      epsilon: config.epsilon,
      chunkBytes: config.chunkBytes,
      minimumTrain: config.minimumTrain,
      sprintWindowBdps: config.sprintWindowBdps,
      sprintAudio: config.sprintAudio,
      sprintxSwitch: config.sprintxSwitch,
      sprintxSafetySec: config.sprintxSafetySec,
      sprintxMaxRangeSec: config.sprintxMaxRangeSec,
      sprintxAudioSec: config.sprintxAudioSec,
      rttProbes: config.rttProbes,
      pageDashSettings: config.dashSettings,
    };
    // Fetched at most once: by the mode checks, then handed to dash.js (player/dataplane/manifest-handoff.ts).
    const manifest = manifestOnce(absoluteManifest, requests);
    this.ready = resolveMode(requested, providers ?? modeProviders(config.sprintTransport), base, manifest).then(({ plane, reason }) => {
      if (this.destroyed) {
        // destroyed while the mode was being resolved: the plane never ran, but may hold a session
        plane.destroy();
        return plane.mode;
      }
      this.plane = plane;
      this.recorder.resolveMode(plane.mode, reason);
      log.info(`data plane: ${plane.mode} (${reason})`);
      plane.install({ ...base, stats: this.recorder });
      if (manifest.started()) addLoadTaker(this.dash, new ManifestHandoff(absoluteManifest, manifest, this.recorder, log));
      this.dash.attachSource(absoluteManifest);
      return plane.mode;
    });
  }

  /**
   * Subscribes to a player event (player/stats/events.ts: modeResolved,
   * fallback, transferEnd, trainEnd, estimates, deferredSwitch, rescue,
   * warning). Subscribe right after createPlayer to hear `modeResolved`.
   */
  on<K extends SprintEventName>(name: K, listener: SprintEventListener<K>): this {
    if (!SPRINT_EVENT_NAMES.includes(name))
      throw new RangeError(`SprintPlayer.on: unknown event ${JSON.stringify(name)}; one of ${SPRINT_EVENT_NAMES.join(', ')}`);
    if (typeof listener !== 'function') throw new TypeError('SprintPlayer.on: listener must be a function');
    this.recorder.events.on(name, listener);
    return this;
  }

  off<K extends SprintEventName>(name: K, listener: SprintEventListener<K>): this {
    this.recorder.events.off(name, listener);
    return this;
  }

  stats(): SprintStats {
    return {
      requestedMode: this.recorder.requestedMode,
      mode: this.recorder.mode,
      modeReason: this.recorder.modeReason,
      segments: this.recorder.segments.toArray(),
      transfers: this.recorder.transfers.toArray(),
      trains: this.recorder.trains.toArray(),
      deferredSwitches: this.recorder.deferredSwitches.toArray(),
      rescues: this.recorder.rescues.toArray(),
      droppedRecords: this.recorder.droppedRecords + this.monitor.droppedSamples,
      playback: this.monitor.snapshot(),
      samples: this.monitor.series(),
      estimates: { ...this.recorder.estimates },
      counters: { ...this.recorder.counters },
      warnings: [...this.recorder.warnings],
    };
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    // listeners hear nothing of the teardown
    this.recorder.events.clear();
    this.plane?.destroy();
    this.monitor.destroy();
    this.dash.destroy();
  }
}

export function createPlayer(video: HTMLVideoElement, manifestUrl: string, options?: SprintPlayerOptions): SprintPlayer {
  return new SprintPlayer(video, manifestUrl, options);
}
