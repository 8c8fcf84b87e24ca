/**
 * The `sprint-x` data plane (paper §IV-B2, sized by §IV-A Program 1).
 *
 * When dash.js asks for media segment i of a byte-range-addressed video
 * representation, Sprint-x issues one streamed Range request covering whole
 * segments i..j totalling at least the current chunk size, and answers that
 * and the following requests for the same representation from the stream as
 * their bytes arrive. dash.js's ABR still picks every segment. A bitrate
 * switch waits until the transfer has delivered its chunk and the old
 * representation's downloaded segments are handed over (the `after-chunk`
 * policy, src/sprintx/switch-policy.ts; held switches are in
 * `stats().deferredSwitches`), unless the buffer is below the safety level;
 * with the `immediate` policy (the paper's) a request for another
 * representation cancels the transfer at once. A request outside the range
 * (a seek) cancels it too, and the next transfer starts at once.
 *
 * Minimum chunk on resume (§IV-B1): the transfer runs to its full size even
 * when dash.js stops asking; the bytes wait here (at most one chunk) and are
 * handed over, with their wire timing, when dash.js resumes.
 *
 * Audio is dash.js's unless `sprintxAudioSec` asks for expanded audio
 * requests (one rung, never cancelled by a switch or sized by the model).
 * Estimates: RTT from the probes (the `rttProbes` option), bandwidth from the
 * expanded transfers' wire timing (docs/design/05-throughput-estimates.md).
 *
 * Failures lose nothing: a broken transfer fails its waiting segments back
 * to dash.js, whose retry re-requests them; a refused range, a server that
 * stops honouring Range, or repeated failures switch to stock loading with
 * the reason in stats.
 */
import { parseRange, planExpandedRange, rangeLength, type ByteRange } from '../../src/sprintx/range-plan';
import type { DataPlane, DataPlaneContext } from '../dataplane/data-plane';
import { MEDIA_SEGMENT_TYPE } from '../dataplane/dash-request';
import { DashFragmentRecorder, recordAnsweredSegment } from '../dataplane/segment-records';
import { announceFallback } from '../dataplane/fallback';
import { nowMs } from '../dataplane/clock';
import { newTransferRecord } from '../stats/transfer-record';
import { answerLoad, installLoaderHook } from '../dash/loader-hook';
import { installQualitySwitchHook, switchesByHand, type QualityChangeEventLike } from '../dash/quality-switch-hook';
import { bufferLength } from '../dash/buffer-level';
import { segmentMediaRanges } from '../dash/representation-segments';
import { decideSwitch, DEFAULT_SAFETY_SEGMENTS } from '../../src/sprintx/switch-policy';
import { SwitchHolds } from './switch-holds';
import type { LoaderRequest, LoaderResponse, SegmentLoadHandler } from '../dash/loader-types';
import { EstimateHub } from '../estimates/estimate-hub';
import { ExpandedStream, type PendingSegment } from './expanded-stream';
import type { BuiltRequest } from '../dataplane/request-path';

/** Consecutive failed transfers (no segment delivered) before falling back to stock. */
const MAX_CONSECUTIVE_FAILURES = 3;

export class SprintXDataPlane implements DataPlane, SegmentLoadHandler {
  readonly mode = 'sprint-x' as const;
  private ctx: DataPlaneContext | null = null;
  private readonly streams = new Map<string, ExpandedStream>();
  private readonly estimates: EstimateHub;
  private degraded: string | null = null;
  /**
   * Records the segments dash.js loads itself: init segments, audio, what
   * Sprint-x declines, everything after a fallback; video ones feed the
   * estimates (after a fallback, the only wire samples left).
   */
  private readonly dashLoads = new DashFragmentRecorder((request, error) => this.estimates.addDashLoad(request, error));
  private consecutiveFailures = 0;
  private holds: SwitchHolds | null = null;
  /** Duration of the last video media segment dash.js asked for, seconds (the safety level's unit). */
  private segmentDurationSec = 0;

  constructor(
    probeUrl: string,
    private readonly segmentLists: Map<string, ByteRange[]>,
  ) {
    this.estimates = new EstimateHub({
      probeUrl,
      // Expanded requests are uncredentialed (expanded-stream.ts): probes take
      // the other pool, so the next expanded request reuses the previous one's
      // connection instead of a probe's (rtt-prober.ts).
      probeCredentials: 'same-origin',
      counterPrefix: 'sprintx',
      bandwidthSource: 'expanded-request wire timing',
    });
  }

