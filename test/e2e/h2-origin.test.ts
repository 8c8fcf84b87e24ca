/**
 * Sprint without the extension on an HTTPS + HTTP/2 origin
 * (demo/server/h2-origin.ts; paper §IV-B1 trains, §IV-B2 cancels), in
 * headless Chromium trusting the origin's self-signed certificate by its
 * SPKI hash only. The origin paces bodies (8 Mbit/s; 2 in (b)) so responses take long
 * enough for requests to overlap. Judged from the player's stats and the
 * origin's access log (one `conn` per HTTP/2 session, `stream` per request):
 *   (a) `mode=auto` with no extension detects h2 and runs Sprint's trains on
 *       fetch; playback advances; the video train's requests ride ONE
 *       connection as several streams, a request arriving before the
 *       previous response ended (the train is on the wire); dash.js's own
 *       requests (page, manifest, init segments, audio) share that
 *       connection too. Measured: while the trains' fetches used
 *       `credentials: 'omit'` they rode a second connection of their own
 *       (Chromium pools credentialed and uncredentialed requests apart), so
 *       player/sprint/fetch-transport.ts now uses dash.js's mode
 *       (`same-origin`) — also when a page forces `sprintTransport: 'fetch'`
 *       (it had kept `omit`: measured on the 3 Mbit/s testbed, the video
 *       train rode a connection of its own beside dash.js's audio, two flows
 *       for one player). Audio rides the trains' fetches on that connection,
 *       in presentation order with the video. The RTT probes stay uncredentialed on purpose
 *       (player/estimates/rtt-prober.ts): their connection carries nothing else.
 *   (b) Sprint-x over HTTP/2: a seek that cancels an in-flight expanded
 *       request resets its stream (`client-reset` in the log) and the next
 *       expanded request rides the same connection: no new connection, so
 *       no new slow start. (Sprint-x's expanded requests are uncredentialed,
 *       so they share a connection with the probes, not with dash.js's
 *       init segments and audio.)
 *   (c) The page on an HTTP/1.1 origin, the content on the HTTP/2 one:
 *       protocol detection reads `h2` from the cross-origin manifest's
 *       Resource Timing entry (the origin sends Timing-Allow-Origin) and the
 *       trains run there, on one connection.
 *   (d) A forced bitrate switch inside a train (player/dash/quality-switch-hook.ts)
 *       keeps the train on the wire over HTTP/2: nothing cancelled, one
 *       train requested both bitrates, and the new representation's first
 *       request reached the origin while a response of the old one was still
 *       being sent, on the same connection.
 */
import type { H2AccessRecord, H2Origin } from '../../demo/server/h2-origin';
import { startOrigin, type Origin } from '../../demo/server/origin';
import {
  demoUrl,
  mediaRecords,
  overlapping,
  startH2Stack,
  stats,
  switchVideoByHand,
  waitForPlayback,
  waitForStats,
  type Stack,
} from './support/playback';

const RATE = 8e6;
/** Audio is representation 5 of the test set (rep-5.mp4, chunk-5-*, init-5). */
const AUDIO = /(rep|chunk|init)-5\b/;

/** Polls `find` until it returns a non-empty list, for at most 60 s. */
async function waitForRecords<T>(what: string, find: () => T[]): Promise<T[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = find();
    if (found.length > 0) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} in the origin's log`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Per connection: how many streams carried the page, the manifest, video and audio (for the test's log). */
function connSummary(origin: H2Origin): string {
  const by = new Map<number, Record<string, number>>();
  for (const r of origin.records()) {
    const url = r.url ?? '?';
    const kind = url.endsWith('.mpd') ? 'manifest' : url.startsWith('/media/') ? (AUDIO.test(url) ? 'audio' : 'video') : 'page';
    const c = by.get(r.conn) ?? {};
    c[kind] = (c[kind] ?? 0) + 1;
    by.set(r.conn, c);
  }
  return [...by].map(([c, kinds]) => `conn ${c}: ${JSON.stringify(kinds)}`).join('; ');
}

