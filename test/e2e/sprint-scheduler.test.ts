/**
 * Sprint's train scheduler inside dash.js (paper §IV-B1), driven here over
 * the page's fetch transport (the extension transport has its own tests):
 * dash.js is made to keep more than one segment request outstanding, its
 * ABR still chooses every request, responses reach dash.js in order, nothing
 * is requested twice and playback advances. Judged from the origin's access
 * log (overlapping requests) and the player's stats.
 */
import {
  demoUrl,
  heardAndRecorded,
  heardEvents,
  mediaRecords,
  startStack,
  waitForPlayback,
  type MediaRecord,
  type Stack,
} from './support/playback';

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

/**
 * The minimum train (paper §IV-B1): "Sprint enforces the minimum train size
 * each time downloading resumes, even if this causes the buffer to
 * overflow". dash.js's buffer target is 8 s here and the chunk a fixed 1 MB
 * (26 s of media at the 0.3 Mbit/s rung BW-10 picks on a 4 Mbit/s origin): with
 * the minimum train the video buffer the browser holds goes
 * far past the target, every train requests its 2 MB, and downloading
 * resumes with a new train; without it (mpt=0, the paper's Fig. 11 "w/o
 * MPT") the buffer stays near the target.
 */
describe('the minimum train past dash.js buffer target', () => {
  let stack: Stack;
  const targetSec = 8;
  const chunk = 1_000_000;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: 4e6 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const open = async (mpt: string) => {
    const params = {
      layout: 'unchunked',
      mode: 'sprint',
      transport: 'fetch',
      abr: 'bw-10',
      buffer: String(targetSec),
      chunk: String(chunk),
      mpt,
    };
    await stack.page.goto(demoUrl(stack.origin, params));
    return waitForPlayback(stack.page, 45, 180_000);
  };
  const maxBuffer = (s: Awaited<ReturnType<typeof open>>): number => Math.max(...s.samples.map((x) => x.videoBufferSec));

  it('overflows the buffer target by the train and starts a new train when downloading resumes', async () => {
    const s = await open('1');
    expect(s.mode).toBe('sprint');
    // Without the lift dash.js stops near its target plus the two requests of
    // the window (measured: 16 s); the train carries it to about 30 s.
    expect(maxBuffer(s)).toBeGreaterThan(targetSec + 14);
    const trains = s.trains.filter((t) => t.mediaType === 'video');
    expect(trains.length).toBeGreaterThanOrEqual(2);
    for (const t of trains.filter((x) => x.endMs !== null)) {
      expect(t.targetBytes).toBe(chunk);
      expect(t.issuedBytes).toBeGreaterThanOrEqual(chunk);
    }
    // Downloading paused between trains: the second began after the first ended.
    expect((trains[1]?.startMs ?? 0) - (trains[0]?.endMs ?? Infinity)).toBeGreaterThan(1000);
    // The page heard every train end as an event (player.on('trainEnd')), once each.
    const heard = await heardEvents(stack.page);
    const heardTrains = heardAndRecorded(heard, 'trainEnd', heard.stats.trains);
    expect(heardTrains.heard).toEqual(heardTrains.recorded);
    expect(heard.counts['trainEnd']).toBe(heardTrains.heard.length);
    expect(heard.counts['trainEnd']).toBeGreaterThanOrEqual(1);
    expect(s.playback.errors).toEqual([]);
  });

  it('without the minimum train (mpt=0) the buffer stays near dash.js target', async () => {
    const s = await open('0');
    expect(s.mode).toBe('sprint');
    expect(maxBuffer(s)).toBeLessThan(targetSec + 6);
    expect(s.trains.length).toBeGreaterThan(0);
    expect(s.playback.errors).toEqual([]);
  });
});

/**
 * A seek while a train runs: dash.js aborts or keeps the train's requests,
 * stops and restarts its own loop; Sprint ends the train, leaves the loop
 * alone until dash.js restarts it, and a new train starts at the new
 * position. Playback continues from there, segments in order.
 */
describe('a seek during a train', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: 4e6 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('ends the train, starts a new one at the new position and plays on', async () => {
    await stack.page.goto(
      demoUrl(stack.origin, { layout: 'unchunked', mode: 'sprint', transport: 'fetch', abr: 'bw-10', buffer: '8', chunk: '3000000' }),
    );
    await waitForPlayback(stack.page, 2, 120_000);
    const seekAt = Date.now();
    await stack.page.evaluate(() => {
      (window as unknown as { sprintPlayer: { dash: { seek(t: number): void } } }).sprintPlayer.dash.seek(60);
    });
    const s = await waitForPlayback(stack.page, 68, 120_000);
    expect(s.playback.errors).toEqual([]);
    const trains = s.trains.filter((t) => t.mediaType === 'video');
    // Every train from before the seek has ended (3 MB at 0.3 Mbit/s is 80 s
    // of media: the first is still running at the seek), and a new one began
    // after it even if dash.js kept a request from before the seek.
    expect(trains.filter((t) => t.startMs < seekAt).length).toBeGreaterThan(0);
    expect(trains.filter((t) => t.startMs < seekAt && t.endMs === null)).toEqual([]);
    expect(trains.some((t) => t.startMs > seekAt)).toBe(true);
    // After the seek dash.js got the segments from 60 s on, in order, each once.
    const after = s.segments.filter((x) => x.mediaType === 'video' && x.kind === 'media' && x.status === 'ok' && x.requestMs > seekAt);
    expect(after.length).toBeGreaterThan(1);
    expect(after[0]?.index).toBeGreaterThanOrEqual(14);
    for (let i = 1; i < after.length; i++) expect(after[i]?.index).toBe((after[i - 1]?.index as number) + 1);
  });
});
