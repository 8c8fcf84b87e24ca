// The page-side ExtensionTransport (player/sprint/extension-transport.ts):
// handshake outcomes, the sink contract, and what happens when the extension
// side goes away (pending requests fail retryable, requests made meanwhile are
// held, then sent on the re-established session or failed when none can be
// had). The other end is a scripted content script on a real MessageChannel
// (Node's), speaking protocol v1; the transport under test is the real one.

import { detectExtension, type ExtensionTransport } from '../../../player/sprint/extension-transport';
import type { ResponseSink } from '../../../player/sprint/train-transport';

type Reply = (port: MessagePort, hello: unknown) => void;

const welcome = {
  type: 'welcome',
  protocol: 1,
  extensionVersion: '0.1.0',
  hostVersion: '0.1.0',
  tcpInfo: true,
  limits: { maxOutstanding: 32, maxResponseBytes: 1 << 28, maxUrlLength: 4096 },
};

/** A window whose "content script" answers each hello with the next scripted behaviour. */
function fakeWindow(script: Reply[]): { win: Window; ports: MessagePort[]; hellos: unknown[] } {
  const ports: MessagePort[] = [];
  const hellos: unknown[] = [];
  const win = {
    postMessage(msg: unknown, _target: string, transfer: Transferable[]) {
      hellos.push(msg);
      const port = transfer[0] as MessagePort;
      ports.push(port);
      const next = script.shift();
      if (next) next(port, msg);
    },
  } as unknown as Window;
  return { win, ports, hellos };
}

const welcomes: Reply = (port) => {
  port.postMessage({ type: 'ack', extensionVersion: '0.1.0' });
  port.postMessage(welcome);
};

interface Recorded {
  events: string[];
  done: Promise<void>;
}

function recordingSink(): { sink: ResponseSink; rec: Recorded } {
  let finish!: () => void;
  const rec: Recorded = { events: [], done: new Promise((r) => (finish = r)) };
  return {
    rec,
    sink: {
      onHead: (status, headers, t) => rec.events.push(`head ${status} ${JSON.stringify(headers)} ${t}`),
      onData: (bytes, t) => rec.events.push(`data ${Array.from(bytes).join(',')} ${t}`),
      onEnd: (t) => {
        rec.events.push(`end ${t}`);
        finish();
      },
      onError: (reason, retryable) => {
        rec.events.push(`error ${retryable} ${reason}`);
        finish();
      },
    },
  };
}

/** Next message the page posts on `port`. */
function nextMessage(port: MessagePort): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    port.onmessage = (ev: MessageEvent) => resolve(ev.data as Record<string, unknown>);
  });
}

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

test('no answer → no-extension after the timeout', async () => {
  const { win } = fakeWindow([]);
  const r = await detectExtension(50, { win });
  expect(r).toEqual({ ok: false, code: 'no-extension', reason: expect.stringMatching(/did not answer within 50 ms/) });
});

/** The fake window with a document whose element has the content script's mark or not. */
function withMark(win: Window, marked: boolean): Window {
  const attrs = new Set(marked ? ['data-sprint-extension'] : []);
  return Object.assign(win, { document: { documentElement: { hasAttribute: (n: string) => attrs.has(n) } } });
}