  install(ctx: DataPlaneContext): void {
    this.ctx = ctx;
    installLoaderHook(ctx.dash, this);
    this.holds = new SwitchHolds(ctx.stats, ctx.log);
    installQualitySwitchHook(ctx.dash, {
      deferSwitch: (type, e) => this.holdSwitch(type, e),
      switchWithoutDrain: () => false,
      onSwitch: () => undefined,
    });
    this.dashLoads.install(ctx);
    this.estimates.install(ctx);
  }

  destroy(): void {
    this.estimates.destroy();
    for (const s of this.streams.values()) s.discard('player destroyed');
    this.streams.clear();
    this.dashLoads.destroy();
    this.ctx = null;
  }

  /** The chunk size of paper §IV-A from the current estimates (or the page's fixed size). */
  currentChunkBytes(): number {
    return this.estimates.chunkBytes();
  }

  /**
   * Should dash.js's ABR switch away from the video representation now, or
   * wait for the expanded request in flight (the switch policy)? Switches the
   * page makes itself (automatic switching off) are never held.
   */
  private holdSwitch(type: string, e: QualityChangeEventLike): boolean {
    const ctx = this.ctx;
    const holds = this.holds;
    if (!ctx || !holds || type !== 'video' || this.degraded !== null) return false;
    if (switchesByHand(ctx.dash, 'video')) return false;
    const stream = this.streams.get(type) ?? null;
    const onOld = stream !== null && stream.representationId === (e.oldRepresentation?.id ?? null);
    const decision = decideSwitch({
      policy: ctx.sprintxSwitch,
      forced: e.isAdaptationSetSwitch === true || e.reason?.forceReplace === true || e.reason?.forceAbandon === true,
      transferOnOldRepresentation: onOld,
      transferFailed: stream?.failed != null,
      transferFinished: stream?.finished ?? true,
      receivedBytes: stream?.log.receivedBytes ?? 0,
      chunkTargetBytes: Math.min(stream?.record.targetChunkBytes ?? Infinity, stream?.record.expectedBytes ?? Infinity),
      unservedBytes: stream?.unservedBytes ?? 0,
      bufferSec: bufferLength(ctx.dash, 'video'),
      safetySec: ctx.sprintxSafetySec ?? DEFAULT_SAFETY_SEGMENTS * this.segmentDurationSec,
      oldBitrateBps: e.oldRepresentation?.bandwidth ?? null,
      newBitrateBps: e.newRepresentation?.bandwidth ?? null,
      bandwidthBps: this.estimates.bandwidthBitsPerSec(),
    });
    const now = nowMs();
    if (decision.hold && stream) {
      holds.wish(type, stream, e.newRepresentation?.id ?? null, now);
      return true;
    }
    holds.applied(decision.why, now);
    return false;
  }

  /** Byte ranges of every segment of the request's representation, or null if unknown. */
  private segmentsOf(req: LoaderRequest): ByteRange[] | null {
    const rep = req.customData.request?.representation;
    if (!rep) return null;
    const fromDash = segmentMediaRanges(rep);
    if (fromDash) {
      try {
        return fromDash.map(parseRange);
      } catch {
        return null;
      }
    }
    return (rep.id !== undefined && this.segmentLists.get(rep.id)) || null;
  }

  tryLoad(req: LoaderRequest, resp: LoaderResponse, passOn?: () => void): boolean {
    const fr = req.customData.request;
    if (fr?.type === MEDIA_SEGMENT_TYPE && fr.mediaType === 'video') {
      this.holds?.onMediaRequest(nowMs());
      if (typeof fr.duration === 'number' && fr.duration > 0) this.segmentDurationSec = fr.duration;
    }
    return this.dashLoads.takeLoad(req.customData.request, passOn, (handOn) => this.take(req, resp, handOn));
  }

