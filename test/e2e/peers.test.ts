/**
 * The A/B harness's peer players (demo/page/peer.html): Shaka Player on the MPD, with its default
 * prefetch and with segmentPrefetchLimit 4, and hls.js on the HLS playlists of the same files,
 * each in headless Chromium against the demo origin on loopback, paced to 12 Mbit/s so responses
 * take time. Judged from the origin's access log (the bytes and how many requests were out at
 * once) and from the stats the page reports in the harness's shape (window.sprintPlayer.stats()).
 */
import { playerUrl } from '../../demo/harness/run';
import type { PeerStats } from '../../demo/page/peers/peer-stats';
import { mediaRecords, startStack, TEST_SET, type MediaRecord, type Stack } from './support/playback';

const PLAY_SECONDS = 8;
const LADDER = [300_000, 700_000, 1_500_000, 3_000_000, 6_000_000];

async function peerStats(stack: Stack): Promise<PeerStats> {
  return stack.page.evaluate(() => {
    const p = (window as unknown as { sprintPlayer?: { stats(): unknown } }).sprintPlayer;
    if (!p) throw new Error('window.sprintPlayer is not set: the peer page did not start');
    return JSON.parse(JSON.stringify(p.stats()));
  }) as Promise<PeerStats>;
}

/** Polls the page until playback passed `seconds` (bounded); fails with what it reported last. */
async function playPast(stack: Stack, seconds: number, timeoutMs = 40_000): Promise<PeerStats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await peerStats(stack).catch(() => null);
    if (s && s.playback.errors.length > 0) throw new Error(`player errors: ${s.playback.errors.join('; ')}`);
    if (s && s.playback.currentTimeSec >= seconds) return s;
    if (Date.now() > deadline) throw new Error(`playback did not reach ${seconds} s: ${JSON.stringify(s?.playback ?? null)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The most media requests the origin had in progress at once (arrived, response not yet ended). */
function mostOutstanding(records: readonly MediaRecord[]): number {
  const events = records.flatMap((r): Array<[number, number]> => [
    [r.arrival, 1],
    [r.end, -1],
  ]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of events) most = Math.max(most, (open += d));
  return most;
}

/** The page's ok segment records each match a request on the origin's log, byte for byte. */
function expectSegmentsOnWire(s: PeerStats, media: readonly MediaRecord[]): void {
  const segs = s.segments.filter((x) => x.status === 'ok');
  expect(segs.filter((x) => x.kind === 'media' && x.mediaType === 'video').length).toBeGreaterThan(1);
  for (const seg of segs) {
    const path = new URL(seg.url).pathname;
    const onWire = media.find((r) => r.url === path && r.range === (seg.range === null ? null : `bytes=${seg.range}`));
    expect({ url: path, range: seg.range, found: onWire !== undefined }).toEqual({ url: path, range: seg.range, found: true });
    expect(onWire?.bytes).toBe(seg.bytes);
  }
}

/** The representation id a media file's name carries (rep-<id>.mp4, chunk-<id>-N.m4s, init-<id>.m4s). */
const repOfFile = (url: string): string | null => /\/(?:rep-|chunk-|init-)(\d+)[-.]/.exec(url)?.[1] ?? null;

const cases: Array<{ label: string; mode: string; layout: string; query: string; manifest: RegExp }> = [
  { label: 'shaka', mode: 'shaka', layout: 'unchunked', query: '', manifest: /manifest\.mpd$/ },
  { label: 'shaka?prefetch=4', mode: 'shaka', layout: 'chunked', query: 'prefetch=4', manifest: /manifest\.mpd$/ },
  { label: 'hlsjs', mode: 'hlsjs', layout: 'unchunked', query: '', manifest: /master\.m3u8$/ },
];

describe.each(cases)('peer $label ($layout layout)', ({ label, mode, layout, query, manifest }) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: 12e6, latencyMs: 10 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it(`plays past ${PLAY_SECONDS} s and reports what the origin sent`, async () => {
    const settings = { contentSet: TEST_SET, layout } as Parameters<typeof playerUrl>[2];
    const url = new URL(playerUrl('127.0.0.1', 0, settings, mode, 'own', '', query));
    expect(url.pathname).toBe('/peer.html');
    await stack.page.goto(`${stack.origin.url}${url.pathname}${url.search}`);
    const s = await playPast(stack, PLAY_SECONDS);

    expect(s.mode).toBe(mode);
    expect(s.modeReason).toMatch(mode === 'shaka' ? /^Shaka Player v?5\.2\.12/ : /^hls\.js 1\.7\.4/);
    if (query) expect(s.modeReason).toMatch(/segmentPrefetchLimit 4/);
    expect(s.playback.startupDelayMs).not.toBeNull();
    expect(LADDER).toContain(s.playback.videoBitrate);
    expect(s.playback.videoBufferSec).toBeGreaterThan(0);
    expect(s.estimates.bandwidthBitsPerSec).toBeGreaterThan(0);

    // The manifest it asked for, then media only from the content set's layout.
    const all = stack.origin.records();
    expect(all.some((r) => r.url !== null && manifest.test(r.url))).toBe(true);
    const media = mediaRecords(stack.origin).filter((r) => !r.url.endsWith('.m3u8'));
    expect(media.every((r) => r.url.startsWith(`/media/${TEST_SET}/${layout}/`))).toBe(true);
    expectSegmentsOnWire(s, media);

    // Every media request the origin saw is one the page recorded (read after the log: none is missing
    // for timing), and each recorded video segment names the rung its file holds, at its nominal rate.
    const after = await peerStats(stack);
    const sent = after.transfers.map((t) => `${new URL(t.url).pathname} ${t.range === null ? null : `bytes=${t.range}`}`);
    for (const r of media) expect(sent).toContain(`${r.url} ${r.range}`);
    const rungOf = new Map(LADDER.map((b, i) => [String(i), b]));
    for (const seg of after.segments.filter((x) => x.mediaType === 'video')) {
      expect(seg.representationId).toBe(repOfFile(seg.url));
      expect(seg.bandwidth).toBe(rungOf.get(seg.representationId ?? ''));
    }
    // Init segments are recorded whole (hls.js announces no end for them: read from its loader stats).
    for (const type of ['video', 'audio'])
      expect(after.segments.some((x) => x.kind === 'init' && x.mediaType === type && x.status === 'ok')).toBe(true);
    if (mode === 'hlsjs') expect(after.transfers.filter((t) => t.endMs === null).length).toBeLessThanOrEqual(2);
    const audio = after.segments.filter((x) => x.mediaType === 'audio' && x.status === 'ok');
    expect(audio.length).toBeGreaterThan(0);
    for (const seg of audio) expect([seg.representationId, seg.bandwidth]).toEqual(['5', 128_000]);

    if (label === 'shaka?prefetch=4') {
      // Prefetch keeps more than one segment request out at a time on the origin.
      expect(mostOutstanding(media.filter((r) => /\/chunk-[0-4]-/.test(r.url)))).toBeGreaterThan(1);
    }
    if (mode === 'hlsjs') expect(media.filter((r) => r.status === 206).length).toBeGreaterThan(3);
  });
});
