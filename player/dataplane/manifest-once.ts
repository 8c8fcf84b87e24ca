/**
 * The manifest, fetched once per player: for every mode check (Sprint's
 * protocol detection reads the Resource Timing entry of this fetch; Sprint-x
 * inspects its text), and then for dash.js itself, whose own manifest request
 * is answered from it (manifest-handoff.ts) instead of asking the origin a
 * second time. Credentials as dash.js's own load (an XHR without
 * `withCredentials` is `same-origin`), uncached; the text decoded as UTF-8.
 * Never rejects. Nothing is fetched until someone asks (`started`).
 */
import { nowMs } from './clock';

export type ManifestText =
  | {
      ok: true;
      text: string;
      /** The URL the text came from after redirects (relative URLs in the manifest resolve against it, as in dash.js). */
      url: string;
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
  | { ok: false; problem: string; network: boolean };

export interface ManifestOnce {
  /** The one fetch's answer (starting it on the first call). */
  (): Promise<ManifestText>;
  /** True once some caller asked for the manifest. */
  started(): boolean;
}

export function manifestOnce(url: string): ManifestOnce {
  let pending: Promise<ManifestText> | null = null;
  const get = (): Promise<ManifestText> => {
    pending ??= (async (): Promise<ManifestText> => {
      const startMs = nowMs();
      try {
        const res = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
        const headersMs = nowMs();
        const text = await res.text();
        if (!res.ok) return { ok: false, problem: `manifest fetch answered HTTP ${res.status}`, network: false };
        const headers: Record<string, string> = {};
        res.headers.forEach((value, name) => {
          headers[name.toLowerCase()] = value;
        });
        return {
          ok: true,
          text,
          url: res.url || url,
          status: res.status,
          statusText: res.statusText,
          headers,
          startMs,
          headersMs,
          endMs: nowMs(),
        };
      } catch (e) {
        return { ok: false, problem: `manifest fetch failed: ${(e as Error).message}`, network: true };
      }
    })();
    return pending;
  };
  return Object.assign(get, { started: (): boolean => pending !== null });
}
