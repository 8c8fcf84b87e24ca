/**
 * The one request path: every request Sprint or Sprint-x sends (the mode
 * checks, the manifest fetched once for them and dash.js, RTT probes, train
 * requests and expanded ranges, on every transport) is built here the way
 * dash.js 5.2.1's HTTPLoader builds its own: the page's request interceptors
 * in the order added (player/dash/request-interceptors.ts), on a
 * CommonMediaRequest-shaped object, and `xhrWithCredentials` for the request
 * type. A media load dash.js hands to a data plane has been through that
 * already (its URL and headers carry the interceptors' and CMCD's output):
 * `fromLoad` keeps them. Each request sent is counted by kind in
 * `stats().counters` (`requests.media`, `.manifest`, `.check`, `.probe`).
 */
import type { InterceptedRequest, RequestInterceptorSource } from '../dash/request-interceptors';
import type { LoaderRequest } from '../dash/loader-types';

export type RequestKind = 'media' | 'manifest' | 'check' | 'probe';

/** A request as the page's interceptors left it, ready to send. */
export interface BuiltRequest {
  url: string;
  /** Headers the page (or dash.js's CMCD) set; never Range, which the sender adds. */
  headers: Record<string, string>;
  /** dash.js's `xhrWithCredentials` for this type: the request must go `credentials: 'include'`. */
  withCredentials: boolean;
}

export interface OwnRequest {
  url: string;
  /** dash.js's request type the interceptors see in `customData.request.type` (`MPD`, `MediaSegment`). */
  type: string;
  mediaType?: string | null;
}

export interface SendOptions {
  /** Inclusive byte range. */
  range?: { start: number; end: number };
  /** Credentials mode when dash.js does not ask for `include`: the connection pool the caller wants. */
  credentials: RequestCredentials;
  signal?: AbortSignal;
}

/** Request headers Sprint sets itself and are not the page's. */
const OWN_HEADERS = new Set(['range']);

/** The headers of `headers` that are the page's (or CMCD's), without Range. */
export function pageHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (OWN_HEADERS.has(name.toLowerCase()) || value === undefined || value === null || value === '') continue;
    out[name] = String(value);
  }
  return out;
}

/** The credentials mode for a built request: `include` where dash.js would, else the caller's pool. */
export function credentialsFor(req: BuiltRequest, pool: RequestCredentials): RequestCredentials {
  return req.withCredentials ? 'include' : pool;
}

export class RequestPath {
  constructor(
    private readonly source: RequestInterceptorSource,
    private readonly count: (kind: RequestKind) => void = () => undefined,
  ) {}

  /** Runs the page's interceptors, in order, on the request dash.js would build for `req`; rejects if one throws. */
  async build(req: OwnRequest): Promise<BuiltRequest> {
    const withCredentials = this.source.withCredentials(req.type);
    let r: InterceptedRequest = {
      url: req.url,
      method: 'GET',
      headers: {},
      credentials: withCredentials ? 'include' : 'omit',
      responseType: 'arraybuffer',
      customData: { request: { url: req.url, type: req.type, mediaType: req.mediaType ?? null, range: null } },
    };
    for (const intercept of this.source.interceptors()) {
      const next = await intercept(r);
      if (next && typeof next === 'object') r = next;
    }
    return { url: String(r.url), headers: pageHeaders(r.headers), withCredentials: r.credentials === 'include' };
  }

  /** A load dash.js built (interceptors and CMCD applied): its URL, the page's headers and credentials. */
  fromLoad(req: LoaderRequest): BuiltRequest {
    return { url: req.url, headers: pageHeaders(req.headers), withCredentials: req.credentials === 'include' };
  }

  /** Counts a request of `kind` some transport sends itself (the extension's sockets, the fetch train transport). */
  note(kind: RequestKind): void {
    this.count(kind);
  }

  /** Sends a built request with `fetch`, uncached, and counts it. */
  send(kind: RequestKind, req: BuiltRequest, o: SendOptions): Promise<Response> {
    const headers: Record<string, string> = { ...req.headers };
    if (o.range) headers['Range'] = `bytes=${o.range.start}-${o.range.end}`;
    this.count(kind);
    return fetch(req.url, { headers, cache: 'no-store', credentials: credentialsFor(req, o.credentials), signal: o.signal });
  }

  /** `build` then `send`. */
  async fetch(kind: RequestKind, req: OwnRequest, o: SendOptions): Promise<Response> {
    return this.send(kind, await this.build(req), o);
  }
}

/** A request path that runs no interceptors and counts nothing (tests, and callers outside a player). */
export function plainRequestPath(): RequestPath {
  return new RequestPath({ interceptors: () => [], withCredentials: () => false });
}
