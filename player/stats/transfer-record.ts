/**
 * A transfer record as a data plane opens it (`stats().transfers`): what the
 * request asked for and the estimates in force, nothing received yet. Both
 * Sprint modes open theirs here; the data plane fills in the rest as bytes
 * arrive.
 */
import type { DataPlaneMode } from '../options';
import type { TransferRecord } from './types';

/** What a new transfer's record starts from. */
export interface NewTransfer {
  readonly id: number;
  readonly via: DataPlaneMode;
  readonly url: string;
  readonly range: string | null;
  readonly atMs: number;
  /** The bytes a byte range asks for (null: not known). */
  readonly expectedBytes: number | null;
  readonly targetChunkBytes: number | null;
  readonly rttEstimateSec: number | null;
  readonly bandwidthEstimateBitsPerSec: number | null;
}

/** The record of a transfer just sent, nothing received. */
export function newTransferRecord(n: NewTransfer): TransferRecord {
  return {
    id: n.id,
    via: n.via,
    url: n.url,
    range: n.range,
    startMs: n.atMs,
    firstByteMs: null,
    endMs: null,
    bytes: 0,
    expectedBytes: n.expectedBytes,
    throughputBitsPerSec: null,
    targetChunkBytes: n.targetChunkBytes,
    rttEstimateSec: n.rttEstimateSec,
    bandwidthEstimateBitsPerSec: n.bandwidthEstimateBitsPerSec,
    segmentsServed: 0,
    cancelled: false,
    wastedBytes: 0,
    error: null,
  };
}
