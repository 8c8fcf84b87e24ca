// Time bins of transferred bytes (100 ms by default), per flow. Used both at
// the receiver (bulk-client.ts counts bytes as they arrive) and on the wire
// (capture.ts counts packets seen after the bottleneck, keyed by server port).
// Paper §V-A measures each flow's throughput over time; testbed.md counts
// bytes per flow in 100 ms bins.
//
// Bins are aligned to multiples of the bin width since the epoch and emitted
// in order and without gaps (an idle bin is emitted with zero counts) once
// time has moved past them. Pure apart from the emit callback.

export interface BinCounts {
  /** Payload bytes (what the application receives). */
  bytes: number;
  /** Bytes on the wire including link, IP and TCP headers (0 when unknown). */
  wireBytes: number;
  /** Packets (or read events at a receiver). */
  packets: number;
}

export interface Bin {
  /** Bin start, milliseconds since the epoch (a multiple of binMs). */
  readonly startMs: number;
  readonly binMs: number;
  /** Counts per flow key; keys with nothing in this bin are absent. */
  readonly flows: ReadonlyMap<string, BinCounts>;
}

export class Binner {
  private current: number | null = null;
  private counts = new Map<string, BinCounts>();

  constructor(
    readonly binMs: number,
    private readonly emit: (bin: Bin) => void,
  ) {
    if (!Number.isFinite(binMs) || binMs <= 0) throw new Error(`Binner: bin width must be positive, got ${binMs}`);
  }

  private align(timeMs: number): number {
    return Math.floor(timeMs / this.binMs) * this.binMs;
  }

  /** Starts the first bin at timeMs even if nothing arrives (so leading idle bins are emitted). */
  start(timeMs: number): void {
    if (this.current === null) this.current = this.align(timeMs);
  }

  /** Counts one packet/read of `bytes` for flow `key` at timeMs. */
  add(key: string, timeMs: number, bytes: number, wireBytes = 0): void {
    if (!Number.isFinite(timeMs) || !(bytes >= 0)) throw new Error(`Binner.add: bad sample time=${timeMs} bytes=${bytes}`);
    this.advance(timeMs);
    if (this.current === null) this.current = this.align(timeMs);
    let c = this.counts.get(key);
    if (!c) {
      c = { bytes: 0, wireBytes: 0, packets: 0 };
      this.counts.set(key, c);
    }
    c.bytes += bytes;
    c.wireBytes += wireBytes;
    c.packets += 1;
  }

  /** Emits every bin that ends at or before timeMs. A time in the past counts into the open bin. */
  advance(timeMs: number): void {
    if (this.current === null) return;
    while (this.current + this.binMs <= timeMs) {
      this.emit({ startMs: this.current, binMs: this.binMs, flows: this.counts });
      this.counts = new Map();
      this.current += this.binMs;
    }
  }

  /** Emits the bins up to timeMs and then the open (partial) bin, if it holds anything. */
  finish(timeMs: number): void {
    this.advance(timeMs);
    if (this.current !== null && this.counts.size > 0) {
      this.emit({ startMs: this.current, binMs: this.binMs, flows: this.counts });
      this.counts = new Map();
      this.current += this.binMs;
    }
  }
}
