// Waiting inside one A/B run: sleeps until a wall-clock time, or rejects with
// RunAborted at once when the run is stopped early (Ctrl-C, a browser that
// went away). Used by the run's schedule (run.ts) and its page preload
// (preload-pages.ts).

/** A run stopped before its schedule ended (run.ts records it as "interrupted"). */
export class RunAborted extends Error {
  constructor() {
    super('run interrupted');
    this.name = 'RunAborted';
  }
}

/**
 * Resolves at `epochMs` by Date.now() (at once if that has passed); rejects
 * with RunAborted when `signal` aborts first. A timer can fire a millisecond
 * before Date.now() reaches the time it was set for (timers run on another
 * clock), so it waits again for whatever is left: a phase that must last
 * N s (a primer's lead) never lasts N s less a millisecond.
 */
export function sleepUntil(epochMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RunAborted());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new RunAborted());
    };
    const wait = (): void => {
      const leftMs = epochMs - Date.now();
      if (leftMs > 0) {
        timer = setTimeout(wait, leftMs);
        return;
      }
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    wait();
  });
}
