/**
 * Startup delay and rebuffering of one <video> element, counted one way for
 * every player the harness compares (ours and the peers'): waiting before the
 * first frame is startup, and waiting during a seek or after the end is the
 * user's doing or the end, not a rebuffer.
 */
import type { PlaybackStats } from './types';

export type StallFigures = Pick<PlaybackStats, 'startupDelayMs' | 'rebufferCount' | 'rebufferMs' | 'stallStartMs'>;

export class StallClock {
  private readonly createdMs = Date.now();
  private startupDelayMs: number | null = null;
  private stallStartMs: number | null = null;
  private rebufferCount = 0;
  private rebufferMs = 0;

  constructor(private readonly video: HTMLVideoElement) {}

  /** The element's `playing` event. */
  playing(): void {
    const now = Date.now();
    if (this.startupDelayMs === null) this.startupDelayMs = now - this.createdMs;
    if (this.stallStartMs !== null) {
      this.rebufferMs += now - this.stallStartMs;
      this.stallStartMs = null;
    }
  }

  /** The element's `waiting` event. */
  waiting(): void {
    if (this.startupDelayMs === null || this.video.seeking || this.video.ended) return;
    if (this.stallStartMs === null) {
      this.stallStartMs = Date.now();
      this.rebufferCount += 1;
    }
  }

  /** The figures at `now` (epoch ms): a stall still running counts up to it. */
  figures(now = Date.now()): StallFigures {
    return {
      startupDelayMs: this.startupDelayMs,
      rebufferCount: this.rebufferCount,
      rebufferMs: this.rebufferMs + (this.stallStartMs === null ? 0 : now - this.stallStartMs),
      stallStartMs: this.stallStartMs,
    };
  }
}
