// What the harness reads from a player page once a second: the expression
// evaluated in the page (`window.sprintPlayer.stats()`, player/stats/types.ts)
// and the shape of its answer. Only what is new since the last poll comes
// back for the long logs (segments, transfers that have ended, trains that
// have ended); the playback state, estimates and counters come back whole.
// Kept as source text because the harness is compiled without DOM types.

import type { Counters } from '../../player/stats/counters';
import type { EstimateStats, PlaybackStats } from '../../player/stats/types';

/**
 * A segment, transfer or train record as the player reports it
 * (player/stats/types.ts). Read loosely: logs written by older players lack
 * fields a newer one has, and player-summary.ts reads what is there.
 */
export type PlayerRecord = Record<string, unknown>;

export interface ProbeResult {
  /** False until the page has created `window.sprintPlayer`. */
  readonly ready: boolean;
  readonly visibility: string;
  readonly requestedMode?: string;
  readonly mode?: string | null;
  readonly modeReason?: string;
  /** The player's playback state (older logs may lack `stallStartMs` and `errorCount`). */
  readonly playback?: Readonly<Omit<PlaybackStats, 'stallStartMs' | 'errorCount'>> &
    Partial<Pick<PlaybackStats, 'stallStartMs' | 'errorCount'>>;
  readonly estimates?: Readonly<EstimateStats>;
  readonly counters?: Readonly<Counters>;
  /** Segments that could not arrive and the lower rung each was asked again at (player/abr/rescue.ts), all so far. */
  readonly rescues?: readonly PlayerRecord[];
  readonly droppedRecords?: number;
  /** Transfers still in progress. */
  readonly openTransfers?: number;
  /** Those transfers' records as they stand (reported once more when the player closes). */
  readonly openList?: readonly PlayerRecord[];
  /** Sprint trains still in progress, as they stand. */
  readonly openTrains?: readonly PlayerRecord[];
  readonly segments?: readonly PlayerRecord[];
  readonly transfers?: readonly PlayerRecord[];
  readonly trains?: readonly PlayerRecord[];
}

/** Evaluated in the page; remembers what it already returned in `window.__sprintAbProbe`. */
export const PROBE_EXPRESSION = `(() => {
  const w = window;
  const seen = w.__sprintAbProbe || (w.__sprintAbProbe = { segments: new Set(), transfers: new Set(), trains: new Set() });
  const p = w.sprintPlayer;
  if (!p || typeof p.stats !== 'function') return { ready: false, visibility: document.visibilityState };
  const s = p.stats();
  const fresh = (list, set, key, done) => {
    const out = [];
    for (const r of list || []) {
      if (!done(r)) continue;
      const k = key(r);
      if (set.has(k)) continue;
      set.add(k);
      out.push(r);
    }
    return out;
  };
  const segments = fresh(s.segments, seen.segments, (r) => [r.requestMs, r.mediaType, r.url, r.range, r.index, r.status].join('|'), () => true);
  const transfers = fresh(s.transfers, seen.transfers, (r) => r.id, (r) => r.endMs != null);
  const trains = fresh(s.trains, seen.trains, (r) => r.id, (r) => r.endMs != null);
  return {
    ready: true,
    visibility: document.visibilityState,
    requestedMode: s.requestedMode,
    mode: s.mode,
    modeReason: s.modeReason,
    playback: s.playback,
    estimates: s.estimates,
    counters: s.counters,
    rescues: s.rescues || [],
    droppedRecords: s.droppedRecords,
    openTransfers: (s.transfers || []).filter((t) => t.endMs == null).length,
    openList: (s.transfers || []).filter((t) => t.endMs == null),
    openTrains: (s.trains || []).filter((t) => t.endMs == null),
    segments,
    transfers,
    trains,
  };
})()`;
