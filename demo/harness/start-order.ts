// Whether a player's media connection opened before the primer left
// (primer.ts). The primer keeps the bottleneck queue full while the run's
// flows open, so that no connection sees an emptier queue than the others.
// When it leaves, the queue dips until the remaining flows fill it again,
// and every connection open then records that dip as its lowest round trip.
// A connection that opens after the dip (a page that took long to load
// behind the queue, say) keeps a higher lowest round trip than the flows it
// competes with; cubic aims its window that much further ahead and takes
// more than its share. This names the runs where a player's connection
// opened after the primer stopped: the connection that carried most of its
// media, when it opened (its first ss sample or its first request, whichever
// came first) against when the primer stopped, and the lowest round trips of
// it and of the other flows' busiest connections, which tell whether it
// still caught the dip. The lean was measured under cubic; under another
// congestion control (BBR, which keeps the queue near empty) the warning
// says so instead of claiming it. Pure: records in, a warning out.

import { sendingInterval } from './media-split';
import type { RunRecord } from './run';
import { num } from '../testbed/jsonl';

/** The connection of one server port that carried most of something, and what ss saw of it. */
export interface BusiestConnection {
  /** The client's port (the access log's `remote`, ss's peerPort); null when the log does not say. */
  readonly clientPort: number | null;
  readonly bytes: number;
  /** Epoch seconds: its first ss sample or first logged request, whichever came first. */
  readonly openedS: number;
  /** The lowest round trip ss reported on it, ms; null without samples. */
  readonly minRttMs: number | null;
}

/** Client port of an access-log `remote` ("addr:port", IPv6 in brackets or not). */
function clientPortOf(remote: unknown): number | null {
  if (typeof remote !== 'string') return null;
  const m = /:(\d{1,5})$/.exec(remote);
  return m ? Number(m[1]) : null;
}

/** The ss samples of one connection (server port, client port). */
function samplesOf(ss: ReadonlyArray<Record<string, unknown>>, serverPort: number, clientPort: number): Array<Record<string, unknown>> {
  return ss.filter((r) => r['localPort'] === serverPort && r['peerPort'] === clientPort);
}

function lowestRtt(samples: ReadonlyArray<Record<string, unknown>>): number | null {
  const rtts = samples.map((r) => num(r['minRttMs']) ?? num(r['rttMs'])).filter((v): v is number => v !== null);
  return rtts.length > 0 ? Math.min(...rtts) : null;
}

/**
 * The connection that carried most media bytes of a player's origin log
 * (requests under /media/, grouped by the log's connection id), or null
 * when the log has none.
 */
export function busiestMediaConnection(
  log: ReadonlyArray<Record<string, unknown>>,
  ss: ReadonlyArray<Record<string, unknown>>,
  serverPort: number,
): BusiestConnection | null {
  const conns = new Map<number, { bytes: number; firstS: number; clientPort: number | null }>();
  for (const r of log) {
    const conn = num(r['conn']);
    if (conn === null) continue;
    const when = sendingInterval(r);
    const arrivalMs = num(r['arrival']);
    const c = conns.get(conn) ?? { bytes: 0, firstS: Infinity, clientPort: clientPortOf(r['remote']) };
    if (when) c.firstS = Math.min(c.firstS, when.fromS);
    if (arrivalMs !== null && r['server'] !== 'nginx') c.firstS = Math.min(c.firstS, arrivalMs / 1000);
    const url = typeof r['url'] === 'string' ? r['url'] : '';
    if (url.split('?')[0]?.includes('/media/')) c.bytes += num(r['bytes']) ?? 0;
    conns.set(conn, c);
  }
  let best: { bytes: number; firstS: number; clientPort: number | null } | null = null;
  for (const c of conns.values()) if (c.bytes > 0 && (!best || c.bytes > best.bytes)) best = c;
  if (!best) return null;
  const samples = best.clientPort === null ? [] : samplesOf(ss, serverPort, best.clientPort);
  const firstSample = samples.reduce((m, r) => Math.min(m, num(r['t']) ?? Infinity), Infinity);
  const openedS = Math.min(best.firstS, firstSample);
  if (!Number.isFinite(openedS)) return null;
  return { clientPort: best.clientPort, bytes: best.bytes, openedS, minRttMs: lowestRtt(samples) };
}

/** Per server port, the connection ss saw send the most bytes (bulk flows have no access log to go by). */
function busiestBySs(ss: ReadonlyArray<Record<string, unknown>>, serverPort: number): BusiestConnection | null {
  const conns = new Map<number, { bytes: number; openedS: number }>();
  for (const r of ss) {
    const client = num(r['peerPort']);
    const t = num(r['t']);
    if (r['localPort'] !== serverPort || client === null || t === null) continue;
    const c = conns.get(client) ?? { bytes: 0, openedS: t };
    c.bytes = Math.max(c.bytes, num(r['bytesAcked']) ?? num(r['bytesSent']) ?? 0);
    c.openedS = Math.min(c.openedS, t);
    conns.set(client, c);
  }
  let best: [number, { bytes: number; openedS: number }] | null = null;
  for (const e of conns.entries()) if (!best || e[1].bytes > best[1].bytes) best = e;
  if (!best) return null;
  return { clientPort: best[0], bytes: best[1].bytes, openedS: best[1].openedS, minRttMs: lowestRtt(samplesOf(ss, serverPort, best[0])) };
}

/**
 * One warning per player whose busiest media connection opened after the
 * primer stopped; nothing for runs without a primer, or that failed.
 */
export function lateStartWarnings(
  record: RunRecord,
  origins: Readonly<Record<string, ReadonlyArray<Record<string, unknown>>>>,
  ss: ReadonlyArray<Record<string, unknown>>,
): string[] {
  const stopS = record.times.primerStopS;
  const startS = record.times.scheduleStartS;
  if (!record.settings.primer || record.status !== 'ok' || !stopS || startS === null) return [];
  // Each flow's busiest connection, found once: players by their media in the access log, bulk flows by ss.
  const busiest = new Map(
    record.flows.map((f) => [
      f.id,
      f.role === 'player' ? busiestMediaConnection(origins[f.id] ?? [], ss, f.port) : busiestBySs(ss, f.port),
    ]),
  );
  const cc = record.settings.congestionControl;
  const why =
    cc === 'cubic'
      ? "one that opens after the queue's dip keeps a higher lowest round trip, and cubic leans it ahead"
      : `one that opens after the queue's dip keeps a higher lowest round trip; the lean that gives was measured under cubic, not under ${cc}`;
  const out: string[] = [];
  for (const f of record.flows) {
    const media = busiest.get(f.id);
    if (f.role !== 'player' || !media || media.openedS <= stopS) continue;
    const others = record.flows
      .filter((o) => o.id !== f.id)
      .map((o) => {
        const c = busiest.get(o.id);
        return c && c.minRttMs !== null ? `${o.label}'s ${Math.round(c.minRttMs)} ms` : null;
      })
      .filter((s): s is string => s !== null);
    const rtt =
      media.minRttMs === null
        ? ''
        : `; its lowest round trip was ${Math.round(media.minRttMs)} ms${others.length > 0 ? ` against ${others.join(', ')}` : ''}`;
    out.push(
      `player ${f.label} (port ${f.port}): the connection that carried most of its media opened at +${(media.openedS - startS).toFixed(1)} s, ` +
        `after the primer left at +${(stopS - startS).toFixed(1)} s${rtt} (${why})`,
    );
  }
  return out;
}
