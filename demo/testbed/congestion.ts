// Verification that the server really runs the requested TCP congestion
// control: the per-route `congctl` setting (topology.ts) only shows on live
// connections, so this reads `ss -ti` samples of the server's established
// connections and checks the cc each one reports. testbed.md: "Always verify
// with `ss -ti` (cc field)". Pure function over parsed samples.

import { SsSample } from './ss-parse';

export interface CongestionCheck {
  /** The congestion control asked for. */
  readonly expected: string;
  /** True when at least one connection was seen and every one runs `expected`. */
  readonly ok: boolean;
  /** Connections looked at (server side, filtered by port when ports were given). */
  readonly connections: number;
  /** Count of connections per congestion control name ("unknown" when ss printed none). */
  readonly seen: Readonly<Record<string, number>>;
  /** Human-readable verdict. */
  readonly detail: string;
}

/** Checks the congestion control of server-side connections (localPort in serverPorts, when given). */
export function checkCongestionControl(samples: readonly SsSample[], expected: string, serverPorts?: readonly number[]): CongestionCheck {
  const ports = serverPorts && serverPorts.length > 0 ? new Set(serverPorts) : null;
  const chosen = samples.filter((s) => ports === null || ports.has(s.localPort));
  const seen: Record<string, number> = {};
  for (const s of chosen) {
    const key = s.cc ?? 'unknown';
    seen[key] = (seen[key] ?? 0) + 1;
  }
  const ok = chosen.length > 0 && chosen.every((s) => s.cc === expected);
  const list = Object.entries(seen)
    .map(([k, v]) => `${k}×${v}`)
    .join(', ');
  const where = ports ? ` on server ports ${[...ports].join(',')}` : '';
  const detail =
    chosen.length === 0
      ? `no established connections${where}: congestion control cannot be verified`
      : ok
        ? `all ${chosen.length} connections${where} run ${expected}`
        : `expected ${expected}${where}, ss shows ${list}`;
  return { expected, ok, connections: chosen.length, seen, detail };
}
