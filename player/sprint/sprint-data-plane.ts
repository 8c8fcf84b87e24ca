// size: one state machine: a request's life (issue, bytes, end, failure, re-issue, abort), its train and the
// in-order release share per-type state that must change together in one event turn. What stands alone is in
// its own file: path-sampler.ts, audio-hold.ts, request-clocks.ts, train-entry.ts, segment-handoff.ts.
/**
 * The `sprint` data plane (paper §IV-B1, sized by §IV-A Program 1).
 *
 * Segment requests are pipelined in *trains*: from the moment downloading
 * resumes, dash.js is made to issue its next request as soon as the
 * outstanding window (src/model/outstanding-window.ts) has room, until a
 * chunk's worth has been requested; dash.js's ABR still picks every
 * segment's bitrate when it is requested. Requests travel on a
 * TrainTransport: the extension's sockets or the page's fetch over HTTP/2.
 * Audio rides the same connection in presentation order where the transport
 * is one connection (src/train/audio-order.ts). Responses reach dash.js in
 * request order, one append at a time, with the wire timing their bytes had.
 * A train after a pause samples the restart (src/train/restart-reserve.ts).
 * Faults lose nothing: a request whose connection went away before any body
 * arrived is re-issued; anything else fails back to dash.js and the rescue.
 * The rules and why: docs/design/01-trains-and-window.md, 02-restart-reserve.md,
 * 03-audio-order.md, 06-rescue.md and 09-sprint-data-plane.md.
 */
import { parseRange } from '../../src/sprintx/range-plan';
import {
  DEFAULT_WINDOW_BDPS,
  mayIssueRequest,
  outstandingBytes,
  requireWindowBdps,
  windowBytes,
  type OutstandingBytes,
} from '../../src/model/outstanding-window';
import { assumedRestartBitsPerSec, restartIdleSec, RestartRun } from '../../src/train/restart-reserve';
import { audioMayPipeline, audioOrder } from '../../src/train/audio-order';
import type { DataPlane, DataPlaneContext } from '../dataplane/data-plane';
import { INIT_SEGMENT_TYPE, MEDIA_SEGMENT_TYPE } from '../dataplane/dash-request';
import { DashFragmentRecorder } from '../dataplane/segment-records';
import { announceFallback } from '../dataplane/fallback';
import { nowMs } from '../dataplane/clock';
import { bufferLength } from '../dash/buffer-level';
import { installLoaderHook } from '../dash/loader-hook';
import {
  BYTES_APPENDED_END_FRAGMENT,
  FRAGMENT_LOADING_STARTED,
  STREAM_DEACTIVATED,
  onCoreEvent,
  onQuotaExceeded,
} from '../dash/core-events';
import { applyTrainSettings } from '../dash/train-settings';
import type { LoaderRequest, LoaderResponse, SegmentLoadHandler } from '../dash/loader-types';
import { installSchedulerHook, type SchedulerHandle } from '../dash/scheduler-hook';
import { EstimateHub } from '../estimates/estimate-hub';
import { requestsPastLimit } from './request-clocks';
import type { BusySample } from '../../src/estimators/busy-period';
import { sampleSpanSec } from '../../src/estimators/kernel-bytes';

import { newEntry, newTypeState, type Entry, type TypeState } from './train-entry';
import { newTransferRecord } from '../stats/transfer-record';
import { deliverToDash, failToDash, recordEntrySegment } from './segment-handoff';
import type { TrainTransport } from './train-transport';
import { PathSampler, type ConnectionNow } from './path-sampler';
import { AudioHold } from './audio-hold';

/** Segment duration assumed while the next segment's is not known (the buffer target lift), seconds. */
const TYPICAL_SEGMENT_SEC = 4;
/** The longest restart the reserve plans for when dash.js sets no request time limit, seconds (its default limit). */
const RESTART_CAP_SEC = 20;
/** The media type whose requests form trains. */
const TRAIN_MEDIA_TYPE = 'video';
/** The media type that rides the train's connection on a one-connection transport (sprintAudio 'train'). */
const RIDER_MEDIA_TYPE = 'audio';
/** Requests failing for good in a row before Sprint falls back to stock loading. */
const MAX_CONSECUTIVE_FAILURES = 3;
/** Sprint's requests refused by the origin (HTTP 4xx, 5xx) in a row before falling back to stock. */
const MAX_CONSECUTIVE_REFUSALS = 3;
/** Re-issues of one request after its connection went away. */
const MAX_REISSUES = 3;
/** Release the next completion anyway if dash.js has not reported the previous append after this long. */
const APPEND_WATCHDOG_MS = 3000;
/**
 * An unspent train with nothing outstanding ends when dash.js, asked to go
 * on, has issued nothing for this long: it stopped on its own (end of the
 * stream, a seek, a switch it is still preparing, a buffer quota error).
 */
const TRAIN_STALL_MS = 1500;

/** The id of the dash.js stream (period) whose request `entry` carries, if dash.js says. */
function entryStreamId(entry: Entry): string | undefined {
  const rep = entry.req.customData.request?.representation as { mediaInfo?: { streamInfo?: { id?: string } } } | undefined;
  return rep?.mediaInfo?.streamInfo?.id;
}

