/**
 * A switch away and back inside one train (paper §IV-B1: the bitrate can
 * change at every request of a train) never leaves a segment without its
 * init segment — the cause of a player that stopped for good on the
 * testbed (demo/results/README.md, Fig. 6 notes: 1536 KB on fetch).
 *
 * How it went wrong: inside a train, requests run ahead of appends. Sprint
 * marks a representation initialised when its init segment is requested
 * (player/dash/scheduler-hook.ts), so dash.js does not ask for it again at
 * every tick; dash.js marks it again when an init segment is appended. With
 * A's init requested, then B's, A's late append set the mark back to A
 * while B's init was the last one requested; a switch back to A then asked
 * for A's segments with no A init before them, they were appended after
 * B's init, the browser failed to decode them (MEDIA_ERR_DECODE), and
 * dash.js's MediaSource reset never recovered.
 *
 * The test provokes exactly that order on the HTTP/2 origin (Sprint's trains
 * on fetch, no extension; the hook is the same for the extension's
 * sockets), paced so segments take seconds: switch to A inside a train,
 * then to B while A's init is still behind the segments ahead of it, and
 * back to A once A's init has been appended but B's has not. It then judges
 * from the origin's log, in request order on the one connection, that every
 * video segment was requested after its own representation's init segment
 * with no other init between and that no init segment was asked for twice
 * in a row, and from the player that playback went on with no error.
 * (Before the fix, a tick between A's append and the switch back asked for
 * B's init again; a switch back before any tick asked for A's segments with
 * no init: one of the two, whichever came first. Measured: the previous
 * scheduler hook failed this test in 2 of 2 runs, on the origin's log —
 * init segments asked for again right after themselves.)
 */
import type { H2AccessRecord, H2Origin } from '../../demo/server/h2-origin';
import type { SprintStats } from '../../player/stats/types';
import {
  demoUrl,
  mediaRecords,
  startH2Stack,
  stats,
  switchVideoByHand,
  waitForPlayback,
  waitForStats,
  type Stack,
} from './support/playback';

/** Slow enough that a 1.5 Mbit/s segment (4 s) takes seconds on the wire. */
const RATE = 3e6;
/**
 * Each response starts this late: the player measures a round trip of about
 * this, so its outstanding window (swin=8 fair BDPs) holds several segments,
 * as on the testbed; on bare loopback it holds two and appends keep up.
 * (At 400 ms the window was too small once the bandwidth samples spanned two
 * round trips: A's init was appended before B's was requested.) The page's
 * fragment timeout is raised so the origin's side-by-side HTTP/2 responses
 * do not time out behind a window this deep.
 */
const DELAY_MS = 1000;
/** Stats are polled this often, ms: the switch back must follow A's init hand-over closely. */
const POLL_MS = 100;
/** Audio is representation 5 of the test set. */
const AUDIO = /(rep|chunk|init)-5\b/;
const INIT = /\/init-(\d+)\b/;
const CHUNK = /\/chunk-(\d+)-\d+\b/;

/** Video requests the player sent after `sinceMs` for representation `rep`'s init segment / segments. */
const sent = (s: SprintStats, re: RegExp, rep: number, sinceMs: number): number =>
  s.transfers.filter((t) => !AUDIO.test(t.url) && t.startMs >= sinceMs && re.exec(t.url)?.[1] === String(rep)).length;

/** Representation `rep`'s init segment was handed to dash.js after `sinceMs`. */
const initDelivered = (s: SprintStats, rep: number, sinceMs: number): boolean =>
  s.segments.some(
    (x) =>
      x.mediaType === 'video' && x.kind === 'init' && x.status === 'ok' && x.representationId === String(rep) && x.requestMs >= sinceMs,
  );

/**
 * Walks the video requests in the order they reached the origin (stream ids
 * on one HTTP/2 connection) and lists every segment whose last init segment
 * before it was another representation's, and every init segment requested
 * again right after itself (with no seek or abort in the run, only a mark
 * moved back to another representation makes dash.js do that).
 */
function segmentsAfterForeignInit(records: readonly H2AccessRecord[]): string[] {
  const bad: string[] = [];
  let lastInit: string | null = null;
  for (const r of [...records].sort((a, b) => a.stream - b.stream)) {
    const url = r.url ?? '';
    const init = INIT.exec(url)?.[1];
    if (init !== undefined) {
      // Asked for again with no other init between: dash.js thought another was initialised.
      if (init === lastInit) bad.push(`${url} again after init-${lastInit}`);
      lastInit = init;
      continue;
    }
    const rep = CHUNK.exec(url)?.[1];
    if (rep !== undefined && rep !== lastInit) bad.push(`${url} after init-${lastInit ?? 'none'}`);
  }
  return bad;
}

