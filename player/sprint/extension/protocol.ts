/**
 * The page ↔ extension message protocol, version 1, and its validators,
 * shared by the page's transport (extension-transport.ts), the content script
 * and the service worker: every boundary validates what it receives (types,
 * sizes, counts) before acting on it.
 *
 *   page ── window.postMessage({sprint:'v1', type:'hello', nonce}, '*', [port]) ──▶ content script
 *   page ◀──────────── private MessagePort (the transferred `port`) ─────────────▶ content script
 *   content script ◀── chrome.runtime Port "sprint-session-v1" (JSON) ──▶ service worker ◀── native host
 *
 * Over the private port, page → extension (PageMessage):
 *   {type:'request', id, url, range?: {start, end}}   one GET (the only method there is)
 *   {type:'cancel', id}                                stop delivering that response
 *   {type:'pathInfo', id, origin}                      TCP_INFO of the connection to `origin`
 *   {type:'stats', id}                                 introspection of the session
 *   {type:'consumed', bytes}                           `data` bytes taken so far, all requests (back-pressure: maxUnconsumedBytes)
 *   {type:'close'}                                     end the session
 * extension → page (ExtensionMessage):
 *   {type:'ack', extensionVersion}                     the extension is present (sent at once)
 *   {type:'welcome', ...} | {type:'unavailable', code, reason}   the socket host is reachable, or why not
 *   {type:'head', id, status, headers, t}  {type:'data', id, bytes|b64, t}  {type:'end', id, t, bodyBytes}
 *   {type:'error', id, code, reason, retryable}        exactly one of end/error per request
 *   {type:'result', id, value}                          answer to pathInfo/stats
 *   {type:'rejected', id, reason}                      a malformed page message (id null if unreadable)
 *   {type:'closed', code, reason}                      the session ended (service worker stopped, host gone)
 * `data` is base64 (`b64`) to the worker (JSON messaging), an ArrayBuffer (`bytes`) to the page; `t` is
 * the epoch ms the socket host read the bytes (extension/host/PROTOCOL.md). Every message type sits
 * beside its validator so a change to one side cannot miss the other. Pure functions.
 */

/** Value of the `sprint` field of the hello envelope. */
export const PAGE_PROTOCOL = 'v1';
export const PAGE_PROTOCOL_VERSION = 1;
/**
 * Attribute the content script sets on the document element at
 * document_start (value: PAGE_PROTOCOL), before any page script runs: a page
 * without it has no Sprint extension and need not wait for an answer to its
 * hello. It tells a page no more than the hello's ack already does.
 */
export const PRESENCE_ATTRIBUTE = 'data-sprint-extension';
/** Name of the chrome.runtime port between content script and service worker. */
export const SESSION_PORT_NAME = 'sprint-session-v1';

/** Bounds enforced at every boundary ("sizes and counts are bounded"). */
export const LIMITS = {
  /** Requests of one session not yet ended (written, queued or being received). */
  maxOutstanding: 32,
  /** Body bytes of one response. */
  maxResponseBytes: 256 * 1024 * 1024,
  /** Characters of a request URL. */
  maxUrlLength: 4096,
  /** Characters of an origin ("scheme://host:port"). */
  maxOriginLength: 300,
  /** Sessions at once in the service worker (all tabs). */
  maxSessions: 16,
  /** Sessions at once of one tab (all its frames): no tab can take every slot. */
  maxSessionsPerTab: 4,
  /** A session with nothing outstanding and no request or response byte for this long is closed (`session-idle`). */
  sessionIdleMs: 5 * 60_000,
  /** Sessions one document may open. */
  maxSessionsPerDocument: 4,
  /** Distinct media origins one session may talk to. */
  maxOriginsPerSession: 4,
  /** Raw bytes of one `data` message. */
  maxPieceBytes: 256 * 1024,
  /**
   * Body bytes the worker posts to a session beyond what the page reported
   * `consumed`: past this the worker stops acknowledging the host's data, so
   * the host stops reading the socket (at most its flow-control window more).
   */
  maxUnconsumedBytes: 8 * 1024 * 1024,
  /** Response header fields passed to the page, and their total characters. */
  maxHeaderFields: 100,
  maxHeaderChars: 65536,
  /** Characters of a reason / error message. */
  maxReasonChars: 2048,
  /** Characters of the hello nonce. */
  maxNonceChars: 64,
} as const;

