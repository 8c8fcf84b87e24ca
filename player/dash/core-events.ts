/**
 * dash.js 5.2.1 core events the data planes listen to that `MediaPlayer.events`
 * does not list (or lists without the payload Sprint reads). `MediaPlayer.on` subscribes to the same event bus, so they
 * are reachable by name; the names and payloads are pinned by
 * test/unit/player/dashjs-contract.test.ts.
 */
import type { MediaPlayerClass } from 'dashjs';

/** The browser refused an append for lack of buffer space (BufferController's QUOTA_EXCEEDED; the bus adds the media type). */
const QUOTA_EXCEEDED = 'quotaExceeded';

/** Calls `handler` with the media type each time an append hits the browser's buffer quota; returns the unsubscribe. */
export function onQuotaExceeded(dash: MediaPlayerClass, handler: (mediaType: string | undefined) => void): () => void {
  const listener = (e: { mediaType?: string }): void => handler(e.mediaType);
  dash.on(QUOTA_EXCEEDED as never, listener as never);
  return () => dash.off(QUOTA_EXCEEDED as never, listener as never);
}

/** FragmentModel's announcement of a request it scheduled, before loading it (`e.request`). */
export const FRAGMENT_LOADING_STARTED = 'fragmentLoadingStarted';
/** BufferController's announcement that a segment's append ended (`e.mediaType`). */
export const BYTES_APPENDED_END_FRAGMENT = 'bytesAppendedEndFragment';

/** FragmentModel's announcement that a request was aborted (`e.request`); public in MediaPlayer.events too. */
export const FRAGMENT_LOADING_ABANDONED = 'fragmentLoadingAbandoned';
/** A Stream stopped (a period ended, or dash.js resets the MediaSource after a decode error) after aborting its requests (`e.streamInfo.id`). */
export const STREAM_DEACTIVATED = 'streamDeactivated';

type CoreEvent =
  typeof FRAGMENT_LOADING_STARTED | typeof BYTES_APPENDED_END_FRAGMENT | typeof FRAGMENT_LOADING_ABANDONED | typeof STREAM_DEACTIVATED;

/** Subscribes `handler` to one of the core events above; returns the unsubscribe. */
export function onCoreEvent<E>(dash: MediaPlayerClass, event: CoreEvent, handler: (e: E) => void): () => void {
  dash.on(event as never, handler as never);
  return () => dash.off(event as never, handler as never);
}
