/**
 * An append-only log with a fixed capacity that counts what it had to drop,
 * so long evaluation runs cannot grow memory without bound and nothing is
 * lost silently (the drop count is part of the stats).
 */
export class BoundedLog<T> {
  private readonly items: T[] = [];
  private droppedCount = 0;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) {
      throw new RangeError(`BoundedLog capacity must be a positive integer, got ${capacity}`);
    }
  }

  push(item: T): void {
    if (this.items.length >= this.capacity) {
      this.items.shift();
      this.droppedCount += 1;
    }
    this.items.push(item);
  }

  /** A snapshot copy, oldest first. */
  toArray(): T[] {
    return this.items.slice();
  }

  get dropped(): number {
    return this.droppedCount;
  }

  get length(): number {
    return this.items.length;
  }
}
