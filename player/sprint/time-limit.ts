// A request's time limit in Sprint's trains (dash.js's
// `fragmentRequestTimeout`, which dash.js leaves to its loader): past the
// limit a request fails as timed out, unless its response is still arriving
// and its remaining bytes, at the rate they have come so far, would be in
// sooner than a new request could bring anything. Pure; the data plane
// (sprint-data-plane.ts) asks it on every check.
//
// Why: a timeout fails the request back to dash.js and the segment rescue
// (player/abr/rescue.ts) asks for it again lower. On the extension's one
// HTTP/1.1 connection that also costs the connection (a pipelined response
// cannot be cancelled in place), and the request asked again waits for a new
// handshake and a new slow start behind the same queue. Measured on the
// testbed at 1.5 Mbit/s × 512 KB (a 2.8 s queue): the first segment of a
// train on a new connection timed out with 166,095 of its 168,356 bytes in;
// the connection was closed and the next one opened 10 s later.
//
// A response that gets nothing, or whose length is unknown, fails at the
// limit; one that stops arriving during its grace fails once it has been
// silent for as long as a new request would take; and the grace is bounded,
// so a train never waits on a response for good.

/** The least a new request is taken to need to bring its first byte, ms (loopback and short paths). */
export const ASK_AGAIN_FLOOR_MS = 1000;
/** Round trips a new request needs before its first byte: a new connection's handshake, then the request. */
export const ASK_AGAIN_ROUND_TRIPS = 2;
/** The grace ends at the latest this many ask-again times past the limit. */
export const GRACE_ASK_AGAIN_TIMES = 2;

export interface TimeLimitState {
  /** The time limit, ms. */
  readonly limitMs: number;
  /** When the request's clock started, ms (at send, or when the responses ahead of it on its connection had ended). */
  readonly clockFromMs: number;
  readonly nowMs: number;
  /** Body bytes received so far. */
  readonly bytes: number;
  /** The body's length, when the request's range or the response's Content-Length gives it. */
  readonly expectedBytes: number | null;
  /** When the last bytes arrived, ms; null before the first. */
  readonly lastByteMs: number | null;
  /** The round trip in force, seconds. */
  readonly rttSec: number;
}

/** 'running': within the limit; 'grace': past it, but let it finish; 'expired': fail it as timed out. */
export type TimeLimitVerdict = 'running' | 'grace' | 'expired';

/** How long a request asked again would take to bring its first byte, ms. */
export function askAgainMs(rttSec: number): number {
  return Math.max(ASK_AGAIN_FLOOR_MS, ASK_AGAIN_ROUND_TRIPS * rttSec * 1000);
}

export function timeLimitVerdict(s: TimeLimitState): TimeLimitVerdict {
  const elapsed = s.nowMs - s.clockFromMs;
  if (elapsed <= s.limitMs) return 'running';
  const again = askAgainMs(s.rttSec);
  if (elapsed > s.limitMs + GRACE_ASK_AGAIN_TIMES * again) return 'expired';
  // Still arriving: bytes came within the time a new request would need.
  if (s.lastByteMs === null || s.nowMs - s.lastByteMs > again) return 'expired';
  if (s.expectedBytes === null || !(s.bytes > 0)) return 'expired';
  const remaining = s.expectedBytes - s.bytes;
  if (remaining <= 0) return 'grace';
  // At the rate over the whole clock (the slowest reading of it).
  const remainingMs = (remaining * elapsed) / s.bytes;
  return remainingMs <= again ? 'grace' : 'expired';
}

/** The body length a response head announces (`content-length`, names lower-cased as the transports give them), or null. */
export function announcedLength(headers: Readonly<Record<string, string>>): number | null {
  const v = headers['content-length']?.trim();
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : null;
}
