/**
 * The manifest, fetched once per player: for every mode check (Sprint's
 * protocol detection reads the Resource Timing entry of this fetch; Sprint-x
 * inspects its text), and then for dash.js itself, whose own manifest request
 * is answered from it (manifest-handoff.ts) instead of asking the origin a
 * second time. Built on the request path as dash.js's own load would be (the
 * page's interceptors; credentials as dash.js's XHR: `same-origin` unless
 * `xhrWithCredentials`), uncached; the text decoded as UTF-8.
 * Never rejects. Nothing is fetched until someone asks (`started`).
 */
import { nowMs } from './clock';
import { plainRequestPath, type BuiltRequest, type RequestPath } from './request-path';
import { MANIFEST_TYPE } from './dash-request';

export type ManifestText =
  | {
      ok: true;
      text: string;
      /** The URL the text came from after redirects (relative URLs in the manifest resolve against it, as in dash.js). */
      url: string;
      /** The URL asked for, as the page's interceptors left it (its Resource Timing entry's name). */
      sentUrl: string;
      /** The response's status line, as an XHR would report it. */
      status: number;
      statusText: string;
      /** The response's headers, names in lower case (as dash.js's loader reports them). */
      headers: Record<string, string>;
      /** When the request left, its headers arrived and its body ended (the data planes' clock, clock.ts). */
      startMs: number;
      headersMs: number;
      endMs: number;
    }
  | {
      ok: false;
      problem: string;
      network: boolean;
      /** The URL asked for, as the page's interceptors left it (its Resource Timing entry's name), when the request was built. */
      sentUrl?: string;
    };

export interface ManifestOnce {
  /** The one fetch's answer (starting it on the first call). */
  (): Promise<ManifestText>;
  /** True once some caller asked for the manifest. */
  started(): boolean;
  /** The request as built on the request path (the page's interceptors applied), once built; null before. */
  sent(): BuiltRequest | null;
}

export function manifestOnce(url: string, requests: RequestPath = plainRequestPath()): ManifestOnce {
  let pending: Promise<ManifestText> | null = null;
  let sent: BuiltRequest | null = null;
  const get = (): Promise<ManifestText> => {
    pending ??= (async (): Promise<ManifestText> => {
      const startMs = nowMs();
      let sentUrl: string | undefined;
      try {
        const built = await requests.build({ url, type: MANIFEST_TYPE });
        sent = built;
        sentUrl = built.url;
        const res = await requests.send('manifest', built, { credentials: 'same-origin' });
        const headersMs = nowMs();
        const text = await res.text();
        if (!res.ok) return { ok: false, problem: `manifest fetch answered HTTP ${res.status}`, network: false, sentUrl };
        const headers: Record<string, string> = {};
        res.headers.forEach((value, name) => {
          headers[name.toLowerCase()] = value;
        });
        return {
          ok: true,
          text,
          url: res.url || built.url,
          sentUrl: built.url,
          status: res.status,
          statusText: res.statusText,
          headers,
          startMs,
          headersMs,
          endMs: nowMs(),
        };
      } catch (e) {
        return { ok: false, problem: `manifest fetch failed: ${(e as Error).message}`, network: true, sentUrl };
      }
    })();
    return pending;
  };
  return Object.assign(get, { started: (): boolean => pending !== null, sent: (): BuiltRequest | null => sent });
}
