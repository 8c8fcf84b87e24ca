// The one request path (player/dataplane/request-path.ts): the page's dash.js
// request interceptors, tracked on the player (player/dash/request-interceptors.ts),
// run in the order added on the request Sprint builds, and what they set goes
// out on the wire (a loopback server records each request's URL and headers).
import * as http from 'http';
import type { AddressInfo } from 'net';
import { trackRequestInterceptors, type InterceptedRequest } from '../../../player/dash/request-interceptors';
import { credentialsFor, pageHeaders, RequestPath } from '../../../player/dataplane/request-path';
import { FetchTrainTransport } from '../../../player/sprint/fetch-transport';
import { probeRangeSupport } from '../../../player/sprintx/capability';
import type { MediaPlayerClass } from 'dashjs';

/** dash.js 5.2.1's interceptor list as MediaPlayer/CustomParametersModel keep it: push, and remove by identity. */
function playerWithInterceptorList(withCredentials = false) {
  const dashList: Array<(r: InterceptedRequest) => Promise<InterceptedRequest>> = [];
  const player = {
    addRequestInterceptor: (fn: (r: InterceptedRequest) => Promise<InterceptedRequest>) => void dashList.push(fn),
    removeRequestInterceptor: (fn: (r: InterceptedRequest) => Promise<InterceptedRequest>) => {
      const i = dashList.indexOf(fn);
      if (i >= 0) dashList.splice(i, 1);
    },
    getXHRWithCredentialsForType: (_type: string) => withCredentials,
  };
  return { player, dash: player as unknown as MediaPlayerClass, dashList };
}

/** The kind of interceptor a site adds: a query token, then a header computed from the URL the previous one left. */
const addToken = async (r: InterceptedRequest): Promise<InterceptedRequest> => {
  const u = new URL(r.url);
  u.searchParams.set('token', 'abc');
  r.url = u.href;
  return r;
};
const signUrl = async (r: InterceptedRequest): Promise<InterceptedRequest> => {
  // a new object, as dash.js's own CMCD interceptor returns one
  return { ...r, headers: { ...r.headers, 'X-Signed': new URL(r.url).searchParams.get('token') ?? 'none' } };
};

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
}

