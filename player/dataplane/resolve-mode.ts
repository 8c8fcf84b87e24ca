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
import { manifestOnce, type ManifestOnce, type ManifestText } from './manifest-once';

/** What a mode check may use: the manifest's URL, the log, the request path, and the manifest fetched once for all checks. */
export interface CheckContext extends Pick<DataPlaneContext, 'manifestUrl' | 'log' | 'requests'> {
  manifest(): Promise<ManifestText>;
}

export type Availability = { ok: true; plane: DataPlane; reason: string } | { ok: false; reason: string };

/** A mode the player knows how to offer; `check` must not throw. */
export interface ModeProvider {
  mode: Exclude<DataPlaneMode, 'stock'>;
  check(ctx: CheckContext): Promise<Availability>;
}

export interface Resolution {
  plane: DataPlane;
  reason: string;
}

const PREFERENCE: DataPlaneMode[] = ['sprint', 'sprint-x', 'stock'];

export async function resolveMode(
  requested: RequestedMode,
  providers: readonly ModeProvider[],
  base: Pick<DataPlaneContext, 'manifestUrl' | 'log' | 'requests'>,
  manifest: ManifestOnce = manifestOnce(base.manifestUrl, base.requests),
): Promise<Resolution> {
  const start = requested === 'auto' ? 0 : PREFERENCE.indexOf(requested);
  const ctx: CheckContext = { manifestUrl: base.manifestUrl, log: base.log, requests: base.requests, manifest };
  // Every candidate is checked at once (a missing extension costs its wait
  // while the Sprint-x checks run, not before them); the answers are taken
  // in order of preference, and a plane a later check built but that is
  // not chosen is destroyed unused.
  const checks = PREFERENCE.slice(start)
    .filter((mode): mode is Exclude<DataPlaneMode, 'stock'> => mode !== 'stock')
    .map((mode) => {
      const provider = providers.find((p) => p.mode === mode);
      const result: Promise<Availability> = provider
        ? Promise.resolve()
            .then(() => provider.check(ctx))
            .catch((e: unknown) => ({ ok: false as const, reason: `check failed: ${(e as Error).message}` }))
        : Promise.resolve({ ok: false as const, reason: 'not available in this build' });
      return { mode, result };
    });
  const reasons: string[] = [];
  for (const [i, { mode, result }] of checks.entries()) {
    const r = await result;
    if (r.ok) {
      for (const later of checks.slice(i + 1)) {
        void later.result
          .then((x) => {
            if (x.ok) x.plane.destroy();
          })
          .catch((e: unknown) => base.log.warn(`destroying an unused ${later.mode} plane failed: ${(e as Error).message}`));
      }
      const why = reasons.length ? `${r.reason} (${reasons.join('; ')})` : r.reason;
      return { plane: r.plane, reason: why };
    }
    reasons.push(`${mode}: ${r.reason}`);
  }
  const reason = requested === 'stock' ? 'stock requested' : `fell back to stock: ${reasons.join('; ') || 'no Sprint mode available'}`;
  return { plane: new StockDataPlane(), reason };
}
