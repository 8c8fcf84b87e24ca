/**
 * dash.js's request time limit (`fragmentRequestTimeout`, on each request as
 * `timeout`) on the requests Sprint carries: when each request's clock
 * starts, and which have run past their limit. On one connection a response
 * cannot begin before the ones ahead of it have ended, so a request's clock
 * starts when it reaches the head of the pipeline; on parallel connections,
 * at send. Past the limit, time-limit.ts says whether it still gets to finish.
 */
import type { Entry } from './train-entry';
import { announcedLength, timeLimitVerdict } from './time-limit';

/** A request past its time limit: 'grace' lets it finish, 'expired' fails it. */
export interface PastLimit {
  readonly entry: Entry;
  readonly verdict: 'grace' | 'expired';
  readonly limitMs: number;
}

export interface ClockOptions {
  /** The transport is one connection (pipelined responses arrive one after another). */
  readonly oneConnection: boolean;
  readonly nowMs: number;
  /** The round trip in force, seconds. */
  readonly rttSec: number;
  /** When the last bytes of the responses sharing `entry`'s connection arrived, ms (0: none yet). */
  readonly wireLastByteMs: (entry: Entry) => number;
}

/**
 * The requests of `onConnection` (loading, in the order sent) past their
 * time limit now; starts the clock of each request whose clock may start.
 */
export function requestsPastLimit(onConnection: readonly Entry[], o: ClockOptions): PastLimit[] {
  const past: PastLimit[] = [];
  for (const [i, e] of onConnection.entries()) {
    if (e.state !== 'loading') continue;
    const limitMs = e.req.timeout;
    if (!(typeof limitMs === 'number' && limitMs > 0)) continue;
    if (e.clockFromMs === null) {
      if (o.oneConnection && i > 0) continue;
      e.clockFromMs = o.oneConnection ? Math.max(e.sentMs, o.wireLastByteMs(e)) : e.sentMs;
    }
    const verdict = timeLimitVerdict({
      limitMs,
      clockFromMs: e.clockFromMs,
      nowMs: o.nowMs,
      bytes: e.bytes,
      expectedBytes: e.range ? e.expectedBytes : announcedLength(e.headers),
      lastByteMs: e.lastByteMs,
      rttSec: o.rttSec,
    });
    if (verdict !== 'running') past.push({ entry: e, verdict, limitMs });
  }
  return past;
}