async function recordingServer(status = 206): Promise<{ base: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(status, { 'Content-Type': 'application/octet-stream', 'Content-Range': 'bytes 0-1/100' });
    res.end(status === 206 ? 'xy' : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('request interceptors tracked on the player', () => {
  it('reach dash.js as before and run in the order added on the request Sprint builds', async () => {
    const { player, dash, dashList } = playerWithInterceptorList();
    const source = trackRequestInterceptors(dash);
    expect(trackRequestInterceptors(dash)).toBe(source);
    player.addRequestInterceptor(addToken);
    player.addRequestInterceptor(signUrl);
    expect(dashList).toEqual([addToken, signUrl]);
    const built = await new RequestPath(source).build({ url: 'http://cdn.example/v/rep-1.mp4?x=1', type: 'MediaSegment' });
    expect(built.url).toBe('http://cdn.example/v/rep-1.mp4?x=1&token=abc');
    // signUrl saw the token addToken had set: the order held
    expect(built.headers).toEqual({ 'X-Signed': 'abc' });
    expect(built.withCredentials).toBe(false);
  });

  it('in the other order each sees what came before it', async () => {
    const { player, dash } = playerWithInterceptorList();
    const source = trackRequestInterceptors(dash);
    player.addRequestInterceptor(signUrl);
    player.addRequestInterceptor(addToken);
    const built = await new RequestPath(source).build({ url: 'http://cdn.example/a.mpd', type: 'MPD' });
    expect(built.headers).toEqual({ 'X-Signed': 'none' });
    expect(built.url).toBe('http://cdn.example/a.mpd?token=abc');
  });

  it('forgets an interceptor the page removes, in dash.js and on the request path', async () => {
    const { player, dash, dashList } = playerWithInterceptorList();
    const source = trackRequestInterceptors(dash);
    player.addRequestInterceptor(addToken);
    player.addRequestInterceptor(signUrl);
    player.removeRequestInterceptor(addToken);
    expect(dashList).toEqual([signUrl]);
    expect(source.interceptors()).toEqual([signUrl]);
  });

  it("shows interceptors the request type dash.js would give it, and takes dash.js's xhrWithCredentials", async () => {
    const { player, dash } = playerWithInterceptorList(true);
    const path = new RequestPath(trackRequestInterceptors(dash));
    const types: string[] = [];
    player.addRequestInterceptor(async (r) => {
      types.push(String(r.customData.request?.type));
      return r;
    });
    const built = await path.build({ url: 'http://o/m.mpd', type: 'MPD' });
    await path.build({ url: 'http://o/v.mp4', type: 'MediaSegment' });
    expect(types).toEqual(['MPD', 'MediaSegment']);
    expect(built.withCredentials).toBe(true);
    expect(credentialsFor(built, 'omit')).toBe('include');
    expect(credentialsFor({ ...built, withCredentials: false }, 'omit')).toBe('omit');
  });

  it('a load dash.js built keeps its URL and headers, without Range', () => {
    expect(pageHeaders({ Range: 'bytes=0-9', 'X-CDN-Token': 't', 'CMCD-Request': 'bl=2000', Empty: '' })).toEqual({
      'X-CDN-Token': 't',
      'CMCD-Request': 'bl=2000',
    });
  });
});

describe('requests sent on the request path', () => {
  let server: Awaited<ReturnType<typeof recordingServer>>;
  beforeEach(async () => {
    server = await recordingServer();
  });
  afterEach(async () => server.close());

  it("the mode check's Range request carries the interceptors' token and header, and counts as a check", async () => {
    const { player, dash } = playerWithInterceptorList();
    const kinds: string[] = [];
    const path = new RequestPath(trackRequestInterceptors(dash), (k) => kinds.push(k));
    player.addRequestInterceptor(addToken);
    player.addRequestInterceptor(signUrl);
    expect(await probeRangeSupport(`${server.base}/media/rep-1.mp4`, path)).toBeNull();
    expect(server.seen).toHaveLength(1);
    expect(server.seen[0]?.url).toBe('/media/rep-1.mp4?token=abc');
    expect(server.seen[0]?.headers['x-signed']).toBe('abc');
    expect(server.seen[0]?.headers['range']).toBe('bytes=0-1');
    expect(kinds).toEqual(['check']);
  });

  it("the fetch train transport sends a load's headers with the Range it adds", async () => {
    const transport = new FetchTrainTransport('omit');
    const done = new Promise<number>((resolve, reject) => {
      let status = 0;
      transport.request(
        { url: `${server.base}/media/v.mp4?token=abc`, range: { start: 0, end: 1 }, headers: { 'X-CDN-Token': 'abc' } },
        {
          onHead: (s) => void (status = s),
          onData: () => undefined,
          onEnd: () => resolve(status),
          onError: (reason) => reject(new Error(reason)),
        },
      );
    });
    expect(await done).toBe(206);
    expect(server.seen[0]?.url).toBe('/media/v.mp4?token=abc');
    expect(server.seen[0]?.headers['x-cdn-token']).toBe('abc');
    expect(server.seen[0]?.headers['range']).toBe('bytes=0-1');
  });

  it('an interceptor that throws fails the request instead of sending it without what it would set', async () => {
    const { player, dash } = playerWithInterceptorList();
    const path = new RequestPath(trackRequestInterceptors(dash));
    player.addRequestInterceptor(async () => {
      throw new Error('no token yet');
    });
    expect(await probeRangeSupport(`${server.base}/media/rep-1.mp4`, path)).toMatch(/no token yet/);
    expect(server.seen).toHaveLength(0);
  });
});
