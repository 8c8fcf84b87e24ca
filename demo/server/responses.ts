// What the demo origin answers, before it touches the socket: the response
// plan (status, headers, body source) that the router produces and the
// connection writes, plus the pieces every response shares (status texts, CORS
// headers, error bodies). CORS matters because the player may run on another
// origin than the media: it must be allowed to send Range and to read
// Content-Range/Content-Length (and timing, for throughput estimates).

import { BufferBodySource, type BodySource } from './body-source';
import type { RangeOutcome } from './range';

export interface ResponsePlan {
  readonly status: number;
  /** Headers except Date, Server, Connection and Content-Length, which the connection adds. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The Content-Length header value (for HEAD: what GET would send). */
  readonly contentLength: number;
  /** The body to send, or null (HEAD, 204). Its length equals contentLength when present. */
  readonly body: BodySource | null;
  readonly rangeOutcome: RangeOutcome;
  /** A /media/ response: eligible for the `resetAfterBytes` fault. */
  readonly media: boolean;
  /** Close the connection after this response whatever the client asked (e.g. unread request body). */
  readonly forceClose: boolean;
}

export const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  204: 'No Content',
  206: 'Partial Content',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Content Too Large',
  416: 'Range Not Satisfiable',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  505: 'HTTP Version Not Supported',
};

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

/** Headers on every response unless the `noCors` fault is on. */
export function corsHeaders(noCors: boolean): Array<[string, string]> {
  if (noCors) return [];
  return [
    ['Access-Control-Allow-Origin', '*'],
    ['Access-Control-Expose-Headers', 'Content-Range, Content-Length, Accept-Ranges, Server-Timing'],
    // Lets a cross-origin page read Resource Timing details (transfer sizes, response start).
    ['Timing-Allow-Origin', '*'],
  ];
}

/** Extra headers answering a CORS preflight (OPTIONS with Access-Control-Request-Method). */
export function preflightHeaders(
  noCors: boolean,
  requestHeaders: ReadonlyMap<string, string>,
  extraAllowed: readonly string[] = [],
): Array<[string, string]> {
  if (noCors) return [];
  const h: Array<[string, string]> = [
    ['Access-Control-Allow-Methods', ALLOWED_METHODS],
    ['Access-Control-Allow-Headers', ['Range', 'Content-Type', ...extraAllowed].join(', ')],
    ['Access-Control-Max-Age', '7200'],
  ];
  // Chrome's Private Network Access preflight, for a public page using a local origin.
  if (requestHeaders.get('access-control-request-private-network') === 'true') {
    h.push(['Access-Control-Allow-Private-Network', 'true']);
  }
  return h;
}

/** A short text/plain response saying what went wrong; `head` = true omits the body (HEAD). */
export function errorPlan(
  status: number,
  message: string,
  options: { noCors: boolean; head?: boolean; forceClose?: boolean; extraHeaders?: Array<[string, string]> },
): ResponsePlan {
  const text = Buffer.from(`${status} ${STATUS_TEXT[status] ?? ''}: ${message}\n`, 'utf8');
  return {
    status,
    headers: [
      ['Content-Type', 'text/plain; charset=utf-8'],
      ['Cache-Control', 'no-store'],
      ...corsHeaders(options.noCors),
      ...(options.extraHeaders ?? []),
    ],
    contentLength: text.length,
    body: options.head ? null : new BufferBodySource(text),
    rangeOutcome: 'none',
    media: false,
    forceClose: options.forceClose ?? false,
  };
}
