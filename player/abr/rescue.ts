/**
 * Segment rescue: a video segment that cannot arrive makes the player step
 * down instead of wedging. Not an ABR of its own: it acts only on a recorded
 * failure, in every data plane mode and under every ABR preset; the ABR in
 * force (dash.js's rules, the buffer-based rule of §V-A, BW-x of §V-C)
 * chooses every other bitrate. Design note: docs/design/06-rescue.md.
 *
 * Why it is needed (dash.js 5.2.1, docs/dashjs-integration.md): a segment
 * load that times out (`fragmentRequestTimeout`, 20 s) or is cut after partial
 * bytes is retried by dash.js's HTTPLoader on the same URL and range — the
 * same rung — without asking the ABR; after the last retry dash.js reports a
 * fragment error and blacklists the origin's base URL (forever by default),
 * after which no segment request can be made: a permanent stall.
 *
 * What it does:
 * - A load watcher (player/dash/loader-hook.ts) wraps each video media
 *   segment's loader callbacks. When a load ends without a response after a
 *   timeout, or after partial bytes, and a lower rung exists, the failure is
 *   recorded and reported to dash.js as an abort (after its FragmentModel's
 *   own abortRequests, without which the quality switch waits for the aborted
 *   request forever): dash.js asks for the segment again through its
 *   scheduler, which asks the ABR first.
 * - `SprintRescueRule`, a quality rule at STRONG priority (dash.js takes the
 *   lowest bitrate among STRONG answers), answers NO_CHANGE except for the
 *   first decision after a recorded failure, where it names the highest rung
 *   whose segment fits the time the player has, at least one rung below the
 *   one that failed (`rescueRung`). Each rescue is in `stats().rescues`.
 * HTTP error statuses and failures at the lowest rung are left to dash.js's
 * own retries; a second failure while a rescue is pending is too (no loop).
 */
import type { MediaPlayerClass } from 'dashjs';
import { addLoadWatcher } from '../dash/loader-hook';
import type { LoaderRequest, LoaderResponse } from '../dash/loader-types';
import { MEDIA_SEGMENT_TYPE } from '../dataplane/dash-request';
import type { Logger } from '../log';
import type { StatsRecorder } from '../stats/recorder';
import type { RescueRecord } from '../stats/types';
import { ladder, type DashjsForRules, type RepresentationLike, type RuleInstance, type RulesContextLike } from './rule-types';

export const RESCUE_RULE_NAME = 'SprintRescueRule';

/** Share of the time available a rescued segment may take at the measured rate (the rest is margin). */
export const RESCUE_TIME_SHARE = 0.8;

export interface RescueInputs {
  /** What the failed transfer measured on the wire, bit/s (null: no bytes arrived). */
  measuredBitsPerSec: number | null;
  /** Media duration of one segment, seconds. */
  segmentSec: number;
  /** Video buffered ahead of playback, seconds. */
  bufferSec: number;
  /** dash.js's fragment request timeout, seconds (Infinity: none). */
  timeoutSec: number;
}

/**
 * The rung to retry a failed segment at: the highest rung below `failedIndex`
 * whose segment (nominal bitrate × segment duration) downloads at the measured
 * rate within RESCUE_TIME_SHARE of the time the player has — the buffer ahead,
 * at least one segment's duration (downloading as fast as it plays keeps a
 * stalled player going), never more than the request timeout — else the
 * lowest rung. `bitrates` is the ladder, lowest first.
 */
export function rescueRung(bitrates: readonly number[], failedIndex: number, inputs: RescueInputs): number {
  const cap = Math.min(failedIndex, bitrates.length) - 1;
  if (cap <= 0) return 0;
  const rate = inputs.measuredBitsPerSec;
  if (rate === null || !(rate > 0)) return 0;
  const seg = inputs.segmentSec > 0 ? inputs.segmentSec : 1;
  const budget =
    RESCUE_TIME_SHARE *
    Math.min(Math.max(inputs.bufferSec > 0 ? inputs.bufferSec : 0, seg), inputs.timeoutSec > 0 ? inputs.timeoutSec : Infinity);
  for (let i = cap; i > 0; i--) {
    const seconds = ((bitrates[i] as number) * seg) / rate;
    if (seconds <= budget) return i;
  }
  return 0;
}

/** Index in `reps` (lowest first) of the representation that failed: by id, else the first at or above its bitrate. */
export function failedIndexOf(
  reps: readonly RepresentationLike[],
  record: Pick<RescueRecord, 'fromRepresentationId' | 'fromBandwidth'>,
): number {
  const byId = reps.findIndex((r) => record.fromRepresentationId !== null && r.id === record.fromRepresentationId);
  if (byId >= 0) return byId;
  const from = record.fromBandwidth ?? Infinity;
  const i = reps.findIndex((r) => r.bandwidth >= from);
  return i >= 0 ? i : reps.length;
}

