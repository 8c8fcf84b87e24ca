// A periodic sampler: every interval, take one sample (an async function that
// returns records) and append the records to a JSON-lines file. A failed
// sample is written as an error record and sampling goes on; samples never
// overlap; stop() waits for the one in flight and closes the file.

import { JsonlWriter } from './jsonl';

export interface SamplerOptions {
  /** Sampling period, milliseconds. */
  readonly intervalMs: number;
  /** Takes one sample at time tSec (seconds since the epoch). */
  readonly sample: (tSec: number) => Promise<object[]>;
  /** Output file (JSON lines). */
  readonly out: string;
  /** Name used in error records and messages. */
  readonly name: string;
}

export class PeriodicSampler {
  private readonly writer: JsonlWriter;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private stopped = false;
  private stopping: Promise<SamplerSummary> | null = null;
  private samples = 0;
  private records = 0;
  private errors = 0;
  private lastError: string | null = null;

  constructor(private readonly options: SamplerOptions) {
    if (!(options.intervalMs > 0)) throw new Error(`${options.name} sampler: interval must be positive`);
    this.writer = new JsonlWriter(options.out);
  }

  /** Takes a first sample now, then one every interval. */
  start(): this {
    if (this.timer || this.stopped) return this;
    this.tick();
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
    return this;
  }

  private tick(): void {
    if (this.stopped || this.inFlight) return;
    const t = Date.now() / 1000;
    this.inFlight = this.options
      .sample(t)
      .then(
        (records) => {
          this.samples++;
          for (const r of records) {
            this.writer.write(r);
            this.records++;
          }
        },
        (err: Error) => {
          this.errors++;
          this.lastError = err.message;
          this.writer.write({ kind: 'error', sampler: this.options.name, t, message: err.message });
        },
      )
      .finally(() => {
        this.inFlight = null;
      });
  }

  /** Stops sampling, waits for the sample in flight, closes the file. Idempotent. */
  stop(): Promise<SamplerSummary> {
    this.stopping ??= (async () => {
      this.stopped = true;
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      if (this.inFlight) await this.inFlight;
      await this.writer.close();
      return {
        name: this.options.name,
        out: this.options.out,
        samples: this.samples,
        records: this.records,
        errors: this.errors,
        lastError: this.lastError,
      };
    })();
    return this.stopping;
  }
}

export interface SamplerSummary {
  readonly name: string;
  readonly out: string;
  readonly samples: number;
  readonly records: number;
  readonly errors: number;
  readonly lastError: string | null;
}
