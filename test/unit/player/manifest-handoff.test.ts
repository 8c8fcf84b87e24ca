// The manifest handoff (player/dataplane/manifest-handoff.ts): dash.js's
// first manifest request is answered from the mode checks' one fetch
// (player/dataplane/manifest-once.ts), so the origin serves the manifest once;
// anything the checks' copy might not match (another URL, credentials, a
// page's headers, a live manifest, a failed fetch) goes to the origin through
// dash.js's own loader. Judged from a loopback server's request count and
// what the loader contract's response carries.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MediaPlayerClass } from 'dashjs';
import { ManifestHandoff, decodingProblem, isStaticMpd } from '../../../player/dataplane/manifest-handoff';
import { addLoadTaker, addLoadWatcher, installLoaderHook } from '../../../player/dash/loader-hook';
import { fakeDash } from './fake-dash';
import { manifestOnce } from '../../../player/dataplane/manifest-once';
import { RequestPath } from '../../../player/dataplane/request-path';
import type { InterceptedRequest } from '../../../player/dash/request-interceptors';
import type { LoaderRequest, LoaderResponse } from '../../../player/dash/loader-types';
import { StatsRecorder } from '../../../player/stats/recorder';

const STATIC_MPD =
  '<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT10S"><Period/></MPD>';
const LIVE_MPD = '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" minimumUpdatePeriod="PT2S"><Period/></MPD>';

interface Server {
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Serves /static.mpd, /live.mpd, /moved.mpd (302 to /static.mpd), /slow.mpd (after 0.5 s), /latin1.mpd (declared ISO-8859-1) and /broken.mpd (500); counts requests per path. */
async function startServer(): Promise<Server> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] as string;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (req.headers['x-cdn-token'] !== undefined) hits.set('x-cdn-token', (hits.get('x-cdn-token') ?? 0) + 1);
    if (path === '/static.mpd') res.writeHead(200, { 'Content-Type': 'application/dash+xml', 'X-Origin': 'test' }).end(STATIC_MPD);
    else if (path === '/live.mpd') res.writeHead(200, { 'Content-Type': 'application/dash+xml' }).end(LIVE_MPD);
    else if (path === '/moved.mpd') res.writeHead(302, { Location: '/static.mpd' }).end();
    else if (path === '/slow.mpd') setTimeout(() => res.writeHead(200).end(STATIC_MPD), 500);
    else if (path === '/latin1.mpd') res.writeHead(200, { 'Content-Type': 'application/dash+xml; charset=ISO-8859-1' }).end(STATIC_MPD);
    else res.writeHead(500).end('no');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * A load as dash.js's HTTPLoader hands it to the XHRLoader (credentials 'omit' and a 10 s
 * manifest timeout are dash.js's defaults), a promise of how it first ended, and how many
 * times each end callback fired.
 */
function load(url: string, type = 'MPD', extra: Partial<LoaderRequest> = {}) {
  let settle: (how: string) => void = () => undefined;
  const ended = new Promise<string>((resolve) => (settle = resolve));
  const progress: number[] = [];
  const calls = { loadend: 0, abort: 0, timeout: 0 };
  const request: LoaderRequest = {
    url,
    method: 'GET',
    headers: {},
    responseType: '',
    credentials: 'omit',
    timeout: 10_000,
    ...extra,
    customData: {
      request: { type, url },
      onprogress: (e) => progress.push(e.loaded),
      onloadend: () => {
        calls.loadend += 1;
        settle('loadend');
      },
      onabort: () => {
        calls.abort += 1;
        settle('abort');
      },
      ontimeout: () => void (calls.timeout += 1),
    },
  };
  const response: LoaderResponse = {};
  return { request, response, ended, progress, calls };
}

