/**
 * A Sprint data plane giving up for the rest of the session: dash.js loads
 * on its own from then on, and the page sees why (`stats().mode` becomes
 * `stock` with the reason, a counter, a warning). Both Sprint modes fall
 * back the same way.
 */
import type { DataPlaneContext } from './data-plane';

export function announceFallback(ctx: DataPlaneContext, from: 'sprint' | 'sprint-x', reason: string): void {
  ctx.stats.fallBack(from, reason);
  ctx.stats.count(`${from === 'sprint' ? 'sprint' : 'sprintx'}.fallbacks`);
  ctx.log.warn(`falling back to stock loading: ${reason}`);
}
