/**
 * The Sprint data plane's bookkeeping of one request of a train (an `Entry`:
 * dash.js's request and response objects, the bytes as they arrive with
 * their wire timing, its transfer record) and of one media type's requests
 * in flight (`TypeState`: the in-order queue, the train policy and record,
 * the bandwidth meter), and their starting values. sprint-data-plane.ts
 * drives them; segment-handoff.ts hands a finished entry to dash.js.
 */
import { BusyPeriodMeter } from '../../src/estimators/busy-period';
import { RestartReserve, type RestartRun } from '../../src/train/restart-reserve';
import { TrainPolicy } from '../../src/train/train-policy';
import type { LoaderRequest, LoaderResponse, WireTiming } from '../dash/loader-types';
import type { TrainRecord, TransferRecord } from '../stats/types';
import type { RequestTicket } from './train-transport';

export type EntryState = 'loading' | 'done' | 'failed' | 'aborted';

export interface Entry {
  type: string;
  kind: 'init' | 'media';
  url: string;
  range: { start: number; end: number } | undefined;
  expectedBytes: number;
  mediaSec: number;
  bitrate: number | null;
  req: LoaderRequest;
  resp: LoaderResponse;
  state: EntryState;
  status: number;
  headers: Record<string, string>;
  pieces: Uint8Array[];
  bytes: number;
  requestMs: number;
  sentMs: number;
  prevMs: number;
  firstByteMs: number | null;
  lastByteMs: number | null;
  traces: WireTiming['traces'];
  ticket: RequestTicket | null;
  reissues: number;
  /**
   * When the request's time limit (dash.js's `fragmentRequestTimeout`,
   * `req.timeout`) started: at send, or on one connection when the responses
   * ahead of it had ended; null until then.
   */
  clockFromMs: number | null;
  /** Whether its time limit's grace (time-limit.ts) was counted (`sprint.timeoutGrace`, once per request). */
  graceCounted: boolean;
  /** Body bytes the request had received when it failed (its pieces are discarded), for the segment rescue. */
  failedBytes: number;
  error: string | null;
  record: TransferRecord;
  train: TrainRecord | null;
  /** A media segment of a train after a pause while that restart is sampled: its arrival goes on the restart's curve. */
  restartRun: RestartRun | null;
  /** Hands the load to dash.js's own loader, which sends it as dash.js built it (player/dash/loader-hook.ts); null: not offered. */
  passOn: (() => void) | null;
  /** When it was sent with nothing else in flight on its connection (performance.now() ms): its first byte is an RTT sample. */
  idleSentAtMs: number | null;
}

export interface TypeState {
  queue: Entry[];
  policy: TrainPolicy;
  train: TrainRecord | null;
  /**
   * The response handed to dash.js whose append has not been reported yet
   * (null: none): since when, and its media seconds (asked for, no longer
   * in flight, not yet in the buffer).
   */
  awaitingAppend: { sinceMs: number; mediaSec: number } | null;
  lastByteMs: number;
  /** Read-timing bandwidth samples of this wire's busy periods (src/estimators/busy-period.ts). */
  meter: BusyPeriodMeter;
  /** Restart samples and the reserve they ask for (src/train/restart-reserve.ts). */
  restart: RestartReserve;
  /**
   * The restart being sampled: a train begun after a pause (not the run's first, not at a seek, after
   * an idle gap of at least restartIdleSec), until its media delivered catches up with the time elapsed.
   */
  restartRun: { run: RestartRun; train: TrainRecord } | null;
  /** Nominal bitrate of the last media segment requested (the ABR's latest choice), bit/s. */
  lastBitrate: number | null;
  /** Duration of the last media segment requested, seconds (0: none yet). */
  lastMediaSec: number;
  /** dash.js's request time limit on the last media segment requested, ms. */
  requestTimeoutMs: number | null;
}

/** What a new entry starts from: dash.js's request and what Sprint knows of it. */
export interface NewEntry {
  readonly type: string;
  readonly kind: 'init' | 'media';
  readonly req: LoaderRequest;
  readonly resp: LoaderResponse;
  readonly range: { start: number; end: number } | undefined;
  readonly expectedBytes: number;
  readonly mediaSec: number;
  readonly bitrate: number | null;
  readonly atMs: number;
  readonly record: TransferRecord;
  readonly train: TrainRecord | null;
  readonly restartRun: RestartRun | null;
  readonly passOn: (() => void) | null;
}

/** A request taken from dash.js, loading from `atMs`, nothing received. */
export function newEntry(n: NewEntry): Entry {
  return {
    type: n.type,
    kind: n.kind,
    url: n.req.url,
    range: n.range,
    expectedBytes: n.expectedBytes,
    mediaSec: n.mediaSec,
    bitrate: n.bitrate,
    req: n.req,
    resp: n.resp,
    state: 'loading',
    status: 0,
    headers: {},
    pieces: [],
    bytes: 0,
    requestMs: n.atMs,
    sentMs: n.atMs,
    prevMs: n.atMs,
    firstByteMs: null,
    lastByteMs: null,
    traces: [],
    ticket: null,
    reissues: 0,
    clockFromMs: null,
    graceCounted: false,
    failedBytes: 0,
    error: null,
    record: n.record,
    train: n.train,
    restartRun: n.restartRun,
    passOn: n.passOn,
    idleSentAtMs: null,
  };
}

/** A media type's state before its first request. */
export function newTypeState(policy: { minimumTrain: boolean; windowBdps: number }): TypeState {
  return {
    queue: [],
    policy: new TrainPolicy(policy),
    train: null,
    awaitingAppend: null,
    lastByteMs: 0,
    meter: new BusyPeriodMeter(),
    restart: new RestartReserve(),
    restartRun: null,
    lastBitrate: null,
    lastMediaSec: 0,
    requestTimeoutMs: null,
  };
}
