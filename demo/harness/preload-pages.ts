// `sprint ab --preload-pages`: the player pages load on the idle link before a
// run's primer fills the queue, and none of the connections they used is left
// for the players (a connection that opened on the idle link would start with
// a cwnd and RTT no connection behind a full queue has). Behind the deep
// queues of the paper's grid (§V-A, Fig. 6: 1536 KB at 1.5 Mbit/s is 8.4 s)
// a page could not otherwise load its 268 KB bundle at all.
//
// Steps: every player page is opened held (`hold=1`, demo/page/demo.ts waits
// for `window.sprintRelease`, player-session.ts); once all are loaded each
// player's origin gets SIGUSR2 and closes every connection open at that
// moment once it has answered what it had read (demo/server/cli.ts); a second
// later `ss` counts the connections still established on the players' ports,
// and if any is left the origins are asked once more. run.ts releases each
// page at its scheduled video start.

import type { Testbed } from '../testbed/topology';
import { establishedConnections } from '../testbed/ss-sampler';
import type { NamespaceBrowser } from './browser';
import { PlayerSession, PlayerSessionOptions } from './player-session';
import { sleepUntil } from './sleep-until';

/** How long to wait after asking the origins to close the pages' connections (the FINs cross the idle link in well under a second). */
export const PRELOAD_SETTLE_MS = 1000;
/** How many times the origins are asked: a request the page sent late may have opened a connection after the first signal. */
export const PRELOAD_CLOSE_ATTEMPTS = 2;

/** What run.json records (times.*): epoch seconds, and the connections `ss` still saw after the last request to close. */
export interface PreloadTimes {
  pagesPreloadedS: number | null;
  pageCloseRequestedS: number | null;
  pageConnectionsLeft: number | null;
}

export interface PreloadPlayer {
  /** The flow's id (run.ts releases the page under it). */
  readonly id: string;
  /** The player's origin process, by pid (sent SIGUSR2). */
  readonly originPid: number;
  /** The session to open held; its `port` is the player's origin port. */
  readonly session: PlayerSessionOptions;
}

export interface PreloadOptions {
  readonly browser: NamespaceBrowser;
  readonly testbed: Testbed;
  readonly players: readonly PreloadPlayer[];
  /** Filled in as the steps happen, so a run that fails part-way still records how far it came. */
  readonly times: PreloadTimes;
  /** Called with each held session as soon as it exists (run.ts keeps it and closes it on teardown). */
  readonly onHeld: (id: string, session: PlayerSession) => void;
  readonly signal?: AbortSignal;
  readonly log?: (line: string) => void;
}

/**
 * Preloads every player page and has their origins close the pages'
 * connections. Resolves with a warning for run.json when a connection was
 * still established after the last request (null when none was); rejects
 * when a page does not load or an origin cannot be signalled.
 */
export async function preloadPages(options: PreloadOptions): Promise<string | null> {
  const { browser, testbed, players, times } = options;
  for (const p of players) options.onHeld(p.id, await PlayerSession.preload(browser, p.session));
  times.pagesPreloadedS = Date.now() / 1000;
  const ports = new Set(players.map((p) => p.session.port));
  for (let attempt = 0; attempt < PRELOAD_CLOSE_ATTEMPTS; attempt += 1) {
    for (const p of players) {
      try {
        process.kill(p.originPid, 'SIGUSR2');
      } catch (err) {
        throw new Error(
          `--preload-pages: cannot signal the origin of port ${p.session.port} (pid ${p.originPid}): ${(err as Error).message}`,
        );
      }
    }
    times.pageCloseRequestedS = Date.now() / 1000;
    // The FINs cross the idle link in well under a second; the browser drops those sockets from its pool.
    await sleepUntil(Date.now() + PRELOAD_SETTLE_MS, options.signal);
    times.pageConnectionsLeft = (await establishedConnections(testbed, ports, Date.now() / 1000)).length;
    if (times.pageConnectionsLeft === 0) break;
  }
  options.log?.(
    `${players.length} player page(s) preloaded; their origins closed the pages' connections (${times.pageConnectionsLeft} still established)`,
  );
  return times.pageConnectionsLeft === 0
    ? null
    : `--preload-pages: ${times.pageConnectionsLeft} connection(s) to the players' ports were still established after their origins were asked ${PRELOAD_CLOSE_ATTEMPTS === 2 ? 'twice' : `${PRELOAD_CLOSE_ATTEMPTS} times`} to close them; a player may have used one that opened on the idle link`;
}
