// Closing the connections open at one moment once each is idle
// (`Origin.closeConnectionsWhenIdle`, what `sprint serve` does on SIGUSR2 and
// the A/B harness's --preload-pages asks for after the pages loaded),
// observed on raw sockets: an idle connection gets a FIN at once, one with a
// response in progress gets the whole response and then the FIN (a request
// read after the call is logged unanswered), and a connection opened
// afterwards is served as usual.

import { startOrigin, type Origin } from '../../../demo/server/origin';
import { makeFixture, RawClient, request, waitForRecords, type Fixture } from './helpers';

let fx: Fixture;
const open: Array<Origin | RawClient> = [];

beforeAll(() => {
  fx = makeFixture();
});
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});
afterAll(() => fx.remove());

async function origin(rateLimitBitsPerSec?: number): Promise<Origin> {
  const paced = rateLimitBitsPerSec === undefined ? {} : { rateLimitBitsPerSec };
  const o = await startOrigin({ mediaDir: fx.mediaDir, pageDir: fx.pageDir, distDir: fx.distDir, lingerMs: 300, ...paced });
  open.push(o);
  return o;
}

async function connect(o: Origin): Promise<RawClient> {
  const c = await RawClient.connect(o.port);
  open.push(c);
  return c;
}

describe('closeConnectionsWhenIdle', () => {
  test('idle connections, used or not, get a FIN at once', async () => {
    const o = await origin();
    const used = await connect(o);
    used.send(request('/probe'));
    expect((await used.readResponse()).status).toBe(200);
    const unused = await connect(o);
    await new Promise((r) => setTimeout(r, 50)); // the server has accepted both
    expect(o.closeConnectionsWhenIdle()).toEqual({ open: 2, idle: 2 });
    for (const c of [used, unused]) {
      await c.waitEnd();
      expect(c.serverEnded).toBe(true);
      expect(c.error).toBeNull();
    }
  });

  test('a connection answering a request finishes the response, then closes', async () => {
    // 100 KB at 4 Mbit/s: about 200 ms, so the call lands mid-response.
    const o = await origin(4e6);
    const c = await connect(o);
    c.send(request('/media/video.m4s'));
    await c.waitReceived(1);
    expect(o.closeConnectionsWhenIdle()).toEqual({ open: 1, idle: 0 });
    const r = await c.readResponse();
    expect(r.status).toBe(200);
    expect(r.body.equals(fx.video)).toBe(true);
    await c.waitEnd();
    expect(c.serverEnded).toBe(true);
    await waitForRecords(o, 1);
    expect(o.records()[0]).toMatchObject({ url: '/media/video.m4s', complete: true, bytes: fx.video.length });
  });

  test('a request read after the call is not answered; the one in progress is', async () => {
    const o = await origin(4e6);
    const c = await connect(o);
    c.send(request('/media/video.m4s'));
    await c.waitReceived(1);
    expect(o.closeConnectionsWhenIdle()).toEqual({ open: 1, idle: 0 });
    c.send(request('/probe'));
    const r = await c.readResponse();
    expect(r.body.equals(fx.video)).toBe(true);
    await c.waitEnd();
    expect(c.rest().length).toBe(0);
    await waitForRecords(o, 2);
    expect(o.records().map((x) => [x.url, x.complete, x.error])).toEqual([
      ['/media/video.m4s', true, null],
      ['/probe', false, 'not-answered'],
    ]);
  });

  test('a connection opened afterwards is not affected', async () => {
    const o = await origin();
    expect(o.closeConnectionsWhenIdle()).toEqual({ open: 0, idle: 0 });
    const c = await connect(o);
    for (let i = 0; i < 2; i += 1) {
      c.send(request('/probe'));
      expect((await c.readResponse()).status).toBe(200);
    }
    expect(c.serverEnded).toBe(false);
  });
});
