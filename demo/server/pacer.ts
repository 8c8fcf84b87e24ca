// Origin-wide pacing of response bodies: `rateLimitBitsPerSec` makes the
// origin send body bytes (all connections together) no faster than a given
// rate, like a bottleneck link in front of it. Loopback runs in tests then
// have realistic transfer times, so bitrate switches happen while an
// expanded transfer is still in flight and throughput estimates mean
// something. A virtual clock hands out send slots in request order.

export class Pacer {
  private nextFreeMs = 0;

  /** Largest paced body write, bytes (origin option rateLimitPieceBytes); undefined: the origin's default. */
  readonly pieceBytes: number | undefined;

  constructor(
    private readonly bitsPerSec: number,
    pieceBytes?: number,
  ) {
    if (!(bitsPerSec > 0) || !Number.isFinite(bitsPerSec)) {
      throw new RangeError(`origin option rateLimitBitsPerSec must be a positive number, got ${bitsPerSec}`);
    }
    if (pieceBytes !== undefined && !(Number.isSafeInteger(pieceBytes) && pieceBytes >= 1024)) {
      throw new RangeError(`origin option rateLimitPieceBytes must be an integer of at least 1024, got ${pieceBytes}`);
    }
    this.pieceBytes = pieceBytes;
  }

  /** Resolves when `bytes` may be sent without exceeding the rate. */
  take(bytes: number): Promise<void> {
    const now = performance.now();
    const start = Math.max(now, this.nextFreeMs);
    this.nextFreeMs = start + (bytes * 8 * 1000) / this.bitsPerSec;
    const wait = start - now;
    return wait > 1 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
  }
}