export class SprintDataPlane implements DataPlane, SegmentLoadHandler {
  readonly mode = 'sprint' as const;
  private ctx: DataPlaneContext | null = null;
  private scheduler: SchedulerHandle | null = null;
  private readonly types = new Map<string, TypeState>();
  private readonly estimates: EstimateHub;
  private watchdog: ReturnType<typeof setInterval> | null = null;
  /** TCP_INFO of the media connection, where the transport reads it (path-sampler.ts). */
  private readonly path: PathSampler | null;
  private degraded: string | null = null;
  private consecutiveFailures = 0;
  private consecutiveRefusals = 0;
  private unsubscribeUnavailable: (() => void) | null = null;
  /** Requests dash.js's FragmentModel scheduled (not the sidx/init probes of SegmentBaseLoader). */
  private readonly scheduled = new WeakSet<object>();
  private readonly audioHold = new AudioHold((counter) => this.ctx?.stats.count(counter));
  private readonly onLoadingStarted = (e: { request?: object }): void => {
    if (e.request) this.scheduled.add(e.request);
  };
  /**
   * Records the segments dash.js loads itself: audio, what Sprint declines,
   * everything after a fallback; video ones feed the estimates (after a
   * fallback, the only wire samples left).
   */
  private readonly dashLoads = new DashFragmentRecorder((request, error) => this.estimates.addDashLoad(request, error));
  /**
   * A seek ends the running train at once, and the next request begins a new
   * one even if requests from before the seek are still outstanding (they
   * finish into the train they belong to).
   */
  private trainBreak = false;
  private readonly onSeeking = (): void => {
    const t = this.types.get(TRAIN_MEDIA_TYPE);
    if (!t?.train || t.train.endMs !== null) return;
    this.finishTrain(t, nowMs());
    this.trainBreak = true;
  };
  /**
   * dash.js stopped a stream: a period ended, or it resets the MediaSource
   * after a decode error and starts the stream again. It aborted the
   * stream's requests first; any of them still here (dash.js no longer
   * waits for it) is cancelled without a word back, the running train ends
   * as at a seek, and nothing waits for an append that will not come. (On
   * the testbed a request dash.js had dropped went on loading after such a
   * reset; its time limit then failed it and aborted the new stream's init
   * segments queued behind it.)
   */
  private readonly onStreamDeactivated = (e: { streamInfo?: { id?: string } }): void => {
    const streamId = e.streamInfo?.id;
    for (const t of this.types.values()) {
      const gone = t.queue.filter((x) => x.state !== 'aborted' && (streamId === undefined || entryStreamId(x) === streamId));
      if (gone.length === 0) continue;
      for (const entry of gone) this.dropEntry(entry);
      t.queue = t.queue.filter((x) => !gone.includes(x));
      t.awaitingAppend = null;
      this.ctx?.stats.count('sprint.droppedAtStreamStop', gone.length);
    }
    this.onSeeking();
  };
  /** The browser refused a video append for lack of buffer space: trains stop going past dash.js's target. */
  private readonly onQuotaExceeded = (mediaType: string | undefined): void => {
    if (!this.ctx || mediaType !== TRAIN_MEDIA_TYPE || this.quotaExceeded) return;
    this.quotaExceeded = true;
    this.state(TRAIN_MEDIA_TYPE).policy.minimumTrain = false;
    this.ctx.stats.count('sprint.quotaExceeded');
    this.ctx.log.warn("the browser's media buffer is full (quota exceeded): trains no longer go past dash.js's buffer target");
  };
  private quotaExceeded = false;
  private unsubscribeQuota: (() => void) | null = null;
  private readonly unsubscribeCore: Array<() => void> = [];
  private stallTimer: ReturnType<typeof setTimeout> | null = null;
  /** Media types with a maybeRetick already queued (bytes arriving ask often; one check per turn is enough). */
  private readonly retickPending = new Set<string>();
  private readonly onAppended = (e: { mediaType?: string }): void => {
    const t = e.mediaType ? this.types.get(e.mediaType) : undefined;
    if (!t || !e.mediaType) return;
    t.awaitingAppend = null;
    // Let dash.js's own handlers of this append run first: a pending quality
    // switch checks for loading requests there and then empties the append
    // queue; the next segment must still count as loading at that moment.
    const type = e.mediaType;
    setTimeout(() => {
      this.release(type);
      this.maybeRetick(type);
    }, 0);
  };

  constructor(private readonly transport: TrainTransport) {
    this.estimates = new EstimateHub({
      probeCredentials: transport.probeCredentials,
      counterPrefix: 'sprint',
      bandwidthSource: 'train wire timing',
      // A train is held to the chunk size of the estimates in force.
      onChange: () => this.retargetTrain(),
    });
    const pathInfo = transport.pathInfo?.bind(transport);
    this.path = pathInfo
      ? new PathSampler({
          pathInfo,
          estimates: this.estimates,
          connection: () => (this.ctx && this.degraded === null ? this.connectionNow() : null),
          sampleSpanSec: () => this.sampleSpan(),
          onError: (e) => {
            const ctx = this.ctx;
            if (!ctx) return;
            ctx.stats.count('sprint.pathInfoErrors');
            if ((ctx.stats.counters['sprint.pathInfoErrors'] ?? 0) <= 3) ctx.log.warn(`TCP_INFO read failed: ${e.message}`);
          },
        })
      : null;
  }

  /** The media connection for a TCP_INFO reading: a response arriving, the running train's RTT samples. */
  private connectionNow(): ConnectionNow {
    const train = this.types.get(TRAIN_MEDIA_TYPE)?.train;
    return {
      flowing: this.onConnection().some((e) => e.firstByteMs !== null),
      trainRttSamplesSec: train && train.endMs === null ? train.rttSamplesSec : null,
    };
  }

  install(ctx: DataPlaneContext): void {
    // A context built without normalizeConfig (player/config.ts) fails here, not in a loader callback.
    if (ctx.sprintWindowBdps !== undefined) requireWindowBdps(ctx.sprintWindowBdps);
    this.ctx = ctx;
    // Fast switch and request abandonment off, visibly (train-settings.ts).
    for (const change of applyTrainSettings(ctx.dash, ctx.pageDashSettings)) {
      ctx.stats.warn(change);
      ctx.log.warn(change);
    }
    installLoaderHook(ctx.dash, this);
    this.scheduler = installSchedulerHook(ctx.dash, {
      mayIssue: (type) => this.mayIssue(type),
      trainBufferTargetSec: (type) => this.trainBufferTargetSec(type),
      qualitySwitch: {
        switchWithoutDrain: (type) => type === TRAIN_MEDIA_TYPE && this.ctx !== null && this.degraded === null,
        onSwitch: (_type, kept, why) => {
          ctx.stats.count(kept ? 'sprint.switchesInTrain' : 'sprint.switchesDrained');
          if (!kept) ctx.log.info(`sprint: bitrate switch drains the window (${why}): dash.js prepares it`);
        },
      },
      onInitMarkKept: () => ctx.stats.count('sprint.initMarkKept'),
    });
    this.unsubscribeCore.push(
      onCoreEvent(ctx.dash, BYTES_APPENDED_END_FRAGMENT, this.onAppended),
      onCoreEvent(ctx.dash, FRAGMENT_LOADING_STARTED, this.onLoadingStarted),
      onCoreEvent(ctx.dash, STREAM_DEACTIVATED, this.onStreamDeactivated),
    );
    this.dashLoads.install(ctx);
    ctx.dash.on(ctx.dashjs.MediaPlayer.events.PLAYBACK_SEEKING, this.onSeeking);
    this.unsubscribeQuota = onQuotaExceeded(ctx.dash, this.onQuotaExceeded);
    this.estimates.install(ctx);
    this.watchdog = setInterval(() => this.checkTimers(), 500);
    ctx.stats.estimates.transport = this.transport.name;
    this.unsubscribeUnavailable =
      this.transport.onUnavailable?.((reason) => this.degrade(`the ${this.transport.name} transport became unavailable: ${reason}`)) ??
      null;
    this.path?.start();
    if (ctx.chunkBytes !== undefined) ctx.log.info(`sprint: fixed chunk size ${ctx.chunkBytes} bytes (not the model's)`);
    if (!ctx.minimumTrain) ctx.log.info("sprint: minimum train off: trains stop at dash.js's buffer target");
    if (this.windowBdps() !== DEFAULT_WINDOW_BDPS) ctx.log.info(`sprint: outstanding window ${this.windowBdps()} fair BDP(s)`);
  }

  destroy(): void {
    this.estimates.destroy();
    this.scheduler?.dispose();
    this.unsubscribeUnavailable?.();
    this.unsubscribeQuota?.();
    for (const off of this.unsubscribeCore.splice(0)) off();
    this.path?.stop();
    if (this.watchdog !== null) clearInterval(this.watchdog);
    for (const t of this.types.values()) for (const e of t.queue) e.ticket?.cancel();
    this.types.clear();
    this.transport.close();
    if (this.stallTimer !== null) clearTimeout(this.stallTimer);
    this.dashLoads.destroy();
    if (this.ctx) {
      this.ctx.dash.off(this.ctx.dashjs.MediaPlayer.events.PLAYBACK_SEEKING, this.onSeeking);
    }
    this.ctx = null;
  }

