/**
 * Idle expiry of page sessions (extension/src/worker/session.ts expireIfIdle,
 * swept by background.ts): a session with no request outstanding and no
 * request or response byte for LIMITS.sessionIdleMs is closed (`closed`,
 * code session-idle) so its slot and connections go back to other tabs; a
 * session with a request outstanding is never expired. The page transport
 * (player/sprint/extension-transport.ts) then says hello again only when it
 * next has a request. Real Session on the real host binary.
 */
import { LIMITS } from '../../../player/sprint/extension/protocol';
import { detectExtension } from '../../../player/sprint/extension-transport';
import type { ResponseSink } from '../../../player/sprint/train-transport';
import { PageSession, answerEach, rawOrigin, useRealHost } from './support/worker-host';

const PAGE = 'http://127.0.0.1:1';

const realHost = useRealHost();

test('an idle session expires after sessionIdleMs; one with a request outstanding does not', async () => {
  const ok = await rawOrigin(answerEach(() => 'HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 2\r\n\r\nhi'));
  const silent = await rawOrigin((sock) => sock.resume());
  const idle = new PageSession(realHost().host, PAGE);
  const busy = new PageSession(realHost().host, PAGE, { stallFloorMs: 10 * 60_000 });
  try {
    expect((await idle.request(`http://127.0.0.1:${ok.port}/a`)).map((m) => m.type)).toEqual(['head', 'data', 'end']);
    busy.send({ type: 'request', url: `http://127.0.0.1:${silent.port}/a` });
    await new Promise((r) => setTimeout(r, 100));
    const now = Date.now();
    expect(idle.session.expireIfIdle(now + LIMITS.sessionIdleMs - 1000)).toBe(false);
    expect(idle.pageMessages.some((m) => m.type === 'closed')).toBe(false);
    expect(idle.session.expireIfIdle(now + LIMITS.sessionIdleMs + 1000)).toBe(true);
    expect(idle.pageMessages.filter((m) => m.type === 'closed')).toEqual([
      { type: 'closed', code: 'session-idle', reason: expect.stringMatching(/no request for/) },
    ]);
    expect(busy.session.expireIfIdle(now + 10 * LIMITS.sessionIdleMs)).toBe(false);
  } finally {
    idle.close();
    busy.close();
    await ok.close();
    await silent.close();
  }
});

test('the page transport does not reconnect after session-idle until it has a request', async () => {
  const hellos: unknown[] = [];
  const ports: MessagePort[] = [];
  const win = {
    postMessage(msg: unknown, _target: string, transfer: Transferable[]) {
      hellos.push(msg);
      const port = transfer[0] as MessagePort;
      ports.push(port);
      port.postMessage({ type: 'ack', extensionVersion: '0.1.0' });
      port.postMessage({
        type: 'welcome',
        protocol: 1,
        extensionVersion: '0.1.0',
        hostVersion: '0.1.0',
        tcpInfo: true,
        limits: { maxOutstanding: 32, maxResponseBytes: 1 << 28, maxUrlLength: 4096 },
      });
    },
  } as unknown as Window;
  const found = await detectExtension(1000, { win, reconnectDelaysMs: [10, 10, 10] });
  if (!found.ok) throw new Error(found.reason);
  const t = found.transport;
  try {
    (ports[0] as MessagePort).postMessage({ type: 'closed', code: 'session-idle', reason: 'no request for 300 s' });
    await new Promise((r) => setTimeout(r, 200));
    expect(hellos).toHaveLength(1);
    const sent = new Promise<Record<string, unknown>>((resolve) => {
      const wait = (): void => {
        const p = ports[1];
        if (p) p.onmessage = (ev: MessageEvent) => resolve(ev.data as Record<string, unknown>);
        else setTimeout(wait, 5);
      };
      wait();
    });
    const sink: ResponseSink = { onHead: () => undefined, onData: () => undefined, onEnd: () => undefined, onError: () => undefined };
    t.request({ url: 'https://cdn.example/a.m4s' }, sink);
    expect(await sent).toMatchObject({ type: 'request', url: 'https://cdn.example/a.m4s' });
    expect(hellos).toHaveLength(2);
    expect(t.state).toBe('open');
  } finally {
    t.close();
    for (const p of ports) p.close();
  }
});
