/**
 * The one place Sprint changes dash.js 5.2.1's one-request-in-flight
 * scheduling (paper §IV-B1), through public extension points only
 * (`MediaPlayer.extend('ScheduleController', ..., override=true)` and player
 * events), never by patching the bundle. See docs/dashjs-integration.md.
 *
 * dash.js issues the next segment request only from its schedule loop, which
 * restarts after the previous segment was appended, and only while the
 * buffer is below its buffer target. The hook:
 *  - gates each media type's `startScheduleTimer` with `mayIssue(type)`
 *    (Sprint's outstanding window and buffer rule), checking a refused
 *    restart again every POLL_MS until dash.js itself stops the loop;
 *  - `retick(type)` runs dash.js's schedule loop now, so dash.js issues the
 *    next request and its ABR decides the bitrate at that moment;
 *  - marks a representation initialised when its init segment is requested
 *    and keeps the last init requested as the mark, since inside a train an
 *    older init's append would move it back and break decoding after a
 *    switch back;
 *  - while a train runs, or while the restart reserve asks for more buffer
 *    than dash.js's own target, lifts the buffer target the schedule loop
 *    fills to (by wrapping `isPlayingAtTopQuality` and
 *    `getBufferTimeDefaultUnadjusted` on the player's own instances), so the
 *    minimum train is requested past dash.js's target; without a lift both
 *    answer exactly as dash.js does.
 * How each piece reaches into dash.js, and why: docs/design/01-trains-and-window.md.
 *
 * test/unit/player/dashjs-contract.test.ts and test/e2e/sprint-scheduler.test.ts
 * fail if a dash.js upgrade changes what this relies on.
 */
import type { MediaPlayerClass } from 'dashjs';
import { INIT_SEGMENT_TYPE, type DashFragmentRequestLike } from '../dataplane/dash-request';
import { installQualitySwitchHook, type QualitySwitchHooks } from './quality-switch-hook';
import { FRAGMENT_LOADING_ABANDONED, FRAGMENT_LOADING_STARTED, onCoreEvent } from './core-events';

interface ScheduleControllerInstance {
  startScheduleTimer(value?: number): void;
  clearScheduleTimer(): void;
  reset(): void;
  getStreamId(): string;
  setLastInitializedRepresentationId(id: string | null): void;
  getBufferTarget(): number;
  getTimeToLoadDelay(): number;
  getType(): string;
}

interface ScheduleControllerConfig {
  type?: string;
  mediaPlayerModel?: { getBufferTimeDefaultUnadjusted?: () => number };
  abrController?: { isPlayingAtTopQuality?: (rep: { mediaInfo?: { type?: string } } | null | undefined) => boolean };
}

export interface SchedulerHooks {
  /** May dash.js's schedule loop for `type` run now (issue another request)? */
  mayIssue(type: string): boolean;
  /**
   * While a train of `type` runs, or Sprint's restart reserve asks for more
   * buffer than dash.js's own target: the buffer level, in seconds of media,
   * that dash.js's schedule loop must keep requesting up to (dash.js's
   * default target still applies when it is larger). Null when dash.js's own
   * target applies.
   */
  trainBufferTargetSec(type: string): number | null;
  /** Bitrate switches inside a train without draining the window (quality-switch-hook.ts); omitted: dash.js's own switch. */
  readonly qualitySwitch?: QualitySwitchHooks;
  /**
   * Told when an init segment's append would have moved dash.js's
   * initialised mark of `type` from `requested` (the last init requested) back
   * to `appended`, and the hook kept it. Optional.
   */
  onInitMarkKept?(type: string, appended: string, requested: string): void;
}

export interface SchedulerHandle {
  /** Runs dash.js's schedule loop for `type` now (if a controller exists). */
  retick(type: string): void;
  /** dash.js's own buffer target for `type`, without a train's lift, seconds (NaN before the stream starts). */
  bufferTarget(type: string): number;
  /** Stops the re-check timers (the player is being destroyed). */
  dispose(): void;
}

/** Re-check interval after a refused restart, ms (dash.js's default scheduling timeout). */
export const POLL_MS = 500;

/** Marks methods already wrapped, so a second ScheduleController (or period) does not wrap twice. */
const WRAPPED = Symbol('sprintTrainLift');