  // ---- estimates (§IV-A) ----

  /** The connection has nothing outstanding now: the kernel byte meter's interval holds a pause. */
  private noteIfIdle(): void {
    if (this.onConnection().length === 0) this.path?.markIdle();
  }

  /** Stops using trains for the rest of the session: dash.js loads on its own, visibly. */
  private degrade(reason: string): void {
    const ctx = this.ctx;
    if (!ctx || this.degraded !== null) return;
    this.degraded = reason;
    // dash.js loads audio on its own connection from now on: the estimate is video's alone again.
    ctx.stats.estimates.sharedAudioBitsPerSec = null;
    announceFallback(ctx, 'sprint', reason);
  }

  /** Program 1 on the current estimates (estimate-hub.ts). */
  private model() {
    return this.estimates.model();
  }

  // ---- scheduling (§IV-B1) ----

  /** Holds the running video train to the chunk size of the current estimates. */
  private retargetTrain(): void {
    const t = this.types.get(TRAIN_MEDIA_TYPE);
    if (!t?.train || t.train.endMs !== null) return;
    const target = this.model().chunkBytes;
    if (target === t.train.targetBytes) return;
    if (t.policy.retarget(target)) t.train.targetBytes = target;
    this.closeTrainIfDone(t, nowMs());
  }

  /** Ends the running train (downloading stopped before it was spent) as of its last byte. */
  private endTrain(t: TypeState): void {
    const at = t.train && t.lastByteMs >= t.train.startMs ? t.lastByteMs : nowMs();
    t.policy.end(at);
    this.closeTrainIfDone(t, at);
  }

  private bufferSec(type: string): number {
    return this.ctx ? bufferLength(this.ctx.dash, type as 'video' | 'audio') : 0;
  }

  /**
   * Media seconds asked for and not yet in the buffer: the requests in
   * flight and the response handed to dash.js whose append is not reported
   * yet. Without the latter a segment counted nowhere for the milliseconds
   * of its append, and the audio order let video go ahead of audio's
   * request (docs/design/03-audio-order.md).
   */
  private inFlightSec(t: TypeState): number {
    return t.queue.reduce((a, e) => a + (e.state === 'aborted' ? 0 : e.mediaSec), t.awaitingAppend?.mediaSec ?? 0);
  }

  private nextSegmentSec(t: TypeState): number {
    return t.queue[t.queue.length - 1]?.mediaSec || t.lastMediaSec || TYPICAL_SEGMENT_SEC;
  }

  /**
   * While the video train is unspent (and the minimum train is on): the
   * buffer level dash.js must keep requesting up to, just above what is
   * buffered and in flight plus the next segment, so its schedule loop
   * issues the train's next request past its own target. The train's bytes
   * bound how far the buffer overflows. Outside a train, when the restart
   * reserve asks for more buffer than dash.js's own level: the reserve plus
   * the next segment, so dash.js resumes once the buffer falls below the
   * reserve (Sprint's gate, which counts what is in flight, decides the rest).
   */
  private trainBufferTargetSec(type: string): number | null {
    if (type !== TRAIN_MEDIA_TYPE || !this.ctx || this.degraded !== null || this.quotaExceeded) return null;
    const t = this.types.get(type);
    if (!t) return null;
    if (t.policy.overridesBufferTarget) return this.bufferSec(type) + this.inFlightSec(t) + 2 * this.nextSegmentSec(t);
    const reserve = this.reserveAboveOwnLevel(type, t);
    return reserve === null ? null : reserve + this.nextSegmentSec(t);
  }

  /** Whether requests of this media type ride Sprint's transport (else dash.js loads them itself). */
  private rides(type: string): boolean {
    return type === TRAIN_MEDIA_TYPE || (type === RIDER_MEDIA_TYPE && this.audioRides);
  }

  /** Audio rides the train's connection: a one-connection transport and sprintAudio 'train'. */
  private get audioRides(): boolean {
    return this.transport.oneConnection === true && this.ctx?.sprintAudio === 'train';
  }

  /**
   * The state holding the wire timing (last byte, bandwidth meter) of a
   * carried type's responses: the train's when audio rides its connection
   * (one connection, one busy period), else the type's own.
   */
  private wire(type: string): TypeState {
    return this.state(this.audioRides ? TRAIN_MEDIA_TYPE : type);
  }

  private state(type: string): TypeState {
    let t = this.types.get(type);
    if (!t) {
      t = newTypeState({ minimumTrain: this.ctx?.minimumTrain ?? true, windowBdps: this.windowBdps() });
      this.types.set(type, t);
    }
    return t;
  }

  private outstanding(t: TypeState): number {
    return t.queue.filter((e) => e.state === 'loading').length;
  }

  private mayIssue(type: string): boolean {
    if (type === RIDER_MEDIA_TYPE && this.audioInFlight()) return this.audioMayPipeline();
    return this.windowAllows(type) && !this.holdForAudio(type);
  }

  /** Riding audio has a request on the connection (its next one would be pipelined behind it); never after a fallback. */
  private audioInFlight(): boolean {
    if (!this.audioRides || this.degraded !== null) return false;
    return (this.types.get(RIDER_MEDIA_TYPE)?.queue ?? []).some((e) => e.state === 'loading');
  }

  /**
   * May riding audio, with a request in flight, ask for its next segment
   * (src/train/audio-order.ts)? While that segment would not pass the video
   * asked for and the connection's outstanding window (§IV-B1, in bytes) has
   * room. Without video (an audio-only stream), with no audio in flight or
   * after a fallback: no (dash.js keeps its one audio request at a time).
   */
  private audioMayPipeline(): boolean {
    if (!this.ctx || !this.audioInFlight()) return false;
    const video = this.types.get(TRAIN_MEDIA_TYPE);
    const audio = this.types.get(RIDER_MEDIA_TYPE);
    if (!video || !audio) return false;
    const order = audioMayPipeline({
      videoAheadSec: this.bufferSec(TRAIN_MEDIA_TYPE) + this.inFlightSec(video),
      audioAheadSec: this.bufferSec(RIDER_MEDIA_TYPE) + this.inFlightSec(audio),
      audioSegmentSec: this.nextSegmentSec(audio),
    });
    if (!order) return false;
    const fairBdpBytes = this.model().fairBdpBytes;
    return mayIssueRequest(this.connectionWindow(fairBdpBytes), windowBytes(fairBdpBytes, this.windowBdps()));
  }

  /** The outstanding window in fair BDPs (src/model/outstanding-window.ts). */
  private windowBdps(): number {
    return this.ctx?.sprintWindowBdps ?? DEFAULT_WINDOW_BDPS;
  }

