// The outstanding window of a Sprint train. Paper §IV-B1 (Sprint: pipelined
// requests): the requests of a train are pipelined incrementally, keeping only
// a few *outstanding* so the ABR rule can still change the bitrate of the rest.
// "We set this number to generate a response of at least BDP bytes (but
// enforce a minimum of 2 to avoid sequential downloads)."
//
// Pure function, sizes in bytes.

import { requireInteger, requirePositive } from './validate';

/** §IV-B1: never fewer than 2 outstanding requests (1 would be sequential downloading). */
export const MIN_OUTSTANDING_REQUESTS = 2;

/**
 * Default upper bound on the outstanding window. Every outstanding request has
 * its bitrate fixed, so the window is also how far ahead the ABR rule is
 * committed; and segment-size estimates can be tiny (lowest rung, short
 * segments) next to a large BDP. 32 requests is far above what the paper's
 * conditions need (one or two 4-second segments already exceed the fair BDP
 * when the RTT is under a few seconds) and still a bounded commitment. When
 * the cap binds, the window no longer covers one BDP and the server may idle
 * between responses; raise the cap if that matters.
 */
export const DEFAULT_MAX_OUTSTANDING_REQUESTS = 32;

/**
 * Number of requests to keep outstanding so that their responses add up to at
 * least one fair BDP of bytes, clamped to [2, maxRequests].
 *
 * @param fairBdpBytes fair-share bandwidth × RTT, bytes (> 0).
 * @param expectedSegmentBytes either one typical segment size in bytes, or the
 *   sizes in bytes of the next segments of the train, in request order; the
 *   count is then how many of them, taken in order, reach the BDP. If the list
 *   runs out before reaching it, the remaining bytes are assumed to come in
 *   segments of the list's average size.
 * @param maxRequests upper bound (integer >= 2), default 32; see
 *   DEFAULT_MAX_OUTSTANDING_REQUESTS.
 * @throws RangeError for a non-positive or non-finite BDP or segment size, an
 *   empty list, or a cap below 2.
 */
export function outstandingRequests(
  fairBdpBytes: number,
  expectedSegmentBytes: number | readonly number[],
  maxRequests: number = DEFAULT_MAX_OUTSTANDING_REQUESTS,
): number {
  requirePositive('fairBdpBytes', fairBdpBytes);
  requireInteger('maxRequests', maxRequests, MIN_OUTSTANDING_REQUESTS);

  let needed: number;
  if (typeof expectedSegmentBytes === 'number') {
    requirePositive('expectedSegmentBytes', expectedSegmentBytes);
    needed = Math.ceil(fairBdpBytes / expectedSegmentBytes);
  } else {
    if (!Array.isArray(expectedSegmentBytes) || expectedSegmentBytes.length === 0) {
      throw new RangeError('expectedSegmentBytes must be a number or a non-empty list of sizes');
    }
    expectedSegmentBytes.forEach((size, i) => requirePositive(`expectedSegmentBytes[${i}]`, size));
    needed = 0;
    let covered = 0;
    for (const size of expectedSegmentBytes) {
      if (covered >= fairBdpBytes) break;
      covered += size;
      needed += 1;
    }
    if (covered < fairBdpBytes) {
      const total = expectedSegmentBytes.reduce((a, b) => a + b, 0);
      const average = total / expectedSegmentBytes.length;
      needed += Math.ceil((fairBdpBytes - covered) / average);
    }
  }
  return Math.min(maxRequests, Math.max(MIN_OUTSTANDING_REQUESTS, needed));
}