/** One live ScheduleController and what the hook keeps of it. */
interface Controller {
  readonly instance: ScheduleControllerInstance;
  readonly originalStart: (v?: number) => void;
  /** dash.js stopped this loop itself (clearScheduleTimer: a seek, a quality switch being prepared, a quota error) and has not restarted it. */
  stoppedByDash: boolean;
  /** dash.js's own setter of the representation it counts as initialised. */
  readonly originalSetInitialized: (id: string | null) => void;
  /** The last init segment request dash.js issued for this loop (its representation is the mark), null after an abandon. */
  initRequest: { readonly id: string; readonly request: object } | null;
}

export function installSchedulerHook(dash: MediaPlayerClass, hooks: SchedulerHooks): SchedulerHandle {
  /**
   * Live controllers per media type, oldest first: with multi-period content
   * the next period's are created (preloading) while the current one's still
   * run, and either may be reset first.
   */
  const controllers = new Map<string, Controller[]>();
  const live = (type: string): Controller[] => controllers.get(type) ?? [];
  /** The controller of `type` for stream `streamId` if given and live, else the newest. */
  function controllerFor(type: string, streamId?: string): Controller | undefined {
    const list = live(type);
    if (streamId !== undefined) {
      const match = list.find((c) => {
        try {
          return c.instance.getStreamId() === streamId;
        } catch {
          return false;
        }
      });
      if (match) return match;
    }
    return list[list.length - 1];
  }
  /** True while bufferTarget() reads dash.js's own target. */
  let ownTargetOnly = false;
  let warnedNoLift = false;
  let disposed = false;
  /** Pending re-checks, one per ScheduleController instance. */
  const polls = new Map<ScheduleControllerInstance, ReturnType<typeof setTimeout>>();

  function cancelPoll(instance: ScheduleControllerInstance): void {
    const timer = polls.get(instance);
    if (timer !== undefined) clearTimeout(timer);
    polls.delete(instance);
  }

  /**
   * Runs this controller's loop when Sprint allows it, checking again every
   * POLL_MS until it does. dash.js stopping its loop (clearScheduleTimer: a
   * seek, a quota error, a reset) cancels the re-check.
   */
  function startWhenAllowed(instance: ScheduleControllerInstance, type: string, originalStart: (v?: number) => void, value?: number): void {
    if (disposed) return;
    cancelPoll(instance);
    if (hooks.mayIssue(type)) {
      originalStart(value);
      return;
    }
    polls.set(
      instance,
      setTimeout(() => {
        polls.delete(instance);
        startWhenAllowed(instance, type, originalStart, 0);
      }, POLL_MS),
    );
  }
  const lift = (type: string | undefined): number | null => (ownTargetOnly || !type ? null : hooks.trainBufferTargetSec(type));

  function wrapTargetSources(config: ScheduleControllerConfig | undefined): void {
    const model = config?.mediaPlayerModel;
    const abr = config?.abrController;
    if (typeof model?.getBufferTimeDefaultUnadjusted !== 'function' || typeof abr?.isPlayingAtTopQuality !== 'function') {
      // Pipelining still works; only the minimum train past dash.js's target does not.
      if (!warnedNoLift)
        console.warn(
          "[sprint] dash.js ScheduleController config has no mediaPlayerModel/abrController: trains stop at dash.js's buffer target",
        );
      warnedNoLift = true;
      return;
    }
    const ownDefault = model.getBufferTimeDefaultUnadjusted;
    if (!(ownDefault as { [WRAPPED]?: true })[WRAPPED]) {
      const wrapped = (): number => {
        const own = ownDefault();
        // Only the generic target path calls this (video, or audio without
        // video), so the largest lift of any type is the train's own.
        let train: number | null = null;
        for (const type of controllers.keys()) {
          const l = lift(type);
          if (l !== null && (train === null || l > train)) train = l;
        }
        return train === null ? own : Math.max(own, train);
      };
      (wrapped as { [WRAPPED]?: true })[WRAPPED] = true;
      model.getBufferTimeDefaultUnadjusted = wrapped;
    }
    const ownTop = abr.isPlayingAtTopQuality;
    if (!(ownTop as { [WRAPPED]?: true })[WRAPPED]) {
      const wrapped = (rep: { mediaInfo?: { type?: string } } | null | undefined): boolean =>
        lift(rep?.mediaInfo?.type) !== null ? false : ownTop(rep);
      (wrapped as { [WRAPPED]?: true })[WRAPPED] = true;
      abr.isPlayingAtTopQuality = wrapped;
    }
  }

  dash.extend(
    'ScheduleController',
    function (this: { parent: ScheduleControllerInstance }, config: ScheduleControllerConfig) {
      const instance = this.parent;
      const type = config?.type ?? 'unknown';
      const originalStart = instance.startScheduleTimer.bind(instance);
      const originalClear = instance.clearScheduleTimer.bind(instance);
      const originalReset = instance.reset.bind(instance);
      const originalDelay = instance.getTimeToLoadDelay.bind(instance);
      const originalSetInitialized = instance.setLastInitializedRepresentationId.bind(instance);
      const me: Controller = { instance, originalStart, stoppedByDash: false, originalSetInitialized, initRequest: null };
      controllers.set(type, [...live(type), me]);
      wrapTargetSources(config);
      return {
        startScheduleTimer(value?: number): void {
          // dash.js's own restarts (after an append, a switch, a seek) go
          // through here.
          me.stoppedByDash = false;
          startWhenAllowed(instance, type, originalStart, value);
        },
        clearScheduleTimer(): void {
          // Until dash.js restarts it, Sprint's reticks leave this loop alone.
          me.stoppedByDash = true;
          cancelPoll(instance);
          originalClear();
        },
        reset(): void {
          me.stoppedByDash = true;
          cancelPoll(instance);
          controllers.set(
            type,
            live(type).filter((c) => c !== me),
          );
          originalReset();
        },
        getTimeToLoadDelay(): number {
          // An ABR rule's "wait before the next load" is a pause inside the train.
          return lift(type) !== null ? 0 : originalDelay();
        },
        setLastInitializedRepresentationId(id: string | null): void {
          // dash.js calls this when an init segment is appended; the mark
          // follows the last init requested (FRAGMENT_LOADING_STARTED below).
          const requested = me.initRequest?.id;
          if (id !== null && id !== undefined && requested !== undefined && id !== requested) {
            hooks.onInitMarkKept?.(type, id, requested);
            return;
          }
          originalSetInitialized(id);
        },
      };
    },
    true,
  );
  if (hooks.qualitySwitch) installQualitySwitchHook(dash, hooks.qualitySwitch);
  type InitEvent = { request?: DashFragmentRequestLike & { representation?: { id?: string } } };
  /** The live controller whose loop issued `req` (an init segment request), if any. */
  function initOwner(req: InitEvent['request']): { c: Controller; id: string; req: object } | null {
    if (!req || req.type !== INIT_SEGMENT_TYPE || !req.mediaType || !req.representation?.id) return null;
    const streamId = (req.representation as { mediaInfo?: { streamInfo?: { id?: string } } }).mediaInfo?.streamInfo?.id;
    const c = controllerFor(req.mediaType, streamId);
    return c ? { c, id: req.representation.id, req } : null;
  }
  const unsubscribeStarted = onCoreEvent<InitEvent>(dash, FRAGMENT_LOADING_STARTED, (e) => {
    const owner = initOwner(e.request);
    if (!owner) return;
    owner.c.initRequest = { id: owner.id, request: owner.req };
    owner.c.originalSetInitialized(owner.id);
  });
  const onAbandoned = (e: InitEvent): void => {
    const owner = initOwner(e.request);
    // Only the latest init request: an older one abandoned says nothing of the mark.
    if (!owner || owner.c.initRequest?.request !== owner.req) return;
    owner.c.initRequest = null;
    owner.c.originalSetInitialized(null);
  };
  const unsubscribeAbandoned = onCoreEvent<InitEvent>(dash, FRAGMENT_LOADING_ABANDONED, onAbandoned);
  const unsubscribe = (): void => {
    unsubscribeStarted();
    unsubscribeAbandoned();
  };
  return {
    retick(type: string): void {
      const c = controllerFor(type);
      if (c && !c.stoppedByDash && !disposed) c.originalStart(0);
    },
    bufferTarget(type: string): number {
      ownTargetOnly = true;
      try {
        return controllerFor(type)?.instance.getBufferTarget() ?? NaN;
      } catch {
        return NaN;
      } finally {
        ownTargetOnly = false;
      }
    },
    dispose(): void {
      disposed = true;
      unsubscribe();
      for (const instance of [...polls.keys()]) cancelPoll(instance);
    },
  };
}