test("a document without the content script's mark: no-extension after the short grace, not the full timeout", async () => {
  const { win } = fakeWindow([]);
  const r = await detectExtension(60_000, { win: withMark(win, false) });
  expect(r).toEqual({
    ok: false,
    code: 'no-extension',
    reason: expect.stringMatching(/not in this page \(no data-sprint-extension mark, no answer within 100 ms/),
  });
});

test('a marked document waits the full presence timeout for the ack', async () => {
  const { win } = fakeWindow([]);
  const r = await detectExtension(150, { win: withMark(win, true) });
  expect(r).toEqual({ ok: false, code: 'no-extension', reason: expect.stringMatching(/did not answer within 150 ms/) });
});

test('a marked document that answers: a session', async () => {
  const { win } = fakeWindow([welcomes]);
  const r = await detectExtension(1000, { win: withMark(win, true) });
  expect(r.ok).toBe(true);
  if (r.ok) r.transport.close();
});

test("ack then unavailable → the code and Chrome's reason", async () => {
  const { win, hellos } = fakeWindow([
    (port) => {
      port.postMessage({ type: 'ack', extensionVersion: '0.1.0' });
      port.postMessage({
        type: 'unavailable',
        code: 'host-missing',
        reason: 'native host disconnected: Specified native messaging host not found.',
      });
    },
  ]);
  const r = await detectExtension(1000, { win });
  expect(r).toMatchObject({ ok: false, code: 'host-missing', reason: expect.stringMatching(/Specified native messaging host not found/) });
  expect(hellos[0]).toEqual({ sprint: 'v1', type: 'hello', nonce: expect.stringMatching(/^[0-9a-f]{24}$/) });
});

test('ack but no welcome → handshake-timeout', async () => {
  const { win } = fakeWindow([(port) => port.postMessage({ type: 'ack', extensionVersion: '0.1.0' })]);
  const r = await detectExtension(1000, { win, handshakeTimeoutMs: 50 });
  expect(r).toMatchObject({ ok: false, code: 'handshake-timeout' });
});

test('a request: message sent, head/data/end delivered in order with host times; malformed and foreign messages ignored', async () => {
  const { win, ports } = fakeWindow([welcomes]);
  const found = await detectExtension(1000, { win });
  expect(found.ok).toBe(true);
  if (!found.ok) return;
  const t = found.transport;
  cleanup.push(() => t.close());
  expect(found.info).toBe('extension 0.1.0, socket host 0.1.0, TCP_INFO');
  const cs = ports[0] as MessagePort;
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  cleanup.push(() => warn.mockRestore());
  const sent = nextMessage(cs);
  const { sink, rec } = recordingSink();
  t.request({ url: 'https://cdn.example/a.m4s', range: { start: 10, end: 12 } }, sink);
  const msg = await sent;
  expect(msg).toEqual({ type: 'request', id: expect.any(Number), url: 'https://cdn.example/a.m4s', range: { start: 10, end: 12 } });
  const id = msg.id as number;
  cs.postMessage({ type: 'data', id, t: 1, bytes: new Uint8Array([9]).buffer }); // before head: dropped
  cs.postMessage({ type: 'head', id, status: 206, headers: { 'content-range': 'bytes 10-12/100' }, t: 2 });
  cs.postMessage({ type: 'head', id, status: 'x', headers: {}, t: 2 }); // malformed: ignored
  cs.postMessage({ type: 'head', id: id + 100, status: 200, headers: {}, t: 2 }); // unknown id: ignored
  const buf = new Uint8Array([1, 2, 3]).buffer;
  cs.postMessage({ type: 'data', id, t: 3, bytes: buf }, [buf]);
  cs.postMessage({ type: 'end', id, t: 4, bodyBytes: 3 });
  cs.postMessage({ type: 'end', id, t: 5, bodyBytes: 3 }); // after end: ignored
  await rec.done;
  await new Promise((r) => setTimeout(r, 20));
  expect(rec.events).toEqual(['head 206 {"content-range":"bytes 10-12/100"} 2', 'data 1,2,3 3', 'end 4']);
  expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
    '[sprint] ignored a malformed message from the extension: head: malformed id, status or t',
  ]);
});

test('bad requests fail at once without reaching the extension', async () => {
  const { win, ports } = fakeWindow([welcomes]);
  const found = await detectExtension(1000, { win });
  if (!found.ok) throw new Error(found.reason);
  cleanup.push(() => found.transport.close());
  const cs = ports[0] as MessagePort;
  const seen: unknown[] = [];
  cs.onmessage = (ev: MessageEvent) => seen.push(ev.data);
  const outcomes = await Promise.all(
    [{ url: 'ftp://x/a' }, { url: 'https://x/a', range: { start: 5, end: 4 } }, { url: '' }].map((req) => {
      const { sink, rec } = recordingSink();
      found.transport.request(req, sink);
      return rec.done.then(() => rec.events[0]);
    }),
  );
  expect(outcomes).toEqual([
    expect.stringMatching(/^error false bad request: only http\(s\) URLs/),
    expect.stringMatching(/^error false bad request: range \{start: 5, end: 4\}/),
    expect.stringMatching(/^error false bad request: url must be a string of 1\.\.4096/),
  ]);
  await new Promise((r) => setTimeout(r, 20));
  expect(seen).toEqual([]);
});

