// A bounded worker pool for `sprint ab --parallel P` (ab.ts): takes the items
// in order, keeps at most P of them in progress, and stops taking new ones
// once `stop()` says so (a failed run without --keep-going, Ctrl-C); the
// items already in progress finish. With P = 1 it is the plain sequential
// loop the harness always had.

export interface PoolOptions<T, R> {
  readonly items: readonly T[];
  /** At most this many workers at once (>= 1). */
  readonly parallel: number;
  /** Does one item; `lane` (0 … P-1) says which worker runs it. */
  readonly work: (item: T, lane: number) => Promise<R>;
  /** Checked before each item is taken: true = take no more. */
  readonly stop?: () => boolean;
}

/** Runs the items; resolves with the results of the items that were taken, in the order they were taken. */
export async function runPool<T, R>(options: PoolOptions<T, R>): Promise<R[]> {
  const { items, work } = options;
  const parallel = Math.max(1, Math.floor(options.parallel));
  const stop = options.stop ?? ((): boolean => false);
  const results: Array<{ order: number; value: R }> = [];
  let next = 0;
  const lane = async (id: number): Promise<void> => {
    for (;;) {
      if (next >= items.length || stop()) return;
      const order = next++;
      const value = await work(items[order] as T, id);
      results.push({ order, value });
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, (_, i) => lane(i)));
  return results.sort((a, b) => a.order - b.order).map((r) => r.value);
}