const later = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits (bounded: 5 s) until `cond` holds. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await later(50);
  expect(cond()).toBe(true);
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('isStaticMpd', () => {
  it('reads the MPD element type, static by default', () => {
    expect(isStaticMpd(STATIC_MPD)).toBe(true);
    expect(isStaticMpd('<MPD><Period/></MPD>')).toBe(true);
    expect(isStaticMpd("<dash:MPD xmlns:dash='urn:mpeg:dash:schema:mpd:2011' type='static'/>")).toBe(true);
    expect(isStaticMpd(LIVE_MPD)).toBe(false);
    expect(isStaticMpd('<MPD\n  type = "dynamic"\n>')).toBe(false);
    expect(isStaticMpd('<SmoothStreamingMedia/>')).toBe(false);
    expect(isStaticMpd('#EXTM3U')).toBe(false);
    expect(isStaticMpd('')).toBe(false);
    // a '>' inside a quoted value does not end the tag; a commented-out MPD is not the root
    expect(isStaticMpd('<MPD profiles="a>b" type="dynamic">')).toBe(false);
    expect(isStaticMpd('<!-- <MPD type="static"> --><MPD type="dynamic"/>')).toBe(false);
  });
});

describe('decodingProblem', () => {
  it('accepts what an XHR would decode as UTF-8 and names anything else', () => {
    expect(decodingProblem('application/dash+xml', STATIC_MPD)).toBeNull();
    expect(decodingProblem('application/dash+xml; charset=utf-8', '<?xml version="1.0" encoding="UTF-8"?><MPD/>')).toBeNull();
    expect(decodingProblem(undefined, '<MPD/>')).toBeNull();
    expect(decodingProblem('application/dash+xml; charset=ISO-8859-1', '<MPD/>')).toMatch(/ISO-8859-1/);
    expect(decodingProblem('application/dash+xml', "<?xml version='1.0' encoding='UTF-16'?><MPD/>")).toMatch(/UTF-16/);
    expect(decodingProblem('application/dash+xml', '<MPD><Label>\uFFFD</Label></MPD>')).toMatch(/not valid UTF-8/);
  });
});