/**
 * Why a request failed: the one set of codes the extension reports to the
 * page (`error {id, code, reason, retryable}`), with REQUEST_ERROR_TEXT below
 * the fixed text of each. What a code may reveal (extension/README.md,
 * "Error codes"):
 *   - network failures (DNS, a refused address, connect, TLS) are all
 *     `unreachable`, with the same text and `retryable: false`, so a page
 *     cannot map the user's network;
 *   - for a response the page may not read (cross-origin, before or without
 *     passing the CORS check) `reason` is REQUEST_ERROR_TEXT[code] exactly:
 *     no byte of the response (status line, header names or values) reaches
 *     the page; the detail goes to the service worker's log only;
 *   - for a same-origin response, or one whose head passed CORS, and for
 *     refusals of the page's own request (URL, bounds), `reason` may carry detail.
 */
export type RequestErrorCode =
  /** Not readable by the page: cross-origin and not allowed by the response's CORS headers. Body withheld. */
  | 'cors'
  /** A loopback/private/reserved IP literal (or localhost) that the page is not served from. Refused before connecting. */
  | 'forbidden-address'
  /** A port browsers refuse (Fetch "bad port"). */
  | 'forbidden-port'
  /** Not an http(s) URL we may request (scheme, credentials, length, characters). */
  | 'forbidden-url'
  /** An http: URL requested by an https: page (the browser's mixed-content rule). */
  | 'mixed-content'
  | 'too-many-requests'
  | 'too-many-origins'
  | 'too-many-connections'
  | 'too-large'
  /** The origin could not be reached: DNS failure, an address the host refuses, connect or TLS failure. */
  | 'unreachable'
  /** The connection went away before the response was complete. Retryable. */
  | 'connection-lost'
  /** Several connections in a row closed (or stalled) without answering anything. */
  | 'origin-unreachable'
  | 'malformed-response'
  | 'unusable-response'
  | 'bad-message'
  | 'host-error'
  /** The extension side of the session went away (page-side only). Retryable. */
  | 'extension-disconnected'
  /** The extension cannot be used any more (page-side only). */
  | 'unavailable';

/** The fixed text of each request error code: what the page reads when it may not have the detail. */
export const REQUEST_ERROR_TEXT: Readonly<Record<RequestErrorCode, string>> = {
  cors: 'the response is not readable by this page (CORS)',
  'forbidden-address': 'the URL names a loopback, private or reserved address the page is not served from',
  'forbidden-port': 'the URL names a port browsers do not connect to',
  'forbidden-url': 'the URL cannot be requested through the extension',
  'mixed-content': 'an https: page may not request http: URLs',
  'too-many-requests': `at most ${LIMITS.maxOutstanding} requests may be outstanding per session`,
  'too-many-origins': `a session may use at most ${LIMITS.maxOriginsPerSession} media origins`,
  'too-many-connections': 'too many connections are open; try again later',
  'too-large': `the response exceeds ${LIMITS.maxResponseBytes} bytes`,
  unreachable: 'the origin could not be reached',
  'connection-lost': 'the connection closed before the response was complete',
  'origin-unreachable': 'the origin did not answer',
  'malformed-response': 'the response is not valid HTTP/1.1',
  'unusable-response': 'the response cannot be used',
  'bad-message': 'the extension rejected the message',
  'host-error': 'the socket host failed',
  'extension-disconnected': 'the extension session went away',
  unavailable: 'the Sprint extension is unavailable',
};

/** Codes whose detail may come from the network: when the page got only the fixed text, the detail is in the worker's log. */
const NETWORK_DETAIL_CODES: ReadonlySet<RequestErrorCode> = new Set<RequestErrorCode>([
  'cors',
  'unreachable',
  'connection-lost',
  'origin-unreachable',
  'malformed-response',
  'unusable-response',
  'too-large',
  'host-error',
]);

