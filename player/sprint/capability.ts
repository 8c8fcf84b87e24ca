/**
 * Can Sprint (pipelined trains, paper §IV-B1) run here, and on which
 * transport? Trains need their outstanding requests on one connection:
 *   - the Sprint extension's sockets (HTTP/1.1 pipelining on connections
 *     Sprint controls), when the extension and its socket host answer;
 *   - else the page's own `fetch`, when the origin speaks HTTP/2 or HTTP/3
 *     (protocol-detect.ts): the browser multiplexes the train's requests
 *     as streams of one connection, no extension needed.
 * On HTTP/1.1 without the extension Sprint is not available (the resolver
 * goes on to Sprint-x). A page may force either transport
 * (`sprintTransport: 'extension' | 'fetch'`); `fetch` on HTTP/1.1 leaves
 * connection mapping to the browser (how the scheduler is tested).
 */
import type { Availability, CheckContext, ModeProvider } from '../dataplane/resolve-mode';
import { MEDIA_SEGMENT_TYPE } from '../dataplane/dash-request';
import { FetchTrainTransport } from './fetch-transport';
import { isMultiplexed, type ProtocolAnswer } from './protocol-detect';
import { SprintDataPlane } from './sprint-data-plane';
import type { TrainTransport } from './train-transport';

/** How Sprint's trains may travel: `auto` (extension, else fetch on HTTP/2+), or one forced. */
export type TransportChoice = 'auto' | 'extension' | 'fetch';

/** Finds a transport for `choice`; resolves with a reason when there is none. */
export type TransportDetector = (
  timeoutMs: number,
) => Promise<{ ok: true; transport: TrainTransport; info: string } | { ok: false; reason: string }>;

/** Says which protocol the origin of `url` speaks to this page. */
export type ProtocolDetector = (
  url: string,
  fetched: () => Promise<{ ok: boolean; problem?: string; network?: boolean; sentUrl?: string }>,
) => Promise<ProtocolAnswer>;

const EXTENSION_TIMEOUT_MS = 1500;

/**
 * What the page's interceptors add to a segment request of this origin that
 * only the page's own connections can send (headers, `xhrWithCredentials`),
 * or null when nothing; a throwing interceptor counts as adding something.
 */
async function pageAdditions(ctx: CheckContext): Promise<string | null> {
  try {
    const built = await ctx.requests.build({ url: ctx.manifestUrl, type: MEDIA_SEGMENT_TYPE, mediaType: 'video' });
    const names = Object.keys(built.headers);
    const parts = [names.length > 0 ? `headers ${names.join(', ')}` : '', built.withCredentials ? 'credentials (xhrWithCredentials)' : ''];
    return parts.filter(Boolean).join(' and ') || null;
  } catch (e) {
    return `what a request interceptor would set (it threw: ${(e as Error).message})`;
  }
}

export function sprintProvider(
  choice: TransportChoice,
  detectExtension: TransportDetector | null,
  detectProtocol: ProtocolDetector | null,
): ModeProvider {
  return {
    mode: 'sprint',
    async check(ctx): Promise<Availability> {
      // Both questions at once: a missing extension costs its timeout, not that plus a round trip.
      const protocol = choice !== 'extension' && detectProtocol ? detectProtocol(ctx.manifestUrl, ctx.manifest) : null;
      if (choice === 'fetch') {
        // Forced: on HTTP/2 or HTTP/3 the train shares dash.js's connection
        // (same credentials mode, one connection for the whole player), as
        // under `auto`; otherwise a pool of its own (fetch-transport.ts).
        const answer = protocol ? await protocol : null;
        const multiplexed = answer !== null && isMultiplexed(answer.protocol);
        return {
          ok: true,
          plane: new SprintDataPlane(new FetchTrainTransport(multiplexed ? 'same-origin' : 'omit')),
          reason: `trains over the browser's fetch (requested${multiplexed ? `; on ${answer.protocol}: one multiplexed connection` : ''})`,
        };
      }
      const detected = detectExtension
        ? await detectExtension(EXTENSION_TIMEOUT_MS)
        : { ok: false as const, reason: 'the Sprint extension transport is not part of this build' };
      // The extension's sockets send no page headers and no cookies: a page whose requests carry some takes fetch, or no Sprint.
      const uncarried = detected.ok && !detected.transport.carriesPageHeaders ? await pageAdditions(ctx) : null;
      if (detected.ok && uncarried !== null) {
        detected.transport.close();
        ctx.log.warn(`sprint: the extension cannot send ${uncarried}; trains only over fetch on HTTP/2 or HTTP/3`);
      }
      const found =
        detected.ok && uncarried !== null
          ? { ok: false as const, reason: `the page's requests carry ${uncarried}, which the extension's sockets cannot send` }
          : detected;
      if (found.ok) return { ok: true, plane: new SprintDataPlane(found.transport), reason: `trains on extension sockets (${found.info})` };
      if (!protocol) return { ok: false, reason: found.reason };
      const answer = await protocol;
      if (isMultiplexed(answer.protocol)) {
        return {
          ok: true,
          plane: new SprintDataPlane(new FetchTrainTransport('same-origin')),
          reason: `trains over fetch on ${answer.protocol} (one multiplexed connection, no extension needed; extension: ${found.reason})`,
        };
      }
      const heard = answer.protocol ?? `an unknown protocol (${answer.problem ?? 'not reported'})`;
      return {
        ok: false,
        reason: `${found.reason}; the origin speaks ${heard}, not HTTP/2 or HTTP/3, so the page cannot keep a train on one connection`,
      };
    },
  };
}
