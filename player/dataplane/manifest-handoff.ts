/**
 * Answers dash.js's first manifest request with the text the mode checks
 * already fetched (manifest-once.ts), so a player whose mode was checked asks
 * the origin for its manifest once, not twice. Behind a full bottleneck queue
 * each request at start-up costs a round trip of queueing delay (seconds),
 * so the saved one shortens the start of Sprint and Sprint-x.
 *
 * It answers only when the answer is what dash.js would have got itself:
 * a plain GET of the URL the checks' fetch asked for, with the same headers
 * and credentials (the page's request interceptors ran on both:
 * request-path.ts), and a static MPD (a
 * live manifest is left to dash.js: the checks' copy may be stale by the
 * time dash.js asks). Otherwise, and when the checks' fetch failed, the
 * request goes to the origin through dash.js's own loader as always; the
 * player log says why. A check fetch still in flight is waited for, within
 * dash.js's manifest timeout (then the load times out and dash.js's retry
 * asks the origin; with the timeout off it waits as dash.js's own request
 * would). A check fetch that turns out unusable only after its end (a live
 * manifest, a failure) delays dash.js's own request by the rest of it.
 * The text must be what dash.js's XHR would have decoded (UTF-8). Later manifest requests (refreshes) are dash.js's.
 * Counted in `manifest.handedOver` / `manifest.loadedByDash`.
 */
import { answerLoad, type LoadTaker } from '../dash/loader-hook';
import type { LoaderRequest, LoaderResponse } from '../dash/loader-types';
import type { Logger } from '../log';
import type { StatsRecorder } from '../stats/recorder';
import { MANIFEST_TYPE } from './dash-request';
import type { ManifestOnce } from './manifest-once';
import { pageHeaders, type BuiltRequest } from './request-path';

/** The MPD start tag's attributes, or null when the text has no MPD element (comments skipped; quoted values may hold '>'). */
function mpdStartTag(text: string): string | null {
  const uncommented = text.replace(/<!--[\s\S]*?-->/g, '');
  const m = /<(?:[A-Za-z_][\w.-]*:)?MPD((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(uncommented);
  return m ? (m[1] ?? '') : null;
}

/** True for an MPD document whose `type` is static (the default); false for a live one or anything else. */
export function isStaticMpd(text: string): boolean {
  const attrs = mpdStartTag(text);
  if (attrs === null) return false;
  const type = /\stype\s*=\s*(["'])\s*([^"']*?)\s*\1/.exec(attrs);
  return type === null || type[2] === 'static';
}

/**
 * Why the text may not be what dash.js's XHR would have decoded, or null:
 * fetch's text() is always UTF-8, an XHR follows the Content-Type charset
 * and the XML declaration's encoding.
 */
export function decodingProblem(contentType: string | undefined, text: string): string | null {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) return `the manifest is declared ${charset}, not UTF-8`;
  const declared = /^\s*<\?xml[^>]*\sencoding\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  if (declared !== undefined && !/^utf-?8$/i.test(declared)) return `the manifest's XML declaration says ${declared}, not UTF-8`;
  if (text.includes('\uFFFD')) return 'the manifest is not valid UTF-8';
  return null;
}

/** Why dash.js's request may not get the checks' copy (`sent`: what the checks' fetch sent), or null when it may. */
function mismatch(request: LoaderRequest, sent: BuiltRequest): string | null {
  if (request.url !== sent.url) return `it asks for ${request.url}, the checks fetched ${sent.url}`;
  if ((request.method ?? 'GET') !== 'GET') return `it is a ${request.method} request`;
  if ((request.credentials === 'include') !== sent.withCredentials)
    return `it carries ${sent.withCredentials ? 'no ' : ''}credentials (xhrWithCredentials), the checks fetched ${sent.withCredentials ? 'with' : 'without'}`;
  if (request.responseType !== undefined && request.responseType !== '' && request.responseType !== 'text')
    return `it asks for a ${request.responseType} response`;
  if (request.body !== undefined && request.body !== null) return 'it carries a body';
  const headers = pageHeaders(request.headers);
  const differ = [...new Set([...Object.keys(headers), ...Object.keys(sent.headers)])].filter((k) => headers[k] !== sent.headers[k]);
  if (differ.length > 0) return `its headers differ from the checks' fetch (${differ.join(', ')})`;
  return null;
}

export class ManifestHandoff implements LoadTaker {
  private done = false;

  constructor(
    private readonly manifestUrl: string,
    private readonly manifest: ManifestOnce,
    private readonly stats: StatsRecorder,
    private readonly log: Logger,
  ) {}

  tryLoad(request: LoaderRequest, response: LoaderResponse, passOn: () => void): boolean {
    if (this.done || request.customData.request?.type !== MANIFEST_TYPE) return false;
    this.done = true; // only the first manifest request: refreshes are dash.js's
    // the checks' fetch is built before it is sent: by the time dash.js asks, it has been
    const why = mismatch(request, this.manifest.sent() ?? { url: this.manifestUrl, headers: {}, withCredentials: false });
    if (why !== null) {
      this.loadedByDash(why);
      return false;
    }
    const custom = request.customData;
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      if (timer !== null) clearTimeout(timer);
      return true;
    };
    custom.abort = () => {
      if (settle()) custom.onabort?.();
    };
    // dash.js's manifest timeout still holds: past it the load ends unanswered, as a timed-out
    // XHR does, and dash.js's retry goes to the origin itself (this taker answers once).
    const timeoutMs = request.timeout ?? 0;
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        if (!settle()) return;
        this.loadedByDash(`the checks' fetch took longer than dash.js's manifest timeout, ${timeoutMs} ms`);
        custom.ontimeout?.({ lengthComputable: false });
        custom.onloadend?.();
      }, timeoutMs);
    }
    void this.manifest().then((m) => {
      if (settled) return;
      settle();
      const giveBack = (why: string): void => {
        this.loadedByDash(why);
        passOn();
      };
      if (!m.ok) return giveBack(m.problem);
      const problem = isStaticMpd(m.text) ? decodingProblem(m.headers['content-type'], m.text) : 'the manifest is not a static MPD';
      if (problem !== null) return giveBack(problem);
      const bytes = new TextEncoder().encode(m.text).byteLength;
      this.stats.count('manifest.handedOver');
      this.log.info(`manifest: dash.js's request answered from the mode checks' fetch (${bytes} bytes, ${m.url})`);
      answerLoad(request, response, {
        url: m.url,
        status: m.status,
        statusText: m.statusText,
        headers: { ...m.headers },
        data: m.text,
        bytes,
        wire: {
          startMs: m.startMs,
          firstByteMs: m.headersMs,
          endMs: m.endMs,
          traces: [{ startMs: m.headersMs, durationMs: m.endMs - m.headersMs, bytes }],
        },
      });
    });
    return true;
  }

  private loadedByDash(why: string): void {
    this.stats.count('manifest.loadedByDash');
    this.log.info(`manifest: dash.js loads it from the origin again (${why})`);
  }
}
