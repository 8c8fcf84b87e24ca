/**
 * The stats a peer page (Shaka Player, hls.js) reports as `window.sprintPlayer.stats()`: the
 * record types of player/stats/types.ts, so the A/B harness reads a peer exactly as it reads
 * stock dash.js and Sprint. Each peer's adapter feeds this one recorder from its player's own
 * API (request hooks and events); playback (startup, stalls, buffer) comes from the <video>
 * element by player/stats/stall-clock.ts, as for our player, so stalls count alike for all.
 * A peer makes one wire transfer per segment request, as stock dash.js does.
 */
import { BoundedLog } from '../../../player/stats/bounded-log';
import { StallClock } from '../../../player/stats/stall-clock';
import type { EstimateStats, PlaybackStats, SegmentRecord, SprintStats, TransferRecord } from '../../../player/stats/types';

/** Records kept per log (segments, transfers): hours of 4 s segments. */
const MAX_RECORDS = 20_000;

/** A peer's stats: Sprint's shape, with the peer's name as its mode and transfers' `via`. */
export type PeerStats = Omit<SprintStats, 'requestedMode' | 'mode' | 'transfers'> & {
  requestedMode: string;
  mode: string;
  transfers: Array<Omit<TransferRecord, 'via'> & { via: string }>;
};

/** What a peer's request hook knows about one segment request when it is issued. */
export interface PeerRequest {
  readonly kind: SegmentRecord['kind'];
  readonly mediaType: string;
  readonly url: string;
  /** Inclusive byte range `a-b`, or null for a whole file. */
  readonly range: string | null;
  readonly representationId: string | null;
  /** Nominal bitrate of the representation, bit/s (the video rung alone for video). */
  readonly bandwidth: number | null;
}

/** What the peer's player says of the moment, read at every stats() call. */
export interface PeerState {
  readonly videoBitrate: number | null;
  /** The player's own throughput estimate, bit/s. */
  readonly bandwidthBitsPerSec: number | null;
  readonly videoBufferSec: number;
  readonly audioBufferSec: number;
}

interface Open {
  readonly id: number;
  readonly request: PeerRequest;
  readonly startMs: number;
  firstByteMs: number | null;
}

/** Seconds of media buffered ahead of `t` in `ranges` (0 when `t` is in none). */
export function bufferedAhead(ranges: TimeRanges | null | undefined, t: number): number {
  if (!ranges) return 0;
  for (let i = 0; i < ranges.length; i++) if (ranges.start(i) <= t + 0.1 && t < ranges.end(i)) return ranges.end(i) - t;
  return 0;
}

export class PeerRecorder {
  private readonly stalls: StallClock;
  private readonly segments = new BoundedLog<SegmentRecord>(MAX_RECORDS);
  private readonly transfers = new BoundedLog<PeerStats['transfers'][number]>(MAX_RECORDS);
  private readonly open = new Map<number, Open>();
  private nextId = 1;
  private bitrateSwitches = 0;
  private lastVideoBitrate: number | null = null;
  private readonly errors: string[] = [];
  private errorCount = 0;

  /**
   * @param mode the peer's name (`shaka`, `hlsjs`)
   * @param reason its version and configuration, in words (the summaries' `modeReason`)
   */
  constructor(
    private readonly video: HTMLVideoElement,
    readonly mode: string,
    private readonly reason: string,
    private readonly state: () => PeerState,
  ) {
    this.stalls = new StallClock(video);
    video.addEventListener('playing', () => this.stalls.playing());
    video.addEventListener('waiting', () => this.stalls.waiting());
  }

  /** A segment request went out; returns its transfer id. */
  begin(request: PeerRequest, startMs = Date.now()): number {
    const id = this.nextId++;
    this.open.set(id, { id, request, startMs, firstByteMs: null });
    return id;
  }

  /** The response's headers (or first bytes) arrived. */
  firstByte(id: number, atMs = Date.now()): void {
    const o = this.open.get(id);
    if (o && o.firstByteMs === null) o.firstByteMs = atMs;
  }