  private take(req: LoaderRequest, resp: LoaderResponse, passOn?: () => void): boolean {
    const ctx = this.ctx;
    const fr = req.customData.request;
    // Audio (a few percent of the bytes) keeps dash.js's own segment-at-a-time
    // loading unless sprintxAudioSec asks for expanded audio requests, which
    // are then bounded by media time, never by the chunk: sized like the
    // video, the whole audio file came down at start-up beside it (measured
    // on the 3 Mbit/s / 512 KB testbed, 9.7 MB of audio in the first 87 s
    // while the video crawled at 0.3 Mbit/s and rebuffered).
    if (
      !ctx ||
      this.degraded !== null ||
      !fr ||
      fr.type !== MEDIA_SEGMENT_TYPE ||
      !(fr.mediaType === 'video' || (fr.mediaType === 'audio' && ctx.sprintxAudioSec > 0)) ||
      !fr.range ||
      req.method !== 'GET'
    ) {
      return false;
    }
    const segments = this.segmentsOf(req);
    let range: ByteRange;
    try {
      range = parseRange(fr.range);
    } catch {
      return false;
    }
    const index = segments ? segments.findIndex((s) => s.start === range.start && s.end === range.end) : -1;
    if (!segments || index < 0) {
      ctx.stats.count('sprintx.notExpandable');
      return false;
    }
    const key = fr.mediaType ?? 'unknown';
    const repId = fr.representation?.id ?? '';
    let stream = this.streams.get(key);
    if (stream && (stream.url !== req.url || stream.representationId !== repId || !stream.contains(range))) {
      const why = stream.url !== req.url || stream.representationId !== repId ? 'bitrate switch' : 'request outside the range (seek)';
      if (!stream.finished) {
        ctx.stats.count('sprintx.cancellations');
        ctx.log.info(`cancel ${key} transfer #${stream.record.id} (${why}) after ${stream.log.receivedBytes} bytes`);
      }
      this.holds?.supersede(stream, why, nowMs());
      stream.discard(why);
      ctx.stats.count('sprintx.wastedBytes', stream.record.wastedBytes);
      this.streams.delete(key);
      stream = undefined;
    }
    if (!stream) {
      const built = ctx.requests.fromLoad(req);
      stream = key === 'audio' ? this.openAudio(built, repId, segments, index, fr.duration) : this.open(built, repId, segments, index);
      this.streams.set(key, stream);
    }
    this.enqueue(stream, req, resp, range, passOn);
    return true;
  }

  private open(built: BuiltRequest, repId: string, segments: ByteRange[], index: number): ExpandedStream {
    const ctx = this.ctx as DataPlaneContext;
    const chunk = this.currentChunkBytes();
    // Bound the media time of one request (segment duration unknown: no bound).
    const maxSegments = this.segmentDurationSec > 0 ? Math.max(1, Math.floor(ctx.sprintxMaxRangeSec / this.segmentDurationSec)) : Infinity;
    return this.start(built, repId, planExpandedRange(segments, index, chunk, maxSegments), chunk, (bytes, sec) =>
      this.estimates.addWireSample(bytes, sec),
    );
  }

  /**
   * An expanded audio request: sprintxAudioSec of media (at least one
   * segment; one segment when the duration is unknown). Its wire timing
   * does not feed the bandwidth estimate: audio's connection is not the
   * video's, and its short transfers would read its slow start. It goes
   * credentialed, to the pool of dash.js's own requests: in the video's
   * pool the next expanded video request could take audio's idle
   * connection instead of its own warm one.
   */
  private openAudio(
    built: BuiltRequest,
    repId: string,
    segments: ByteRange[],
    index: number,
    segmentSec: number | undefined,
  ): ExpandedStream {
    const ctx = this.ctx as DataPlaneContext;
    const maxSegments = segmentSec !== undefined && segmentSec > 0 ? Math.max(1, Math.floor(ctx.sprintxAudioSec / segmentSec)) : 1;
    ctx.stats.count('sprintx.audioTransfers');
    return this.start(built, repId, planExpandedRange(segments, index, Infinity, maxSegments), null, () => undefined, 'same-origin');
  }

  private start(
    built: BuiltRequest,
    repId: string,
    plan: ReturnType<typeof planExpandedRange>,
    chunk: number | null,
    onWireSample: (bytes: number, sec: number) => void,
    credentials: RequestCredentials = 'omit',
  ): ExpandedStream {
    const ctx = this.ctx as DataPlaneContext;
    const url = built.url;
    const record = newTransferRecord({
      id: ctx.stats.allocateTransferId(),
      via: 'sprint-x',
      url,
      range: `${plan.start}-${plan.end}`,
      atMs: nowMs(),
      expectedBytes: rangeLength(plan),
      targetChunkBytes: chunk,
      rttEstimateSec: this.estimates.measuredRttSec(),
      bandwidthEstimateBitsPerSec: this.estimates.bandwidthBitsPerSec(),
    });
    ctx.stats.addTransfer(record);
    ctx.stats.count('sprintx.transfers');
    const stream = new ExpandedStream(
      url,
      plan,
      repId,
      record,
      {
        onWireSample,
        onEnd: (s) => this.onStreamEnd(s),
      },
      credentials,
      { requests: ctx.requests, request: built },
    );
    stream.start();
    this.estimates.publish();
    return stream;
  }

