// Sprint's trains (paper §IV-B1) in one run, for the report: how many, how
// many of their requests the player issued while an earlier one was still
// arriving (its outstanding window never emptied), how many reached the
// origin before the response ahead had been written (a lower bound: socket
// buffers hide the rest), the idle time inside each train at the origin, and
// the gaps inside each train on the wire itself (the run's capture).
// The same measures as `sprint wire` (wire-log.ts), over the whole run.

import {
  mediaTypesOf,
  plannedTransfers,
  playerTransfers,
  PortBins,
  TRAIN_IDLE_FLAG_SHARE,
  trainsOnWire,
  WireRequest,
  wireRequestOf,
} from './wire-log';

export interface TrainFigures {
  readonly trains: number;
  /** Requests after each train's first in the player's log, and those issued while an earlier one was arriving. */
  readonly playerFollowing: number;
  readonly issuedWhileArriving: number;
  /** Requests after each train's first at the origin, and those that arrived before the response ahead was written. */
  readonly originFollowing: number;
  readonly originPipelined: number;
  /** The largest idle share of a train's time at the origin (null: no train had requests). */
  readonly idleShareMax: number | null;
  /** The largest share of a train's time in gaps on the wire (wire-log.ts wireGapsMs; null: no capture or no train had requests). */
  readonly wireGapShareMax?: number | null;
  /** Trains idle over TRAIN_IDLE_FLAG_SHARE of their time: by the wire's gaps where captured, else at the origin. */
  readonly idleFlagged: number;
}

/**
 * Figures for one player's trains from its origin's access log and its own
 * log (parsed lines); null when the player ran no train (stock, Sprint-x).
 */
export function trainFigures(
  originLog: readonly Record<string, unknown>[],
  playerLog: readonly Record<string, unknown>[],
  wire: PortBins | null = null,
): TrainFigures | null {
  const planned = plannedTransfers(playerLog).filter((p) => p.request === null);
  if (planned.length === 0) return null;
  const requests = originLog.map(wireRequestOf).filter((r): r is WireRequest => r !== null);
  if (requests.length === 0) return null;
  const lastEnd = Math.max(...requests.map((r) => r.endMs));
  const trains = trainsOnWire(requests, planned, mediaTypesOf(playerLog), lastEnd, playerTransfers(playerLog), wire);
  const shares = trains.flatMap((w) => (w.idleShare === null ? [] : [w.idleShare]));
  const gaps = trains.flatMap((w) => (w.wireGapShare === null ? [] : [w.wireGapShare]));
  return {
    trains: trains.length,
    playerFollowing: trains.reduce((s, w) => s + Math.max(0, (w.playerRequests ?? 0) - 1), 0),
    issuedWhileArriving: trains.reduce((s, w) => s + (w.playerPipelined ?? 0), 0),
    originFollowing: trains.reduce((s, w) => s + Math.max(0, w.requests - 1), 0),
    originPipelined: trains.reduce((s, w) => s + w.pipelined, 0),
    idleShareMax: shares.length > 0 ? Math.max(...shares) : null,
    ...(wire ? { wireGapShareMax: gaps.length > 0 ? Math.max(...gaps) : null } : {}),
    idleFlagged: (wire ? gaps : shares).filter((x) => x > TRAIN_IDLE_FLAG_SHARE).length,
  };
}

/**
 * "2 trains: 106/106 issued while arriving, 99/109 at the origin, idle ≤ 2.2 %" (", 1 idle over 5 %"); with the
 * run's capture "…, idle at the origin ≤ 14.3 %, wire gaps ≤ 0.4 %" (", 1 with wire gaps over 5 %").
 */
export function trainLabel(t: TrainFigures): string {
  const wire = t.wireGapShareMax !== undefined;
  return (
    `${t.trains} train${t.trains === 1 ? '' : 's'}: ${t.issuedWhileArriving}/${t.playerFollowing} issued while arriving, ` +
    `${t.originPipelined}/${t.originFollowing} at the origin` +
    (t.idleShareMax === null ? '' : `, idle${wire ? ' at the origin' : ''} ≤ ${(100 * t.idleShareMax).toFixed(1)} %`) +
    (t.wireGapShareMax === undefined || t.wireGapShareMax === null ? '' : `, wire gaps ≤ ${(100 * t.wireGapShareMax).toFixed(1)} %`) +
    (t.idleFlagged > 0 ? `, ${t.idleFlagged} ${wire ? 'with wire gaps' : 'idle'} over ${100 * TRAIN_IDLE_FLAG_SHARE} %` : '')
  );
}
