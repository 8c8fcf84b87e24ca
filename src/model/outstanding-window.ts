// The outstanding window of a Sprint train. Paper §IV-B1 (Sprint: pipelined
// requests): the requests of a train are pipelined incrementally, keeping only
// a few *outstanding* so the ABR rule can still change the bitrate of the rest.
// "We set this number to generate a response of at least BDP bytes (but
// enforce a minimum of 2 to avoid sequential downloads)."
//
// The window counts bytes, not requests (`mayIssueRequest`): a new request
// may be issued while fewer than 2 are outstanding, or while the bytes the
// outstanding requests have yet to deliver are fewer than the window's bytes
// plus the size of the response now arriving, so the next request reaches the
// server before the bytes ahead of it run out, whatever the segment size.
// `outstandingRequests` (how many segments of a given size cover a window's
// bytes) remains for the model CLI (src/cli/model.ts).
//
// The window's bytes are `windowBdps` fair BDPs (`windowBytes`), 2 by
// default where the paper asks for at least one: behind a deep drop-tail
// queue TCP's bytes in flight swing above the flow's average share, and with
// one BDP the server's send queue was measured to run dry, which stops cubic
// growing its window. Why, as measured: docs/design/01-trains-and-window.md.
//
// Pure functions, sizes in bytes.

import { requireInteger, requireNonNegative, requirePositive } from './validate';

/** §IV-B1: never fewer than 2 outstanding requests (1 would be sequential downloading). */
export const MIN_OUTSTANDING_REQUESTS = 2;

/**
 * Default upper bound on the outstanding window. Every outstanding request has
 * its bitrate fixed, so the window is also how far ahead the ABR rule is
 * committed; and segment-size estimates can be tiny (lowest rung, short
 * segments) next to a large BDP. 32 requests is far above what the paper's
 * conditions need (one or two 4-second segments already exceed the fair BDP
 * when the RTT is under a few seconds) and still a bounded commitment. When
 * the cap binds, the window no longer covers its bytes and the server may idle
 * between responses; raise the cap if that matters.
 */
export const DEFAULT_MAX_OUTSTANDING_REQUESTS = 32;

/** Default size of the byte window in fair BDPs (see the header: one is the paper's minimum, and too tight). */
export const DEFAULT_WINDOW_BDPS = 2;

/** Largest `windowBdps` accepted: beyond it the window is a buffer policy, not a margin. */
export const MAX_WINDOW_BDPS = 8;

/**
 * The byte window (beyond the response arriving) for `mayIssueRequest`:
 * `windowBdps` fair BDPs.
 *
 * @param fairBdpBytes fair-share bandwidth × RTT, bytes (> 0).
 * @param windowBdps fair BDPs the window covers, in [1, MAX_WINDOW_BDPS]; default 2.
 * @throws RangeError for a non-positive BDP or a multiple outside [1, MAX_WINDOW_BDPS].
 */
export function windowBytes(fairBdpBytes: number, windowBdps: number = DEFAULT_WINDOW_BDPS): number {
  requirePositive('fairBdpBytes', fairBdpBytes);
  requireWindowBdps(windowBdps);
  return fairBdpBytes * windowBdps;
}

/** Is `v` a valid `windowBdps`: a number in [1, MAX_WINDOW_BDPS]? (The player's options and the model CLI check with it too.) */
export function isWindowBdps(v: unknown): v is number {
  return typeof v === 'number' && v >= 1 && v <= MAX_WINDOW_BDPS;
}

/** Throws a RangeError unless `windowBdps` is a finite number in [1, MAX_WINDOW_BDPS]. */
export function requireWindowBdps(windowBdps: number): void {
  if (!isWindowBdps(windowBdps)) {
    throw new RangeError(`windowBdps must be a number of fair BDPs in [1, ${MAX_WINDOW_BDPS}], got ${String(windowBdps)}`);
  }
}

/**
 * Number of requests to keep outstanding so that their responses add up to at
 * least `coverBytes` (one fair BDP in the paper's words, `windowBytes` in the
 * player's), clamped to [2, maxRequests].
 *
 * @param coverBytes bytes the responses must cover (> 0).
 * @param expectedSegmentBytes either one typical segment size in bytes, or the
 *   sizes in bytes of the next segments of the train, in request order; the
 *   count is then how many of them, taken in order, reach `coverBytes`. If
 *   the list runs out before reaching it, the remaining bytes are assumed to
 *   come in segments of the list's average size.
 * @param maxRequests upper bound (integer >= 2), default 32; see
 *   DEFAULT_MAX_OUTSTANDING_REQUESTS.
 * @throws RangeError for a non-positive or non-finite size, an empty list, or a cap below 2.
 */
