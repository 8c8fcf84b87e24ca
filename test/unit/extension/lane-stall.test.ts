/**
 * A stalled origin must not wedge its lane (extension/src/worker/origin-lane.ts,
 * stall timeout): the real worker Session on the real socket host binary
 * (support/worker-host.ts), against raw TCP origins on loopback that accept a
 * connection and never answer. The stall floor is lowered to 300 ms so the
 * tests run in seconds; the production floor and the RTT multiple are in
 * origin-lane.ts.
 */
import type { Socket } from 'net';
import { PageSession, answerEach, rawOrigin, useRealHost } from './support/worker-host';

const PAGE = 'http://127.0.0.1:1';
const OK = 'HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 2\r\n\r\nhi';

const realHost = useRealHost();

/** An origin whose first `silent` connections accept and never answer; later ones answer every request. */
async function stallingOrigin(silent: number) {
  let n = 0;
  const silentClosed: boolean[] = [];
  const origin = await rawOrigin((sock: Socket) => {
    const i = n;
    n += 1;
    if (i < silent) {
      silentClosed[i] = false;
      sock.on('close', () => (silentClosed[i] = true));
      sock.resume();
      return;
    }
    answerEach(() => OK)(sock);
  });
  return { origin, silentClosed, connections: () => n };
}

test('a connection that owes a response and sends nothing is closed after the stall timeout; the request is re-issued and completes', async () => {
  const { origin, silentClosed, connections } = await stallingOrigin(1);
  const page = new PageSession(realHost().host, PAGE, { stallFloorMs: 300 });
  try {
    const started = Date.now();
    const msgs = await page.request(`http://127.0.0.1:${origin.port}/a`, 5000);
    expect(msgs.map((m) => m.type)).toEqual(['head', 'data', 'end']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(connections()).toBe(2);
    await page.until(() => silentClosed[0] === true, 2000).catch(() => undefined);
    expect(silentClosed[0]).toBe(true);
    expect(await page.stats()).toMatchObject({ origins: [{ reissued: 1, inFlight: 0, waiting: 0 }] });
    expect(page.log.join('\n')).toMatch(/stalled/);
  } finally {
    page.close();
    await origin.close();
  }
});

test('a cancelled request stuck on a silent connection does not hold up the next one', async () => {
  const { origin } = await stallingOrigin(1);
  const page = new PageSession(realHost().host, PAGE, { stallFloorMs: 300 });
  try {
    const first = page.send({ type: 'request', url: `http://127.0.0.1:${origin.port}/a` });
    await new Promise((r) => setTimeout(r, 100));
    page.send({ type: 'cancel', id: first });
    const second = page.send({ type: 'request', url: `http://127.0.0.1:${origin.port}/b` });
    const msgs = await page.settled(second, 5000);
    expect(msgs.map((m) => m.type)).toEqual(['head', 'data', 'end']);
    expect(page.of(first)).toEqual([]);
    expect(await page.stats()).toMatchObject({ origins: [{ inFlight: 0, waiting: 0 }] });
  } finally {
    page.close();
    await origin.close();
  }
});

test('an origin that never answers fails the request (origin-unreachable, fixed text) after two stalled connections instead of hanging', async () => {
  const { origin, connections } = await stallingOrigin(1000);
  const page = new PageSession(realHost().host, PAGE, { stallFloorMs: 300 });
  try {
    const msgs = await page.request(`http://127.0.0.1:${origin.port}/a`, 5000);
    expect(msgs).toEqual([
      expect.objectContaining({ type: 'error', code: 'origin-unreachable', reason: 'the origin did not answer', retryable: false }),
    ]);
    expect(connections()).toBe(2);
  } finally {
    page.close();
    await origin.close();
  }
});

test('a cancelled request whose large response is on the wire: the connection is cut, the request behind it re-issued and served at once (3 rounds)', async () => {
  const BIG = 32 * 1024 * 1024;
  let bigBytesSent = 0;
  // /big: a head, then the body paced at 256 KiB every 50 ms (~5 MB/s: reading it all takes ~6 s); the
  // requests pipelined behind it on that connection wait their turn. Other connections answer at once.
  const origin = await rawOrigin((sock: Socket) => {
    let buf = '';
    let paced: ReturnType<typeof setInterval> | null = null;
    sock.on('close', () => paced && clearInterval(paced));
    sock.on('data', (b: Buffer) => {
      buf += b.toString('latin1');
      for (let i = buf.indexOf('\r\n\r\n'); i >= 0; i = buf.indexOf('\r\n\r\n')) {
        const head = buf.slice(0, i);
        buf = buf.slice(i + 4);
        if (paced) continue; // busy with /big
        if (!head.startsWith('GET /big ')) {
          sock.write(OK);
          continue;
        }
        sock.write(`HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: ${BIG}\r\n\r\n`);
        paced = setInterval(() => {
          if (sock.destroyed || bigBytesSent >= BIG) return;
          sock.write(Buffer.alloc(256 * 1024, 0x62));
          bigBytesSent += 256 * 1024;
        }, 50);
      }
    });
  });
  const page = new PageSession(realHost().host, PAGE, { stallFloorMs: 60_000 });
  try {
    // Three rounds: cuts are not mistaken for an origin that closes without answering.
    for (let round = 0; round < 3; round += 1) {
      const big = page.send({ type: 'request', url: `http://127.0.0.1:${origin.port}/big` });
      const small = page.send({ type: 'request', url: `http://127.0.0.1:${origin.port}/small` });
      await page.until(() => page.of(big).some((m) => m.type === 'data'), 5000);
      page.send({ type: 'cancel', id: big });
      const started = Date.now();
      const msgs = await page.settled(small, 3000);
      expect(msgs.map((m) => m.type)).toEqual(['head', 'data', 'end']);
      expect(Date.now() - started).toBeLessThan(2000);
    }
    expect(bigBytesSent).toBeLessThan(BIG / 2);
    expect(await page.stats()).toMatchObject({ origins: [{ connectionsOpened: 4, reissued: 3, cut: 3, inFlight: 0 }] });
    expect(page.log.join('\n')).toMatch(/cut/);
  } finally {
    page.close();
    await origin.close();
  }
});
