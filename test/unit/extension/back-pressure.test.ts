/**
 * Back-pressure end to end: the worker acknowledges the host's bytes only
 * while the page keeps up (`consumed` messages, player/sprint/extension/
 * protocol.ts), so a page that stops reading mid-train stops the host reading
 * the socket instead of piling the response up in the browser's message
 * queues. The real worker Session on the real socket host binary
 * (support/worker-host.ts); the origin sends a 48 MiB body as fast as loopback
 * allows; the page first reads nothing, then everything.
 */
import { LIMITS, type WorkerMessage } from '../../../player/sprint/extension/protocol';
import { PageSession, rawOrigin, useRealHost } from './support/worker-host';

const PAGE = 'http://127.0.0.1:1';
const BODY = 48 * 1024 * 1024;
/** The host's default flow-control window (extension/host/config.go DefaultWindowBytes). */
const HOST_WINDOW = 4 * 1024 * 1024;

const realHost = useRealHost();

function dataBytes(msgs: WorkerMessage[]): number {
  let n = 0;
  for (const m of msgs) if (m.type === 'data') n += Buffer.from(m.b64, 'base64').length;
  return n;
}

test('a page that stops reading: what the worker posts stays bounded (maxUnconsumedBytes + the host window), and the train completes once it reads again', async () => {
  let serverWrote = 0;
  const origin = await rawOrigin((sock) => {
    sock.once('data', () => {
      sock.write(`HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: ${BODY}\r\n\r\n`);
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      let sent = 0;
      const pump = (): void => {
        while (sent < BODY) {
          sent += chunk.length;
          serverWrote = sent;
          if (!sock.write(chunk)) {
            sock.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
  const page = new PageSession(realHost().host, PAGE, { stallFloorMs: 60_000 });
  try {
    const id = page.send({ type: 'request', url: `http://127.0.0.1:${origin.port}/big` });
    // The page reads nothing for 2 s.
    await new Promise((r) => setTimeout(r, 2000));
    const postedWhileStopped = dataBytes(page.of(id));
    const bound = LIMITS.maxUnconsumedBytes + HOST_WINDOW + LIMITS.maxPieceBytes;
    // Measured figures for the report.
    console.log(
      `page stopped reading: worker posted ${postedWhileStopped} bytes (bound ${bound}); origin had written ${serverWrote} of ${BODY}`,
    );
    expect(postedWhileStopped).toBeGreaterThan(0);
    expect(postedWhileStopped).toBeLessThanOrEqual(bound);
    expect(serverWrote).toBeLessThan(BODY);
    // The page reads again: it reports what it has taken as it goes, and the train completes.
    let reported = 0;
    const timer = setInterval(() => {
      const taken = dataBytes(page.pageMessages);
      if (taken > reported) {
        reported = taken;
        page.session.handle({ type: 'consumed', bytes: taken });
      }
    }, 20);
    try {
      const msgs = await page.settled(id, 30_000);
      expect(msgs[msgs.length - 1]).toMatchObject({ type: 'end', bodyBytes: BODY });
      expect(dataBytes(msgs)).toBe(BODY);
    } finally {
      clearInterval(timer);
    }
  } finally {
    page.close();
    await origin.close();
  }
});
