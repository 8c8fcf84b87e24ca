/**
 * Options and mode names of the embeddable Sprint player.
 *
 * A data plane *mode* says how media bytes are fetched; it never chooses
 * bitrates (dash.js's ABR rules do, paper §IV: "no interaction between
 * Program 1 and the ABR algorithm").
 *   - `stock`    dash.js unchanged: one request per segment, one at a time.
 *   - `sprint-x` expanded HTTP Range requests of at least the chunk size (§IV-B2).
 *   - `sprint`   pipelined request trains on sockets the extension controls (§IV-B1).
 *   - `auto`     the best of these the page, the content and the browser support.
 */
import type { MediaPlayerSettingClass } from 'dashjs';

export const MODES = ['auto', 'stock', 'sprint-x', 'sprint'] as const;
export type RequestedMode = (typeof MODES)[number];
export type DataPlaneMode = Exclude<RequestedMode, 'auto'>;

export interface SprintPlayerOptions {
  /** Data plane mode; default `auto`. */
  mode?: RequestedMode;
  /**
   * ABR preset: `dash-default` (dash.js's own rules, the default), `buffer`
   * (the buffer-based rule of paper §V-A) or `bw-<percent>` (BW-x of §V-C).
   * Any other rule can be added through `beforeAttach`.
   */
  abr?: import('./abr/presets').AbrPreset;
  /**
   * How Sprint's trains travel. Default: the Sprint extension's sockets
   * (HTTP/1.1 pipelining on connections Sprint controls) when the extension
   * answers, else the page's own `fetch` when the origin speaks HTTP/2 or
   * HTTP/3 (one multiplexed connection). `extension` or `fetch` forces one
   * (`fetch` on HTTP/1.1 leaves connection mapping to the browser: tests).
   */
  sprintTransport?: 'auto' | 'extension' | 'fetch';
  /** Passed to dash.js `updateSettings` before the source is attached. */
  dashSettings?: MediaPlayerSettingClass;
  /** Start playback as soon as possible (dash.js autoplay). Default true. */
  autoPlay?: boolean;
  /** Target fraction of fair share lost at most, ε of paper §IV-A. Default 0.1. */
  epsilon?: number;
  /**
   * A fixed chunk size in bytes for Sprint's trains and Sprint-x's expanded
   * requests instead of Program 1's (for experiments such as the paper's
   * Fig. 4, or tests). Default: the model's, from the current estimates.
   */
  chunkBytes?: number;
  /**
   * Sprint: enforce the minimum train each time downloading resumes, even
   * past dash.js's buffer target (paper §IV-B1). `false` gives "Sprint
   * without the minimum pipeline train" of the paper's Fig. 11. Default true.
   */
  minimumTrain?: boolean;
  /**
   * Sprint: how many fair BDPs of response bytes the outstanding requests
   * cover beyond the response arriving (paper §IV-B1 asks for at least one;
   * src/model/outstanding-window.ts says why one leaves the server idle
   * behind deep queues). From 1 to 8; default 2. Larger commits the ABR
   * rule further ahead (each outstanding request has its bitrate fixed).
   */
  sprintWindowBdps?: number;
  /**
   * Sprint: where audio segments travel when the trains share one
   * connection (the extension's sockets; fetch over HTTP/2 or HTTP/3).
   * `train` (default): with the trains, in presentation order with the
   * video (a video request waits while the video asked for is a segment
   * ahead of the audio asked for), so the player is one flow and audio
   * never waits behind a window of video bytes; `own`: dash.js loads audio
   * itself (with the extension, on a connection of its own: two flows; over
   * HTTP/2, on the shared connection, where it can fall behind the video).
   */
  sprintAudio?: 'train' | 'own';
  /**
   * Sprint-x: what an ABR bitrate switch does to the expanded request in
   * flight. `after-chunk` (default): the switch waits until the request has
   * delivered its chunk (and the old representation's segments already
   * downloaded are handed over), unless the video buffer is below the safety
   * level; `immediate`: the paper's policy, cancel at once. Switches you make
   * yourself (dash.js `setRepresentationForType*` with automatic switching
   * off) and switches dash.js forces are never held.
   */
  sprintxSwitch?: 'after-chunk' | 'immediate';
  /** Sprint-x: never hold a switch with less than this much video buffered, seconds. Default: two segments' duration. */
  sprintxSafetySec?: number;
  /**
   * Sprint-x: the most media time one expanded request covers, seconds
   * (default 60). At a low rung the model's chunk can span the whole file,
   * and with `after-chunk` the bitrate changes only between expanded
   * requests; consecutive requests reuse the connection, so a shorter range
   * costs one round trip, not a slow start.
   */
  sprintxMaxRangeSec?: number;
  /**
   * Sprint-x: the media time one expanded **audio** request covers, seconds
   * (default 0: audio is left to dash.js, one request per segment). Audio
   * has one rung, so its requests are never cancelled by a switch; a few
   * segments per request spare the audio connection a round trip (and, after
   * an idle period, a slow start) per segment. Not sized by the chunk model:
   * audio's few percent of the bytes must not come down ahead of the video.
   */
  sprintxAudioSec?: number;
  /**
   * Where the RTT of the chunk-size model comes from (paper §IV-A).
   * `every-second` (default, the paper's): a one-byte Range probe each
   * second. `when-quiet`: the first byte of media requests sent on an idle
   * connection, and a probe only at start-up and after 60 s without such a
   * sample (a CDN bills and logs every probe: docs/cdn.md). The two measure
   * different things: a probe sent while media flows sees the queue the
   * media builds; an idle request sees none, so the chunks come out smaller.
   */
  rttProbes?: 'every-second' | 'when-quiet';
  /** Log data-plane decisions (mode, fallbacks, cancellations) to the console. Default true. */
  log?: boolean;
  /**
   * Called with the dash.js MediaPlayer after it is created and before the
   * source is attached: the place to register ABR rules
   * (`player.addABRCustomRule`) or `extend` hooks of your own.
   */
  beforeAttach?: (dashPlayer: import('dashjs').MediaPlayerClass) => void;
}

export function parseMode(value: unknown): RequestedMode {
  if (value === undefined || value === null || value === '') return 'auto';
  if (typeof value === 'string' && (MODES as readonly string[]).includes(value)) {
    return value as RequestedMode;
  }
  throw new RangeError(`Sprint: unknown mode ${JSON.stringify(value)}; expected one of ${MODES.join(', ')}`);
}