  private onStreamEnd(s: ExpandedStream): void {
    const ctx = this.ctx;
    ctx?.stats.endTransfer(s.record);
    if (!ctx || s.record.cancelled) return;
    if (s.failed === null) {
      this.consecutiveFailures = 0;
      // a video request starts on the video pool's connection once the one before it has ended: its first byte is an RTT
      if (s.record.targetChunkBytes !== null) this.estimates.addIdleRequest(s.url, s.sentAtPerfMs);
      return;
    }
    ctx.stats.count('sprintx.transferErrors');
    ctx.log.warn(`transfer #${s.record.id} ${s.url} bytes=${s.record.range} failed: ${s.failed}`);
    if (s.refusedStatus !== null) {
      // dash.js's own one-segment request may well pass where the wider one did not: it has the segments now.
      ctx.stats.count('sprintx.refused');
      this.degrade(`the origin refused an expanded Range request (HTTP ${s.refusedStatus}, bytes=${s.record.range})`);
      return;
    }
    this.consecutiveFailures = s.record.segmentsServed > 0 ? 1 : this.consecutiveFailures + 1;
    if (/ignored the Range|Content-Range/.test(s.failed)) this.degrade(`the server stopped honouring Range requests (${s.failed})`);
    else if (this.consecutiveFailures >= MAX_CONSECUTIVE_FAILURES)
      this.degrade(`${this.consecutiveFailures} transfers in a row failed (last: ${s.failed})`);
  }

  /** Falls back to stock dash.js loading for the rest of the session, visibly. */
  private degrade(reason: string): void {
    const ctx = this.ctx;
    if (!ctx || this.degraded !== null) return;
    this.degraded = reason;
    this.holds?.supersede(null, 'fell back to stock loading', nowMs());
    this.estimates.stop();
    announceFallback(ctx, 'sprint-x', reason);
  }

  private enqueue(stream: ExpandedStream, req: LoaderRequest, resp: LoaderResponse, range: ByteRange, passOn?: () => void): void {
    const ctx = this.ctx as DataPlaneContext;
    const custom = req.customData;
    const fr = custom.request;
    const requestMs = nowMs();
    let settled = false;
    /** A segment whose bytes never reached dash.js: none are counted (the transfer's record holds what the wire carried). */
    const recordUnserved = (status: 'error' | 'aborted'): void =>
      recordAnsweredSegment(ctx.stats, fr, {
        kind: 'media',
        url: req.url,
        bytes: 0,
        requestMs,
        firstByteMs: null,
        endMs: nowMs(),
        status,
        transferId: stream.record.id,
      });
    const pending: PendingSegment = {
      range,
      deliver: (arrival, transferId) => {
        if (settled) return;
        settled = true;
        const n = arrival.data.byteLength;
        recordAnsweredSegment(ctx.stats, fr, {
          kind: 'media',
          url: req.url,
          bytes: n,
          requestMs,
          firstByteMs: arrival.firstByteMs,
          endMs: arrival.endMs,
          status: 'ok',
          transferId,
        });
        answerLoad(req, resp, {
          url: req.url,
          status: 206,
          statusText: 'Partial Content',
          headers: { 'content-range': `bytes ${range.start}-${range.end}/*`, 'content-length': String(n) },
          data: arrival.data.buffer as ArrayBuffer,
          bytes: n,
          wire: { startMs: arrival.startMs, firstByteMs: arrival.firstByteMs, endMs: arrival.endMs, traces: arrival.traces },
        });
      },
      fail: (reason) => {
        if (settled) return;
        settled = true;
        if (stream.refusedStatus !== null && passOn) {
          // Refused by the origin: dash.js's own loader sends the segment's request as it built it.
          passOn();
          return;
        }
        // No status: dash.js treats the load as failed and retries it through
        // its own retry policy, which comes back here for a fresh transfer.
        resp.url = req.url;
        resp.status = 0;
        resp.statusText = `sprint-x: ${reason}`;
        custom.sprintFailure = {
          timedOut: /time/i.test(reason),
          bytes: stream.record.bytes,
          startMs: stream.record.startMs,
          firstByteMs: stream.record.firstByteMs,
        };
        ctx.stats.count('sprintx.segmentsFailedBack');
        recordUnserved('error');
        custom.onloadend?.();
      },
    };
    custom.abort = () => {
      if (settled) return;
      settled = true;
      stream.forget(pending);
      ctx.stats.count('sprintx.segmentsAbortedByDash');
      recordUnserved('aborted');
      custom.onabort?.();
    };
    stream.request(pending);
  }
}
