/**
 * The player's stats store: every data plane writes its segment and transfer
 * records, counters and estimates here, and `SprintPlayer.stats()` reads a
 * snapshot. One place, so no data plane can hide what it did.
 */
import type { DataPlaneMode, RequestedMode } from '../options';
import { BoundedLog } from './bounded-log';
import type { DeferredSwitchRecord, EstimateStats, RescueRecord, SegmentRecord, TrainRecord, TransferRecord } from './types';

const MAX_RECORDS = 20000;

export class StatsRecorder {
  readonly segments = new BoundedLog<SegmentRecord>(MAX_RECORDS);
  readonly transfers = new BoundedLog<TransferRecord>(MAX_RECORDS);
  readonly trains = new BoundedLog<TrainRecord>(MAX_RECORDS);
  readonly deferredSwitches = new BoundedLog<DeferredSwitchRecord>(MAX_RECORDS);
  readonly rescues = new BoundedLog<RescueRecord>(MAX_RECORDS);
  readonly counters: Record<string, number> = {};
  /** See SprintStats.warnings; a handful at most, so not bounded. */
  readonly warnings: string[] = [];
  estimates: EstimateStats = {
    rttSec: null,
    rttSamples: 0,
    bandwidthBitsPerSec: null,
    bandwidthSamples: 0,
    chunkBytes: null,
    source: null,
  };
  mode: DataPlaneMode | null = null;
  modeReason = 'resolving';
  private nextTransferId = 1;

  constructor(readonly requestedMode: RequestedMode) {}

  setMode(mode: DataPlaneMode, reason: string): void {
    this.mode = mode;
    this.modeReason = reason;
  }

  count(name: string, by = 1): void {
    this.counters[name] = (this.counters[name] ?? 0) + by;
  }

  allocateTransferId(): number {
    return this.nextTransferId++;
  }

  addSegment(record: SegmentRecord): void {
    this.segments.push(record);
  }

  /** Records a transfer; the same object may be updated later (it is live until it ends). */
  addTransfer(record: TransferRecord): void {
    this.transfers.push(record);
  }

  /** Records a rescue; the same object is completed when the lower rung is chosen. */
  addRescue(record: RescueRecord): void {
    this.rescues.push(record);
  }

  /** Something the page should know the player did (stats().warnings). */
  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  get droppedRecords(): number {
    return this.segments.dropped + this.transfers.dropped + this.trains.dropped + this.deferredSwitches.dropped + this.rescues.dropped;
  }
}
