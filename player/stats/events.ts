/**
 * What the player tells a page as it happens, typed: `player.on(name, fn)`.
 * A site or the A/B harness subscribes instead of polling `stats()`. Every
 * event carries a copy of the record `stats()` keeps (see types.ts), taken
 * when the event fires.
 *
 * A listener that throws is reported on the console and does not stop the
 * data plane or the other listeners.
 */
import type { DataPlaneMode } from '../options';
import type { DeferredSwitchRecord, EstimateStats, RescueRecord, TrainRecord, TransferRecord } from './types';

export interface SprintEventMap {
  /** The data plane in force from the start (`auto` resolved, or the mode asked for), and why. */
  modeResolved: { mode: DataPlaneMode; reason: string };
  /** A Sprint mode gave up during playback: dash.js loads on its own from now on. */
  fallback: { from: DataPlaneMode; to: 'stock'; reason: string };
  /**
   * A request on the wire ended (completed and handed to dash.js, failed, or
   * cancelled). For a Sprint-x expanded request it fires when the transfer
   * ends: `segmentsServed` still grows as segments it holds are handed over,
   * which `stats().transfers` shows.
   */
  transferEnd: TransferRecord;
  /** A Sprint train ended. */
  trainEnd: TrainRecord;
  /** The estimates the chunk size comes from changed. */
  estimates: EstimateStats;
  /** A bitrate switch Sprint-x held took effect, was withdrawn or superseded. */
  deferredSwitch: DeferredSwitchRecord;
  /** A segment that could not arrive is asked again at a lower rung. */
  rescue: RescueRecord;
  /** Something the page should know the player did (the text of `stats().warnings`). */
  warning: { message: string };
}

export type SprintEventName = keyof SprintEventMap;
export const SPRINT_EVENT_NAMES: readonly SprintEventName[] = [
  'modeResolved',
  'fallback',
  'transferEnd',
  'trainEnd',
  'estimates',
  'deferredSwitch',
  'rescue',
  'warning',
];
export type SprintEventListener<K extends SprintEventName> = (event: SprintEventMap[K]) => void;

/** A small typed event emitter (no DOM: the data plane core runs without one). */
export class SprintEvents {
  private readonly listeners = new Map<SprintEventName, Set<(e: never) => void>>();

  constructor(private readonly onListenerError: (name: SprintEventName, error: unknown) => void = () => undefined) {}

  on<K extends SprintEventName>(name: K, listener: SprintEventListener<K>): void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as (e: never) => void);
  }

  off<K extends SprintEventName>(name: K, listener: SprintEventListener<K>): void {
    this.listeners.get(name)?.delete(listener as (e: never) => void);
  }

  /** Whether anyone listens (so a caller can skip building an event). */
  has(name: SprintEventName): boolean {
    return (this.listeners.get(name)?.size ?? 0) > 0;
  }

  emit<K extends SprintEventName>(name: K, event: SprintEventMap[K]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as SprintEventListener<K>)(event);
      } catch (e) {
        this.onListenerError(name, e);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
