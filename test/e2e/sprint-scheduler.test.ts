/**
 * Sprint's train scheduler inside dash.js (paper §IV-B1), driven here over
 * the page's fetch transport (the extension transport has its own tests):
 * dash.js is made to keep more than one segment request outstanding, its
 * ABR still chooses every request, responses reach dash.js in order, nothing
 * is requested twice and playback advances. Judged from the origin's access
 * log (overlapping requests) and the player's stats.
 */
import { demoUrl, mediaRecords, startStack, waitForPlayback, type MediaRecord, type Stack } from './support/playback';

function overlapping(records: MediaRecord[]): number {
  let n = 0;
  const sorted = [...records].sort((a, b) => a.arrival - b.arrival);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1] as MediaRecord;
    const cur = sorted[i] as MediaRecord;
    if (prev.end !== null && cur.arrival < prev.end) n += 1;
  }
  return n;
}

describe.each(['chunked', 'unchunked'])('sprint trains over fetch, %s layout', (layout) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: 8e6 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('keeps requests outstanding, in order, and plays', async () => {
    await stack.page.goto(demoUrl(stack.origin, { layout, mode: 'sprint', transport: 'fetch' }));
    const s = await waitForPlayback(stack.page, 20, 150_000);
    expect(s.mode).toBe('sprint');
    expect(s.estimates.transport).toBe('fetch');
    expect(s.trains.length).toBeGreaterThan(0);
    expect(s.trains.some((t) => t.requests >= 2 && t.window >= 2)).toBe(true);

    const video = mediaRecords(stack.origin).filter((r) => r.status !== null && r.status < 300 && !/(rep|chunk|init)-5/.test(r.url));
    // More than one request outstanding at a time: request k+1 arrived before response k ended.
    expect(overlapping(video)).toBeGreaterThan(0);

    // dash.js got video segments in request order, each once.
    const delivered = s.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media' && x.status === 'ok');
    expect(delivered.length).toBeGreaterThan(4);
    const starts = delivered.map((x) => x.index);
    for (let i = 1; i < starts.length; i++) expect(starts[i]).toBeGreaterThan(starts[i - 1] as number);
    // No media segment fetched twice (init segments may be, after switching back to a bitrate).
    const keys = s.segments.filter((x) => x.kind === 'media').map((x) => `${x.url} ${x.range}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(s.playback.errors).toEqual([]);
  });
});
