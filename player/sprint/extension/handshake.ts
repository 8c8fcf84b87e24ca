/**
 * The page's half of the Sprint extension handshake ("the
 * Sprint player detects it with a versioned handshake"). Creates a private
 * MessageChannel, hands one end to the extension's content script with a
 * namespaced hello (`{sprint:'v1', type:'hello', nonce}`) and waits:
 *   - no `ack` within `presenceTimeoutMs` → the extension is not there
 *     (`no-extension`: not installed, disabled, or the page was loaded before
 *     it was installed);
 *   - `ack`, then `welcome` within `handshakeTimeoutMs` → a session, whose
 *     port the transport keeps;
 *   - `ack`, then `unavailable` → the reason (e.g. `host-missing` with
 *     Chrome's "Specified native messaging host not found.").
 * Other scripts' window messages never matter: after the hello everything
 * travels on the private port.
 *
 * The content script marks the document at document_start
 * (PRESENCE_ATTRIBUTE). Without the mark the extension is not in this page,
 * and the hello waits only ABSENT_GRACE_MS for an ack instead of
 * `presenceTimeoutMs`: a page without the extension starts playing that much
 * sooner (auto mode asks this first).
 */
import { PAGE_PROTOCOL, PRESENCE_ATTRIBUTE, checkExtensionMessage, type UnavailableCode, type WelcomeInfo } from './protocol';

/** How long a hello waits for an ack in a document the content script has not marked, ms. */
export const ABSENT_GRACE_MS = 100;

/** Whether `win`'s document carries the content script's mark; null when it cannot be read (then: wait the full time). */
export function extensionMarked(win: Window): boolean | null {
  try {
    const root = win.document?.documentElement;
    return root && typeof root.hasAttribute === 'function' ? root.hasAttribute(PRESENCE_ATTRIBUTE) : null;
  } catch {
    return null;
  }
}

export type SessionOpen = { ok: true; port: MessagePort; info: WelcomeInfo } | { ok: false; code: UnavailableCode; reason: string };

export interface HandshakeOptions {
  /** Window to say hello to. Default: the global `window`. */
  win?: Window;
  /** How long the extension may take to acknowledge the hello, ms. */
  presenceTimeoutMs: number;
  /** How long, after the ack, the extension may take to confirm its socket host, ms. */
  handshakeTimeoutMs: number;
}

function nonce(): string {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/** Says hello and resolves with the session's port, or why there is none. Never rejects. */
export function openSession(o: HandshakeOptions): Promise<SessionOpen> {
  const win = o.win ?? window;
  const marked = extensionMarked(win);
  const presenceMs = marked === false ? Math.min(o.presenceTimeoutMs, ABSENT_GRACE_MS) : o.presenceTimeoutMs;
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const port = channel.port1;
    let timer: ReturnType<typeof setTimeout>;
    let settled = false;
    const finish = (r: SessionOpen): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      port.onmessage = null;
      if (!r.ok) port.close();
      resolve(r);
    };
    timer = setTimeout(
      () =>
        finish({
          ok: false,
          code: 'no-extension',
          reason:
            marked === false
              ? `the Sprint extension is not in this page (no ${PRESENCE_ATTRIBUTE} mark, no answer within ${presenceMs} ms: not installed or disabled, or this page was loaded before it was installed)`
              : `the Sprint extension did not answer within ${presenceMs} ms (not installed or disabled, or this page was loaded before it was installed)`,
        }),
      presenceMs,
    );
    port.onmessage = (ev: MessageEvent) => {
      const c = checkExtensionMessage(ev.data, 'bytes');
      if (!c.ok) return;
      const m = c.value;
      if (m.type === 'ack') {
        clearTimeout(timer);
        timer = setTimeout(
          () =>
            finish({
              ok: false,
              code: 'handshake-timeout',
              reason: `the Sprint extension did not confirm its socket host within ${o.handshakeTimeoutMs} ms`,
            }),
          o.handshakeTimeoutMs,
        );
      } else if (m.type === 'welcome') {
        const { type: _type, ...info } = m;
        finish({ ok: true, port, info });
      } else if (m.type === 'unavailable' || m.type === 'closed') {
        finish({ ok: false, code: m.code, reason: m.reason });
      }
    };
    try {
      win.postMessage({ sprint: PAGE_PROTOCOL, type: 'hello', nonce: nonce() }, '*', [channel.port2]);
    } catch (err) {
      finish({ ok: false, code: 'no-extension', reason: `cannot post the hello: ${(err as Error).message}` });
    }
  });
}
