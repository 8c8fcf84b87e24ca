/**
 * The CORS check the Sprint extension applies before handing a response to
 * the page ("only GET for http/https URLs of origins the page
 * may read ... otherwise the response is withheld"). It is the Fetch
 * standard's check for a credential-less GET (credentials mode "omit"; the
 * extension never sends cookies or Authorization): a cross-origin response is
 * readable only if it carries exactly one `Access-Control-Allow-Origin` whose
 * value is `*` or, byte for byte, the page's origin. The headers the page then
 * sees are the CORS-safelisted response headers plus those named by
 * `Access-Control-Expose-Headers` (`*` exposes all), never Set-Cookie, as for
 * `fetch` in the page itself.
 */
import type { HeaderList } from '../../../src/http/headers';

/** Response headers a cross-origin page may always read (Fetch "CORS-safelisted response-header name"). */
const SAFELISTED = ['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma'];
/** Never exposed to pages (Fetch "forbidden response-header name"). */
const FORBIDDEN = ['set-cookie', 'set-cookie2'];

export type CorsVerdict = { ok: true } | { ok: false; reason: string };

/** May a page of `pageOrigin` read this response to its request for `targetOrigin`? */
export function corsCheck(pageOrigin: string, targetOrigin: string, headers: HeaderList): CorsVerdict {
  if (pageOrigin === targetOrigin) return { ok: true };
  const values = headers.getAll('access-control-allow-origin');
  if (values.length === 0)
    return { ok: false, reason: `cross-origin response from ${targetOrigin} has no Access-Control-Allow-Origin header` };
  if (values.length > 1)
    return { ok: false, reason: `cross-origin response from ${targetOrigin} has ${values.length} Access-Control-Allow-Origin headers` };
  const v = values[0] as string;
  if (v === '*' || v === pageOrigin) return { ok: true };
  return {
    ok: false,
    reason: `Access-Control-Allow-Origin ${JSON.stringify(v.slice(0, 200))} of ${targetOrigin} does not allow ${pageOrigin}`,
  };
}

/** The response headers the page may see, names lower-cased, repeated fields joined with ", ". */
export function exposedHeaders(headers: HeaderList, sameOrigin: boolean): Record<string, string> {
  const names = new Set<string>();
  for (const [name] of headers.entries()) names.add(name.toLowerCase());
  let allowed: (n: string) => boolean;
  if (sameOrigin) {
    allowed = () => true;
  } else {
    const exposed = headers.tokens('access-control-expose-headers');
    const all = exposed.includes('*');
    allowed = (n) => all || SAFELISTED.includes(n) || exposed.includes(n);
  }
  const out: Record<string, string> = {};
  for (const n of names) {
    if (FORBIDDEN.includes(n) || n === '__proto__' || !allowed(n)) continue;
    out[n] = headers.get(n) as string;
  }
  return out;
}