describe('the manifest handoff', () => {
  let server: Server;
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    await server.close();
  });

  function handoffWith(manifest: ReturnType<typeof manifestOnce>, url: string) {
    const stats = new StatsRecorder('sprint-x');
    return { stats, taker: new ManifestHandoff(url, manifest, stats, quiet) };
  }

  function handoff(path: string) {
    const url = `${server.url}${path}`;
    const manifest = manifestOnce(url);
    const stats = new StatsRecorder('sprint-x');
    return { url, manifest, stats, taker: new ManifestHandoff(url, manifest, stats, quiet) };
  }

  it("answers dash.js's first manifest request from the checks' fetch: the origin serves it once", async () => {
    const { url, manifest, stats, taker } = handoff('/static.mpd');
    const checked = await manifest(); // what a mode check does
    expect(checked.ok).toBe(true);
    const l = load(url);
    const passOn = jest.fn();
    expect(taker.tryLoad(l.request, l.response, passOn)).toBe(true);
    expect(await l.ended).toBe('loadend');
    expect(passOn).not.toHaveBeenCalled();
    expect(server.hits.get('/static.mpd')).toBe(1);
    expect(l.response.status).toBe(200);
    expect(l.response.statusText).toBe('OK');
    expect(l.response.data).toBe(STATIC_MPD);
    expect(l.response.url).toBe(url);
    expect(l.response.headers?.['x-origin']).toBe('test');
    expect(l.progress).toEqual([Buffer.byteLength(STATIC_MPD)]);
    const wire = l.request.customData.sprintWire;
    expect(wire).toBeDefined();
    expect(wire?.endMs).toBeGreaterThanOrEqual(wire?.startMs ?? Infinity);
    expect(stats.counters['manifest.handedOver']).toBe(1);
    expect(l.calls).toEqual({ loadend: 1, abort: 0, timeout: 0 });

    // a refresh is dash.js's own
    const again = load(url);
    expect(taker.tryLoad(again.request, again.response, jest.fn())).toBe(false);
  });

  it('waits for a check fetch still in flight instead of asking again', async () => {
    const { url, manifest, taker } = handoff('/static.mpd');
    void manifest();
    const l = load(url);
    expect(taker.tryLoad(l.request, l.response, jest.fn())).toBe(true);
    expect(await l.ended).toBe('loadend');
    expect(server.hits.get('/static.mpd')).toBe(1);
  });

  it('an answer before the timeout ends the load once: the timer never fires afterwards', async () => {
    const { url, manifest, taker } = handoff('/static.mpd');
    await manifest();
    const l = load(url, 'MPD', { timeout: 50 });
    expect(taker.tryLoad(l.request, l.response, jest.fn())).toBe(true);
    await l.ended;
    await later(150);
    expect(l.calls).toEqual({ loadend: 1, abort: 0, timeout: 0 });
  });

  it('reports where a redirected manifest came from (dash.js resolves relative URLs against it)', async () => {
    const { url, manifest, taker } = handoff('/moved.mpd');
    await manifest();
    const l = load(url);
    expect(taker.tryLoad(l.request, l.response, jest.fn())).toBe(true);
    await l.ended;
    expect(l.response.url).toBe(`${server.url}/static.mpd`);
    expect(l.response.data).toBe(STATIC_MPD);
  });

  it('leaves segment loads alone and still answers the manifest after them', async () => {
    const { url, manifest, taker } = handoff('/static.mpd');
    await manifest();
    const segment = load(`${server.url}/v.mp4`, 'MediaSegment');
    expect(taker.tryLoad(segment.request, segment.response, jest.fn())).toBe(false);
    const l = load(url);
    expect(taker.tryLoad(l.request, l.response, jest.fn())).toBe(true);
    expect(await l.ended).toBe('loadend');
  });

  it("answers a request the page's interceptors changed the way they changed the checks' fetch", async () => {
    const url = `${server.url}/static.mpd`;
    const intercept = async (r: InterceptedRequest): Promise<InterceptedRequest> => ({
      ...r,
      url: `${r.url}?token=1`,
      headers: { ...r.headers, 'X-CDN-Token': '1' },
    });
    const manifest = manifestOnce(url, new RequestPath({ interceptors: () => [intercept], withCredentials: () => false }));
    const stats = new StatsRecorder('sprint-x');
    const taker = new ManifestHandoff(url, manifest, stats, quiet);
    expect((await manifest()).ok).toBe(true);
    // dash.js's own request, after the same interceptor
    const l = load(`${url}?token=1`, 'MPD', { headers: { 'X-CDN-Token': '1' } });
    expect(taker.tryLoad(l.request, l.response, jest.fn())).toBe(true);
    expect(await l.ended).toBe('loadend');
    expect(stats.counters['manifest.handedOver']).toBe(1);
    expect(server.hits.get('/static.mpd')).toBe(1);
    expect(server.hits.get('x-cdn-token')).toBe(1);
    // one that differs from what the checks sent goes to the origin
    const other = handoffWith(manifest, url);
    const l2 = load(`${url}?token=1`, 'MPD', { headers: { 'X-CDN-Token': '2' } });
    expect(other.taker.tryLoad(l2.request, l2.response, jest.fn())).toBe(false);
    expect(other.stats.counters['manifest.loadedByDash']).toBe(1);
  });

  it.each([
    ['another URL', (url: string) => load(`${url}?token=1`)],
    ['credentials', (url: string) => load(url, 'MPD', { credentials: 'include' })],
    ["a page interceptor's header", (url: string) => load(url, 'MPD', { headers: { Authorization: 'Bearer x' } })],
    ['another response type', (url: string) => load(url, 'MPD', { responseType: 'arraybuffer' })],
  ])('sends a request with %s to the origin, as dash.js would', async (_what, make) => {
    const { url, manifest, stats, taker } = handoff('/static.mpd');
    await manifest();
    const l = make(url);
    expect(taker.tryLoad(l.request, l.response, jest.fn())).toBe(false);
    expect(l.response.status).toBeUndefined();
    expect(stats.counters['manifest.loadedByDash']).toBe(1);
  });

  it.each([
    ['a live manifest', '/live.mpd'],
    ['a fetch that failed', '/broken.mpd'],
    ['a manifest declared in another charset', '/latin1.mpd'],
  ])("passes %s on to dash.js's own loader, answering nothing", async (_what, path) => {
    const { url, manifest, stats, taker } = handoff(path);
    await manifest();
    const l = load(url);
    const passedOn = new Promise<void>((resolve) => {
      expect(taker.tryLoad(l.request, l.response, resolve)).toBe(true);
    });
    await passedOn;
    expect(l.response.status).toBeUndefined();
    expect(l.response.data).toBeUndefined();
    expect(stats.counters['manifest.loadedByDash']).toBe(1);
    expect(stats.counters['manifest.handedOver']).toBeUndefined();
  });

  it("ends the load unanswered at dash.js's manifest timeout, so dash.js's retry asks the origin", async () => {
    const { url, manifest, stats, taker } = handoff('/slow.mpd');
    void manifest();
    const l = load(url, 'MPD', { timeout: 20 });
    let timedOut = false;
    l.request.customData.ontimeout = () => void (timedOut = true);
    const passOn = jest.fn();
    expect(taker.tryLoad(l.request, l.response, passOn)).toBe(true);
    expect(await l.ended).toBe('loadend');
    expect(timedOut).toBe(true);
    expect(l.calls.loadend).toBe(1);
    expect(l.response.status).toBeUndefined();
    expect(stats.counters['manifest.loadedByDash']).toBe(1);
    // the checks' copy arriving later answers nothing, and the retry is dash.js's own
    expect((await manifest()).ok).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(l.response.data).toBeUndefined();
    expect(passOn).not.toHaveBeenCalled();
    const retry = load(url);
    expect(taker.tryLoad(retry.request, retry.response, jest.fn())).toBe(false);
  });

  it('an abort while the fetch is in flight ends the load as aborted and answers nothing', async () => {
    const { url, manifest, taker } = handoff('/static.mpd');
    const l = load(url);
    const passOn = jest.fn();
    expect(taker.tryLoad(l.request, l.response, passOn)).toBe(true);
    l.request.customData.abort?.();
    expect(await l.ended).toBe('abort');
    await manifest();
    await new Promise((r) => setImmediate(r));
    expect(l.response.data).toBeUndefined();
    expect(passOn).not.toHaveBeenCalled();
    expect(l.calls).toEqual({ loadend: 0, abort: 1, timeout: 0 });
  });

  it("through the loader hook: watchers see the load once, a passed-on load reaches the data plane, then dash.js's own loader", async () => {
    const { url, manifest, taker } = handoff('/live.mpd');
    await manifest();
    const { dash, loader, declined } = fakeDash(30);
    const asked: string[] = [];
    const watched: string[] = [];
    const d = dash as unknown as MediaPlayerClass;
    installLoaderHook(d, { tryLoad: (r) => (asked.push(r.url), false) });
    addLoadWatcher(d, (r) => void watched.push(r.url));
    addLoadTaker(d, taker);
    const l = load(url);
    loader().load(l.request, l.response);
    expect(declined).toHaveLength(0); // taken: waiting for the checks' fetch
    await until(() => declined.length > 0);
    // a live manifest: passed on, the data plane asked, then dash.js's XHRLoader loads it
    expect(asked).toEqual([url]);
    expect(declined.map((r) => r.url)).toEqual([url]);
    expect(watched).toEqual([url]);
    // a segment is never taken: straight to the data plane and dash.js
    const seg = load(`${server.url}/v.mp4`, 'MediaSegment');
    loader().load(seg.request, seg.response);
    expect(asked).toEqual([url, seg.request.url]);
    expect(declined).toHaveLength(2);
  });
});
