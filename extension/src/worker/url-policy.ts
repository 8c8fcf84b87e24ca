/**
 * Which URLs a page may have the Sprint extension request, and where the
 * socket host may connect for them. Runs in the service
 * worker on every request, before anything reaches the host:
 *   - no http: URL for an https: page (`mixed-content`, as the browser's
 *     mixed-content blocking would refuse it; extension/README.md, Security);
 *   - only http: and https: URLs, no user:password@, at most LIMITS.maxUrlLength
 *     characters, no spaces or control characters, a target the HTTP layer can
 *     send byte for byte (src/http/request.ts checkTarget);
 *   - `sameOrigin`: the URL's origin equals the page's (else the response goes
 *     through the CORS check, cors.ts, and the request carries `Origin`);
 *   - `allowPrivate` (the host's flag, extension/host/PROTOCOL.md §9): true
 *     only when the URL's host is the page's own host AND that host is an IP
 *     literal or `localhost`. A DNS name is never allowed to reach a private
 *     address: the page's name resolving to a private address now does not
 *     prove the page was served from it (DNS rebinding);
 *   - IP literals (and `localhost`) that are loopback, private, link-local or
 *     reserved are refused here already unless allowed as above, so no
 *     message for them reaches the host. The host applies the full policy to
 *     every resolved address in any case.
 * The page's origin comes from the browser (the content script port's
 * `sender.origin`), never from the page's message.
 */
import { checkTarget } from '../../../src/http/request';
import { LIMITS, type RequestErrorCode } from '../../../player/sprint/extension/protocol';

export interface RequestTarget {
  /** The URL as parsed, without fragment. */
  readonly href: string;
  /** "scheme://host[:port]" of the URL (the lane key). */
  readonly origin: string;
  /** URL.host: "name[:port]" / "[v6][:port]", the Host header. */
  readonly host: string;
  /** URL.hostname: the host's `open.host` (IPv6 in brackets). */
  readonly hostname: string;
  readonly port: number;
  readonly tls: boolean;
  /** Origin-form request target: pathname + search. */
  readonly target: string;
  readonly sameOrigin: boolean;
  readonly allowPrivate: boolean;
}

export type TargetCheck = { ok: true; target: RequestTarget } | { ok: false; code: RequestErrorCode; reason: string };

/**
 * Parses a page origin as given by the browser ("scheme://host[:port]"); null
 * if opaque or not http(s). An opaque origin ("null": a sandboxed frame, a
 * page served with CSP `sandbox`) is refused: its URL's origin is not its
 * origin, and using it would let a sandboxed upload read its host's resources.
 * The URL is used only when the browser gave no origin at all.
 */
export function parsePageOrigin(origin: string | undefined, url: string | undefined): { origin: string; hostname: string } | null {
  let candidate = origin;
  if (candidate === undefined && url !== undefined) {
    try {
      candidate = new URL(url).origin;
    } catch {
      return null;
    }
  }
  if (candidate === undefined || candidate === 'null') return null;
  let u: URL;
  try {
    u = new URL(candidate);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== candidate) return null;
  return { origin: u.origin, hostname: u.hostname };
}

