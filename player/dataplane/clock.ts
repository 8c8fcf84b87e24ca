/**
 * The data planes' clock: wall-clock epoch milliseconds with sub-millisecond
 * resolution. Every record in `stats()` and every wire timing handed to
 * dash.js uses it, so times from different modules compare.
 */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}
