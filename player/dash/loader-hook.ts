/**
 * The one place Sprint hooks dash.js's network loading (dash.js 5.2.1,
 * public `MediaPlayer.extend('XHRLoader', ..., override=true)` and
 * `addResponseInterceptor`; no patch of the dash.js bundle).
 *
 * - Loads a `SegmentLoadHandler` takes are answered by the data plane; all
 *   others (manifest, sidx, init segments, anything it declines) go to
 *   dash.js's own XHRLoader unchanged.
 * - Load takers (`addLoadTaker`: the manifest handoff,
 *   player/dataplane/manifest-handoff.ts) are asked before the data plane;
 *   one that takes a load may still pass it on later, down the same chain.
 * - Load watchers (`addLoadWatcher`: the segment rescue, player/abr/rescue.ts)
 *   see every load first, in every mode, whoever answers it.
 * - A data plane that took a load may hand it to dash.js's own XHRLoader
 *   later (`passOn`, e.g. when the origin refused Sprint's request): the
 *   request goes out as dash.js built it. Every load dash.js's own loader
 *   sends is counted (`countOwnLoads`).
 * - The response interceptor rewrites the timing dash.js records for loads
 *   the data plane answered, so dash.js's throughput estimate (and every ABR
 *   rule reading it) sees when the bytes really crossed the wire instead of
 *   the instant they were handed over (dash.js would otherwise drop them as
 *   cache hits: `cacheLoadThresholds`).
 *
 * test/unit/player/dashjs-contract.test.ts fails if a dash.js upgrade changes this contract.
 */
import type { MediaPlayerClass } from 'dashjs';
import type { LoaderRequest, LoaderResponse, SegmentLoadHandler, WireTiming } from './loader-types';
import { MANIFEST_TYPE } from '../dataplane/dash-request';

export const DASHJS_VERSION = '5.2.1';

interface XhrLoaderInstance {
  load(request: LoaderRequest, response: LoaderResponse): unknown;
}

/** Sees every load before it starts (it may wrap `request.customData`'s callbacks); must not throw. */
export type LoadWatcher = (request: LoaderRequest, response: LoaderResponse) => void;

/**
 * Asked for every load before the data plane. Returning true takes the load;
 * the taker must then answer it, or call `passOn` (once, possibly later) to
 * hand it to the data plane and dash.js's own loader as if never taken.
 */
export interface LoadTaker {
  tryLoad(request: LoaderRequest, response: LoaderResponse, passOn: () => void): boolean;
}

interface HookSlot {
  handler: SegmentLoadHandler | null;
  ownLoads: ((kind: 'media' | 'manifest') => void) | null;
  readonly watchers: LoadWatcher[];
  readonly takers: LoadTaker[];
}

/** One XHRLoader extension per dash.js player (dash.js keeps the first extension of a name). */
const slots = new WeakMap<object, HookSlot>();

function slotFor(dash: MediaPlayerClass): HookSlot {
  const existing = slots.get(dash);
  if (existing) return existing;
  const slot: HookSlot = { handler: null, ownLoads: null, watchers: [], takers: [] };
  slots.set(dash, slot);
  const version = (dash as unknown as { getVersion?: () => string }).getVersion?.();
  if (version !== undefined && version !== DASHJS_VERSION) {
    console.warn(`[sprint] built for dash.js ${DASHJS_VERSION}, running on ${version}: loader hook untested`);
  }
  dash.extend(
    'XHRLoader',
    function (this: { parent: XhrLoaderInstance }) {
      const parentLoad = this.parent.load.bind(this.parent);
      const own = (request: LoaderRequest, response: LoaderResponse): unknown => {
        const type = request.customData.request?.type;
        if (type === MANIFEST_TYPE) slot.ownLoads?.('manifest');
        else if (type !== undefined && type !== null) slot.ownLoads?.('media');
        return parentLoad(request, response);
      };
      return {
        load(request: LoaderRequest, response: LoaderResponse): unknown {
          for (const watch of slot.watchers) watch(request, response);
          const rest = (): unknown =>
            slot.handler?.tryLoad(request, response, () => void own(request, response)) ? true : own(request, response);
          for (const taker of slot.takers) if (taker.tryLoad(request, response, () => void rest())) return true;
          return rest();
        },
      };
    },
    true,
  );
  const interceptor = async (response: unknown): Promise<unknown> => {
    applyWireTiming(response as LoaderResponse);
    return response;
  };
  dash.addResponseInterceptor(interceptor as never);
  return slot;
}

/** Registers `handler` in front of dash.js's XHRLoader. Call before `attachSource`. */
export function installLoaderHook(dash: MediaPlayerClass, handler: SegmentLoadHandler): void {
  slotFor(dash).handler = handler;
}

/** What a data plane or load taker answers a load with. */
export interface LoadAnswer {
  url: string;
  status: number;
  statusText: string;
  headers: Record<string, string>;
  data: ArrayBuffer | string;
  /** Body bytes, for dash.js's progress event. */
  bytes: number;
  /** When the bytes crossed the wire (the response interceptor puts it in dash.js's request record). */
  wire: WireTiming;
}

/** Answers a load the way dash.js's XHRLoader ends one: the response's fields, one progress event with the whole body, then loadend. */
export function answerLoad(request: LoaderRequest, response: LoaderResponse, a: LoadAnswer): void {
  const custom = request.customData;
  response.url = a.url;
  response.status = a.status;
  response.statusText = a.statusText;
  response.headers = a.headers;
  response.data = a.data;
  custom.sprintWire = a.wire;
  custom.onprogress?.({ loaded: a.bytes, total: a.bytes, lengthComputable: true });
  custom.onloadend?.();
}

/** Registers `taker` to be asked for every load before the data plane. Call before `attachSource`. */
export function addLoadTaker(dash: MediaPlayerClass, taker: LoadTaker): void {
  slotFor(dash).takers.push(taker);
}

/** Counts each load dash.js's own XHRLoader sends, by kind (segments and other media files; the manifest). */
export function countOwnLoads(dash: MediaPlayerClass, count: (kind: 'media' | 'manifest') => void): void {
  slotFor(dash).ownLoads = count;
}

/** Registers `watch` to see every load dash.js makes (whoever answers it). Call before `attachSource`. */
export function addLoadWatcher(dash: MediaPlayerClass, watch: LoadWatcher): void {
  slotFor(dash).watchers.push(watch);
}

/** Replaces dash.js's request dates and progress traces with the recorded wire timing. */
function applyWireTiming(response: LoaderResponse): void {
  const custom = response.request?.customData;
  const wire = custom?.sprintWire;
  const req = custom?.request;
  if (!wire || !req) return;
  req.startDate = new Date(wire.startMs);
  req.firstByteDate = new Date(wire.firstByteMs);
  req.endDate = new Date(wire.endMs);
  const traces = req.traces;
  if (Array.isArray(traces)) {
    traces.length = 0;
    for (const t of wire.traces) traces.push({ s: new Date(t.startMs), d: t.durationMs, b: [t.bytes] });
  }
}