type FailureKind = 'timeout' | 'cut';

/** The failures the player has recorded and the rescues pending on them. */
export class SegmentRescue {
  /** The rescue waiting for the ABR's next decision, per media type. */
  private readonly pending = new Map<string, RescueRecord>();

  constructor(
    private readonly stats: StatsRecorder,
    private readonly log: Logger,
    private readonly lowerRungExists: (mediaType: string, bandwidth: number | null, id: string | null) => boolean,
    private readonly timeoutSec: () => number,
    /** Takes the failed request out of dash.js's loading list (its FragmentModel), so a quality switch does not wait for it. */
    private readonly abortLoading: (request: object) => void = () => undefined,
  ) {}

  /** Load watcher: wraps a video media segment's callbacks to catch a failure dash.js would retry on the same rung. */
  readonly watch = (request: LoaderRequest, response: LoaderResponse): void => {
    const custom = request.customData;
    const req = custom?.request;
    if (!custom || !req || req.type !== MEDIA_SEGMENT_TYPE || req.mediaType !== 'video') return;
    const startMs = Date.now();
    let firstByteMs: number | null = null;
    let loaded = 0;
    let timedOut = false;
    const onprogress = custom.onprogress;
    const ontimeout = custom.ontimeout;
    const onloadend = custom.onloadend;
    custom.onprogress = (e) => {
      if (e.loaded > 0 && firstByteMs === null) firstByteMs = Date.now();
      if (e.loaded > loaded) loaded = e.loaded;
      onprogress?.(e);
    };
    custom.ontimeout = (e) => {
      timedOut = true;
      ontimeout?.(e);
    };
    custom.onloadend = () => {
      const status = response.status;
      const answered = typeof status === 'number' && status > 0;
      const ok = answered && status >= 200 && status <= 299 && !!response.data;
      // An HTTP error status is the server's answer: dash.js's retries stand.
      // A Sprint data plane that could not deliver says what its own transfer got.
      const hint = custom.sprintFailure;
      custom.sprintFailure = undefined;
      const gotBytes = hint ? hint.bytes : loaded;
      const kind: FailureKind | null = ok || answered ? null : timedOut || hint?.timedOut ? 'timeout' : gotBytes > 0 ? 'cut' : null;
      const onabort = custom.onabort;
      if (kind && onabort && this.onFailure(kind, req, hint ? hint.startMs : startMs, hint ? hint.firstByteMs : firstByteMs, gotBytes)) {
        // dash.js's FragmentModel keeps an aborted request in its loading
        // list unless it aborted it itself (abortRequests); a default quality
        // switch then waits for it forever. So: its own abort first, then the
        // abort event its scheduler re-requests the segment on.
        this.abortLoading(req);
        onabort();
        return;
      }
      onloadend?.();
    };
  };

  /** Records a failure; true if a rescue is now pending (the load is to be reported as aborted). */
  private onFailure(
    kind: FailureKind,
    req: NonNullable<LoaderRequest['customData']['request']>,
    startMs: number,
    firstByteMs: number | null,
    loaded: number,
  ): boolean {
    const mediaType = req.mediaType ?? 'video';
    // A segment without an index cannot be asked for again (dash.js moves its
    // next request to an index): left to dash.js's own retry.
    if (!Number.isFinite(req.index)) return false;
    if (this.pending.has(mediaType)) return false;
    const bandwidth = req.representation?.bandwidth ?? null;
    const id = req.representation?.id ?? null;
    if (!this.lowerRungExists(mediaType, bandwidth, id)) return false;
    const endMs = Date.now();
    const wireMs = endMs - (firstByteMs ?? startMs);
    const record: RescueRecord = {
      atMs: endMs,
      mediaType,
      reason: kind === 'timeout' ? `timed out after ${loaded} bytes` : `cut after ${loaded} bytes`,
      url: req.url ?? '',
      range: req.range ?? null,
      index: req.index as number,
      segmentSec: Number.isFinite(req.duration) ? (req.duration as number) : null,
      fromRepresentationId: id,
      fromBandwidth: bandwidth,
      bytesLoaded: loaded,
      requestMs: startMs,
      measuredBitsPerSec: loaded > 0 && wireMs > 0 ? (loaded * 8 * 1000) / wireMs : null,
      bufferSec: null,
      toRepresentationId: null,
      toBandwidth: null,
      appliedMs: null,
    };
    this.pending.set(mediaType, record);
    this.stats.addRescue(record);
    this.stats.count('rescues');
    this.log.warn(
      `rescue: ${mediaType} segment ${record.index} at ${((bandwidth ?? 0) / 1e6).toFixed(2)} Mbit/s ${record.reason}; asking again one rung or more lower`,
    );
    return true;
  }