  /** Audio appended is below dash.js's own audio target (the video appended plus 1 s): its loop would ask for a segment now. */
  private audioBelowDashTarget(): boolean {
    const target = this.scheduler?.bufferTarget(RIDER_MEDIA_TYPE);
    return target === undefined || !Number.isFinite(target) || this.bufferSec(RIDER_MEDIA_TYPE) < target;
  }

  /**
   * The live outstanding state on the connection, oldest first (audio too
   * when it rides); a response of unknown size counts as one fair BDP.
   */
  private connectionWindow(fairBdpBytes: number): OutstandingBytes {
    return outstandingBytes(
      this.onConnection().map((e) => ({
        expectedBytes: e.expectedBytes > 0 ? Math.max(e.expectedBytes, e.bytes) : Math.max(fairBdpBytes, e.bytes),
        receivedBytes: e.bytes,
      })),
    );
  }

  /** The train policy and the outstanding window (§IV-B1) allow the next request of `type`. */
  private windowAllows(type: string): boolean {
    const t = this.types.get(type);
    if (!t || !this.ctx || this.degraded !== null || type !== TRAIN_MEDIA_TYPE) return true; // dash.js decides
    const target = this.scheduler?.bufferTarget(type);
    const fairBdpBytes = this.model().fairBdpBytes;
    const window = this.connectionWindow(fairBdpBytes);
    return t.policy.mayIssue({
      outstanding: window.requests,
      unreceivedBytes: window.unreceivedBytes,
      arrivingBytes: window.arrivingBytes,
      fairBdpBytes,
      bufferSec: this.bufferSec(type),
      inFlightSec: this.inFlightSec(t),
      segmentSec: this.nextSegmentSec(t),
      bufferTargetSec: Number.isFinite(target) ? (target as number) : 12,
      restartReserveSec: this.restartReserveSec(t),
    });
  }

  /**
   * Seconds of buffer a resume needs (src/train/restart-reserve.ts): the
   * draw-down the recent restarts would cause with segments at the bitrate
   * the ABR chose last and, until a few are measured, the next segment at
   * one initial window per measured round trip, within dash.js's request
   * time limit.
   */
  private restartReserveSec(t: TypeState): number {
    // dash.js follows no lift after a quota error or a fallback: no reserve either.
    if (this.quotaExceeded || this.degraded !== null) return 0;
    const timeoutSec = t.requestTimeoutMs !== null && t.requestTimeoutMs > 0 ? t.requestTimeoutMs / 1000 : RESTART_CAP_SEC;
    const segmentSec = this.nextSegmentSec(t);
    return t.restart.reserveSec({
      segmentBits: (t.lastBitrate ?? 0) * segmentSec,
      segmentSec,
      timeoutSec,
      assumedBitsPerSec: this.assumedRestartBitsPerSec(),
    });
  }

  /** The restart rate before any sample: one initial window per measured round trip (null: no RTT yet). */
  private assumedRestartBitsPerSec(): number | null {
    return assumedRestartBitsPerSec(this.estimates.measuredRttSec());
  }

  /**
   * A media segment of the restart being sampled arrived (`bytes` and
   * `mediaSec`; a failed one: the bytes it had and no media). Once the
   * media delivered catches up with the time elapsed the restart's curve
   * goes to the reserve (src/train/restart-reserve.ts).
   */
  private restartArrived(t: TypeState, entry: Entry, atMs: number, bytes: number, mediaSec: number): void {
    const run = entry.restartRun;
    if (!run || t.restartRun?.run !== run) return;
    if (run.arrived(atMs, bytes, mediaSec)) this.closeRestart(t);
    else this.publishRestartRate(t);
  }

  /** Ends the restart being sampled: its curve goes to the reserve and its draw-down to its train's record. */
  private closeRestart(t: TypeState): void {
    const sampled = t.restartRun;
    if (!sampled) return;
    t.restartRun = null;
    sampled.run.end();
    t.restart.record(sampled.run.points);
    if (sampled.run.points.length > 0) sampled.train.restartDrawDownSec = sampled.run.drawDownSec;
    this.publishRestartRate(t);
  }

  /** The restart rate in the stats: the lowest first-segment rate measured, the restart being sampled included. */
  private publishRestartRate(t: TypeState): void {
    if (!this.ctx) return;
    const rates = [t.restart.rateBitsPerSec(), t.restartRun?.run.firstBitsPerSec ?? null].filter((r): r is number => r !== null);
    this.ctx.stats.estimates.restartBitsPerSec = rates.length > 0 ? Math.min(...rates) : null;
  }

  /** dash.js's own resume level for `type`: its buffer target minus the next segment (null: target unknown). */
  private ownResumeLevelSec(type: string, t: TypeState): number | null {
    const target = this.scheduler?.bufferTarget(type);
    return target !== undefined && Number.isFinite(target) ? target - this.nextSegmentSec(t) : null;
  }

  /** The restart reserve of video when it asks for more buffer than dash.js's own level, else null. */
  private reserveAboveOwnLevel(type: string, t: TypeState): number | null {
    const reserve = this.restartReserveSec(t);
    if (!(reserve > 0)) return null;
    const own = this.ownResumeLevelSec(type, t);
    return own !== null && reserve > own ? reserve : null;
  }

  /** The loading requests Sprint carries (video, and audio when it rides the train's connection), in the order they were sent. */
  private onConnection(): Entry[] {
    const video = this.types.get(TRAIN_MEDIA_TYPE)?.queue ?? [];
    const audio = this.audioRides ? (this.types.get(RIDER_MEDIA_TYPE)?.queue ?? []) : [];
    return [...video, ...audio].filter((e) => e.state === 'loading').sort((a, b) => a.sentMs - b.sentMs);
  }

  /**
   * Audio riding the train's connection is requested in presentation order
   * with the video (src/train/audio-order.ts; the hold: audio-hold.ts).
   * dash.js asks for the next audio segment once the last is appended, or
   * sooner when Sprint pipelines it (audioMayPipeline).
   */
  private holdForAudio(type: string): boolean {
    if (type !== TRAIN_MEDIA_TYPE || !this.audioRides || this.audioHold.suspended || !this.ctx || this.degraded !== null) return false;
    const video = this.types.get(TRAIN_MEDIA_TYPE);
    const audio = this.types.get(RIDER_MEDIA_TYPE);
    if (!video || !audio) return this.audioHold.release();
    const videoInFlightSec = this.inFlightSec(video);
    const audioBufferSec = this.bufferSec(RIDER_MEDIA_TYPE);
    const { hold, awaitingVideo } = audioOrder({
      videoAheadSec: this.bufferSec(TRAIN_MEDIA_TYPE) + videoInFlightSec,
      audioAheadSec: audioBufferSec + this.inFlightSec(audio),
      audioBufferSec,
      audioTargetSec: this.scheduler?.bufferTarget(RIDER_MEDIA_TYPE) ?? NaN,
      videoSegmentSec: this.nextSegmentSec(video),
      videoInFlightSec,
      videoRateRatio: this.videoRateRatio(video),
    });
    const audioBusy = audio.queue.some((e) => e.state !== 'aborted');
    return this.audioHold.decide(hold, awaitingVideo || audioBusy, nowMs());
  }

