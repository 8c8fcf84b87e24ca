/**
 * Playback-state side of the stats: startup delay, rebuffering, bitrate
 * switches, buffer levels and a bounded once-a-second time series, read from
 * the <video> element and the dash.js player (never from our own data plane,
 * so these figures judge it independently).
 */
import { bufferLength } from '../dash/buffer-level';
import type { MediaPlayerClass } from 'dashjs';
import { BoundedLog } from './bounded-log';
import { StallClock } from './stall-clock';
import type { PlaybackSample, PlaybackStats } from './types';

const SAMPLE_INTERVAL_MS = 1000;
const MAX_SAMPLES = 7200; // two hours at one sample a second

export class PlaybackMonitor {
  private readonly stalls: StallClock;
  private bitrateSwitches = 0;
  private readonly errors: string[] = [];
  private errorCount = 0;
  private readonly samples = new BoundedLog<PlaybackSample>(MAX_SAMPLES);
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly listeners: Array<[string, EventListener]> = [];

  constructor(
    private readonly video: HTMLVideoElement,
    private readonly dash: MediaPlayerClass,
    private readonly dashEvents: { QUALITY_CHANGE_RENDERED: string; ERROR: string; PLAYBACK_ERROR?: string },
  ) {
    this.stalls = new StallClock(video);
    this.listen('playing', () => this.stalls.playing());
    this.listen('waiting', () => this.stalls.waiting());
    this.dash.on(this.dashEvents.QUALITY_CHANGE_RENDERED, this.onQualityRendered, this);
    this.dash.on(this.dashEvents.ERROR, this.onError, this);
    this.timer = setInterval(() => this.samples.push(this.sample()), SAMPLE_INTERVAL_MS);
  }

  private listen(type: string, fn: () => void): void {
    const listener: EventListener = () => fn();
    this.video.addEventListener(type, listener);
    this.listeners.push([type, listener]);
  }

  private onQualityRendered(e: { mediaType?: string }): void {
    if (e.mediaType === 'video') this.bitrateSwitches += 1;
  }

  private onError(e: { error?: { code?: number; message?: string } }): void {
    const err = e.error;
    this.errors.push(err ? `dash.js error ${err.code ?? '?'}: ${err.message ?? ''}` : 'dash.js error');
    this.errorCount += 1;
    if (this.errors.length > 100) this.errors.shift();
  }

  private videoBitrate(): number | null {
    try {
      return this.dash.getCurrentRepresentationForType('video')?.bandwidth ?? null;
    } catch {
      return null;
    }
  }

  private dashThroughput(): number | null {
    try {
      const kbps = this.dash.getAverageThroughput('video');
      return Number.isFinite(kbps) && kbps > 0 ? kbps * 1000 : null;
    } catch {
      return null;
    }
  }

  private sample(): PlaybackSample {
    return {
      atMs: Date.now(),
      currentTimeSec: this.video.currentTime,
      videoBufferSec: bufferLength(this.dash, 'video'),
      audioBufferSec: bufferLength(this.dash, 'audio'),
      videoBitrate: this.videoBitrate(),
      dashThroughputBitsPerSec: this.dashThroughput(),
    };
  }

  snapshot(): PlaybackStats {
    const now = Date.now();
    const s = this.sample();
    return {
      currentTimeSec: s.currentTimeSec,
      videoBufferSec: s.videoBufferSec,
      audioBufferSec: s.audioBufferSec,
      videoBitrate: s.videoBitrate,
      dashThroughputBitsPerSec: s.dashThroughputBitsPerSec,
      ...this.stalls.figures(now),
      bitrateSwitches: this.bitrateSwitches,
      ended: this.video.ended,
      errors: this.errors.slice(),
      errorCount: this.errorCount,
    };
  }

  series(): PlaybackSample[] {
    return this.samples.toArray();
  }

  get droppedSamples(): number {
    return this.samples.dropped;
  }

  destroy(): void {
    clearInterval(this.timer);
    for (const [type, l] of this.listeners) this.video.removeEventListener(type, l);
    this.dash.off(this.dashEvents.QUALITY_CHANGE_RENDERED, this.onQualityRendered, this);
    this.dash.off(this.dashEvents.ERROR, this.onError, this);
  }
}
