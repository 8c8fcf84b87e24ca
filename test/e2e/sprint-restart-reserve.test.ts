/**
 * The restart reserve (src/train/restart-reserve.ts, paper §IV-B1's paused
 * regime): when the first segment of a train arrives slowly — a restart
 * from the initial window after a pause — Sprint resumes the next train with
 * more buffer than dash.js's own level, so the restart cannot drain it.
 *
 * The origin paces bodies at 0.6 Mbit/s and answers 1 s after each request
 * (latencyMs); BW-10 keeps the 0.3 Mbit/s rung (150 KB per 4 s segment) and a
 * 6 s buffer target puts dash.js's resume level at 2 s (target minus one
 * segment). A first segment then takes about 3 s from request to last byte:
 * alone it would drain a 2 s buffer. Measured here on the player's records:
 * the first pause, before any restart was measured, resumed on the assumed
 * restart rate (one initial window per measured round trip, not the first
 * train's rate: the run's first train is no restart); a restart rate was
 * sampled; every train after the first began with a reserve above dash.js's
 * level and with more buffer than that level (the reserve brought the
 * resume forward, counted in `sprint.reserveResumes`), and the ABR still
 * chose every bitrate (BW-10's lowest rung throughout).
 */
import { RESTART_INITIAL_WINDOW_BYTES, RESTART_TIME_SHARE } from '../../src/train/restart-reserve';
import { demoUrl, startStack, waitForStats, type Stack } from './support/playback';

const BUFFER_TARGET_SEC = 6;
const SEGMENT_SEC = 4;
/** dash.js's request time limit (fragmentRequestTimeout), which caps the reserve. */
const REQUEST_TIMEOUT_SEC = 20;

describe('trains after a pause, slow restarts', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: 0.6e6, latencyMs: 1000 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('resume with the buffer the measured restart needs, above dash.js own level', async () => {
    const params = {
      layout: 'unchunked',
      mode: 'sprint',
      transport: 'fetch',
      abr: 'bw-10',
      buffer: String(BUFFER_TARGET_SEC),
      chunk: '600000',
    };
    await stack.page.goto(demoUrl(stack.origin, params));
    // Until a train after a pause has sampled the restart and another has begun after it (bounded).
    const s = await waitForStats(
      stack.page,
      'a restart sample and a train after it',
      (st) => {
        if (st.playback.errors.length > 0) throw new Error(`player errors: ${st.playback.errors.join('; ')}`);
        return (st.estimates.restartBitsPerSec ?? null) !== null && st.trains.filter((t) => t.mediaType === 'video').length >= 4;
      },
      240_000,
      500,
    );
    expect(s.mode).toBe('sprint');
    expect(s.playback.errors).toEqual([]);

    const ownLevelSec = BUFFER_TARGET_SEC - SEGMENT_SEC;
    const trains = s.trains.filter((t) => t.mediaType === 'video');
    const summary = trains.map((t) => ({
      id: t.id,
      resumeBufferSec: t.resumeBufferSec === null ? null : Math.round(t.resumeBufferSec * 100) / 100,
      restartReserveSec: Math.round(t.restartReserveSec * 100) / 100,
      rttSec: t.rttEstimateSec,
      requests: t.requests,
    }));
    process.stderr.write(
      `trains: ${JSON.stringify(summary)}; restart rate ${s.estimates.restartBitsPerSec} bit/s; reserve resumes ${s.counters['sprint.reserveResumes'] ?? 0}; stalls ${s.playback.rebufferCount}\n`,
    );

    // A train after a pause sampled the restart rate.
    expect(s.estimates.restartBitsPerSec ?? null).not.toBeNull();
    const later = trains.filter((t) => t.id > (trains[0]?.id ?? Infinity));
    expect(later.length).toBeGreaterThanOrEqual(2);
    // The first resume had no restart sample: its reserve is the next segment at one initial window per
    // round trip (the RTT in force then), not at the rate of the first train's first segment.
    const second = later[0] as (typeof trains)[number];
    const segmentBits = Math.min(...second.bitrates) * SEGMENT_SEC;
    const assumedBitsPerSec = (RESTART_INITIAL_WINDOW_BYTES * 8) / (second.rttEstimateSec ?? NaN);
    expect(second.restartReserveSec).toBeGreaterThan(0);
    const expectedSec = Math.min(segmentBits / assumedBitsPerSec, REQUEST_TIMEOUT_SEC) / RESTART_TIME_SHARE;
    expect(second.restartReserveSec / expectedSec).toBeCloseTo(1, 2);
    for (const t of later) {
      // The reserve asked for more than dash.js's level, and the train began with more buffer than that level.
      expect({ train: t.id, reserveAboveOwnLevel: t.restartReserveSec > ownLevelSec }).toEqual({ train: t.id, reserveAboveOwnLevel: true });
      expect({ train: t.id, resumedAboveOwnLevel: (t.resumeBufferSec ?? 0) > ownLevelSec }).toEqual({
        train: t.id,
        resumedAboveOwnLevel: true,
      });
    }
    expect(s.counters['sprint.reserveResumes'] ?? 0).toBeGreaterThanOrEqual(later.length);
    // Timing only: the ABR's choice stands (BW-10 at 0.6 Mbit/s keeps the lowest rung).
    const bitrates = new Set(trains.flatMap((t) => t.bitrates));
    expect([...bitrates]).toEqual([Math.min(...bitrates)]);
  });
});
