/**
 * Sprint on a CDN, as a site deploys it: the page adds a dash.js request
 * interceptor (demo page `cdntoken=`) that puts a query token and a header
 * on every request, and the origin (demo/server `requireToken`) refuses
 * with 403 any /media/ request lacking either, as a token-checking CDN does.
 * Every mode plays, and the origin's log holds no refused media request:
 * each one carried the token and the header (the origin checked both), the
 * mode checks' and Sprint's own requests included (player/dataplane/request-path.ts).
 * With CMCD on in query mode its keys ride every media request too; with
 * `rttprobes=when-quiet` one RTT probe goes, at start-up.
 * Then an origin that refuses only Sprint-shaped requests (a Range wider
 * than the content's largest segment): Sprint-x's first expanded request is
 * refused, the player falls back to stock (stats and the `fallback` event)
 * and plays on.
 */
import { join } from 'path';
import { readSingleFileIndex } from '../../demo/content/mp4-boxes';
import { packageRoot } from '../../demo/server/options';
import type { AccessRecord } from '../../demo/server/origin';
import {
  demoUrl,
  ensureTestContent,
  heardEvents,
  mediaRecords,
  startH2Stack,
  startStack,
  TEST_SET,
  waitForPlayback,
  type Stack,
} from './support/playback';
import type { SprintStats } from '../../player/stats/types';

const TOKEN = 'cdn-test-token';
const REQUIRE = { query: 'token', header: 'X-CDN-Token', value: TOKEN };
const PLAY_SECONDS = 6;
const PLAY_TIMEOUT_MS = 60_000;

/** Media requests the origin logged from `from` on (manifests and media files; the page and bundle are not checked). */
function mediaSince(stack: Stack, from: number): AccessRecord[] {
  const all = stack.origin.records();
  return all.slice(from).filter((r) => r.url !== null && r.url.startsWith('/media/') && r.method === 'GET');
}

/** Plays `query` on the stack's page and checks every media request it made carried the token and the header. */
async function playsWithToken(stack: Stack, query: Record<string, string>): Promise<{ stats: SprintStats; media: AccessRecord[] }> {
  const from = stack.origin.records().length;
  await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', cdntoken: TOKEN, ...query }));
  const stats = await waitForPlayback(stack.page, PLAY_SECONDS, PLAY_TIMEOUT_MS);
  const media = mediaSince(stack, from);
  expect(media.length).toBeGreaterThan(3);
  // the origin refuses (403) a request lacking the query token or the header: none was refused
  expect(media.filter((r) => r.status === 403).map((r) => `${r.url} ${r.range ?? ''}`)).toEqual([]);
  for (const r of media) expect(new URL(r.url as string, 'http://x').searchParams.get('token')).toBe(TOKEN);
  expect(stats.counters['requests.media']).toBeGreaterThan(0);
  return { stats, media };
}