export function outstandingRequests(
  coverBytes: number,
  expectedSegmentBytes: number | readonly number[],
  maxRequests: number = DEFAULT_MAX_OUTSTANDING_REQUESTS,
): number {
  requirePositive('coverBytes', coverBytes);
  requireInteger('maxRequests', maxRequests, MIN_OUTSTANDING_REQUESTS);

  let needed: number;
  if (typeof expectedSegmentBytes === 'number') {
    requirePositive('expectedSegmentBytes', expectedSegmentBytes);
    needed = Math.ceil(coverBytes / expectedSegmentBytes);
  } else {
    if (!Array.isArray(expectedSegmentBytes) || expectedSegmentBytes.length === 0) {
      throw new RangeError('expectedSegmentBytes must be a number or a non-empty list of sizes');
    }
    expectedSegmentBytes.forEach((size, i) => requirePositive(`expectedSegmentBytes[${i}]`, size));
    needed = 0;
    let covered = 0;
    for (const size of expectedSegmentBytes) {
      if (covered >= coverBytes) break;
      covered += size;
      needed += 1;
    }
    if (covered < coverBytes) {
      const total = expectedSegmentBytes.reduce((a, b) => a + b, 0);
      const average = total / expectedSegmentBytes.length;
      needed += Math.ceil((coverBytes - covered) / average);
    }
  }
  return Math.min(maxRequests, Math.max(MIN_OUTSTANDING_REQUESTS, needed));
}

/** One outstanding request as the byte window sees it. */
export interface OutstandingRequest {
  /** The response's expected size, bytes (its range, or bitrate × duration). */
  readonly expectedBytes: number;
  /** Bytes of the response received so far. */
  readonly receivedBytes: number;
}

/** The outstanding requests summed up for `mayIssueRequest`. */
export interface OutstandingBytes {
  /** Requests issued and not yet completed. */
  readonly requests: number;
  /** Bytes those requests have yet to deliver (each at least 0). */
  readonly unreceivedBytes: number;
  /**
   * Expected size of the response currently arriving: the oldest outstanding
   * request with bytes received; 0 while none is arriving.
   */
  readonly arrivingBytes: number;
}

/** Sums up outstanding requests, oldest first (request order). */
export function outstandingBytes(requests: readonly OutstandingRequest[]): OutstandingBytes {
  let unreceived = 0;
  let arriving = 0;
  let found = false;
  requests.forEach((r, i) => {
    requireNonNegative(`requests[${i}].expectedBytes`, r.expectedBytes);
    requireNonNegative(`requests[${i}].receivedBytes`, r.receivedBytes);
    unreceived += Math.max(0, r.expectedBytes - r.receivedBytes);
    if (!found && r.receivedBytes > 0) {
      found = true;
      arriving = Math.max(r.expectedBytes, r.receivedBytes);
    }
  });
  return { requests: requests.length, unreceivedBytes: unreceived, arrivingBytes: arriving };
}

/**
 * May one more request be issued (§IV-B1, counted in bytes)? Yes while fewer
 * than 2 are outstanding (never sequential), else while the outstanding
 * requests' unreceived bytes are below the window's bytes plus the size of
 * the response arriving; never with `maxRequests` outstanding.
 *
 * @param windowBytesValue the window beyond the response arriving, bytes (> 0):
 *   `windowBytes(fairBdp)`, two fair BDPs by default.
 * @param maxRequests hard cap on outstanding requests (integer >= 2), default 32;
 *   see DEFAULT_MAX_OUTSTANDING_REQUESTS.
 * @throws RangeError for a non-positive window, a cap below 2 or negative byte counts.
 */
export function mayIssueRequest(
  outstanding: OutstandingBytes,
  windowBytesValue: number,
  maxRequests: number = DEFAULT_MAX_OUTSTANDING_REQUESTS,
): boolean {
  requirePositive('windowBytes', windowBytesValue);
  requireInteger('maxRequests', maxRequests, MIN_OUTSTANDING_REQUESTS);
  const { requests, unreceivedBytes, arrivingBytes } = outstanding;
  requireInteger('outstanding.requests', requests, 0);
  requireNonNegative('outstanding.unreceivedBytes', unreceivedBytes);
  requireNonNegative('outstanding.arrivingBytes', arrivingBytes);
  if (requests >= maxRequests) return false;
  if (requests < MIN_OUTSTANDING_REQUESTS) return true;
  return unreceivedBytes < windowBytesValue + arrivingBytes;
}
