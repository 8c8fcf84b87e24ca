/**
 * A bitrate switch inside a train without draining it (paper §IV-B1: each
 * request carries the bitrate the ABR picks at that moment, and the train
 * goes on). Part of the scheduler hook (scheduler-hook.ts installs it; one
 * place, one interface), through the public `MediaPlayer.extend(
 * 'StreamProcessor', ..., override=true)` only.
 *
 * dash.js 5.2.1's default quality switch (StreamProcessor.prepareQualityChange
 * → _prepareForDefaultQualitySwitch) stops the schedule loop, waits until no
 * request of the type is loading, then updates the SourceBuffer's timestamp
 * offset, aborts its parser and changes its codec, and only then restarts
 * the loop: every switch drains Sprint's outstanding window, and the server
 * idles for about one round trip. When none of that preparation has work to
 * do — a switch within one AdaptationSet (segment-aligned), the same MIME
 * type and codec family (no changeType), the same MSE timestamp offset, not
 * forced (buffer replacement or abandonment), fast switching off, no
 * enhancement layer — what remains is done here: the RepresentationController
 * takes the new representation and the schedule loop goes on at once, so the
 * new representation's init segment is requested while the old one's
 * segments are still arriving. Sprint hands responses to dash.js in request
 * order, one append at a time, so the init segment is appended after them.
 * Every other switch takes dash.js's own path, unchanged.
 *
 * The same hook lets Sprint-x hold a switch (`deferSwitch`): the
 * RepresentationController keeps the old representation, the schedule loop
 * requests its next segment, and at that segment the ABR is asked again
 * (dash.js compares its wish with the representation in force).
 *
 * test/unit/player/dashjs-contract.test.ts pins what this relies on.
 */
import type { MediaPlayerClass } from 'dashjs';

/** What a quality change event carries that the decision needs (dash.js 5 Representation objects). */
interface RepresentationLike {
  id?: string;
  /** Nominal bitrate, bit/s. */
  bandwidth?: number;
  mimeType?: string;
  codecFamily?: string;
  mseTimeOffset?: number;
  dependentRepresentation?: unknown;
  mediaInfo?: { segmentAlignment?: boolean; subSegmentAlignment?: boolean };
}

export interface QualityChangeEventLike {
  newRepresentation?: RepresentationLike;
  oldRepresentation?: RepresentationLike;
  isAdaptationSetSwitch?: boolean;
  reason?: { forceReplace?: boolean; forceAbandon?: boolean } | null;
}

interface StreamProcessorInstance {
  prepareQualityChange(e: QualityChangeEventLike): void;
  getRepresentationController(): { prepareQualityChange(rep: RepresentationLike): void };
  getScheduleController(): { setShouldCheckPlaybackQuality(value: boolean): void; startScheduleTimer(value?: number): void };
}

interface StreamProcessorConfig {
  type?: string;
  mediaPlayerModel?: { getFastSwitchEnabled?: () => boolean };
}

export interface QualitySwitchHooks {
  /**
   * Hold this switch (Sprint-x's `after-chunk` policy)? When true, dash.js's
   * schedule loop goes on with the representation it has, as if the ABR had
   * not asked; the ABR is asked again at the next segment. Optional.
   */
  deferSwitch?(type: string, e: QualityChangeEventLike): boolean;
  /** May a switch of `type` skip dash.js's drain (Sprint carries this type now)? */
  switchWithoutDrain(type: string): boolean;
  /** Told of every switch of a Sprint-carried type: whether it kept the window, and if not why. */
  onSwitch(type: string, kept: boolean, why: string): void;
}

const sameOffset = (a: number | undefined, b: number | undefined): boolean =>
  a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));

/**
 * Why dash.js's own switch preparation is needed for `e`, or null when it
 * has nothing to do (the window may stay full). Pure.
 */
export function drainReason(e: QualityChangeEventLike, fastSwitch: boolean): string | null {
  const to = e.newRepresentation;
  const from = e.oldRepresentation;
  if (!to || !from) return 'representations unknown';
  if (e.isAdaptationSetSwitch) return 'AdaptationSet switch';
  if (e.reason?.forceReplace) return 'buffer replacement requested';
  if (e.reason?.forceAbandon) return 'request abandoned';
  if (fastSwitch) return 'fast switching on';
  if (to.dependentRepresentation !== undefined && to.dependentRepresentation !== null) return 'enhancement layer';
  if (to.mimeType !== from.mimeType || to.codecFamily !== from.codecFamily) return 'codec change (changeType)';
  if (!sameOffset(to.mseTimeOffset, from.mseTimeOffset)) return 'timestamp offset change';
  if (!to.mediaInfo?.segmentAlignment && !to.mediaInfo?.subSegmentAlignment) return 'segments not aligned';
  return null;
}

export function installQualitySwitchHook(dash: MediaPlayerClass, hooks: QualitySwitchHooks): void {
  dash.extend(
    'StreamProcessor',
    function (this: { parent: StreamProcessorInstance }, config: StreamProcessorConfig) {
      const parent = this.parent;
      const type = config?.type ?? 'unknown';
      const original = parent.prepareQualityChange.bind(parent);
      return {
        prepareQualityChange(e: QualityChangeEventLike): void {
          if (e?.newRepresentation && hooks.deferSwitch?.(type, e)) {
            // dash.js's schedule loop skipped its request for this tick,
            // expecting the switch preparation to restart it: restart it
            // without asking the ABR again, so the next request is the old
            // representation's next segment.
            const scheduler = parent.getScheduleController();
            scheduler.setShouldCheckPlaybackQuality(false);
            scheduler.startScheduleTimer(0);
            return;
          }
          if (!e?.newRepresentation || !hooks.switchWithoutDrain(type)) {
            original(e);
            return;
          }
          let why: string | null;
          try {
            why = drainReason(e, config?.mediaPlayerModel?.getFastSwitchEnabled?.() ?? true);
          } catch {
            why = 'dash.js settings unreadable';
          }
          if (why !== null) {
            hooks.onSwitch(type, false, why);
            original(e);
            return;
          }
          parent.getRepresentationController().prepareQualityChange(e.newRepresentation);
          const scheduler = parent.getScheduleController();
          // As dash.js does after preparing a switch: the next tick requests
          // the new init segment without asking the ABR again.
          scheduler.setShouldCheckPlaybackQuality(false);
          scheduler.startScheduleTimer(0);
          hooks.onSwitch(type, true, 'inside the train');
        },
      };
    },
    true,
  );
}

/** The page turned dash.js's automatic switching off for `type`: its switches are made by hand. */
export function switchesByHand(dash: MediaPlayerClass, type: 'video' | 'audio'): boolean {
  return dash.getSettings().streaming?.abr?.autoSwitchBitrate?.[type] === false;
}