/** The page's message for a request error: "code: reason", saying where the detail went when it was withheld. */
export function describeRequestError(code: RequestErrorCode, reason: string): string {
  const withheld = reason === REQUEST_ERROR_TEXT[code] && NETWORK_DETAIL_CODES.has(code);
  return `${code}: ${reason}${withheld ? " (details in the Sprint extension's service worker log)" : ''}`;
}

export type UnavailableCode =
  | 'no-extension'
  | 'host-missing'
  | 'host-forbidden'
  | 'host-failed'
  | 'unsupported-protocol'
  | 'too-many-sessions'
  | 'forbidden-page'
  | 'worker-timeout'
  | 'handshake-timeout'
  | 'worker-disconnected'
  /** The worker closed a session that had been idle for LIMITS.sessionIdleMs; say hello again when needed. */
  | 'session-idle';

export interface ByteRangeMsg {
  start: number;
  end: number;
}

export type PageMessage =
  | { type: 'request'; id: number; url: string; range?: ByteRangeMsg }
  | { type: 'cancel'; id: number }
  | { type: 'pathInfo'; id: number; origin: string }
  | { type: 'stats'; id: number }
  | { type: 'consumed'; bytes: number }
  | { type: 'close' };

/** Content script → worker: the page messages plus the session's hello. */
export type SessionMessage = PageMessage | { type: 'hello'; protocol: number };

export interface WelcomeInfo {
  protocol: number;
  extensionVersion: string;
  hostVersion: string;
  /** The host reads TCP_INFO (Linux). */
  tcpInfo: boolean;
  limits: { maxOutstanding: number; maxResponseBytes: number; maxUrlLength: number };
}

export interface PathInfoValue {
  rttUs: number;
  minRttUs: number;
  bytesReceived: number;
  /** Host wall-clock epoch ms of the sample. */
  t: number;
}

/** Messages the extension sends, with the body piece in the shape of the hop (`bytes` to the page, `b64` from the worker). */
export type ExtensionMessage<Piece extends { bytes: ArrayBuffer } | { b64: string } = { bytes: ArrayBuffer }> =
  | { type: 'ack'; extensionVersion: string }
  | ({ type: 'welcome' } & WelcomeInfo)
  | { type: 'unavailable'; code: UnavailableCode; reason: string }
  | { type: 'head'; id: number; status: number; headers: Record<string, string>; t: number }
  | ({ type: 'data'; id: number; t: number } & Piece)
  | { type: 'end'; id: number; t: number; bodyBytes: number }
  | { type: 'error'; id: number; code: RequestErrorCode; reason: string; retryable: boolean }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'rejected'; id: number | null; reason: string }
  | { type: 'closed'; code: UnavailableCode; reason: string };

export type WorkerMessage = ExtensionMessage<{ b64: string }>;

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string; id: number | null };

// ---------------------------------------------------------------------------
// Primitive checks

type Rec = Record<string, unknown>;

/**
 * A plain data object (what structured clone / JSON produce), not an array,
 * class instance or null. Realm-independent: its prototype is null or some
 * realm's Object.prototype (a root object).
 */
