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

/** Resolves at `epochMs` (at once if that has passed); rejects with RunAborted when `signal` aborts first. */
export function sleepUntil(epochMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RunAborted());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new RunAborted());
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, epochMs - Date.now()),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
