/**
 * Which HTTP version does an origin really speak to this page? Sprint's
 * trains (paper §IV-B1) need the outstanding requests on one connection the
 * flow keeps busy. On HTTP/1.1 a page cannot get that (the browser spreads
 * concurrent fetches over up to 6 connections, and cancelling one closes
 * it), so Sprint needs the extension's sockets. On HTTP/2 and HTTP/3 the
 * browser multiplexes every fetch to one origin as streams of one
 * connection, and cancelling a stream leaves the connection up: the page
 * can run the trains itself on `fetch`.
 *
 * The answer comes from the Resource Timing entry (`nextHopProtocol`) of a
 * request the page makes to the origin. Cross-origin resources may hide it
 * (empty string without Timing-Allow-Origin): then the protocol is unknown
 * and the player does not assume HTTP/2.
 */

/** ALPN ids of protocols that multiplex requests on one connection. */
export function isMultiplexed(protocol: string | null | undefined): boolean {
  return typeof protocol === 'string' && /^(h2|h2c|h3(-\w+)?)$/.test(protocol);
}

/** The `nextHopProtocol` of the latest Resource Timing entry for `url`, or null. */
export function protocolFromTiming(url: string): string | null {
  if (typeof performance === 'undefined' || typeof performance.getEntriesByName !== 'function') return null;
  const entries = performance.getEntriesByName(url, 'resource') as PerformanceResourceTiming[];
  const last = entries[entries.length - 1];
  return last && typeof last.nextHopProtocol === 'string' && last.nextHopProtocol !== '' ? last.nextHopProtocol : null;
}

export interface ProtocolAnswer {
  /** ALPN id (`h2`, `h3`, `http/1.1`), or null when the browser did not say. */
  protocol: string | null;
  /** Why the protocol is unknown, when it is. */
  problem: string | null;
}

const ENTRY_WAIT_MS = 1000;
const ENTRY_POLL_MS = 50;

/**
 * Reads the protocol the Resource Timing entry of `url` reports once
 * `fetched` has loaded it (the manifest: small, and the origin dash.js is
 * about to load from; fetched with the credentials of dash.js's and the
 * trains' requests, so the connection asked about is the one they use:
 * player/dataplane/manifest-once.ts). Never throws; the entry may be
 * recorded a little after the body ends, so it is polled for a bounded time.
 */
export async function detectProtocol(
  url: string,
  fetched: () => Promise<{ ok: boolean; problem?: string; network?: boolean; sentUrl?: string }>,
): Promise<ProtocolAnswer> {
  const got = await fetched();
  // the page's interceptors may have changed the URL (a token): the entry is named by the URL sent
  const name = got.sentUrl ?? url;
  // An HTTP error status still has a timing entry; a network failure has none.
  if (!got.ok && got.network) return { protocol: null, problem: `fetching ${url}: ${got.problem}` };
  const deadline = Date.now() + ENTRY_WAIT_MS;
  for (;;) {
    const p = protocolFromTiming(name);
    if (p !== null) return { protocol: p, problem: null };
    if (Date.now() >= deadline)
      return { protocol: null, problem: 'the browser did not report the protocol (a cross-origin manifest without Timing-Allow-Origin?)' };
    await new Promise((r) => setTimeout(r, ENTRY_POLL_MS));
  }
}
