/**
 * The seam between Sprint's train scheduler and whatever carries a train's
 * requests on the wire (paper §IV-B1: "pipelines multiple video segment
 * requests together" on connections Sprint controls).
 *
 * Implementations: the extension's socket host (HTTP/1.1 pipelining on raw
 * TCP/TLS, extension-transport.ts) and, where the browser pipelines for us,
 * plain fetch (fetch-transport.ts, also the reference for tests). HTTP/2
 * streams from a plain page would be another.
 *
 * Contract:
 *  - `request` sends the GET now (no waiting for earlier responses): the
 *    scheduler decides how many are outstanding, the transport never queues
 *    on its own beyond what a connection needs.
 *  - For one origin, responses are delivered in request order; a sink gets
 *    `onHead` once, `onData` zero or more times with the wall-clock epoch
 *    milliseconds at which the bytes were read from the socket (true wire
 *    timing), then exactly one of `onEnd` or `onError`.
 *  - `onError(reason, retryable)`: `retryable` means the request was not (fully)
 *    answered because the connection went away and may be re-issued. Bytes
 *    of that response already passed to `onData` are void: the sink must
 *    discard them (a transport re-issues on its own only requests that had
 *    delivered nothing).
 *  - Bytes of responses the page may not read (cross-origin without CORS
 *    permission) are never delivered: `onError(..., false)`.
 */

export interface TrainRequest {
  /** Absolute http(s) URL. */
  url: string;
  /** Inclusive byte range, or undefined for the whole resource. */
  range?: { start: number; end: number };
  /** Headers of dash.js's load (the page's interceptors, CMCD), never Range (player/dataplane/request-path.ts). */
  headers?: Readonly<Record<string, string>>;
  /** dash.js's `xhrWithCredentials` for the load: send with the page's cookies. */
  withCredentials?: boolean;
}

export interface ResponseSink {
  onHead(status: number, headers: Readonly<Record<string, string>>, atMs: number): void;
  onData(bytes: Uint8Array, atMs: number): void;
  onEnd(atMs: number): void;
  onError(reason: string, retryable: boolean): void;
}

export interface RequestTicket {
  /** Stops delivery to the sink; the transport may have to close the connection to stop the bytes. */
  cancel(): void;
}

/** Transport-level path measurements, when the transport can read them (TCP_INFO). */
export interface PathInfo {
  /** Smoothed RTT of the connection carrying the train, seconds. */
  rttSec: number;
  minRttSec: number | null;
  /** Bytes received on that connection so far. */
  bytesReceived: number;
  atMs: number;
}

export interface TrainTransport {
  /** e.g. `extension` or `fetch`. */
  readonly name: string;
  /**
   * True when the transport's requests share one TCP connection (HTTP/1.1
   * pipelining on the extension's socket; HTTP/2 streams of the page's own
   * connection): audio then rides it too, in presentation order with the
   * video, so the player is one flow and audio never waits behind a
   * window's worth of video bytes. False or absent: the transport's
   * requests spread over connections of their own and audio stays with
   * dash.js.
   */
  readonly oneConnection?: boolean;
  /**
   * True when the transport sends a request's `headers` and `withCredentials`
   * as the page set them. False or absent: it cannot (the extension's
   * sockets carry no page headers and no cookies), and the data plane must
   * not give it a request that has any.
   */
  readonly carriesPageHeaders?: boolean;
  request(req: TrainRequest, sink: ResponseSink): RequestTicket;
  /**
   * The browser connection pool the page's RTT probes should use: the one
   * this transport's requests do not (player/estimates/rtt-prober.ts).
   * Undefined: the transport does not use the page's connections.
   */
  readonly probeCredentials?: RequestCredentials;
  /** Latest path measurement for `origin`, or null if the transport cannot measure. */
  pathInfo?(origin: string): Promise<PathInfo | null>;
  /**
   * Calls `fn` once if the transport stops being usable for good (e.g. the
   * extension or its host went away and could not be reached again);
   * returns the unsubscribe function.
   */
  onUnavailable?(fn: (reason: string) => void): () => void;
  /** Releases connections. */
  close(): void;
}
