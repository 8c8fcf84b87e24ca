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
import { parseMode, type DataPlaneMode, type SprintPlayerOptions } from './options';
import { StatsRecorder } from './stats/recorder';
import { PlaybackMonitor } from './stats/playback-monitor';
import type { SprintStats } from './stats/types';
import { createLogger } from './log';
import type { DataPlane, DataPlaneContext } from './dataplane/data-plane';
import { resolveMode, type ModeProvider } from './dataplane/resolve-mode';
import { modeProviders } from './dataplane/providers';
import { applyAbrPreset, parseAbrPreset } from './abr/presets';
import { SPRINT_EVENT_NAMES, type SprintEventListener, type SprintEventName } from './stats/events';
import { installRescue } from './abr/rescue';
import { DEFAULT_MAX_RANGE_SEC, parseSwitchPolicy, type SprintXSwitchPolicy } from '../src/sprintx/switch-policy';

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
    if (typeof manifestUrl !== 'string' || manifestUrl === '') throw new TypeError('Sprint.createPlayer: manifestUrl must be a non-empty string');
    const requested = parseMode(options.mode);
    const abrPreset = parseAbrPreset(options.abr);
    const absoluteManifest = new URL(manifestUrl, document.baseURI).href;
    const log = createLogger(options.log ?? true);
    const epsilon = options.epsilon ?? 0.1;
    if (!(epsilon > 0 && epsilon < 1)) throw new RangeError(`Sprint.createPlayer: epsilon must be in (0, 1), got ${epsilon}`);
    const chunkBytes = options.chunkBytes;
    if (chunkBytes !== undefined && !(Number.isInteger(chunkBytes) && chunkBytes > 0)) {
      throw new RangeError(`Sprint.createPlayer: chunkBytes must be a positive integer number of bytes, got ${String(chunkBytes)}`);
    }
    const minimumTrain = options.minimumTrain ?? true;
    if (typeof minimumTrain !== 'boolean') throw new TypeError(`Sprint.createPlayer: minimumTrain must be a boolean, got ${String(minimumTrain)}`);

    let sprintxSwitch: SprintXSwitchPolicy;
    try {
      sprintxSwitch = parseSwitchPolicy(options.sprintxSwitch);
    } catch (e) {
      throw new RangeError(`Sprint.createPlayer: ${(e as Error).message}`);
    }
    const sprintxSafetySec = options.sprintxSafetySec;
    if (sprintxSafetySec !== undefined && !(typeof sprintxSafetySec === 'number' && sprintxSafetySec >= 0 && Number.isFinite(sprintxSafetySec))) {
      throw new RangeError(`Sprint.createPlayer: sprintxSafetySec must be a number of seconds >= 0, got ${String(sprintxSafetySec)}`);
    }

    this.recorder = new StatsRecorder(requested, (name, e) => log.error(`a '${name}' event listener threw: ${(e as Error)?.message ?? String(e)}`));
    this.dash = dashjs.MediaPlayer().create();
    this.dash.initialize(video, undefined, options.autoPlay ?? true);
    applyPlayerDefaults(this.dash); // before the page's settings, which win
    if (options.dashSettings) this.dash.updateSettings(options.dashSettings);
    // BW-x reads the project's own estimator, fed by every mode's transfers (player/abr/bw-x-rule.ts).
    const wireEstimate = (): number | null => {
      const e = this.recorder.estimates;
      return e.bandwidthSamples > 0 && e.bandwidthBitsPerSec !== null && e.bandwidthBitsPerSec > 0 ? e.bandwidthBitsPerSec : null;
    };
    applyAbrPreset(this.dash, dashjs, abrPreset, options.dashSettings, wireEstimate);
    // Every mode, every preset: a segment that cannot arrive is asked again lower (player/abr/rescue.ts).
    installRescue(this.dash, dashjs, this.recorder, log);
    options.beforeAttach?.(this.dash);
    this.monitor = new PlaybackMonitor(video, this.dash, dashjs.MediaPlayer.events);

    const sprintxMaxRangeSec = options.sprintxMaxRangeSec ?? DEFAULT_MAX_RANGE_SEC;
    if (!(typeof sprintxMaxRangeSec === 'number' && sprintxMaxRangeSec > 0 && Number.isFinite(sprintxMaxRangeSec))) {
      throw new RangeError(`Sprint.createPlayer: sprintxMaxRangeSec must be a number of seconds > 0, got ${String(sprintxMaxRangeSec)}`);
    }

    const base: Omit<DataPlaneContext, 'stats'> = { dash: this.dash, dashjs, manifestUrl: absoluteManifest, log, epsilon, chunkBytes, minimumTrain, sprintxSwitch, sprintxSafetySec, sprintxMaxRangeSec, pageDashSettings: options.dashSettings };
    if (options.sprintTransport !== undefined && !['auto', 'extension', 'fetch'].includes(options.sprintTransport)) {
      throw new RangeError(`Sprint.createPlayer: sprintTransport must be "auto", "extension" or "fetch", got ${JSON.stringify(options.sprintTransport)}`);
    }
    this.ready = resolveMode(requested, providers ?? modeProviders(options.sprintTransport), base).then(({ plane, reason }) => {
      if (this.destroyed) return plane.mode;
      this.plane = plane;
      this.recorder.resolveMode(plane.mode, reason);
      log.info(`data plane: ${plane.mode} (${reason})`);
      plane.install({ ...base, stats: this.recorder });
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
    if (!SPRINT_EVENT_NAMES.includes(name)) throw new RangeError(`SprintPlayer.on: unknown event ${JSON.stringify(name)}; one of ${SPRINT_EVENT_NAMES.join(', ')}`);
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
    this.plane?.destroy();
    this.recorder.events.clear();
    this.monitor.destroy();
    this.dash.destroy();
  }
}

export function createPlayer(video: HTMLVideoElement, manifestUrl: string, options?: SprintPlayerOptions): SprintPlayer {
  return new SprintPlayer(video, manifestUrl, options);
}
