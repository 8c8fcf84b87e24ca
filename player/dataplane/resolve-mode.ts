/**
 * Chooses the data plane for a player: the requested mode if the page, the
 * content and the browser support it, else the next best, down to `stock`,
 * which always works. Every fallback carries a human-readable reason that
 * ends up in `stats().modeReason`, the overlay and the console: playback never
 * fails because a Sprint mode is unavailable.
 *
 * Order of preference: sprint (extension trains, §IV-B1) → sprint-x
 * (expanded ranges, §IV-B2) → stock.
 */
import type { DataPlaneMode, RequestedMode } from '../options';
import type { DataPlane, DataPlaneContext } from './data-plane';
import { StockDataPlane } from './stock';

export type Availability = { ok: true; plane: DataPlane; reason: string } | { ok: false; reason: string };

/** A mode the player knows how to offer; `check` must not throw. */
export interface ModeProvider {
  mode: Exclude<DataPlaneMode, 'stock'>;
  check(ctx: Pick<DataPlaneContext, 'manifestUrl' | 'log'>): Promise<Availability>;
}

export interface Resolution {
  plane: DataPlane;
  reason: string;
}

const PREFERENCE: DataPlaneMode[] = ['sprint', 'sprint-x', 'stock'];

export async function resolveMode(
  requested: RequestedMode,
  providers: readonly ModeProvider[],
  ctx: Pick<DataPlaneContext, 'manifestUrl' | 'log'>,
): Promise<Resolution> {
  const start = requested === 'auto' ? 0 : PREFERENCE.indexOf(requested);
  const reasons: string[] = [];
  for (const mode of PREFERENCE.slice(start)) {
    if (mode === 'stock') break;
    const provider = providers.find((p) => p.mode === mode);
    if (!provider) {
      reasons.push(`${mode}: not available in this build`);
      continue;
    }
    let result: Availability;
    try {
      result = await provider.check(ctx);
    } catch (e) {
      result = { ok: false, reason: `check failed: ${(e as Error).message}` };
    }
    if (result.ok) {
      const why = reasons.length ? `${result.reason} (${reasons.join('; ')})` : result.reason;
      return { plane: result.plane, reason: why };
    }
    reasons.push(`${mode}: ${result.reason}`);
  }
  const reason =
    requested === 'stock' ? 'stock requested' : `fell back to stock: ${reasons.join('; ') || 'no Sprint mode available'}`;
  return { plane: new StockDataPlane(), reason };
}
