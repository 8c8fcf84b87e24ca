/**
 * The Sprint extension's MV3 service worker:
 * accepts page sessions from its content scripts, checks that the native
 * socket host is reachable before welcoming one, and serves each session's
 * requests (session.ts) over the one native port (host-manager.ts).
 *
 * Session handshake, on a chrome.runtime port named SESSION_PORT_NAME:
 *   content script → {type:'hello', protocol:1}
 *   worker → {type:'welcome', ...} once the host answered its hello, or
 *            {type:'unavailable', code, reason} and a disconnect.
 * The page origin is taken from the port's sender (set by the browser), never
 * from a message. Only this extension's own content scripts, in a tab, on an
 * http(s) page, may connect.
 *
 * Lifetime: an open native port and active content-script ports keep an MV3
 * worker running; if the browser stops it anyway, every port disconnects, the
 * native host exits (its stdin closes), the content scripts tell their pages
 * (`closed`, code worker-disconnected) and the pages re-handshake, which
 * starts a fresh worker.
 */
import {
  LIMITS,
  PAGE_PROTOCOL_VERSION,
  SESSION_PORT_NAME,
  checkSessionMessage,
  clipReason,
  type WorkerMessage,
} from '../../../player/sprint/extension/protocol';
import { HOST_NAME } from '../constants';
import { HostManager } from './host-manager';
import { HostUnavailableError, type NativePort } from './native-host';
import { Session } from './session';
import { SessionAdmission } from './session-admission';
import { parsePageOrigin } from './url-policy';

const HELLO_TIMEOUT_MS = 10_000;
const WORKER_STARTED_AT = Date.now();

function log(line: string): void {
  console.log(`[sprint] ${line}`);
}

function nativePort(): NativePort {
  const port = chrome.runtime.connectNative(HOST_NAME);
  return {
    postMessage: (m) => port.postMessage(m),
    disconnect: () => port.disconnect(),
    onMessage: (fn) => port.onMessage.addListener((m) => fn(m)),
    onDisconnect: (fn) => port.onDisconnect.addListener(() => fn(chrome.runtime.lastError?.message ?? '')),
  };
}

/** A printable-ASCII User-Agent the host accepts (PROTOCOL.md §8), naming Sprint. */
function userAgent(): string {
  const ua = `${typeof navigator !== 'undefined' ? navigator.userAgent : ''} Sprint/${chrome.runtime.getManifest().version}`.trim();
  const clean = ua
    .replace(/[^\x20-\x7e]|["\\]/g, '')
    .slice(-256)
    .trim();
  return clean === '' ? 'Sprint' : clean;
}

const hosts = new HostManager({ connect: nativePort, log });
const sessions = new Set<Session>();
/** Session slots per tab and in all, taken at connect (the handshake counts) and freed at disconnect. */
const admission = new SessionAdmission();
let nextSessionId = 1;

hosts.onUnrecoverable((err) => {
  for (const s of [...sessions]) s.terminate('host-failed', err.message);
});

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== SESSION_PORT_NAME) {
    port.disconnect();
    return;
  }
  const sender = port.sender;
  const post = (m: WorkerMessage): void => {
    try {
      port.postMessage(m);
    } catch {
      // the content script went away
    }
  };
  // A port's onDisconnect fires only at the other end: closing it here must run the same clean-up.
  let cleanup: () => void = () => undefined;
  const disconnect = (): void => {
    try {
      port.disconnect();
    } catch {
      // already disconnected
    }
    cleanup();
  };
  const refuse = (
    code: 'forbidden-page' | 'too-many-sessions' | 'unsupported-protocol' | 'host-missing' | 'host-forbidden' | 'host-failed',
    reason: string,
  ): void => {
    post({ type: 'unavailable', code, reason: clipReason(reason) });
    disconnect();
  };
  if (!sender || sender.id !== chrome.runtime.id || sender.tab === undefined) {
    disconnect();
    return;
  }
  const page = parsePageOrigin(sender.origin, sender.url);
  if (!page) {
    refuse('forbidden-page', `Sprint serves http(s) pages only (this page's origin is ${String(sender.origin)})`);
    return;
  }
  const tabId = sender.tab.id ?? -1;
  const admitted = admission.admit(tabId);
  if (!admitted.ok) {
    refuse('too-many-sessions', admitted.reason);
    return;
  }
  let counted = true;
  const releaseSlot = (): void => {
    if (counted) admission.release(tabId);
    counted = false;
  };

  let session: Session | null = null;
  let helloSeen = false;
  let disconnected = false;
  let acquired = false;
  const helloTimer = setTimeout(() => {
    if (!helloSeen) disconnect();
  }, HELLO_TIMEOUT_MS);

  cleanup = () => {
    if (disconnected) return;
    disconnected = true;
    releaseSlot();
    clearTimeout(helloTimer);
    if (session) {
      session.close();
      sessions.delete(session);
    }
    if (acquired) hosts.release();
  };
  port.onDisconnect.addListener(() => cleanup());

  port.onMessage.addListener((raw) => {
    if (session) {
      session.handle(raw);
      return;
    }
    if (helloSeen) {
      post({ type: 'rejected', id: null, reason: 'no messages before the welcome' });
      return;
    }
    const checked = checkSessionMessage(raw);
    if (!checked.ok || checked.value.type !== 'hello') {
      refuse('unsupported-protocol', `the first message must be {type:'hello', protocol:${PAGE_PROTOCOL_VERSION}}`);
      return;
    }
    helloSeen = true;
    clearTimeout(helloTimer);
    if (checked.value.protocol !== PAGE_PROTOCOL_VERSION) {
      refuse('unsupported-protocol', `the page speaks protocol ${checked.value.protocol}, this extension ${PAGE_PROTOCOL_VERSION}`);
      return;
    }
    hosts.acquire().then(
      (host) => {
        if (disconnected) {
          hosts.release();
          return;
        }
        acquired = true;
        const s = new Session(nextSessionId, { postMessage: post, disconnect }, page, {
          host: () => hosts.get(),
          userAgent: userAgent(),
          log,
          workerStartedAt: WORKER_STARTED_AT,
        });
        nextSessionId += 1;
        session = s;
        sessions.add(s);
        post({
          type: 'welcome',
          protocol: PAGE_PROTOCOL_VERSION,
          extensionVersion: chrome.runtime.getManifest().version,
          hostVersion: host.hello.hostVersion,
          tcpInfo: host.hello.tcpInfo,
          limits: { maxOutstanding: LIMITS.maxOutstanding, maxResponseBytes: LIMITS.maxResponseBytes, maxUrlLength: LIMITS.maxUrlLength },
        });
      },
      (err: unknown) => {
        const e = err instanceof HostUnavailableError ? err : new HostUnavailableError('host-failed', String(err));
        const code = e.code === 'host-missing' || e.code === 'host-forbidden' || e.code === 'unsupported-protocol' ? e.code : 'host-failed';
        refuse(code, e.message);
      },
    );
  });
});

// Idle sessions give their slot back (Session.expireIfIdle; the page says hello again when it needs one).
setInterval(() => {
  for (const s of [...sessions]) if (s.expireIfIdle()) log(`session ${s.sessionId} (${s.page.origin}) expired: idle`);
}, 30_000);

log(`service worker started (extension ${chrome.runtime.getManifest().version})`);