describe('a switch away and back inside one train', () => {
  let stack: Stack<H2Origin>;
  beforeAll(async () => {
    stack = await startH2Stack({ rateLimitBitsPerSec: RATE, delayMs: DELAY_MS });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('requests every segment after its own init segment, and playback goes on', async () => {
    // A fixed 30 MB chunk keeps one train running across all three switches.
    await stack.page.goto(demoUrl(stack.origin, { layout: 'chunked', mode: 'auto', chunk: '30000000', swin: '8', fragtimeout: '60000' }));
    await waitForPlayback(stack.page, 1, 120_000);
    const first = await stats(stack.page);
    expect(first.mode).toBe('sprint');
    expect(first.estimates.transport).toBe('fetch');
    // The representation dash.js is asking for now: its last video request, which may be ahead of the
    // segments handed over (the ABR may have switched up before this first look). A is one whose init
    // segment was never asked for, so the switch to it really is one.
    const videoRequests = first.transfers.filter((t) => !AUDIO.test(t.url));
    const repOf = (url: string): number | null => {
      const m = INIT.exec(url) ?? CHUNK.exec(url);
      return m ? Number(m[1]) : null;
    };
    const current = repOf(videoRequests[videoRequests.length - 1]?.url ?? '') ?? 0;
    const initsAsked = new Set(videoRequests.map((t) => INIT.exec(t.url)?.[1]).filter((x) => x !== undefined));
    const a = [2, 3].find((r) => r !== current && !initsAsked.has(String(r))) as number;
    const b = [1, 2, 0].find((r) => r !== current && r !== a) as number;
    expect(a).toBeDefined();

    // To A inside the train; once one of A's segments is requested behind its init, to B; once B's
    // init is requested, while A's is still behind the segments ahead of it, back to A.
    const toA = Date.now();
    await switchVideoByHand(stack.page, a);
    await waitForStats(
      stack.page,
      `representation ${a}'s init and a segment requested`,
      (s) => sent(s, CHUNK, a, toA) >= 1,
      60_000,
      POLL_MS,
    );
    const toB = Date.now();
    await switchVideoByHand(stack.page, b);
    const mid = await waitForStats(stack.page, `representation ${b}'s init requested`, (s) => sent(s, INIT, b, toB) >= 1, 60_000, POLL_MS);
    // The order the test needs: A's init is appended after B's init was requested.
    expect(initDelivered(mid, a, toA)).toBe(false);
    // Back to A once A's init has been handed over (dash.js appends it in milliseconds).
    await waitForStats(stack.page, `representation ${a}'s init handed over`, (s) => initDelivered(s, a, toA), 60_000, POLL_MS);
    const back = Date.now();
    await switchVideoByHand(stack.page, a);
    await waitForStats(
      stack.page,
      `representation ${a} requested again`,
      (s) => sent(s, INIT, a, back) + sent(s, CHUNK, a, back) >= 1,
      60_000,
      POLL_MS,
    );
    const after = await waitForPlayback(stack.page, mid.playback.currentTimeSec + 20, 150_000);
    process.stderr.write(`switch back: ${current} -> ${a} -> ${b} -> ${a}; counters ${JSON.stringify(after.counters)}\n`);
    expect(after.playback.errors).toEqual([]);
    expect(after.transfers.filter((t) => t.via === 'sprint' && t.cancelled)).toEqual([]);

    // On the wire: every video segment follows its own representation's init segment.
    const video = mediaRecords(stack.origin).filter((r) => !AUDIO.test(r.url) && r.status !== null && r.status < 300);
    expect(new Set(video.map((r) => r.conn)).size).toBe(1);
    expect(segmentsAfterForeignInit(video)).toEqual([]);
    // And the scenario happened: A's init was requested again after B's.
    const inits = [...video]
      .sort((x, y) => x.stream - y.stream)
      .map((r) => INIT.exec(r.url)?.[1])
      .filter((x): x is string => x !== undefined);
    const tail = inits.slice(inits.lastIndexOf(String(b)));
    expect(tail).toContain(String(a));
    // The race happened: an init segment's append would have moved dash.js's mark back (the hook kept it).
    expect(after.counters['sprint.initMarkKept'] ?? 0).toBeGreaterThan(0);
  });
});
