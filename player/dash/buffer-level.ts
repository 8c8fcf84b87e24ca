/**
 * Seconds of media dash.js has buffered ahead of the playhead for a type
 * (the SourceBuffer's range around the current time), 0 when it cannot say
 * (before the stream is initialised dash.js throws).
 */
import type { MediaPlayerClass } from 'dashjs';

export function bufferLength(dash: MediaPlayerClass, type: 'video' | 'audio'): number {
  try {
    const v = dash.getBufferLength(type);
    return Number.isFinite(v) ? v : 0;
  } catch {
    return 0;
  }
}