  /**
   * The rate video is expected to arrive at over the bitrate the ABR chose
   * last (src/train/audio-order.ts): for the whole of a restart (until its
   * media delivered catches up with the time elapsed), the video the
   * restart has delivered over its time so far, the bytes of its segments
   * still arriving included; before its first arrival no more than the
   * restart rate the reserve plans on (RestartRun.deliveringBitsPerSec in
   * src/train/restart-reserve.ts); else the bandwidth estimate; NaN when
   * none is known. A rate taken only for the first segment, or the plan's
   * until the first arrival, let video go ahead of audio later in a restart
   * (docs/design/03-audio-order.md).
   */
  private videoRateRatio(t: TypeState): number {
    const bitrate = t.lastBitrate;
    if (bitrate === null || !(bitrate > 0)) return NaN;
    const run = t.restartRun?.run;
    const restartRate = run
      ? run.deliveringBitsPerSec(nowMs(), this.restartArrivingBits(t, run), t.restart.rateBitsPerSec(this.assumedRestartBitsPerSec()))
      : null;
    const rate = restartRate ?? this.estimates.bandwidthBitsPerSec();
    return rate !== null && rate > 0 ? rate / bitrate : NaN;
  }

  /** Bits received so far of the restart's segments still arriving. */
  private restartArrivingBits(t: TypeState, run: RestartRun): number {
    return t.queue.reduce((a, e) => a + (e.restartRun === run && e.state === 'loading' ? e.bytes * 8 : 0), 0);
  }

  /**
   * Lets dash.js issue its next request now if the window and the train
   * allow it. When nothing is outstanding and no request may go, downloading
   * has paused: a train left unspent (minimum train off) ends here. When
   * nothing is outstanding and dash.js, asked to go on, issues nothing for
   * TRAIN_STALL_MS, it has stopped on its own: the train ends too.
   */
  private maybeRetick(asked: string): void {
    // Riding audio changes only what the video may do: its window, its hold.
    const type = asked === RIDER_MEDIA_TYPE && this.audioRides ? TRAIN_MEDIA_TYPE : asked;
    if (this.retickPending.has(type)) return;
    this.retickPending.add(type);
    setTimeout(() => {
      this.retickPending.delete(type);
      if (!this.ctx) return;
      // Riding audio with a request in flight asks for its next segment now
      // if it may (dash.js's own loop asks again only after an append) and
      // dash.js would: a run of its loop that finds audio at its target
      // re-arms its own timer, which Sprint's gate does not see.
      if (type === TRAIN_MEDIA_TYPE && this.audioMayPipeline() && this.audioBelowDashTarget()) this.scheduler?.retick(RIDER_MEDIA_TYPE);
      const t = this.types.get(type);
      const idleTrain = t !== undefined && this.outstanding(t) === 0 && t.train !== null && t.train.endMs === null;
      if (!this.windowAllows(type)) {
        if (idleTrain) this.endTrain(t as TypeState);
        return;
      }
      if (this.holdForAudio(type)) return; // the scheduler hook's gate asks again shortly
      this.scheduler?.retick(type);
      if (idleTrain && this.stallTimer === null) {
        this.stallTimer = setTimeout(() => {
          this.stallTimer = null;
          const now = this.types.get(type);
          if (now && this.outstanding(now) === 0 && now.train !== null && now.train.endMs === null) this.endTrain(now);
        }, TRAIN_STALL_MS);
      }
    }, 0);
  }

  tryLoad(req: LoaderRequest, resp: LoaderResponse, passOn?: () => void): boolean {
    return this.dashLoads.takeLoad(req.customData.request, passOn, (handOn) => this.take(req, resp, handOn));
  }

  private take(req: LoaderRequest, resp: LoaderResponse, passOn?: () => void): boolean {
    const ctx = this.ctx;
    const fr = req.customData.request;
    // Only segments dash.js scheduled for the buffer ride trains; its index
    // and init probes (SegmentBaseLoader) are never appended and stay with dash.js.
    if (!ctx || this.degraded !== null || !fr || req.method !== 'GET' || !this.scheduled.has(fr)) return false;
    if (fr.type !== MEDIA_SEGMENT_TYPE && fr.type !== INIT_SEGMENT_TYPE) return false;
    const type = fr.mediaType;
    if (!type || !this.rides(type)) return false;
    if (!this.carries(req)) return false;
    const inTrain = type === TRAIN_MEDIA_TYPE;
    if (inTrain && this.stallTimer !== null) {
      clearTimeout(this.stallTimer);
      this.stallTimer = null;
    }
    let range: { start: number; end: number } | undefined;
    if (fr.range) {
      try {
        range = parseRange(fr.range);
      } catch {
        ctx.log.warn(`sprint: segment range ${JSON.stringify(fr.range)} is not a byte range; dash.js loads it itself`);
        return false;
      }
    }
    const t = this.state(type);
    this.path?.noteMediaUrl(req.url);
    const bitrate = fr.representation?.bandwidth ?? null;
    const mediaSec =
      fr.type === MEDIA_SEGMENT_TYPE && Number.isFinite((fr as { duration?: number }).duration)
        ? ((fr as { duration?: number }).duration as number)
        : 0;
    const expected = range ? range.end - range.start + 1 : bitrate && mediaSec ? Math.round((bitrate * mediaSec) / 8) : 0;
    const at = nowMs();
    if (inTrain && (this.outstanding(t) === 0 || this.trainBreak) && !t.policy.trainUnspent) {
      // A train after a pause samples the restart: not the run's first, nor one a seek began (it
      // may follow requests still in flight), nor one after a gap too short for the server to restart.
      const afterPause =
        !this.trainBreak && t.train !== null && at - this.wire(type).lastByteMs >= restartIdleSec(this.estimates.measuredRttSec()) * 1000;
      this.trainBreak = false;
      this.closeRestart(t);
      this.beginTrain(type, t, at);
      if (afterPause && t.train) t.restartRun = { run: new RestartRun(at), train: t.train };
    }
    // The media segments of a train after a pause go on the restart's curve while it is sampled.
    const restartRun =
      inTrain && fr.type === MEDIA_SEGMENT_TYPE && t.restartRun !== null && t.restartRun.train === t.train ? t.restartRun.run : null;
    if (inTrain && fr.type === MEDIA_SEGMENT_TYPE) {
      if (bitrate !== null && bitrate > 0) t.lastBitrate = bitrate;
      if (mediaSec > 0) t.lastMediaSec = mediaSec;
      if (typeof req.timeout === 'number' && req.timeout > 0) t.requestTimeoutMs = req.timeout;
    }
    const record = newTransferRecord({
      id: ctx.stats.allocateTransferId(),
      via: 'sprint',
      url: req.url,
      range: fr.range ?? null,
      atMs: at,
      expectedBytes: range ? expected : null,
      targetChunkBytes: inTrain ? (t.train?.targetBytes ?? null) : null,
      rttEstimateSec: this.estimates.rttSec(),
      bandwidthEstimateBitsPerSec: this.estimates.bandwidthBitsPerSec(),
    });
    ctx.stats.addTransfer(record);
    const entry = newEntry({
      type,
      kind: fr.type === INIT_SEGMENT_TYPE ? 'init' : 'media',
      req,
      resp,
      range,
      expectedBytes: expected,
      mediaSec,
      bitrate,
      atMs: at,
      record,
      train: inTrain ? t.train : null,
      restartRun,
      passOn: passOn ?? null,
    });
    t.queue.push(entry);
    req.customData.abort = () => this.abortEntry(entry);
    if (!inTrain) {
      // audio on the train's connection: the video request held for it may go now
      ctx.stats.count('sprint.audioOnTrain');
      // Its bytes are in the connection's estimate: the ABR's video budget leaves its bitrate out.
      if (fr.type === MEDIA_SEGMENT_TYPE && bitrate !== null && bitrate > 0) ctx.stats.estimates.sharedAudioBitsPerSec = bitrate;
      if (t.queue.some((e) => e !== entry && e.state === 'loading')) ctx.stats.count('sprint.audioPipelined');
      this.audioHold.audioAsked();
      this.send(entry);
      this.maybeRetick(TRAIN_MEDIA_TYPE);
      return true;
    }
    const outstanding = this.outstanding(t);
    t.policy.onIssued(expected, outstanding);
    if (this.ctx) this.ctx.stats.estimates.outstandingWindow = outstanding;
    if (t.train) {
      t.train.issuedBytes += expected;
      t.train.requests += 1;
      t.train.window = Math.max(t.train.window, outstanding);
      if (bitrate !== null && entry.kind === 'media') t.train.bitrates.push(bitrate);
    }
    this.send(entry);
    this.maybeRetick(type);
    return true;
  }

