// sleepUntil (demo/harness/sleep-until.ts): resolves only once Date.now()
// has reached the time asked for, even when its timer fires while the wall
// clock is still short of it (the clock here is held back by hand), and
// rejects with RunAborted on an abort.

import { RunAborted, sleepUntil } from '../../../demo/harness/sleep-until';

/** Lets real timers of up to `ms` run. */
const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('sleepUntil', () => {
  afterEach(() => jest.restoreAllMocks());

  test('a timer that fires before the wall clock reaches the time waits again for the rest', async () => {
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    let done = false;
    const sleeping = sleepUntil(now + 5).then(() => {
      done = true;
    });
    await tick(30); // its 5 ms timer has fired (several times over), but the clock has not moved
    expect(done).toBe(false);
    now += 4;
    await tick(30);
    expect(done).toBe(false); // 1 ms short
    now += 1;
    await sleeping;
    expect(done).toBe(true);
  });

  test('a time already past resolves at once; an abort rejects with RunAborted', async () => {
    await expect(sleepUntil(Date.now() - 1000)).resolves.toBeUndefined();
    const stop = new AbortController();
    const sleeping = sleepUntil(Date.now() + 60_000, stop.signal);
    stop.abort();
    await expect(sleeping).rejects.toBeInstanceOf(RunAborted);
    const stopped = new AbortController();
    stopped.abort();
    await expect(sleepUntil(Date.now() + 60_000, stopped.signal)).rejects.toBeInstanceOf(RunAborted);
  });
});
