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
 * a restart rate was sampled, every train after the first began with a
 * reserve above dash.js's level and with more buffer than that level (the
 * reserve brought the resume forward, counted in `sprint.reserveResumes`),
 * and the ABR still chose every bitrate (BW-10's lowest rung throughout).
 */
import { demoUrl, startStack, waitForPlayback, type Stack } from './support/playback';

const BUFFER_TARGET_SEC = 6;
const SEGMENT_SEC = 4;

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
    const s = await waitForPlayback(stack.page, 45, 240_000);
    expect(s.mode).toBe('sprint');
    expect(s.playback.errors).toEqual([]);

    const ownLevelSec = BUFFER_TARGET_SEC - SEGMENT_SEC;
    const trains = s.trains.filter((t) => t.mediaType === 'video');
    const summary = trains.map((t) => ({
      id: t.id,
      resumeBufferSec: t.resumeBufferSec === null ? null : Math.round(t.resumeBufferSec * 100) / 100,
      restartReserveSec: Math.round(t.restartReserveSec * 100) / 100,
      requests: t.requests,
    }));
    process.stderr.write(
      `trains: ${JSON.stringify(summary)}; restart rate ${s.estimates.restartBitsPerSec} bit/s; reserve resumes ${s.counters['sprint.reserveResumes'] ?? 0}; stalls ${s.playback.rebufferCount}\n`,
    );

    // The first train's first segment sampled the restart rate.
    expect(s.estimates.restartBitsPerSec ?? null).not.toBeNull();
    const later = trains.filter((t) => t.id > (trains[0]?.id ?? Infinity));
    expect(later.length).toBeGreaterThanOrEqual(2);
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
