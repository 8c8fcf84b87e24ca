/**
 * The `stock` data plane: dash.js exactly as shipped (one request per
 * segment, one at a time). It only observes dash.js's own fragment events to
 * fill the stats (segment-records.ts), so stock runs and Sprint runs are
 * measured the same way, and feeds the project's bandwidth estimator with
 * dash.js's video segment loads (player/estimates/dash-load-sample.ts), as
 * the Sprint modes feed theirs with their wire samples: the estimate the
 * BW-x rule reads in every mode.
 */
import type { DataPlane, DataPlaneContext } from './data-plane';
import { DashFragmentRecorder } from './segment-records';
import { BandwidthEstimator } from '../../src/estimators/bandwidth';
import { feedDashLoad } from '../estimates/dash-load-sample';

export class StockDataPlane implements DataPlane {
  readonly mode = 'stock' as const;
  private readonly bandwidth = new BandwidthEstimator();
  private ctx: DataPlaneContext | null = null;
  private readonly recorder = new DashFragmentRecorder((request, error) => {
    const ctx = this.ctx;
    if (!ctx || !feedDashLoad(this.bandwidth, request, error)) return;
    const est = ctx.stats.estimates;
    est.bandwidthBitsPerSec = this.bandwidth.estimateBitsPerSec() ?? null;
    est.bandwidthSamples = this.bandwidth.sampleCount;
    est.source = 'dash.js loads, request to last byte';
    ctx.stats.publishEstimates();
  });

  install(ctx: DataPlaneContext): void {
    this.ctx = ctx;
    this.recorder.install(ctx);
  }

  destroy(): void {
    this.recorder.destroy();
    this.ctx = null;
  }
}
