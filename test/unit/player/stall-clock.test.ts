// The startup and rebuffer figures every player's stats share (player/stats/stall-clock.ts), driven by the
// element's events on a clock held by hand: waiting before the first frame, during a seek or after the end
// is not a rebuffer; a stall still running counts up to now.

import { StallClock } from '../../../player/stats/stall-clock';

describe('StallClock', () => {
  let now: number;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('counts startup, then stalls, and leaves seeks and the end out', () => {
    const video = { seeking: false, ended: false } as HTMLVideoElement & { seeking: boolean; ended: boolean };
    const clock = new StallClock(video);
    now += 500;
    clock.waiting(); // before the first frame: startup
    now += 1500;
    clock.playing();
    expect(clock.figures()).toEqual({ startupDelayMs: 2000, rebufferCount: 0, rebufferMs: 0, stallStartMs: null });

    now += 10_000;
    clock.waiting();
    now += 3000;
    expect(clock.figures()).toEqual({ startupDelayMs: 2000, rebufferCount: 1, rebufferMs: 3000, stallStartMs: now - 3000 });
    clock.waiting(); // the same stall
    now += 1000;
    clock.playing();
    expect(clock.figures()).toMatchObject({ rebufferCount: 1, rebufferMs: 4000, stallStartMs: null });

    video.seeking = true;
    clock.waiting();
    video.seeking = false;
    video.ended = true;
    clock.waiting();
    expect(clock.figures()).toMatchObject({ rebufferCount: 1, stallStartMs: null });
  });
});
