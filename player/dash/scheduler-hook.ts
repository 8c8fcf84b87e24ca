/**
 * The one place Sprint changes dash.js 5.2.1's one-request-in-flight
 * scheduling (paper §IV-B1), through public extension points only
 * (`MediaPlayer.extend('ScheduleController', ..., override=true)` and player
 * events), never by patching the bundle. See shared/design/dashjs-integration.md.
 *
 * dash.js issues the next segment request only from its schedule loop, which
 * restarts after the previous segment was appended. The hook:
 *  - captures each media type's ScheduleController and gates its public
 *    `startScheduleTimer` with `mayIssue(type)` (Sprint's outstanding window);
 *  - `retick(type)` runs dash.js's schedule loop now, so dash.js itself issues
 *    the next request — its ABR (`checkPlaybackQuality`) decides the bitrate
 *    at that moment, as the paper requires;
 *  - marks a representation initialised as soon as its init segment request
 *    is issued (else each tick would request the init segment again).
 * Completions must reach dash.js in issue order, one append at a time; that
 * is the loader's job (sprint-data-plane.ts).
 *
 * test/unit/player/dashjs-contract.test.ts and test/e2e/sprint-scheduler.test.ts
 * fail if a dash.js upgrade changes what this relies on.
 */
import type { MediaPlayerClass } from 'dashjs';
import { INIT_SEGMENT_TYPE, type DashFragmentRequestLike } from '../dataplane/dash-request';

interface ScheduleControllerInstance {
  startScheduleTimer(value?: number): void;
  setLastInitializedRepresentationId(id: string): void;
  getBufferTarget(): number;
  getType(): string;
}

export interface SchedulerHooks {
  /** May dash.js's schedule loop for `type` run now (issue another request)? */
  mayIssue(type: string): boolean;
}

export interface SchedulerHandle {
  /** Runs dash.js's schedule loop for `type` now (if a controller exists). */
  retick(type: string): void;
  /** dash.js's buffer target for `type`, seconds (NaN before the stream starts). */
  bufferTarget(type: string): number;
}

export function installSchedulerHook(dash: MediaPlayerClass, hooks: SchedulerHooks): SchedulerHandle {
  const controllers = new Map<string, { instance: ScheduleControllerInstance; originalStart: (v?: number) => void }>();
  dash.extend(
    'ScheduleController',
    function (this: { parent: ScheduleControllerInstance }, config: { type?: string }) {
      const instance = this.parent;
      const type = config?.type ?? 'unknown';
      const originalStart = instance.startScheduleTimer.bind(instance);
      controllers.set(type, { instance, originalStart });
      return {
        startScheduleTimer(value?: number): void {
          // dash.js's own restarts (after an append, a switch, a seek) go
          // through here; when Sprint's window is full the next completion
          // reticks instead.
          if (hooks.mayIssue(type)) originalStart(value);
        },
      };
    },
    true,
  );
  dash.on('fragmentLoadingStarted', (e: { request?: DashFragmentRequestLike & { representation?: { id?: string } } }) => {
    const req = e.request;
    if (!req || req.type !== INIT_SEGMENT_TYPE || !req.mediaType || !req.representation?.id) return;
    controllers.get(req.mediaType)?.instance.setLastInitializedRepresentationId(req.representation.id);
  });
  return {
    retick(type: string): void {
      controllers.get(type)?.originalStart(0);
    },
    bufferTarget(type: string): number {
      try {
        return controllers.get(type)?.instance.getBufferTarget() ?? NaN;
      } catch {
        return NaN;
      }
    },
  };
}