/** Checks `raw` for a page of origin `page`; never throws. */
export function checkRequestUrl(raw: string, page: { origin: string; hostname: string }): TargetCheck {
  const refuse = (code: RequestErrorCode, reason: string): TargetCheck => ({
    ok: false,
    code,
    reason: `${reason}: ${JSON.stringify(raw.slice(0, 200))}`,
  });
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > LIMITS.maxUrlLength) {
    return { ok: false, code: 'forbidden-url', reason: `the URL must be 1..${LIMITS.maxUrlLength} characters` };
  }
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return refuse('forbidden-url', `the URL contains a space or control character at index ${i}`);
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return refuse('forbidden-url', 'not an absolute URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return refuse('forbidden-url', `scheme ${u.protocol} is not http: or https:`);
  if (u.username !== '' || u.password !== '') return refuse('forbidden-url', 'URLs with credentials (user:password@) are refused');
  if (u.hostname === '') return refuse('forbidden-url', 'the URL has no host');
  if (u.hostname.endsWith('.')) return refuse('forbidden-url', 'the host name ends with a dot (write it without)');
  const target = u.pathname + u.search;
  try {
    checkTarget(target);
  } catch (err) {
    return refuse('forbidden-url', `the path cannot be sent as is (${(err as Error).message})`);
  }
  const tls = u.protocol === 'https:';
  const port = u.port === '' ? (tls ? 443 : 80) : Number(u.port);
  const hostname = u.hostname;
  const ownHost = hostname === page.hostname;
  const literalOrLocal = isIpLiteral(hostname) || isLocalhostName(hostname);
  const allowPrivate = ownHost && literalOrLocal;
  if (!allowPrivate && literalOrLocal && !isPublicLiteral(hostname)) {
    return refuse(
      'forbidden-address',
      `${hostname} is a loopback, private or reserved address and the page (${page.origin}) is not served from it`,
    );
  }
  // The browser blocks an https: page's requests for http: URLs (mixed content); the host would not, so we do.
  if (u.protocol === 'http:' && page.origin.startsWith('https:'))
    return refuse('mixed-content', `an https: page (${page.origin}) may not request an http: URL`);
  u.hash = '';
  return {
    ok: true,
    target: {
      href: u.href,
      origin: u.origin,
      host: u.host,
      hostname,
      port,
      tls,
      target,
      sameOrigin: u.origin === page.origin,
      allowPrivate,
    },
  };
}

function isLocalhostName(h: string): boolean {
  return h === 'localhost' || h.endsWith('.localhost');
}

export function isIpLiteral(h: string): boolean {
  return parseIPv4(h) !== null || (h.startsWith('[') && h.endsWith(']'));
}

/** Dotted-quad IPv4 (as the URL parser serialises it) → 32-bit number, else null. */
function parseIPv4(h: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return (((parts[0] as number) << 24) | ((parts[1] as number) << 16) | ((parts[2] as number) << 8) | (parts[3] as number)) >>> 0;
}

/** IPv4 ranges that are not public (PROTOCOL.md §9 "local" and "forbidden" classes). */
const IPV4_NON_PUBLIC: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

function ipv4IsPublic(v: number): boolean {
  for (const [base, bits] of IPV4_NON_PUBLIC) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((v & mask) >>> 0 === (parseIPv4(base) as number)) return false;
  }
  return true;
}

/** 8 groups of a bracketed IPv6 literal as serialised by the URL parser, else null. */
function parseIPv6(h: string): number[] | null {
  if (!h.startsWith('[') || !h.endsWith(']')) return null;
  const s = h.slice(1, -1);
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const group = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (/^[0-9a-f]{1,4}$/.test(g)) out.push(parseInt(g, 16));
      else {
        const v4 = parseIPv4(g);
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      }
    }
    return out;
  };
  const head = group(halves[0] as string);
  const tail = halves.length === 2 ? group(halves[1] as string) : [];
  if (head === null || tail === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const zeros = 8 - head.length - tail.length;
  return zeros < 1 ? null : [...head, ...new Array<number>(zeros).fill(0), ...tail];
}

/**
 * Whether an IP literal (or localhost name) is a public address. Conservative:
 * anything it does not recognise as public counts as non-public (the host's
 * policy stays the authority for what is allowed).
 */
export function isPublicLiteral(h: string): boolean {
  if (isLocalhostName(h)) return false;
  const v4 = parseIPv4(h);
  if (v4 !== null) return ipv4IsPublic(v4);
  const g = parseIPv6(h);
  if (g === null) return false;
  const [g0, g1, , , , g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const embedded = ((g6 << 16) | g7) >>> 0;
  // IPv4-mapped ::ffff:a.b.c.d and NAT64 64:ff9b::/96 are judged by the embedded IPv4 address.
  if (g.slice(0, 5).every((x) => x === 0) && g5 === 0xffff) return ipv4IsPublic(embedded);
  if (g0 === 0x64 && g1 === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4IsPublic(embedded);
  if (g0 === 0x2002) return ipv4IsPublic(((g1 << 16) | (g[2] as number)) >>> 0); // 6to4
  if ((g0 & 0xe000) !== 0x2000) return false; // outside 2000::/3
  if (g0 === 0x2001 && (g1 & 0xfe00) === 0) return false; // 2001::/23
  if (g0 === 0x2001 && g1 === 0x0db8) return false; // documentation
  if ((g0 & 0xfff0) === 0x3ff0) return false; // 3fff::/20
  return true;
}