  /** For the rule: the representation to retry at if a rescue is pending for this media type (it is then consumed). */
  decide(mediaType: string, reps: readonly RepresentationLike[], bufferSec: number): RepresentationLike | null {
    const record = this.pending.get(mediaType);
    if (!record || reps.length === 0) return null;
    this.pending.delete(mediaType);
    const failed = failedIndexOf(reps, record);
    const i = rescueRung(
      reps.map((r) => r.bandwidth),
      failed,
      { measuredBitsPerSec: record.measuredBitsPerSec, segmentSec: record.segmentSec ?? 0, bufferSec, timeoutSec: this.timeoutSec() },
    );
    const to = reps[i] as RepresentationLike;
    record.bufferSec = bufferSec;
    record.toRepresentationId = to.id;
    record.toBandwidth = to.bandwidth;
    record.appliedMs = Date.now();
    this.stats.applyRescue(record);
    this.log.info(
      `rescue: ${mediaType} segment ${record.index} asked again at ${(to.bandwidth / 1e6).toFixed(2)} Mbit/s (buffer ${bufferSec.toFixed(1)} s)`,
    );
    return to;
  }
}

export function rescueRuleFactory(dashjs: DashjsForRules, rescue: SegmentRescue): unknown {
  function SprintRescueRule(this: { context: unknown }): RuleInstance {
    const context = this.context;
    const SwitchRequest = dashjs.FactoryMaker.getClassFactoryByName('SwitchRequest');
    const dashMetrics = dashjs.FactoryMaker.getSingletonFactoryByName('DashMetrics')(context).getInstance();
    function getSwitchRequest(ctx: RulesContextLike) {
      const req = SwitchRequest(context).create();
      req.rule = RESCUE_RULE_NAME;
      const type = ctx.getMediaType();
      const level = dashMetrics.getCurrentBufferLevel(type);
      const to = rescue.decide(type, ladder(ctx), Number.isFinite(level) ? level : 0);
      if (!to) return req;
      req.representation = to;
      req.priority = SwitchRequest.PRIORITY?.STRONG ?? 1;
      req.reason = { message: `[${RESCUE_RULE_NAME}] the last segment could not arrive → ${(to.bandwidth / 1e6).toFixed(2)} Mbit/s` };
      return req;
    }
    return { getSwitchRequest, reset: () => undefined };
  }
  (SprintRescueRule as unknown as { __dashjs_factory_name: string }).__dashjs_factory_name = RESCUE_RULE_NAME;
  return dashjs.FactoryMaker.getClassFactory(SprintRescueRule);
}

interface FragmentModelInstance {
  getRequests(filter: { state: string }): object[];
  abortRequests(): void;
  reset(): void;
}

/** Installs the rescue on a dash.js player (before `attachSource`): the load watcher and the rule. */
export function installRescue(dash: MediaPlayerClass, dashjs: unknown, stats: StatsRecorder, log: Logger): SegmentRescue {
  const lowerRungExists = (mediaType: string, bandwidth: number | null, id: string | null): boolean => {
    try {
      const reps = dash.getRepresentationsByType(mediaType as never) as unknown as RepresentationLike[];
      const from = bandwidth ?? reps.find((r) => r.id === id)?.bandwidth ?? 0;
      return reps.some((r) => r.bandwidth < from);
    } catch {
      return false;
    }
  };
  const timeoutSec = (): number => {
    const ms = (dash.getSettings() as { streaming?: { fragmentRequestTimeout?: number } }).streaming?.fragmentRequestTimeout ?? 0;
    return ms > 0 ? ms / 1000 : Infinity;
  };
  // The FragmentModels dash.js creates (one per media type and stream), via the public `extend`.
  const models = new Set<FragmentModelInstance>();
  dash.extend(
    'FragmentModel',
    function (this: { parent: FragmentModelInstance }) {
      const parent = this.parent;
      models.add(parent);
      const parentReset = parent.reset.bind(parent);
      return {
        reset(): void {
          models.delete(parent);
          parentReset();
        },
      };
    },
    true,
  );
  const abortLoading = (request: object): void => {
    for (const m of models) {
      try {
        if (m.getRequests({ state: 'loading' }).includes(request)) m.abortRequests();
      } catch (e) {
        log.warn(`rescue: could not abort the failed request: ${(e as Error).message}`);
      }
    }
  };
  const rescue = new SegmentRescue(stats, log, lowerRungExists, timeoutSec, abortLoading);
  addLoadWatcher(dash, rescue.watch);
  dash.addABRCustomRule('qualitySwitchRules', RESCUE_RULE_NAME, rescueRuleFactory(dashjs as DashjsForRules, rescue) as object);
  return rescue;
}