test('session closed: pending fail retryable, new requests are held and sent on the re-established session', async () => {
  const { win, ports, hellos } = fakeWindow([welcomes, welcomes]);
  const found = await detectExtension(1000, { win, reconnectDelaysMs: [10, 10] });
  if (!found.ok) throw new Error(found.reason);
  const t: ExtensionTransport = found.transport;
  cleanup.push(() => t.close());
  const states: string[] = [];
  t.onStateChange((s) => states.push(s));
  const first = recordingSink();
  const sent = nextMessage(ports[0] as MessagePort);
  t.request({ url: 'https://cdn.example/1.m4s' }, first.sink);
  await sent;
  (ports[0] as MessagePort).postMessage({ type: 'closed', code: 'worker-disconnected', reason: 'the service worker went away' });
  await first.rec.done;
  expect(first.rec.events).toEqual([
    expect.stringMatching(/^error true extension-disconnected: worker-disconnected: the service worker went away/),
  ]);
  expect(t.state).toBe('reconnecting');
  const held = recordingSink();
  t.request({ url: 'https://cdn.example/2.m4s' }, held.sink);
  // The re-handshake happens; the held request arrives on the new session.
  for (let i = 0; i < 100 && ports.length < 2; i += 1) await new Promise((r) => setTimeout(r, 10));
  const msg = await nextMessage(ports[1] as MessagePort);
  expect(msg).toMatchObject({ type: 'request', url: 'https://cdn.example/2.m4s' });
  expect(hellos).toHaveLength(2);
  expect(states).toEqual(['reconnecting', 'open']);
  expect(t.reconnectCount).toBe(1);
  (ports[1] as MessagePort).postMessage({ type: 'error', id: msg.id, code: 'cors', reason: 'withheld', retryable: false });
  await held.rec.done;
  expect(held.rec.events).toEqual(['error false cors: withheld']);
});

test('session closed and the host is gone: unavailable, held requests fail non-retryable, later ones at once', async () => {
  const hostMissing: Reply = (port) => {
    port.postMessage({ type: 'ack', extensionVersion: '0.1.0' });
    port.postMessage({ type: 'unavailable', code: 'host-missing', reason: 'Specified native messaging host not found.' });
  };
  const { win, ports, hellos } = fakeWindow([welcomes, hostMissing, hostMissing, hostMissing]);
  const found = await detectExtension(1000, { win, reconnectDelaysMs: [10, 10, 10] });
  if (!found.ok) throw new Error(found.reason);
  const t = found.transport;
  cleanup.push(() => t.close());
  const unavailable = new Promise<string>((r) => t.onStateChange((s, why) => s === 'unavailable' && r(why)));
  (ports[0] as MessagePort).postMessage({ type: 'closed', code: 'host-failed', reason: 'restart failed' });
  await new Promise((r) => setTimeout(r, 0));
  const held = recordingSink();
  t.request({ url: 'https://cdn.example/2.m4s' }, held.sink);
  expect(await unavailable).toMatch(/could not be re-established \(host-missing: Specified native messaging host not found\.\)/);
  expect(hellos).toHaveLength(2); // host-missing is final: no further attempts
  await held.rec.done;
  expect(held.rec.events).toEqual([expect.stringMatching(/^error false unavailable: /)]);
  const later = recordingSink();
  t.request({ url: 'https://cdn.example/3.m4s' }, later.sink);
  await later.rec.done;
  expect(later.rec.events).toEqual([expect.stringMatching(/^error false the Sprint extension is unavailable/)]);
});

test('a lane that failed twice (origin-unreachable) ends the transport like a dead host: unavailable, the other requests fail non-retryable, the session is closed', async () => {
  const { win, ports } = fakeWindow([welcomes]);
  const found = await detectExtension(1000, { win, reconnectDelaysMs: [10] });
  if (!found.ok) throw new Error(found.reason);
  const t = found.transport;
  cleanup.push(() => t.close());
  const port = ports[0] as MessagePort;
  const gone: string[] = [];
  t.onUnavailable((why) => gone.push(why));
  const first = recordingSink();
  const second = recordingSink();
  const ids: unknown[] = [];
  const seen = new Promise<void>((resolve) => {
    port.onmessage = (ev: MessageEvent) => {
      const m = ev.data as Record<string, unknown>;
      if (m['type'] === 'request') ids.push(m['id']);
      if (m['type'] === 'close') ids.push('close');
      if (ids.length === 2) resolve();
    };
  });
  t.request({ url: 'https://cdn.example/1.m4s' }, first.sink);
  t.request({ url: 'https://cdn.example/2.m4s' }, second.sink);
  await seen;
  const closed = new Promise<void>((resolve) => {
    const before = port.onmessage;
    port.onmessage = (ev: MessageEvent) => {
      before?.call(port, ev);
      if ((ev.data as Record<string, unknown>)['type'] === 'close') resolve();
    };
  });
  port.postMessage({ type: 'error', id: ids[0], code: 'origin-unreachable', reason: 'two stalls in a row', retryable: false });
  await Promise.all([first.rec.done, second.rec.done, closed]);
  expect(first.rec.events).toEqual([expect.stringMatching(/^error false origin-unreachable: /)]);
  expect(second.rec.events).toEqual([expect.stringMatching(/^error false unavailable: a lane failed twice/)]);
  expect(t.state).toBe('unavailable');
  expect(gone).toEqual([expect.stringMatching(/a lane failed twice/)]);
  // no new session is tried, later requests fail at once
  const later = recordingSink();
  t.request({ url: 'https://cdn.example/3.m4s' }, later.sink);
  await later.rec.done;
  expect(later.rec.events).toEqual([expect.stringMatching(/^error false the Sprint extension is unavailable/)]);
  expect(ports).toHaveLength(1);
});