  /** The request ended: whole (`ok`, with its body bytes), given up by the player (`aborted`) or failed (`error`). */
  end(id: number, bytes: number, status: SegmentRecord['status'], error: string | null = null, endMs = Date.now()): void {
    const o = this.open.get(id);
    if (!o) return;
    this.open.delete(id);
    const r = o.request;
    const from = o.firstByteMs ?? o.startMs;
    this.transfers.push({
      id,
      via: this.mode,
      url: r.url,
      range: r.range,
      startMs: o.startMs,
      firstByteMs: o.firstByteMs,
      endMs,
      bytes,
      expectedBytes: rangeLength(r.range),
      throughputBitsPerSec: status === 'ok' && endMs > from ? (bytes * 8 * 1000) / (endMs - from) : null,
      targetChunkBytes: null,
      rttEstimateSec: null,
      bandwidthEstimateBitsPerSec: this.state().bandwidthBitsPerSec,
      segmentsServed: status === 'ok' ? 1 : 0,
      cancelled: status === 'aborted',
      wastedBytes: 0,
      error,
    });
    this.segments.push({
      kind: r.kind,
      mediaType: r.mediaType,
      url: r.url,
      range: r.range,
      index: Number.NaN,
      representationId: r.representationId,
      bandwidth: r.bandwidth,
      bytes,
      requestMs: o.startMs,
      firstByteMs: o.firstByteMs,
      endMs,
      status,
      transferId: id,
    });
  }

  /** An error the player reported (counted like dash.js's errors). */
  error(text: string): void {
    this.errors.push(text);
    this.errorCount += 1;
    if (this.errors.length > 100) this.errors.shift();
  }

  private playback(s: PeerState): PlaybackStats {
    const now = Date.now();
    // A rung change the player has put on screen: counted when the rendered video bitrate changes.
    if (s.videoBitrate !== null && this.lastVideoBitrate !== null && s.videoBitrate !== this.lastVideoBitrate) this.bitrateSwitches += 1;
    if (s.videoBitrate !== null) this.lastVideoBitrate = s.videoBitrate;
    return {
      currentTimeSec: this.video.currentTime,
      videoBufferSec: s.videoBufferSec,
      audioBufferSec: s.audioBufferSec,
      videoBitrate: s.videoBitrate,
      dashThroughputBitsPerSec: s.bandwidthBitsPerSec,
      ...this.stalls.figures(now),
      bitrateSwitches: this.bitrateSwitches,
      ended: this.video.ended,
      errors: this.errors.slice(),
      errorCount: this.errorCount,
    };
  }

  /** Requests issued and not yet ended. */
  get inFlight(): number {
    return this.open.size;
  }

  stats(): PeerStats {
    const s = this.state();
    const estimates: EstimateStats = {
      rttSec: null,
      rttSamples: 0,
      bandwidthBitsPerSec: s.bandwidthBitsPerSec,
      bandwidthSamples: 0,
      chunkBytes: null,
      source: this.mode,
      outstandingWindow: this.open.size,
    };
    const openTransfers = [...this.open.values()].map((o) => ({
      id: o.id,
      via: this.mode,
      url: o.request.url,
      range: o.request.range,
      startMs: o.startMs,
      firstByteMs: o.firstByteMs,
      endMs: null,
      bytes: 0,
      expectedBytes: rangeLength(o.request.range),
      throughputBitsPerSec: null,
      targetChunkBytes: null,
      rttEstimateSec: null,
      bandwidthEstimateBitsPerSec: s.bandwidthBitsPerSec,
      segmentsServed: 0,
      cancelled: false,
      wastedBytes: 0,
      error: null,
    }));
    return {
      requestedMode: this.mode,
      mode: this.mode,
      modeReason: this.reason,
      segments: this.segments.toArray(),
      transfers: [...this.transfers.toArray(), ...openTransfers],
      trains: [],
      deferredSwitches: [],
      rescues: [],
      droppedRecords: this.segments.dropped + this.transfers.dropped,
      playback: this.playback(s),
      samples: [],
      estimates,
      counters: {},
      warnings: [],
    };
  }
}

/** Bytes an inclusive range `a-b` covers; null for anything else. */
function rangeLength(range: string | null): number | null {
  const m = range === null ? null : /^(\d+)-(\d+)$/.exec(range);
  return m ? Number(m[2]) - Number(m[1]) + 1 : null;
}