describe.each([
  ['auto detects h2 and runs', { mode: 'auto' }, /fetch on h2/],
  ['forced onto fetch, Sprint runs', { mode: 'sprint', transport: 'fetch' }, /fetch \(requested; on h2: one multiplexed connection\)/],
] as const)('Sprint on an HTTP/2 origin, no extension (%s)', (what, query, reason) => {
  let stack: Stack<H2Origin>;
  beforeAll(async () => {
    stack = await startH2Stack({ rateLimitBitsPerSec: RATE });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it(`(a) ${what} the trains over fetch, on one connection with dash.js's own requests, back to back`, async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', ...query }));
    const s = await waitForPlayback(stack.page, 12, 150_000);
    process.stderr.write(
      `h2 (a): mode=${s.mode} transport=${s.estimates.transport} reason=${s.modeReason}\n  ${connSummary(stack.origin)}\n`,
    );
    expect(s.mode).toBe('sprint');
    expect(s.estimates.transport).toBe('fetch');
    expect(s.modeReason).toMatch(reason);
    expect(s.playback.errors).toEqual([]);
    expect(s.trains.filter((t) => t.mediaType === 'video').length).toBeGreaterThan(0);
    const delivered = s.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media' && x.status === 'ok');
    expect(delivered.length).toBeGreaterThan(3);

    const all = stack.origin.records();
    expect(all.every((r) => r.protocol === 'h2' && r.version === 'HTTP/2')).toBe(true);
    // Probes travel uncredentialed, apart from the media by design: the RTT probes (1-byte
    // `bytes=0-0`, player/estimates/rtt-prober.ts: they must not wait behind media bytes) and the
    // Sprint-x check's 2-byte Range probe (`bytes=0-1`, player/sprintx/capability.ts), which runs
    // beside Sprint's check since the mode checks run at once.
    const probe = (r: { range: string | null }): boolean => r.range === 'bytes=0-0' || r.range === 'bytes=0-1';
    const media = mediaRecords(stack.origin);
    const video = media.filter((r) => !AUDIO.test(r.url) && r.status === 206 && !probe(r));
    expect(video.length).toBeGreaterThan(3);
    // The video train: one connection, several streams.
    const videoConns = new Set(video.map((r) => r.conn));
    expect(videoConns.size).toBe(1);
    expect(new Set(video.map((r) => r.stream)).size).toBe(video.length);
    // On the wire as a train: a request arrived while the previous response was still being sent.
    expect(overlapping(video)).toBeGreaterThan(0);
    // dash.js's own requests (the page, the manifest, init segments, audio) share that connection: the
    // trains' fetches go with dash.js's credentials mode (with `omit` they had one of their own).
    // Only the probes keep an uncredentialed connection.
    const player = all.filter((r) => !probe(r));
    const audio = media.filter((r) => AUDIO.test(r.url));
    expect(audio.length).toBeGreaterThan(0);
    expect(player.some((r) => r.url?.endsWith('.mpd'))).toBe(true);
    expect(new Set(player.map((r) => r.conn))).toEqual(videoConns);
    const probeConns = new Set(all.filter(probe).map((r) => r.conn));
    for (const c of probeConns) expect(all.filter((r) => r.conn === c).every(probe)).toBe(true);
    // On the shared connection audio rides the trains' fetches, in presentation order with the video
    // (left to dash.js it waited behind the video bytes in flight: stalls on the testbed).
    expect(s.counters['sprint.audioOnTrain'] ?? 0).toBeGreaterThan(0);
    expect(s.counters['sprint.audioHoldTimeouts'] ?? 0).toBe(0);
  });
});

describe('Sprint-x on an HTTP/2 origin: a cancel is a stream reset, not a new connection', () => {
  let stack: Stack<H2Origin>;
  beforeAll(async () => {
    // Slower than (a) so a 1 MB expanded request is in flight for seconds.
    stack = await startH2Stack({ rateLimitBitsPerSec: 2e6 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('(b) a seek cancels the expanded request with RST_STREAM on the same connection', async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout: 'unchunked', mode: 'sprint-x', chunk: '1000000' }));
    await waitForPlayback(stack.page, 1, 120_000);
    const before = await waitForStats(
      stack.page,
      'an expanded video transfer in flight',
      (s) => s.transfers.some((t) => t.via === 'sprint-x' && t.endMs === null && !AUDIO.test(t.url) && t.bytes > 0),
      60_000,
    );
    expect(before.mode).toBe('sprint-x');
    const videoOf = (): Array<ReturnType<typeof mediaRecords<H2AccessRecord>>[number]> =>
      mediaRecords(stack.origin).filter((r) => !AUDIO.test(r.url));
    const mediaConnsBefore = new Set(mediaRecords(stack.origin).map((r) => r.conn));
    const sessionsBefore = stack.origin.stats().connectionsTotal;
    // 100 s: past the end of any 1 MB range in flight now (26 s of media at the lowest rung).
    await stack.page.evaluate(() => {
      (window as unknown as { sprintPlayer: { dash: { seek(t: number): void } } }).sprintPlayer.dash.seek(100);
    });
    const after = await waitForStats(
      stack.page,
      'the cancel and playback from the new position',
      (s) => s.transfers.some((t) => t.cancelled && !AUDIO.test(t.url)) && s.playback.currentTimeSec > 103,
      120_000,
    );
    process.stderr.write(`h2 (b): ${connSummary(stack.origin)}\n`);
    expect(after.playback.errors).toEqual([]);
    expect(after.counters['sprintx.cancellations']).toBeGreaterThan(0);
    // The origin saw the cancelled request's stream reset after part of its body.
    const video = videoOf();
    const reset = video.filter((r) => r.error === 'client-reset');
    expect(reset.length).toBeGreaterThan(0);
    for (const r of reset) expect(r.bytes).toBeLessThan(r.bodyBytesExpected);
    // The next expanded request after the seek rode the connection whose stream was reset: nothing
    // new was opened (on HTTP/1.1 the same cancel closes the connection and the next request opens
    // another, with a new slow start).
    const resetConns = new Set(reset.map((r) => r.conn));
    expect(resetConns.size).toBe(1);
    const lastReset = Math.max(...reset.map((x) => x.end));
    // Records are logged when a response ends: wait (bounded) for the next expanded request's.
    const nextExpanded = await waitForRecords('an expanded request after the reset', () =>
      videoOf().filter((r) => r.arrival > lastReset && r.range !== 'bytes=0-0' && r.status === 206 && r.bodyBytesExpected > 100_000),
    );
    for (const r of nextExpanded) expect(resetConns.has(r.conn)).toBe(true);
    expect(new Set(mediaRecords(stack.origin).map((r) => r.conn))).toEqual(mediaConnsBefore);
    expect(stack.origin.stats().connectionsTotal).toBe(sessionsBefore);
  });
});

describe('a page on an HTTP/1.1 origin, media on an HTTP/2 origin', () => {
  let stack: Stack<H2Origin>;
  let pageOrigin: Origin;
  beforeAll(async () => {
    stack = await startH2Stack({ rateLimitBitsPerSec: RATE });
    pageOrigin = await startOrigin({});
  });
  afterAll(async () => {
    await stack?.close();
    await pageOrigin?.close();
  });

  it('(c) auto reads h2 from the cross-origin manifest (Timing-Allow-Origin) and runs the trains there', async () => {
    const manifest = `${stack.origin.url}/media/test/unchunked/manifest.mpd`;
    await stack.page.goto(
      `${pageOrigin.url}/?${new URLSearchParams({ set: 'test', layout: 'unchunked', mode: 'auto', manifest }).toString()}`,
    );
    const s = await waitForPlayback(stack.page, 8, 150_000);
    process.stderr.write(`h2 (c): mode=${s.mode} transport=${s.estimates.transport}; ${connSummary(stack.origin)}\n`);
    expect(s.mode).toBe('sprint');
    expect(s.estimates.transport).toBe('fetch');
    expect(s.modeReason).toMatch(/fetch on h2/);
    expect(s.playback.errors).toEqual([]);
    expect(mediaRecords(pageOrigin)).toEqual([]);
    const video = mediaRecords(stack.origin).filter((r) => !AUDIO.test(r.url) && r.status === 206);
    expect(video.length).toBeGreaterThan(3);
    expect(new Set(video.map((r) => r.conn)).size).toBe(1);
  });
});

describe('a bitrate switch inside a train on HTTP/2', () => {
  let stack: Stack<H2Origin>;
  beforeAll(async () => {
    stack = await startH2Stack({ rateLimitBitsPerSec: RATE });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('(d) keeps the train on the wire: the new representation is requested while the old one still arrives, same connection', async () => {
    // A fixed 30 MB chunk (30 s of the 8 Mbit/s origin) keeps the first train running across the switch.
    await stack.page.goto(demoUrl(stack.origin, { layout: 'chunked', mode: 'auto', chunk: '30000000' }));
    await waitForPlayback(stack.page, 1, 120_000);
    const before = await stats(stack.page);
    expect(before.mode).toBe('sprint');
    expect(before.estimates.transport).toBe('fetch');
    const current = before.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media').pop()?.representationId ?? '0';
    const to = current === '0' ? 2 : 0;
    const switchAt = Date.now();
    await switchVideoByHand(stack.page, to);
    const s = await waitForPlayback(stack.page, before.playback.currentTimeSec + 10, 120_000);
    process.stderr.write(`h2 (d): switch ${current} -> ${to}; ${connSummary(stack.origin)}\n`);
    expect(s.playback.errors).toEqual([]);
    // Nothing cancelled, every video segment delivered in order, and one train requested both bitrates.
    expect(s.transfers.filter((t) => t.via === 'sprint' && t.cancelled)).toEqual([]);
    const delivered = s.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media');
    expect(delivered.every((x) => x.status === 'ok')).toBe(true);
    for (let i = 1; i < delivered.length; i++) expect(delivered[i]?.index).toBe((delivered[i - 1]?.index as number) + 1);
    const nominal = [300000, 700000, 1500000, 3000000, 6000000][to] as number;
    expect(s.trains.some((t) => t.bitrates.includes(nominal) && new Set(t.bitrates).size >= 2)).toBe(true);
    // On the wire: the new representation's first request reached the origin while a response of
    // the old one was still being sent, on the same connection.
    const video = await waitForRecords('the new representation on the wire', () =>
      mediaRecords(stack.origin).filter((r) => !AUDIO.test(r.url) && r.status !== null && r.status < 300),
    );
    const isNew = (url: string): boolean => new RegExp(`(init|chunk)-${to}\\b`).test(url);
    const firstNew = video.filter((r) => isNew(r.url) && r.arrival > switchAt - 1000).sort((a, b) => a.arrival - b.arrival)[0];
    expect(firstNew).toBeDefined();
    const oldInFlight = video.filter(
      (r) => !isNew(r.url) && r.arrival < (firstNew as H2AccessRecord).arrival && r.end > (firstNew as H2AccessRecord).arrival,
    );
    expect(oldInFlight.length).toBeGreaterThan(0);
    expect(new Set(video.map((r) => r.conn)).size).toBe(1);
  });
});