  private beginTrain(type: string, t: TypeState, at: number): void {
    const ctx = this.ctx as DataPlaneContext;
    const m = this.model();
    const snap = t.policy.begin(m.chunkBytes, at);
    const resumeBufferSec = this.bufferSec(type);
    const restartReserveSec = this.restartReserveSec(t);
    const ownLevel = this.ownResumeLevelSec(type, t);
    // Resumed where dash.js alone would still have paused: the reserve brought it forward.
    if (restartReserveSec > 0 && ownLevel !== null && restartReserveSec > ownLevel && resumeBufferSec >= ownLevel)
      ctx.stats.count('sprint.reserveResumes');
    t.train = {
      id: snap.id,
      mediaType: type,
      targetBytes: m.chunkBytes,
      initialTargetBytes: m.chunkBytes,
      issuedBytes: 0,
      completedBytes: 0,
      requests: 0,
      window: 0,
      startMs: at,
      endMs: null,
      throughputBitsPerSec: null,
      bitrates: [],
      rttEstimateSec: this.estimates.rttSec(),
      bandwidthEstimateBitsPerSec: this.estimates.bandwidthBitsPerSec(),
      rttSamplesSec: [],
      resumeBufferSec: Number.isFinite(resumeBufferSec) ? resumeBufferSec : null,
      restartReserveSec,
      restartDrawDownSec: null,
    };
    ctx.stats.trains.push(t.train);
    ctx.stats.count('sprint.trains');
    this.estimates.publish();
  }

  /**
   * Can the transport send `req` as dash.js built it? A load with headers
   * or credentials the transport cannot carry is never sent without them:
   * Sprint falls back to stock loading (dash.js sends it as built).
   */
  private carries(req: LoaderRequest): boolean {
    const ctx = this.ctx;
    if (!ctx || this.transport.carriesPageHeaders === true) return true;
    const built = ctx.requests.fromLoad(req);
    const names = Object.keys(built.headers);
    if (names.length === 0 && !built.withCredentials) return true;
    ctx.stats.count('sprint.headersNotCarried');
    const what = [names.length ? `headers ${names.join(', ')}` : '', built.withCredentials ? 'credentials (xhrWithCredentials)' : '']
      .filter(Boolean)
      .join(' and ');
    this.degrade(`the page's requests carry ${what}, which the ${this.transport.name} transport cannot send`);
    return false;
  }

  private send(entry: Entry): void {
    entry.sentMs = nowMs();
    entry.idleSentAtMs = this.onConnection().some((e) => e !== entry && e.state === 'loading') ? null : performance.now();
    entry.clockFromMs = null;
    entry.prevMs = Math.max(entry.sentMs, this.wire(entry.type).lastByteMs);
    const built = this.ctx?.requests.fromLoad(entry.req);
    this.ctx?.requests.note('media');
    entry.ticket = this.transport.request(
      { url: entry.url, range: entry.range, headers: built?.headers, withCredentials: built?.withCredentials },
      {
        onHead: (status, headers) => {
          entry.status = status;
          entry.headers = { ...headers };
        },
        onData: (bytes, atMs) => this.onData(entry, bytes, atMs),
        onEnd: (atMs) => this.onEnd(entry, atMs),
        onError: (reason, retryable) => this.onError(entry, reason, retryable),
      },
    );
  }

  private onData(entry: Entry, bytes: Uint8Array, atMs: number): void {
    if (entry.state !== 'loading' || bytes.length === 0) return;
    const t = this.state(entry.type);
    const w = this.wire(entry.type);
    if (entry.firstByteMs === null) {
      entry.firstByteMs = atMs;
      entry.record.firstByteMs = atMs;
      // The response's bytes began to cross the wire no earlier than one
      // (minimum) RTT after its request left, and on a busy link after the
      // last bytes of the responses ahead of it (pipelined on one connection,
      // or on a parallel one). Counting the request's RTT as transfer time
      // halves the bandwidth of a 150 KB segment at a 600 ms RTT, and so the
      // fair BDP the outstanding window covers (measured: 1.9 of 4 Mbit/s,
      // the wire idle 10-15 % of each train).
      const minRttMs = this.estimates.minRttSec() * 1000;
      const earliest = entry.sentMs + minRttMs;
      entry.prevMs = Math.min(atMs, Math.max(earliest, w.lastByteMs));
      // One busy period while responses arrive side by side or one right
      // behind another, less than a round trip after it ended (src/estimators/busy-period.ts).
      this.addReadSample(w.meter.began(entry.prevMs, this.othersArriving(entry), minRttMs, this.sampleSpan()));
    }
    w.meter.received(bytes.length);
    w.lastByteMs = Math.max(w.lastByteMs, atMs);
    t.lastByteMs = Math.max(t.lastByteMs, atMs);
    entry.traces.push({ startMs: entry.prevMs, durationMs: Math.max(0, atMs - entry.prevMs), bytes: bytes.length });
    entry.prevMs = atMs;
    entry.lastByteMs = atMs;
    entry.pieces.push(bytes);
    entry.bytes += bytes.length;
    entry.record.bytes = entry.bytes;
    // Bytes arriving shrink what the outstanding requests have yet to
    // deliver: the window may have room for the next request now, while this
    // response is still arriving (§IV-B1), not only once it completes.
    if (this.mayIssue(TRAIN_MEDIA_TYPE) || this.audioMayPipeline()) this.maybeRetick(TRAIN_MEDIA_TYPE);
  }