test('the codes that hide detail (unreachable, mixed-content, a withheld response) reach the sink with their fixed text and a pointer to the worker log; an unknown code is refused', async () => {
  const { win, ports } = fakeWindow([welcomes]);
  const found = await detectExtension(1000, { win, reconnectDelaysMs: [10] });
  if (!found.ok) throw new Error(found.reason);
  const t = found.transport;
  cleanup.push(() => t.close());
  const port = ports[0] as MessagePort;
  const outcomes: string[] = [];
  for (const [code, reason] of [
    ['unreachable', 'the origin could not be reached'],
    ['mixed-content', 'an https: page may not request http: URLs'],
    ['malformed-response', 'the response is not valid HTTP/1.1'],
  ] as const) {
    const s = recordingSink();
    const sent = nextMessage(port);
    t.request({ url: 'https://cdn.example/a.m4s' }, s.sink);
    const msg = await sent;
    port.postMessage({ type: 'error', id: msg.id, code, reason, retryable: false });
    await s.rec.done;
    outcomes.push(...s.rec.events);
  }
  expect(outcomes).toEqual([
    "error false unreachable: the origin could not be reached (details in the Sprint extension's service worker log)",
    'error false mixed-content: an https: page may not request http: URLs',
    "error false malformed-response: the response is not valid HTTP/1.1 (details in the Sprint extension's service worker log)",
  ]);
  // The retired codes are no longer part of the protocol: the page refuses such a message.
  const s = recordingSink();
  const sent = nextMessage(port);
  t.request({ url: 'https://cdn.example/b.m4s' }, s.sink);
  const msg = await sent;
  port.postMessage({ type: 'error', id: msg.id, code: 'dns-failed', reason: 'x', retryable: false });
  port.postMessage({ type: 'error', id: msg.id, code: 'unreachable', reason: 'the origin could not be reached', retryable: false });
  await s.rec.done;
  expect(s.rec.events).toEqual([expect.stringMatching(/^error false unreachable: /)]);
});

test('back-pressure: the page reports the body bytes it has taken (consumed, cumulative, counting pieces of requests it no longer wants)', async () => {
  const { win, ports } = fakeWindow([welcomes]);
  const found = await detectExtension(1000, { win });
  if (!found.ok) throw new Error(found.reason);
  const t = found.transport;
  cleanup.push(() => t.close());
  const cs = ports[0] as MessagePort;
  const fromPage: Array<Record<string, unknown>> = [];
  const sent = nextMessage(cs);
  const { sink, rec } = recordingSink();
  t.request({ url: 'https://cdn.example/a.m4s' }, sink);
  const msg = await sent;
  cs.onmessage = (ev: MessageEvent) => fromPage.push(ev.data as Record<string, unknown>);
  const id = msg.id as number;
  cs.postMessage({ type: 'head', id, status: 200, headers: {}, t: 1 });
  cs.postMessage({ type: 'data', id, t: 2, bytes: new Uint8Array(1000).buffer });
  cs.postMessage({ type: 'data', id, t: 3, bytes: new Uint8Array(24).buffer });
  cs.postMessage({ type: 'data', id: id + 50, t: 3, bytes: new Uint8Array(100).buffer }); // not ours any more: taken all the same
  cs.postMessage({ type: 'end', id, t: 4, bodyBytes: 1024 });
  await rec.done;
  for (let i = 0; i < 50 && !fromPage.some((m) => m.type === 'consumed' && m.bytes === 1124); i += 1)
    await new Promise((r) => setTimeout(r, 10));
  const consumed = fromPage.filter((m) => m.type === 'consumed').map((m) => m.bytes as number);
  expect(consumed.length).toBeGreaterThan(0);
  expect(consumed[consumed.length - 1]).toBe(1124);
  expect([...consumed].sort((a, b) => a - b)).toEqual(consumed);
  for (const m of fromPage) expect(Object.keys(m).sort()).toEqual(m.type === 'consumed' ? ['bytes', 'type'] : Object.keys(m).sort());
});