describe('a token-checking CDN over HTTP/1.1 (query token and header from a page interceptor)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ requireToken: REQUIRE });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('auto (RTT probes when quiet): Sprint-x runs (its Range check passed) and plays', async () => {
    const { stats, media } = await playsWithToken(stack, { mode: 'auto', rttprobes: 'when-quiet' });
    // the start-up probe only: the first bytes of idle media requests gave the RTT from then on
    expect(stats.counters['requests.probe']).toBe(1);
    expect(media.filter((r) => r.range === 'bytes=0-0')).toHaveLength(1);
    expect(stats.mode).toBe('sprint-x');
    expect(stats.counters['requests.check']).toBe(1);
    expect(stats.counters['sprintx.refused']).toBeUndefined();
    // dash.js's manifest request, after the same interceptor, was answered from the checks' fetch
    expect(stats.counters['manifest.handedOver']).toBe(1);
    expect(stats.counters['requests.manifest']).toBe(1);
  });

  it('sprint-x plays, its expanded ranges and its probe a second carrying the token and header', async () => {
    const { stats, media } = await playsWithToken(stack, { mode: 'sprint-x' });
    expect(stats.mode).toBe('sprint-x');
    expect(stats.counters['requests.probe']).toBeGreaterThan(1);
    expect(stats.transfers.some((t) => t.via === 'sprint-x')).toBe(true);
    expect(media.some((r) => r.status === 206 && r.range !== 'bytes=0-1' && r.range !== 'bytes=0-0')).toBe(true);
  });

  it("sprint on fetch with CMCD (query mode) plays; CMCD keys ride every segment request, Sprint's trains' too", async () => {
    const { stats, media } = await playsWithToken(stack, { mode: 'sprint', transport: 'fetch', cmcd: 'query' });
    expect(stats.mode).toBe('sprint');
    expect(stats.counters['sprint.refused']).toBeUndefined();
    expect(stats.transfers.filter((t) => t.via === 'sprint').length).toBeGreaterThan(0);
    // segment loads (not the mode checks' own 2-byte Range check, nor the manifest fetched for the checks)
    const segments = media.filter((r) => !(r.url as string).includes('.mpd') && r.range !== 'bytes=0-1' && r.range !== 'bytes=0-0');
    expect(segments.length).toBeGreaterThan(3);
    for (const r of segments) expect(new URL(r.url as string, 'http://x').searchParams.get('CMCD')).toMatch(/sid=/);
  });
});

describe('a token-checking CDN over HTTPS + HTTP/2', () => {
  it('auto: trains over fetch on h2 carry the token and header, and play', async () => {
    const stack = await startH2Stack({ requireToken: REQUIRE });
    try {
      const { stats } = await playsWithToken(stack, { mode: 'auto' });
      expect(stats.mode).toBe('sprint');
      expect(stats.modeReason).toMatch(/over fetch on h2/);
      expect(stats.transfers.filter((t) => t.via === 'sprint').length).toBeGreaterThan(0);
    } finally {
      await stack.close();
    }
  });
});

describe('an origin that refuses only Sprint-shaped requests (a Range wider than one segment)', () => {
  let stack: Stack;
  beforeAll(async () => {
    await ensureTestContent();
    // the largest segment of the lowest video rung and of audio (the page pins the lowest rung): one segment always passes
    const dir = join(packageRoot(), 'demo', 'media', TEST_SET, 'unchunked');
    let largest = 0;
    for (const rep of ['rep-0.mp4', 'rep-5.mp4']) {
      const index = await readSingleFileIndex(join(dir, rep));
      largest = Math.max(largest, index.indexRange[1] + 1, ...index.sidx.references.map((r) => r.size));
    }
    stack = await startStack({ requireToken: REQUIRE, refuseRangeOverBytes: largest });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('auto: Sprint-x is refused on its first expanded request, falls back to stock, and plays', async () => {
    const from = stack.origin.records().length;
    // a fixed 1 MB chunk: every expanded request spans several of the lowest rung's segments
    await stack.page.goto(
      demoUrl(stack.origin, { layout: 'unchunked', cdntoken: TOKEN, mode: 'auto', quality: 'lowest', chunk: '1000000' }),
    );
    const s = await waitForPlayback(stack.page, PLAY_SECONDS, PLAY_TIMEOUT_MS);
    expect(s.requestedMode).toBe('auto');
    expect(s.mode).toBe('stock');
    expect(s.modeReason).toMatch(/the origin refused an expanded Range request \(HTTP 403/);
    expect(s.counters['sprintx.refused']).toBe(1);
    expect(s.counters['sprintx.fallbacks']).toBe(1);
    const heard = await heardEvents(stack.page);
    expect(heard.counts['fallback']).toBe(1);
    // on the wire: the one wide range refused, every other media request served
    const media = mediaSince(stack, from);
    const refused = media.filter((r) => r.status === 403);
    expect(refused).toHaveLength(1);
    expect(mediaRecords({ records: () => media }).filter((r) => r.status === 206).length).toBeGreaterThan(3);
  });
});