export function isRecord(x: unknown): x is Rec {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** An ArrayBuffer from any realm (structured clone may deliver one from another). */
export function isArrayBuffer(x: unknown): x is ArrayBuffer {
  return Object.prototype.toString.call(x) === '[object ArrayBuffer]';
}

/** Returns a reason if `obj` has a key outside required+optional, or lacks a required one. */
function keysProblem(obj: Rec, required: readonly string[], optional: readonly string[] = []): string | null {
  const keys = Object.keys(obj);
  for (const k of keys) {
    if (!required.includes(k) && !optional.includes(k)) return `unknown field ${JSON.stringify(k.slice(0, 40))}`;
  }
  for (const k of required) if (!(k in obj)) return `missing field "${k}"`;
  return null;
}

/** Message ids: integers 1..2^53-1. */
export function isId(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 1;
}

function isBoundedString(x: unknown, max: number): x is string {
  return typeof x === 'string' && x.length <= max;
}

function isFiniteNumber(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

function isNonNegInt(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}

function idOf(x: Rec): number | null {
  return isId(x.id) ? x.id : null;
}

function bad<T>(reason: string, id: number | null = null): Checked<T> {
  return { ok: false, reason, id };
}

// ---------------------------------------------------------------------------
// Hello envelope (window.postMessage)

export interface HelloEnvelope {
  sprint: string;
  type: 'hello';
  nonce: string;
}

/**
 * Whether `x` is a Sprint hello envelope of any version (`sprint: 'vN'`). The
 * content script answers other versions with `unsupported-protocol`, so a
 * newer page learns why instead of timing out.
 */
export function isHelloEnvelope(x: unknown): x is HelloEnvelope {
  if (!isRecord(x) || keysProblem(x, ['sprint', 'type', 'nonce']) !== null) return false;
  return (
    x.type === 'hello' &&
    typeof x.sprint === 'string' &&
    /^v[1-9][0-9]{0,3}$/.test(x.sprint) &&
    isBoundedString(x.nonce, LIMITS.maxNonceChars)
  );
}

// ---------------------------------------------------------------------------
// Page → extension

/** Validates a page message (shape only; URL policy and CORS are the worker's). */
export function checkPageMessage(x: unknown): Checked<PageMessage> {
  if (!isRecord(x)) return bad('not a plain object');
  const id = idOf(x);
  switch (x.type) {
    case 'request': {
      const p = keysProblem(x, ['type', 'id', 'url'], ['range']);
      if (p) return bad(`request: ${p}`, id);
      if (!isId(x.id)) return bad('request: id must be an integer 1..2^53-1', null);
      if (typeof x.url !== 'string') return bad('request: url must be a string', id);
      if (x.url.length === 0 || x.url.length > LIMITS.maxUrlLength)
        return bad(`request: url must be 1..${LIMITS.maxUrlLength} characters, got ${x.url.length}`, id);
      if (x.range === undefined) return { ok: true, value: { type: 'request', id: x.id, url: x.url } };
      const r = checkRange(x.range);
      if (typeof r === 'string') return bad(`request: range ${r}`, id);
      return { ok: true, value: { type: 'request', id: x.id, url: x.url, range: r } };
    }
    case 'cancel':
    case 'stats': {
      const p = keysProblem(x, ['type', 'id']);
      if (p) return bad(`${x.type}: ${p}`, id);
      if (!isId(x.id)) return bad(`${x.type}: id must be an integer 1..2^53-1`);
      return { ok: true, value: { type: x.type, id: x.id } };
    }
    case 'pathInfo': {
      const p = keysProblem(x, ['type', 'id', 'origin']);
      if (p) return bad(`pathInfo: ${p}`, id);
      if (!isId(x.id)) return bad('pathInfo: id must be an integer 1..2^53-1');
      if (!isBoundedString(x.origin, LIMITS.maxOriginLength) || x.origin.length === 0)
        return bad(`pathInfo: origin must be a string of 1..${LIMITS.maxOriginLength} characters`, id);
      return { ok: true, value: { type: 'pathInfo', id: x.id, origin: x.origin } };
    }
    case 'close': {
      const p = keysProblem(x, ['type']);
      if (p) return bad(`close: ${p}`);
      return { ok: true, value: { type: 'close' } };
    }
    case 'consumed': {
      const p = keysProblem(x, ['type', 'bytes']);
      if (p) return bad(`consumed: ${p}`);
      if (!isNonNegInt(x.bytes)) return bad('consumed: bytes must be an integer >= 0');
      return { ok: true, value: { type: 'consumed', bytes: x.bytes } };
    }
    default:
      return bad(`unknown message type ${typeof x.type === 'string' ? JSON.stringify(x.type.slice(0, 40)) : typeof x.type}`, id);
  }
}

/** `{start, end}` with integers 0 <= start <= end, at most maxResponseBytes long; else a reason. */
function checkRange(x: unknown): ByteRangeMsg | string {
  if (!isRecord(x)) return 'must be an object {start, end}';
  const p = keysProblem(x, ['start', 'end']);
  if (p) return p;
  if (!isNonNegInt(x.start) || !isNonNegInt(x.end)) return 'start and end must be integers >= 0';
  if (x.end < x.start) return `end ${x.end} is before start ${x.start}`;
  if (x.end - x.start + 1 > LIMITS.maxResponseBytes) return `is longer than ${LIMITS.maxResponseBytes} bytes`;
  return { start: x.start, end: x.end };
}

/** Validates a content-script → worker message: a page message or the session hello. */
export function checkSessionMessage(x: unknown): Checked<SessionMessage> {
  if (isRecord(x) && x.type === 'hello') {
    const p = keysProblem(x, ['type', 'protocol']);
    if (p) return bad(`hello: ${p}`);
    if (!isNonNegInt(x.protocol)) return bad('hello: protocol must be an integer');
    return { ok: true, value: { type: 'hello', protocol: x.protocol } };
  }
  return checkPageMessage(x);
}

// ---------------------------------------------------------------------------
// Extension → page (minimal checks: the page trusts the extension, not the channel)

const REQUEST_ERROR_CODES = Object.keys(REQUEST_ERROR_TEXT) as readonly RequestErrorCode[];
const UNAVAILABLE_CODES: readonly UnavailableCode[] = [
  'no-extension',
  'host-missing',
  'host-forbidden',
  'host-failed',
  'unsupported-protocol',
  'too-many-sessions',
  'forbidden-page',
  'worker-timeout',
  'handshake-timeout',
  'worker-disconnected',
  'session-idle',
];

function checkHeaders(x: unknown): string | null {
  if (!isRecord(x)) return 'headers must be an object';
  const keys = Object.keys(x);
  if (keys.length > LIMITS.maxHeaderFields) return `more than ${LIMITS.maxHeaderFields} header fields`;
  let chars = 0;
  for (const k of keys) {
    const v = x[k];
    if (typeof v !== 'string') return `header ${JSON.stringify(k.slice(0, 40))} is not a string`;
    if (!/^[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(k)) return `header name ${JSON.stringify(k.slice(0, 40))} is not a lower-case token`;
    chars += k.length + v.length;
  }
  return chars > LIMITS.maxHeaderChars ? `headers exceed ${LIMITS.maxHeaderChars} characters` : null;
}

/** Largest base64 length of one piece (4 characters per 3 bytes, padded). */
export const MAX_PIECE_B64 = Math.ceil(LIMITS.maxPieceBytes / 3) * 4;

/**
 * Validates a message from the extension. `piece` says which hop: 'b64' (worker → content
 * script) or 'bytes' (content script → page).
 */
export function checkExtensionMessage(x: unknown, piece: 'b64'): Checked<WorkerMessage>;
export function checkExtensionMessage(x: unknown, piece: 'bytes'): Checked<ExtensionMessage>;
export function checkExtensionMessage(x: unknown, piece: 'b64' | 'bytes'): Checked<WorkerMessage | ExtensionMessage> {
  if (!isRecord(x)) return bad('not a plain object');
  const id = idOf(x);
  const ok = (): Checked<WorkerMessage | ExtensionMessage> => ({ ok: true, value: x as unknown as WorkerMessage });
  switch (x.type) {
    case 'ack': {
      const p = keysProblem(x, ['type', 'extensionVersion']);
      if (p || !isBoundedString(x.extensionVersion, 32)) return bad(`ack: ${p ?? 'malformed extensionVersion'}`);
      return ok();
    }
    case 'welcome': {
      const p = keysProblem(x, ['type', 'protocol', 'extensionVersion', 'hostVersion', 'tcpInfo', 'limits']);
      if (p) return bad(`welcome: ${p}`);
      const l = x.limits;
      if (
        !isNonNegInt(x.protocol) ||
        !isBoundedString(x.extensionVersion, 32) ||
        !isBoundedString(x.hostVersion, 32) ||
        typeof x.tcpInfo !== 'boolean'
      ) {
        return bad('welcome: malformed fields');
      }
      if (
        !isRecord(l) ||
        keysProblem(l, ['maxOutstanding', 'maxResponseBytes', 'maxUrlLength']) ||
        !isNonNegInt(l.maxOutstanding) ||
        !isNonNegInt(l.maxResponseBytes) ||
        !isNonNegInt(l.maxUrlLength)
      ) {
        return bad('welcome: malformed limits');
      }
      return ok();
    }
    case 'unavailable':
    case 'closed': {
      const p = keysProblem(x, ['type', 'code', 'reason']);
      if (p) return bad(`${x.type}: ${p}`);
      if (!UNAVAILABLE_CODES.includes(x.code as UnavailableCode) || !isBoundedString(x.reason, LIMITS.maxReasonChars))
        return bad(`${x.type}: malformed code or reason`);
      return ok();
    }
    case 'head': {
      const p = keysProblem(x, ['type', 'id', 'status', 'headers', 't']);
      if (p) return bad(`head: ${p}`, id);
      if (!isId(x.id) || !isNonNegInt(x.status) || x.status < 100 || x.status > 599 || !isFiniteNumber(x.t))
        return bad('head: malformed id, status or t', id);
      const h = checkHeaders(x.headers);
      return h ? bad(`head: ${h}`, id) : ok();
    }
    case 'data': {
      const p = keysProblem(x, ['type', 'id', 't', piece]);
      if (p) return bad(`data: ${p}`, id);
      if (!isId(x.id) || !isFiniteNumber(x.t)) return bad('data: malformed id or t', id);
      if (piece === 'b64') {
        const s = x.b64;
        if (typeof s !== 'string' || s.length === 0 || s.length > MAX_PIECE_B64 || s.length % 4 !== 0)
          return bad('data: b64 must be non-empty padded base64 of at most one piece', id);
      } else if (!isArrayBuffer(x.bytes) || x.bytes.byteLength === 0 || x.bytes.byteLength > LIMITS.maxPieceBytes) {
        return bad(`data: bytes must be a non-empty ArrayBuffer of at most ${LIMITS.maxPieceBytes} bytes`, id);
      }
      return ok();
    }
    case 'end': {
      const p = keysProblem(x, ['type', 'id', 't', 'bodyBytes']);
      if (p || !isId(x.id) || !isFiniteNumber(x.t) || !isNonNegInt(x.bodyBytes)) return bad(`end: ${p ?? 'malformed fields'}`, id);
      return ok();
    }
    case 'error': {
      const p = keysProblem(x, ['type', 'id', 'code', 'reason', 'retryable']);
      if (p) return bad(`error: ${p}`, id);
      if (
        !isId(x.id) ||
        !REQUEST_ERROR_CODES.includes(x.code as RequestErrorCode) ||
        !isBoundedString(x.reason, LIMITS.maxReasonChars) ||
        typeof x.retryable !== 'boolean'
      ) {
        return bad('error: malformed fields', id);
      }
      return ok();
    }
    case 'result': {
      const p = keysProblem(x, ['type', 'id', 'value']);
      if (p || !isId(x.id)) return bad(`result: ${p ?? 'malformed id'}`, id);
      return ok();
    }
    case 'rejected': {
      const p = keysProblem(x, ['type', 'id', 'reason']);
      if (p || !(x.id === null || isId(x.id)) || !isBoundedString(x.reason, LIMITS.maxReasonChars))
        return bad(`rejected: ${p ?? 'malformed fields'}`);
      return ok();
    }
    default:
      return bad(`unknown message type ${typeof x.type === 'string' ? JSON.stringify(x.type.slice(0, 40)) : typeof x.type}`, id);
  }
}

/** Cuts a reason to the protocol's bound. */
export function clipReason(s: string): string {
  return s.length <= LIMITS.maxReasonChars ? s : `${s.slice(0, LIMITS.maxReasonChars - 1)}…`;
}
