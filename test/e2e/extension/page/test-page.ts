/**
 * Test page for the Sprint extension end-to-end tests: bundled by
 * the tests (support/ext-stack.ts) into a temp page directory the origin
 * serves, it drives the real page-side transport (player/sprint/
 * extension-transport.ts) and reports what reached the page, so the tests can
 * compare it with the origin's access log and the files on disk.
 *   window.sprintExtTest.detect(timeoutMs)     detectExtension
 *   window.sprintExtTest.run(requests)         issue all at once, collect per request
 *   window.sprintExtTest.raw(messages, waitMs) a private session fed raw (malformed) messages
 */
import { detectExtension, ExtensionTransport } from '../../../../player/sprint/extension-transport';
import { openSession } from '../../../../player/sprint/extension/handshake';
import type { TrainRequest } from '../../../../player/sprint/train-transport';

export interface ReqResult {
  status: number | null;
  headers: Record<string, string>;
  bytes: number;
  sha256: string | null;
  pieces: number;
  maxPiece: number;
  headT: number | null;
  endT: number | null;
  error: string | null;
  retryable: boolean | null;
  /** Page clock (epoch ms) at the first onData and at onEnd: what the page experienced. */
  pageFirstDataMs: number | null;
  pageEndMs: number | null;
  /** Callbacks that broke the sink contract (data before head, anything after end/error). */
  violations: string[];
}

let transport: ExtensionTransport | null = null;
const stateLog: string[] = [];
const held: MessagePort[] = [];

async function sha256(parts: Uint8Array[]): Promise<string> {
  let n = 0;
  for (const p of parts) n += p.length;
  const all = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', all));
  return Array.from(d, (x) => x.toString(16).padStart(2, '0')).join('');
}

function need(): ExtensionTransport {
  if (!transport) throw new Error('call detect() first');
  return transport;
}

const api = {
  async detect(timeoutMs: number, handshakeTimeoutMs = 10000) {
    const r = await detectExtension(timeoutMs, { handshakeTimeoutMs, reconnectDelaysMs: [200, 500, 1500] });
    if (!r.ok) return { ok: false, code: r.code, reason: r.reason };
    transport = r.transport;
    transport.onStateChange((s, why) => stateLog.push(`${s}: ${why}`));
    return { ok: true, info: r.info, details: r.details };
  },

  /** Issues every request synchronously, resolves when all ended or failed (or after timeoutMs). */
  run(reqs: TrainRequest[], timeoutMs = 60000): Promise<ReqResult[]> {
    const t = need();
    return new Promise((resolve) => {
      const results: ReqResult[] = [];
      const parts: Uint8Array[][] = [];
      let left = reqs.length;
      const timer = setTimeout(() => {
        for (const r of results) if (r.error === null && r.endT === null) r.error = 'test timeout';
        resolve(results);
      }, timeoutMs);
      const settle = (): void => {
        left -= 1;
        if (left === 0) {
          clearTimeout(timer);
          void Promise.all(
            results.map(async (r, i) => {
              if (r.endT !== null) r.sha256 = await sha256(parts[i] as Uint8Array[]);
            }),
          ).then(() => resolve(results));
        }
      };
      reqs.forEach((req, i) => {
        const r: ReqResult = {
          status: null,
          headers: {},
          bytes: 0,
          sha256: null,
          pieces: 0,
          maxPiece: 0,
          headT: null,
          endT: null,
          error: null,
          retryable: null,
          pageFirstDataMs: null,
          pageEndMs: null,
          violations: [],
        };
        results.push(r);
        parts.push([]);
        let done = false;
        t.request(req, {
          onHead(status, headers, atMs) {
            if (done || r.status !== null) r.violations.push('head after head/end/error');
            r.status = status;
            r.headers = { ...headers };
            r.headT = atMs;
          },
          onData(bytes, _atMs) {
            if (done || r.status === null) r.violations.push('data outside head..end');
            (parts[i] as Uint8Array[]).push(bytes.slice());
            r.bytes += bytes.length;
            r.pieces += 1;
            if (r.pageFirstDataMs === null) r.pageFirstDataMs = performance.timeOrigin + performance.now();
            r.maxPiece = Math.max(r.maxPiece, bytes.length);
          },
          onEnd(atMs) {
            if (done) r.violations.push('end after end/error');
            done = true;
            r.endT = atMs;
            r.pageEndMs = performance.timeOrigin + performance.now();
            settle();
          },
          onError(reason, retryable) {
            if (done) r.violations.push('error after end/error');
            done = true;
            r.error = reason;
            r.retryable = retryable;
            settle();
          },
        });
      });
      if (reqs.length === 0) {
        clearTimeout(timer);
        resolve([]);
      }
    });
  },

  stats: () => need().stats(),
  pathInfo: (origin: string) => need().pathInfo(origin),
  state: () => ({ state: need().state, reason: need().reason, reconnects: need().reconnectCount, log: stateLog.slice() }),
  close: () => need().close(),

  /** Opens `n` sessions one after the other and keeps them open (until releaseSessions); reports each outcome. */
  async holdSessions(n: number) {
    const outcomes: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const s = await openSession({ presenceTimeoutMs: 3000, handshakeTimeoutMs: 10000 });
      outcomes.push(s.ok ? 'ok' : `${s.code}: ${s.reason}`);
      if (s.ok) held.push(s.port);
    }
    return outcomes;
  },

  releaseSessions() {
    for (const p of held.splice(0)) {
      p.postMessage({ type: 'close' });
      p.close();
    }
  },

  /** Opens a separate session and posts `messages` as they are, returning every reply within `waitMs`. */
  async raw(messages: unknown[], waitMs: number) {
    const s = await openSession({ presenceTimeoutMs: 3000, handshakeTimeoutMs: 10000 });
    if (!s.ok) return { ok: false, code: s.code, reason: s.reason, replies: [] };
    const replies: unknown[] = [];
    s.port.onmessage = (ev: MessageEvent) => {
      const d = ev.data as Record<string, unknown>;
      replies.push(d.type === 'data' ? { ...d, bytes: (d.bytes as ArrayBuffer).byteLength } : d);
    };
    for (const m of messages) s.port.postMessage(m);
    await new Promise((r) => setTimeout(r, waitMs));
    s.port.postMessage({ type: 'close' });
    s.port.close();
    return { ok: true, replies };
  },
};

(window as unknown as { sprintExtTest: typeof api }).sprintExtTest = api;
document.title = 'sprint-ext-test ready';
