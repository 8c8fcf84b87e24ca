/**
 * What the Sprint data plane reads of its media connection through the
 * transport's TCP_INFO (`pathInfo`, once a second): the RTT, into the
 * estimates and the running train's record, and the kernel's byte counter,
 * into the bandwidth estimate (src/estimators/kernel-bytes.ts). Once the
 * counter has given a sample it is the only bandwidth source: read timing
 * bunches when the socket host's path backs up
 * (docs/design/05-throughput-estimates.md).
 */
import { KernelByteMeter } from '../../src/estimators/kernel-bytes';
import type { BusySample } from '../../src/estimators/busy-period';
import type { EstimateHub } from '../estimates/estimate-hub';
import type { PathInfo } from './train-transport';

/** The media connection as the data plane sees it at a reading. */
export interface ConnectionNow {
  /** A response on the connection has begun arriving and has not ended. */
  readonly flowing: boolean;
  /** The running train's RTT samples, to add to (null: no train running). */
  readonly trainRttSamplesSec: number[] | null;
}

export interface PathSamplerOptions {
  readonly pathInfo: (origin: string) => Promise<PathInfo | null>;
  readonly estimates: EstimateHub;
  /** The connection now; null while the data plane does not sample (not installed, fallen back). */
  readonly connection: () => ConnectionNow | null;
  /** How long a bandwidth sample should span, seconds (src/estimators/kernel-bytes.ts sampleSpanSec). */
  readonly sampleSpanSec: () => number;
  /** A reading failed. */
  readonly onError: (err: Error) => void;
}

/** A train's record keeps at most this many RTT samples. */
const MAX_TRAIN_RTT_SAMPLES = 600;
/** Description of the kernel counter's samples in `stats().estimates.source`. */
export const KERNEL_BANDWIDTH_SOURCE = 'tcp-info byte counter of the media connection';

export class PathSampler {
  private readonly meter = new KernelByteMeter();
  private kernelSamples = false;
  private origin: string | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: PathSamplerOptions) {}

  /** Reads every `intervalMs` from now on. */
  start(intervalMs = 1000): void {
    this.stop();
    this.timer = setInterval(() => void this.sample(), intervalMs);
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** The media connection's origin, from its first request's URL; later calls change nothing. */
  noteMediaUrl(url: string): void {
    this.origin ??= new URL(url).origin;
  }

  /** The connection had nothing outstanding, or may have been replaced: the byte counter's span breaks. */
  markIdle(): void {
    this.meter.markIdle();
  }

  /** Whether the kernel's counter has become the bandwidth source. */
  get kernelBandwidth(): boolean {
    return this.kernelSamples;
  }

  /** A read-timing sample goes into the bandwidth estimate until the kernel's counter gives samples. */
  addReadSample(sample: BusySample | null): void {
    if (sample && !this.kernelSamples) this.options.estimates.bandwidth.addTransfer(sample.bytes, sample.seconds);
  }

  /** One reading of TCP_INFO; errors go to `onError`. */
  async sample(): Promise<void> {
    const origin = this.origin;
    if (origin === null || this.options.connection() === null) return;
    try {
      const info = await this.options.pathInfo(origin);
      if (!info || !(info.rttSec > 0)) return;
      const now = this.options.connection();
      if (now === null) return;
      const rtts = now.trainRttSamplesSec;
      if (rtts && rtts.length < MAX_TRAIN_RTT_SAMPLES) rtts.push(info.rttSec);
      const estimates = this.options.estimates;
      estimates.addTcpRtt(info.rttSec);
      const sample = this.meter.read(
        { bytesReceived: info.bytesReceived, atMs: info.atMs, flowing: now.flowing },
        this.options.sampleSpanSec(),
      );
      // The source switches (and read timing stops feeding the estimate) only once a kernel sample counted.
      if (sample && estimates.bandwidth.addTransfer(sample.bytes, sample.seconds).accepted) {
        if (!this.kernelSamples) estimates.setBandwidthSource(KERNEL_BANDWIDTH_SOURCE);
        this.kernelSamples = true;
        estimates.publish();
      }
    } catch (e) {
      this.options.onError(e as Error);
    }
  }
}
