/**
 * The page's dash.js request interceptors (dash.js 5.2.1
 * `MediaPlayer.addRequestInterceptor` / `removeRequestInterceptor`), kept in
 * the order the page added them so Sprint's own requests can run them too
 * (player/dataplane/request-path.ts). dash.js keeps its list inside
 * CustomParametersModel with no public getter, so the player's two methods
 * are wrapped on the instance Sprint creates: the interceptor still reaches
 * dash.js, which runs it on its own requests as before. dash.js's own CMCD
 * interceptor sits first in that list and is not the page's: it is not
 * tracked here (CMCD reaches Sprint's media requests inside the loads dash.js
 * builds). test/unit/player/dashjs-contract.test.ts pins the list's order.
 */
import type { MediaPlayerClass } from 'dashjs';

/** dash.js's request interceptor: gets a CommonMediaRequest, resolves with the one to send (same or new object). */
export type RequestInterceptorFn = (request: InterceptedRequest) => Promise<InterceptedRequest> | InterceptedRequest;

/** The CommonMediaRequest fields an interceptor may read or change. */
export interface InterceptedRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  credentials?: RequestCredentials;
  responseType?: string;
  customData: { request?: { url?: string; type?: string; mediaType?: string | null; range?: string | null } } & Record<string, unknown>;
  [key: string]: unknown;
}

export interface RequestInterceptorSource {
  /** The page's interceptors now, in the order dash.js runs them. */
  interceptors(): readonly RequestInterceptorFn[];
  /** dash.js's `xhrWithCredentials` for a request type (`MPD`, `MediaSegment`, ...). */
  withCredentials(type: string): boolean;
}

interface InterceptorMethods {
  addRequestInterceptor(fn: RequestInterceptorFn): void;
  removeRequestInterceptor(fn: RequestInterceptorFn): void;
  getXHRWithCredentialsForType?(type: string): boolean;
}

const tracked = new WeakMap<object, RequestInterceptorSource>();

/** Starts tracking `dash`'s request interceptors (idempotent). Call right after creating the player. */
export function trackRequestInterceptors(dash: MediaPlayerClass): RequestInterceptorSource {
  const existing = tracked.get(dash);
  if (existing) return existing;
  const player = dash as unknown as InterceptorMethods;
  const list: RequestInterceptorFn[] = [];
  const add = player.addRequestInterceptor.bind(player);
  const remove = player.removeRequestInterceptor.bind(player);
  player.addRequestInterceptor = (fn: RequestInterceptorFn): void => {
    add(fn);
    list.push(fn);
  };
  player.removeRequestInterceptor = (fn: RequestInterceptorFn): void => {
    remove(fn);
    const i = list.indexOf(fn);
    if (i >= 0) list.splice(i, 1);
  };
  const source: RequestInterceptorSource = {
    interceptors: () => list.slice(),
    withCredentials: (type) => player.getXHRWithCredentialsForType?.(type) === true,
  };
  tracked.set(dash, source);
  return source;
}