  private onEnd(entry: Entry, atMs: number): void {
    if (entry.state !== 'loading') return;
    if (entry.status >= 400 && entry.passOn) return this.onRefused(entry);
    const t = this.state(entry.type);
    entry.state = 'done';
    this.consecutiveFailures = 0;
    this.consecutiveRefusals = 0;
    entry.record.endMs = entry.lastByteMs ?? atMs;
    t.lastByteMs = Math.max(t.lastByteMs, entry.lastByteMs ?? atMs);
    const w = this.wire(entry.type);
    w.lastByteMs = Math.max(w.lastByteMs, entry.lastByteMs ?? atMs);
    const wireStart = entry.traces[0]?.startMs ?? entry.sentMs;
    const endMs = entry.lastByteMs ?? atMs;
    const wireSec = (endMs - wireStart) / 1000;
    if (wireSec > 0 && entry.bytes > 0) entry.record.throughputBitsPerSec = (entry.bytes * 8) / wireSec;
    this.sampleBandwidth(w, entry, endMs);
    if (entry.status < 300) this.restartArrived(t, entry, endMs, entry.bytes, entry.mediaSec);
    if (entry.status < 300 && entry.idleSentAtMs !== null) this.estimates.addIdleRequest(entry.url, entry.idleSentAtMs);
    if (entry.train) entry.train.completedBytes += entry.bytes;
    this.policyCompleted(t, entry, entry.bytes, atMs);
    this.closeTrainIfDone(t, atMs);
    this.estimates.publish();
    this.noteIfIdle();
    this.release(entry.type);
    this.maybeRetick(entry.type);
  }

  /**
   * A bandwidth sample from read timing at a response's end: the busy
   * period's bytes over its time (src/estimators/busy-period.ts), so
   * responses arriving side by side add up to the link instead of each
   * reading a share of it, and a response handed over in one bunch right
   * behind another is not a sample of its own. Once nothing is outstanding
   * on the connection the period is over and what is left of it counts.
   */
  private sampleBandwidth(w: TypeState, ended: Entry, endMs: number): void {
    const spanSec = this.sampleSpan();
    this.addReadSample(w.meter.ended(endMs, this.othersArriving(ended), spanSec));
    if (!this.wireLoading(ended)) this.addReadSample(w.meter.idle(spanSec));
  }

  /** How long a bandwidth sample should span: two round trips, two seconds at least (src/estimators/kernel-bytes.ts). */
  private sampleSpan(): number {
    return sampleSpanSec(this.estimates.rttSec());
  }

  /** A read-timing sample into the bandwidth estimate, until the kernel's byte counter gives samples (path-sampler.ts). */
  private addReadSample(sample: BusySample | null): void {
    if (this.path) this.path.addReadSample(sample);
    else if (sample) this.estimates.bandwidth.addTransfer(sample.bytes, sample.seconds);
  }

  /** Some request sharing `entry`'s wire timing, other than `entry`, is loading (sent and not ended). */
  private wireLoading(entry: Entry): boolean {
    return this.sharingWire(entry).some((e) => e.state === 'loading');
  }

  /** Some response sharing `entry`'s wire timing, other than `entry`, has begun and not yet ended. */
  private othersArriving(entry: Entry): boolean {
    return this.sharingWire(entry).some((e) => e.state === 'loading' && e.firstByteMs !== null);
  }

  /** The requests other than `entry` whose responses share its wire timing: the connection's when audio rides it, else its type's. */
  private sharingWire(entry: Entry): Entry[] {
    const shared = this.audioRides ? this.onConnection() : this.state(entry.type).queue;
    return shared.filter((e) => e !== entry);
  }

  /** A request of the running train finished (a request of a train a seek ended only adds to its record). */
  private policyCompleted(t: TypeState, entry: Entry, bytes: number, atMs: number): void {
    if (entry.type === TRAIN_MEDIA_TYPE && entry.train === t.train) t.policy.onCompleted(bytes, atMs, this.outstanding(t));
  }

  private closeTrainIfDone(t: TypeState, atMs: number): void {
    const train = t.train;
    if (!train || train.endMs !== null) return;
    if (this.outstanding(t) > 0 || t.policy.trainUnspent) return;
    this.finishTrain(t, atMs);
  }

  /** Ends the running train in the policy and its record. */
  private finishTrain(t: TypeState, atMs: number): void {
    const train = t.train;
    if (!train || train.endMs !== null) return;
    if (t.restartRun?.train === train) this.closeRestart(t);
    t.policy.end(atMs);
    train.endMs = atMs;
    const sec = (atMs - train.startMs) / 1000;
    train.throughputBitsPerSec = sec > 0 ? (train.completedBytes * 8) / sec : null;
    this.ctx?.stats.endTrain(train);
  }

  private onError(entry: Entry, reason: string, retryable: boolean): void {
    if (entry.state !== 'loading') return;
    const ctx = this.ctx;
    // Only a request that delivered no body is sent again: a response cut mid-body would be cut again and its
    // copies take the link from the rescue's lower rung (docs/design/06-rescue.md).
    const bodyArrived = entry.bytes > 0;
    entry.failedBytes = Math.max(entry.failedBytes, entry.bytes);
    entry.pieces = [];
    entry.bytes = 0;
    entry.traces = [];
    entry.firstByteMs = null;
    // The reissue may go out on a new connection whose byte counter is not the one the meter read last.
    this.path?.markIdle();
    if (retryable && !bodyArrived && entry.reissues < MAX_REISSUES) {
      entry.reissues += 1;
      ctx?.stats.count('sprint.reissued');
      this.send(entry);
      return;
    }
    entry.state = 'failed';
    entry.error = reason;
    entry.record.error = reason;
    entry.record.endMs = nowMs();
    // A segment of a restart that failed (a timeout, a cut) after some bytes still measures the restart, which ends
    // there: the slowest ones end this way.
    if (entry.restartRun) {
      const restarting = this.state(entry.type);
      this.restartArrived(restarting, entry, entry.record.endMs, entry.failedBytes, 0);
      if (restarting.restartRun?.run === entry.restartRun) this.closeRestart(restarting);
    }
    ctx?.stats.endTransfer(entry.record);
    ctx?.stats.count('sprint.requestErrors');
    this.consecutiveFailures += 1;
    if (this.consecutiveFailures >= MAX_CONSECUTIVE_FAILURES)
      this.degrade(`${this.consecutiveFailures} requests in a row failed (last: ${reason})`);
    ctx?.log.warn(`request ${entry.url}${entry.range ? ` bytes=${entry.range.start}-${entry.range.end}` : ''} failed: ${reason}`);
    const t = this.state(entry.type);
    this.policyCompleted(t, entry, 0, nowMs());
    this.closeTrainIfDone(t, nowMs());
    this.noteIfIdle();
    this.release(entry.type);
  }

