/**
 * The player's stats store: every data plane writes its segment and transfer
 * records, counters and estimates here, and `SprintPlayer.stats()` reads a
 * snapshot. One place, so no data plane can hide what it did. The moments a
 * page may want to hear of (a transfer or train ended, the estimates
 * changed, a fallback...) go through it too and reach the page as typed
 * events (events.ts).
 */
import type { DataPlaneMode, RequestedMode } from '../options';
import { BoundedLog } from './bounded-log';
import type { DeferredSwitchRecord, EstimateStats, RescueRecord, SegmentRecord, TrainRecord, TransferRecord } from './types';
import { SprintEvents } from './events';
import type { CounterName, Counters } from './counters';

const MAX_RECORDS = 20000;

export class StatsRecorder {
  readonly segments = new BoundedLog<SegmentRecord>(MAX_RECORDS);
  readonly transfers = new BoundedLog<TransferRecord>(MAX_RECORDS);
  readonly trains = new BoundedLog<TrainRecord>(MAX_RECORDS);
  readonly deferredSwitches = new BoundedLog<DeferredSwitchRecord>(MAX_RECORDS);
  readonly rescues = new BoundedLog<RescueRecord>(MAX_RECORDS);
  readonly counters: Counters = {};
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

  readonly events: SprintEvents;

  constructor(
    readonly requestedMode: RequestedMode,
    onListenerError: (name: string, error: unknown) => void = () => undefined,
  ) {
    this.events = new SprintEvents(onListenerError);
  }

  setMode(mode: DataPlaneMode, reason: string): void {
    this.mode = mode;
    this.modeReason = reason;
  }

  /** The data plane in force from the start. */
  resolveMode(mode: DataPlaneMode, reason: string): void {
    this.setMode(mode, reason);
    this.events.emit('modeResolved', { mode, reason });
  }

  /** A Sprint mode gave up during playback (player/dataplane/fallback.ts). */
  fallBack(from: DataPlaneMode, reason: string): void {
    this.setMode('stock', `fell back from ${from} during playback: ${reason}`);
    this.events.emit('fallback', { from, to: 'stock', reason });
  }

  /** A transfer recorded with addTransfer has ended (its record is final). */
  endTransfer(record: TransferRecord): void {
    if (this.events.has('transferEnd')) this.events.emit('transferEnd', { ...record });
  }

  /** A train in `trains` has ended. */
  endTrain(record: TrainRecord): void {
    if (this.events.has('trainEnd'))
      this.events.emit('trainEnd', { ...record, bitrates: [...record.bitrates], rttSamplesSec: [...record.rttSamplesSec] });
  }

  /** `estimates` were updated. */
  publishEstimates(): void {
    if (this.events.has('estimates')) this.events.emit('estimates', { ...this.estimates });
  }

  /** A deferred switch in `deferredSwitches` took effect, was withdrawn or superseded. */
  endDeferredSwitch(record: DeferredSwitchRecord): void {
    if (this.events.has('deferredSwitch')) this.events.emit('deferredSwitch', { ...record });
  }

  /** A rescue in `rescues` chose its lower rung. */
  applyRescue(record: RescueRecord): void {
    if (this.events.has('rescue')) this.events.emit('rescue', { ...record });
  }

  count(name: CounterName, by = 1): void {
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
    if (this.warnings.includes(message)) return;
    this.warnings.push(message);
    this.events.emit('warning', { message });
  }

  get droppedRecords(): number {
    return this.segments.dropped + this.transfers.dropped + this.trains.dropped + this.deferredSwitches.dropped + this.rescues.dropped;
  }
}
