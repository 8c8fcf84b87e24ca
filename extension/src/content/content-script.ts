/**
 * The Sprint extension's content script, injected at
 * document_start into every http(s) frame. It does nothing until the page's
 * Sprint player says hello; then it bridges that page session to the service
 * worker:
 *
 *   page --window.postMessage({sprint:'v1', type:'hello', nonce}, '*', [port])--> here
 *   here --port: {type:'ack'}                         (at once: the extension is present)
 *   here --chrome.runtime.connect(SESSION_PORT_NAME)--> worker: {type:'hello', protocol:1}
 *   worker --welcome | unavailable--> here --port--> page
 *
 * From then on, page messages on the private MessagePort are validated
 * (protocol.ts) and forwarded; worker messages are validated and forwarded,
 * body pieces decoded from base64 into an ArrayBuffer that is transferred to
 * the page (no copy). Anything malformed from the page is answered `rejected`
 * and goes no further. When the worker port disconnects (worker stopped,
 * extension reloaded) the page gets `closed` and may say hello again.
 */
import {
  LIMITS,
  PAGE_PROTOCOL,
  PAGE_PROTOCOL_VERSION,
  PRESENCE_ATTRIBUTE,
  SESSION_PORT_NAME,
  checkExtensionMessage,
  checkPageMessage,
  clipReason,
  isHelloEnvelope,
  type ExtensionMessage,
} from '../../../player/sprint/extension/protocol';
import { decodeBase64 } from '../shared/base64';

/** How long the worker may take to confirm the native host, ms. */
const WORKER_TIMEOUT_MS = 10_000;

let openSessions = 0;

function extensionVersion(): string {
  try {
    return chrome.runtime.getManifest().version;
  } catch {
    return '0';
  }
}

function startSession(pagePort: MessagePort): void {
  const toPage = (m: ExtensionMessage, transfer: Transferable[] = []): void => {
    try {
      pagePort.postMessage(m, transfer);
    } catch {
      // the page side is gone
    }
  };
  toPage({ type: 'ack', extensionVersion: extensionVersion() });
  if (openSessions >= LIMITS.maxSessionsPerDocument) {
    toPage({
      type: 'unavailable',
      code: 'too-many-sessions',
      reason: `at most ${LIMITS.maxSessionsPerDocument} Sprint sessions per document`,
    });
    pagePort.close();
    return;
  }
  let worker: chrome.runtime.Port;
  try {
    worker = chrome.runtime.connect({ name: SESSION_PORT_NAME });
  } catch (err) {
    // An orphaned content script (the extension was reloaded or removed).
    toPage({
      type: 'unavailable',
      code: 'worker-disconnected',
      reason: clipReason(`cannot reach the extension: ${(err as Error).message}`),
    });
    pagePort.close();
    return;
  }
  openSessions += 1;
  let welcomed = false;
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    openSessions -= 1;
    clearTimeout(timer);
    pagePort.onmessage = null;
    pagePort.close();
  };
  const timer = setTimeout(() => {
    if (welcomed || ended) return;
    toPage({
      type: 'unavailable',
      code: 'worker-timeout',
      reason: `the extension's service worker did not confirm the socket host within ${WORKER_TIMEOUT_MS} ms`,
    });
    worker.disconnect();
    end();
  }, WORKER_TIMEOUT_MS);

  worker.onMessage.addListener((raw) => {
    if (ended) return;
    const c = checkExtensionMessage(raw, 'b64');
    if (!c.ok) {
      console.warn(`[sprint] dropped a malformed message from the service worker: ${c.reason}`);
      return;
    }
    const m = c.value;
    if (m.type === 'welcome') welcomed = true;
    if (m.type === 'data') {
      let bytes: Uint8Array;
      try {
        bytes = decodeBase64(m.b64);
      } catch (err) {
        console.warn(`[sprint] dropped a data message: ${(err as Error).message}`);
        return;
      }
      const buf =
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : bytes.slice().buffer;
      toPage({ type: 'data', id: m.id, t: m.t, bytes: buf }, [buf]);
      return;
    }
    toPage(m as ExtensionMessage);
    if (m.type === 'unavailable' || m.type === 'closed') {
      worker.disconnect();
      end();
    }
  });
  worker.onDisconnect.addListener(() => {
    if (ended) return;
    const why = chrome.runtime.lastError?.message ?? 'the service worker port closed';
    toPage(
      welcomed
        ? { type: 'closed', code: 'worker-disconnected', reason: clipReason(`the extension's service worker went away (${why})`) }
        : {
            type: 'unavailable',
            code: 'worker-disconnected',
            reason: clipReason(`the extension's service worker closed the session before welcoming it (${why})`),
          },
    );
    end();
  });
  pagePort.onmessage = (ev: MessageEvent) => {
    if (ended) return;
    const c = checkPageMessage(ev.data);
    if (!c.ok) {
      toPage({ type: 'rejected', id: c.id, reason: clipReason(c.reason) });
      return;
    }
    if (!welcomed) {
      toPage({ type: 'rejected', id: 'id' in c.value ? c.value.id : null, reason: 'no requests before the welcome' });
      return;
    }
    try {
      worker.postMessage(c.value);
    } catch {
      // onDisconnect reports it
    }
    if (c.value.type === 'close') {
      worker.disconnect();
      end();
    }
  };
  worker.postMessage({ type: 'hello', protocol: PAGE_PROTOCOL_VERSION });
}

// Say at once that the extension is here (protocol.ts, PRESENCE_ATTRIBUTE).
try {
  document.documentElement?.setAttribute(PRESENCE_ATTRIBUTE, PAGE_PROTOCOL);
} catch {
  // no document element yet in this frame: the page waits for the ack instead
}

window.addEventListener('message', (ev: MessageEvent) => {
  if (ev.source !== window || !isHelloEnvelope(ev.data)) return;
  const port = ev.ports[0];
  if (port === undefined || ev.ports.length !== 1) return;
  if (ev.data.sprint !== PAGE_PROTOCOL) {
    port.postMessage({ type: 'ack', extensionVersion: extensionVersion() });
    port.postMessage({
      type: 'unavailable',
      code: 'unsupported-protocol',
      reason: `the extension speaks ${PAGE_PROTOCOL}, the page ${ev.data.sprint}`,
    });
    port.close();
    return;
  }
  startSession(port);
});