  /**
   * The origin answered Sprint's request with an HTTP error. dash.js's own
   * request for the segment may pass where Sprint's did not (a CDN rule on
   * request shape, a header the transport could not send): the load goes to
   * dash.js's own loader when it reaches the head of the queue (release),
   * never back into a train, and a few refusals in a row fall back to stock
   * for good, so a refusing origin can never wedge the player.
   */
  private onRefused(entry: Entry): void {
    const ctx = this.ctx;
    const reason = `the origin refused Sprint's request (HTTP ${entry.status})`;
    entry.state = 'failed';
    entry.error = reason;
    entry.record.error = reason;
    entry.record.endMs = nowMs();
    entry.pieces = [];
    ctx?.stats.endTransfer(entry.record);
    ctx?.stats.count('sprint.refused');
    this.consecutiveRefusals += 1;
    ctx?.log.warn(
      `request ${entry.url}${entry.range ? ` bytes=${entry.range.start}-${entry.range.end}` : ''}: ${reason}; dash.js loads it`,
    );
    if (this.consecutiveRefusals >= MAX_CONSECUTIVE_REFUSALS)
      this.degrade(`${this.consecutiveRefusals} requests in a row refused (last: ${reason})`);
    const t = this.state(entry.type);
    this.policyCompleted(t, entry, 0, nowMs());
    this.closeTrainIfDone(t, nowMs());
    this.noteIfIdle();
    this.release(entry.type);
  }

  /**
   * dash.js aborted a request (or Sprint does, `behindFailure`). A request
   * already handed to dash.js (no longer queued) is past aborting: dash.js's
   * `abortRequests` after a failure hands it over reaches it again.
   */
  private abortEntry(entry: Entry, behindFailure = false): void {
    if (entry.state === 'aborted' || !this.types.get(entry.type)?.queue.includes(entry)) return;
    this.dropEntry(entry);
    this.ctx?.stats.count(behindFailure ? 'sprint.abortedBehindFailure' : 'sprint.abortedByDash');
    const onabort = entry.req.customData.onabort;
    if (behindFailure) onabort?.();
    // dash.js aborts its requests in a forEach over its own list (HTTPLoader
    // abort), and the abort callback removes the request from that list:
    // called at once it makes the loop skip the next request, which then
    // loads on unseen. Afterwards, dash.js's loop is over.
    else if (onabort) queueMicrotask(onabort);
    if (!behindFailure) this.release(entry.type);
  }

  /** Cancels a queued request and closes its records; no callback goes back to dash.js. */
  private dropEntry(entry: Entry): void {
    const wasLoading = entry.state === 'loading';
    entry.state = 'aborted';
    entry.ticket?.cancel();
    entry.record.cancelled = true;
    entry.record.wastedBytes = entry.bytes;
    if (wasLoading) {
      entry.record.endMs ??= nowMs();
      this.ctx?.stats.endTransfer(entry.record);
    }
    if (this.ctx) recordEntrySegment(entry, this.ctx.stats, 'aborted');
    const t = this.state(entry.type);
    if (wasLoading) this.policyCompleted(t, entry, 0, nowMs());
    this.closeTrainIfDone(t, nowMs());
    this.noteIfIdle();
  }

  /**
   * Before a failed video request goes back to dash.js, the requests queued
   * behind it are aborted, latest first. dash.js asks again for an aborted segment
   * by moving its next request to that segment's time, and the last abort it
   * hears wins: latest first leaves it at the segment right after the
   * failed one (dash.js retries the failed one itself), or at the failed
   * one when the segment rescue reports that as aborted too
   * (player/abr/rescue.ts) — never past a segment nobody will load again.
   * (Measured with a rung whose responses were all cut: each failure in a
   * train moved dash.js past the one before it, and the rescued segment was
   * never loaded: a gap in the buffer.) Their responses could not have
   * reached dash.js before the failed one anyway (in-order release).
   */
  private abortBehind(t: TypeState): void {
    for (const e of [...t.queue].reverse()) if (e.state !== 'aborted') this.abortEntry(e, true);
  }

  /** Hands completed responses to dash.js in request order, one append at a time. */
  private release(type: string): void {
    const t = this.types.get(type);
    if (!t) return;
    while (t.queue.length > 0) {
      const head = t.queue[0] as Entry;
      if (head.state === 'aborted') {
        t.queue.shift();
        continue;
      }
      if (head.state === 'loading') return;
      if (t.awaitingAppend !== null) return;
      t.queue.shift();
      if (head.state === 'failed') {
        // Video only: dash.js keeps a request aborted one by one in its
        // loading list, and a later switch of that type waits for the list
        // to empty; video's switches go through quality-switch-hook.ts,
        // audio's would not. Audio behind a failure is delivered as it
        // lands (dash.js's retry of the failed one appends after it).
        if (type === TRAIN_MEDIA_TYPE) this.abortBehind(t);
        if (head.status >= 400 && head.passOn) {
          if (this.ctx) recordEntrySegment(head, this.ctx.stats, 'error');
          head.passOn();
          continue;
        }
        this.ctx?.stats.count('sprint.failedBackToDash');
        if (this.ctx) failToDash(head, this.ctx.stats);
        continue;
      }
      if (this.ctx) {
        deliverToDash(head, this.ctx.stats);
        // its record is final once dash.js has it (segmentsServed)
        this.ctx.stats.endTransfer(head.record);
      }
      if (head.status >= 200 && head.status <= 299) {
        t.awaitingAppend = { sinceMs: nowMs(), mediaSec: head.mediaSec };
      }
    }
  }

  /**
   * Requests past dash.js's time limit (request-clocks.ts) are cancelled and
   * fail as timed out, with the bytes they got, so the segment rescue
   * (player/abr/rescue.ts) can ask for them again lower instead of the train
   * waiting on them for good; one still arriving that would be in sooner
   * than a new request could bring anything gets to finish, within a bound
   * (time-limit.ts).
   */
  private checkTimeouts(now: number): void {
    const past = requestsPastLimit(this.onConnection(), {
      oneConnection: this.transport.oneConnection === true,
      nowMs: now,
      rttSec: this.estimates.rttSec(),
      wireLastByteMs: (e) => this.wire(e.type).lastByteMs,
    });
    for (const { entry: e, verdict, limitMs } of past) {
      // failing one may have aborted those behind it
      if (e.state !== 'loading') continue;
      if (verdict === 'grace') {
        if (!e.graceCounted) this.ctx?.stats.count('sprint.timeoutGrace');
        e.graceCounted = true;
        continue;
      }
      e.ticket?.cancel();
      this.ctx?.stats.count('sprint.timeouts');
      const over = e.graceCounted ? `, ${Math.round(now - (e.clockFromMs ?? now))} ms with its grace,` : '';
      this.onError(e, `timed out after ${limitMs} ms${over} with ${e.bytes} bytes in (dash.js fragmentRequestTimeout)`, false);
    }
  }

  /** Request time limits and the append watchdog. */
  private checkTimers(): void {
    const now = nowMs();
    this.checkTimeouts(now);
    for (const [type, t] of this.types) {
      if (t.awaitingAppend !== null && now - t.awaitingAppend.sinceMs > APPEND_WATCHDOG_MS) {
        t.awaitingAppend = null;
        this.ctx?.stats.count('sprint.appendWatchdog');
        this.release(type);
      }
    }
  }
}
