/**
 * EXT-X-SESSION-DATA ids of the demo content's HLS master playlists (hls-write.ts), shared with the
 * hls.js peer page, which reads them (no Node imports here: the page bundles this file).
 */

/** The audio rendition's nominal bitrate, bit/s: a variant's BANDWIDTH less it is its video rung's. */
export const AUDIO_BANDWIDTH_DATA_ID = 'org.sprint.audio-bandwidth';
