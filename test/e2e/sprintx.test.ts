/**
 * Sprint-x end-to-end (paper §IV-B2): on unchunked content in a plain page
 * the player fetches media in expanded Range requests of at least the model's
 * chunk size, fewer requests than segments, while playback advances; a
 * forced bitrate switch cancels the transfer in flight and playback goes on;
 * content or servers that cannot support Sprint-x fall back to stock with
 * the reason reported. All judged from the origin's access log and stats.
 */
import {
  demoUrl,
  heardAndRecorded,
  heardEvents,
  mediaRecords,
  rangeBytes,
  startStack,
  stats,
  waitForPlayback,
  waitForStats,
  type Stack,
} from './support/playback';
import type { AccessRecord } from '../../demo/server/origin';

describe('sprint-x on unchunked content', () => {
  let stack: Stack;
  beforeAll(async () => {
    // paced like a home link, so the ABR settles instead of climbing through every rung in seconds
    stack = await startStack({ rateLimitBitsPerSec: 8e6 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('downloads in expanded ranges of at least the chunk size', async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode: 'sprint-x' }));
    const playing = await waitForPlayback(stack.page, 20, 120_000);
    expect(playing.mode).toBe('sprint-x');
    // The origin logs a response when it ends: wait (bounded) until an expanded transfer has ended, since
    // one request spans many segments and on a busy machine the first may still run 20 s into playback.
    const s = await waitForStats(
      stack.page,
      'an expanded transfer that ended',
      (x) => x.transfers.some((t) => t.via === 'sprint-x' && t.endMs !== null && !t.cancelled),
      120_000,
    );

    const transfers = s.transfers.filter((t) => t.via === 'sprint-x');
    expect(transfers.length).toBeGreaterThan(0);
    const ended = transfers.filter((t) => t.endMs !== null && !t.cancelled);
    expect(ended.length).toBeGreaterThan(0);
    const media = mediaRecords(stack.origin).filter((r) => r.status === 206 && rangeBytes(r) > 2);
    const played = s.segments.filter((x) => x.kind === 'media' && x.status === 'ok' && x.mediaType === 'video');

    // Every expanded request on the wire is at least the chunk size its
    // transfer targeted, or runs to the end of the file.
    for (const t of ended) {
      const onWire = media.find((r) => r.range === `bytes=${t.range}` && t.url.endsWith(r.url));
      expect(onWire).toBeDefined();
      const size = rangeBytes(onWire as AccessRecord);
      const reachesEnd = t.expectedBytes !== null && size === t.expectedBytes && (t.targetChunkBytes ?? 0) > size;
      if (!reachesEnd) expect(size).toBeGreaterThanOrEqual(t.targetChunkBytes as number);
    }
    // fewer media segment requests on the wire (the expanded ones: not the
    // sidx, init segments or RTT probes) than media segments played
    const expandedOnWire = media.filter((r) => transfers.some((t) => r.range === `bytes=${t.range}` && t.url.endsWith(r.url)));
    expect(expandedOnWire.length).toBeLessThan(played.length);
    // each delivered video segment names the expanded transfer that carried it
    for (const seg of played) expect(transfers.map((t) => t.id)).toContain(seg.transferId);
    // audio stays on dash.js's own loading, one request per segment, each recorded once
    const audio = s.segments.filter((x) => x.kind === 'media' && x.status === 'ok' && x.mediaType === 'audio');
    expect(audio.length).toBeGreaterThan(0);
    const stockIds = s.transfers.filter((t) => t.via === 'stock').map((t) => t.id);
    for (const seg of audio) expect(stockIds).toContain(seg.transferId);
    expect(new Set(audio.map((x) => x.transferId)).size).toBe(audio.length);
    expect(transfers.some((t) => /rep-5/.test(t.url))).toBe(false);
    expect(s.estimates.rttSamples).toBeGreaterThan(0);
    expect(s.estimates.chunkBytes).toBeGreaterThan(0);
    // The manifest crossed the wire once: the mode check's fetch, whose text
    // answered dash.js's own request (player/dataplane/manifest-handoff.ts).
    expect(stack.origin.records().filter((r) => r.url?.endsWith('.mpd')).length).toBe(1);
    expect(s.counters['manifest.handedOver']).toBe(1);
    expect(s.counters['manifest.loadedByDash']).toBeUndefined();

    // The page heard it as events too (player.on): the mode once, every
    // transfer that ended exactly once (expanded and dash.js's own), estimates.
    const heard = await heardEvents(stack.page);
    expect(heard.counts['modeResolved']).toBe(1);
    // every ended transfer heard, each once: the same ids
    const heardTransfers = heardAndRecorded(heard, 'transferEnd', heard.stats.transfers);
    expect(heardTransfers.heard).toEqual(heardTransfers.recorded);
    expect(heard.counts['transferEnd']).toBe(heardTransfers.heard.length);
    expect(heard.counts['transferEnd']).toBeGreaterThan(ended.length);
    expect(heard.counts['estimates']).toBeGreaterThan(0);
  });

  it('with sxaudio=8 carries audio in expanded requests of two 4 s segments, and playback advances', async () => {
    const before = mediaRecords(stack.origin).length;
    await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode: 'sprint-x', sxaudio: '8' }));
    const s = await waitForPlayback(stack.page, 20, 120_000);
    expect(s.mode).toBe('sprint-x');
    const audioTransfers = s.transfers.filter((t) => t.via === 'sprint-x' && /rep-5/.test(t.url));
    expect(audioTransfers.length).toBeGreaterThan(0);
    expect(s.counters['sprintx.audioTransfers']).toBe(audioTransfers.length);
    // Not sized by the chunk model.
    for (const t of audioTransfers) expect(t.targetChunkBytes).toBeNull();
    const audio = s.segments.filter((x) => x.kind === 'media' && x.status === 'ok' && x.mediaType === 'audio');
    const ids = audioTransfers.map((t) => t.id);
    for (const seg of audio) expect(ids).toContain(seg.transferId);
    // On the wire: the audio file's media requests (not its index or init
    // probes) each span two segments, so there are fewer of them than audio
    // segments played.
    const onWire = mediaRecords(stack.origin)
      .slice(before)
      .filter((r) => /rep-5/.test(r.url) && r.status === 206 && audioTransfers.some((t) => r.range === `bytes=${t.range}`));
    expect(onWire.length).toBeGreaterThan(0);
    expect(onWire.length).toBeLessThan(audio.length);
    const perTransfer = audioTransfers.map((t) => audio.filter((x) => x.transferId === t.id).length);
    expect(Math.max(...perTransfer)).toBe(2);
    expect(s.playback.currentTimeSec).toBeGreaterThan(0);
  });
});

describe('sprint-x fallbacks', () => {
  it('falls back to stock on chunked content, with the reason', async () => {
    const stack = await startStack();
    try {
      await stack.page.goto(demoUrl(stack.origin, { layout: 'chunked', mode: 'sprint-x' }));
      const s = await waitForPlayback(stack.page, 5, 60_000);
      expect(s.mode).toBe('stock');
      expect(s.modeReason).toMatch(/chunked/);
    } finally {
      await stack.close();
    }
  });

  it('falls back to stock when the server ignores Range, with the reason', async () => {
    const stack = await startStack({ noRange: true });
    try {
      await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode: 'auto' }));
      // dash.js itself needs ranges for this layout; what matters is the decision and its reason.
      await stack.page.waitForFunction(
        () => (window as unknown as { sprintPlayer?: { stats(): { mode: string | null } } }).sprintPlayer?.stats().mode !== null,
        { timeout: 30_000 },
      );
      const s = await stats(stack.page);
      expect(s.mode).toBe('stock');
      expect(s.modeReason).toMatch(/ignores Range/);
    } finally {
      await stack.close();
    }
  });
});
