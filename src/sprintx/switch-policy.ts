/**
 * When may an ABR bitrate switch cancel a Sprint-x expanded request?
 * (paper §IV-B2, with a policy of our own.)
 *
 * The paper cancels the expanded request at every bitrate switch. On HTTP/1.1
 * a cancelled fetch closes its connection, so the next request starts a new
 * one in slow start, and an ABR that oscillates around the fair share (the
 * buffer-based rule between two rungs) keeps the flow on fresh connections
 * that never reach the competing flow's window: measured on our testbed,
 * Sprint-x then lost to stock dash.js (docs/design/04-switch-policy.md).
 *
 * `after-chunk` (the default) holds the current representation until the
 * transfer has delivered the chunk size it was sized for (the minimum chunk
 * of §IV-A), and while it still holds bytes of the old representation that
 * dash.js has not taken: those segments are handed over as what they are.
 * The switch then takes effect at the next segment boundary. Three things
 * override the hold of a transfer still running: a video buffer below the
 * safety level (running dry is worse than a slow connection); a switch down
 * whose wait would take the buffer below that level — finishing the chunk
 * at the old bitrate drains the buffer by the chunk's remaining bits times
 * (1/measured bandwidth − 1/old bitrate) (measured on the 3 Mbit/s testbed
 * without this rule: a 3 Mbit/s transfer held for 45 s while the buffer
 * drained, then two stalls); and a switch dash.js forces (buffer
 * replacement, abandonment, an AdaptationSet change). `immediate` is the
 * paper's policy, kept to measure the trade-off.
 *
 * Pure: the caller gathers the facts, this decides.
 */

export const SPRINTX_SWITCH_POLICIES = ['after-chunk', 'immediate'] as const;
export type SprintXSwitchPolicy = (typeof SPRINTX_SWITCH_POLICIES)[number];

/** Default bound on the media time one expanded request covers, seconds (src/sprintx/range-plan.ts). */
export const DEFAULT_MAX_RANGE_SEC = 60;

/** Default safety level, in segment durations of buffered video. */
export const DEFAULT_SAFETY_SEGMENTS = 2;

export interface SwitchFacts {
  policy: SprintXSwitchPolicy;
  /** dash.js forces this switch (buffer replacement, abandonment, AdaptationSet change). */
  forced: boolean;
  /** The expanded transfer in flight or holding bytes is on the representation the ABR is leaving. */
  transferOnOldRepresentation: boolean;
  /** The transfer ended with an error (nothing more to wait for). */
  transferFailed: boolean;
  /** The transfer received all its bytes. */
  transferFinished: boolean;
  /** Bytes the transfer has received. */
  receivedBytes: number;
  /** The chunk size the transfer was sized for, capped at its planned length. */
  chunkTargetBytes: number;
  /** Bytes received but not yet handed to dash.js. */
  unservedBytes: number;
  /** Seconds of video buffered ahead of the playhead. */
  bufferSec: number;
  /** Below this buffer level, a switch is never held, seconds. */
  safetySec: number;
  /** Nominal bitrate of the representation being left and of the one asked for, bit/s (null: unknown). */
  oldBitrateBps?: number | null;
  newBitrateBps?: number | null;
  /** The measured bandwidth (the transfers' wire timing), bit/s; null before any sample. */
  bandwidthBps?: number | null;
}

/**
 * Seconds of buffer that finishing the chunk at the old bitrate would cost:
 * its remaining bits arrive at the measured rate and add media at the old
 * bitrate. Zero when the old bitrate is within the measured bandwidth (the
 * buffer does not drain) or a figure is unknown.
 */
export function drainToFinishChunkSec(f: SwitchFacts): number {
  const old = f.oldBitrateBps ?? null;
  const bw = f.bandwidthBps ?? null;
  if (old === null || bw === null || !(old > 0) || !(bw > 0) || old <= bw) return 0;
  const remainingBits = Math.max(0, f.chunkTargetBytes - f.receivedBytes) * 8;
  return remainingBits * (1 / bw - 1 / old);
}

export type SwitchDecision =
  | { hold: true; why: 'chunk unspent' | 'old segments downloaded' }
  | {
      hold: false;
      why:
        | 'immediate policy'
        | 'forced by dash.js'
        | 'no transfer to protect'
        | 'transfer failed'
        | 'buffer below safety level'
        | 'buffer would run low'
        | 'chunk delivered';
    };

export function decideSwitch(f: SwitchFacts): SwitchDecision {
  if (f.policy === 'immediate') return { hold: false, why: 'immediate policy' };
  if (f.forced) return { hold: false, why: 'forced by dash.js' };
  if (!f.transferOnOldRepresentation) return { hold: false, why: 'no transfer to protect' };
  if (f.transferFailed) return { hold: false, why: 'transfer failed' };
  const chunkUnspent = !f.transferFinished && f.receivedBytes < f.chunkTargetBytes;
  const heldSegments = f.unservedBytes > 0;
  if (!chunkUnspent && !heldSegments) return { hold: false, why: 'chunk delivered' };
  // Segments already downloaded are handed over at once, whatever the buffer;
  // a transfer still running is abandoned when the buffer runs low.
  if (!f.transferFinished && f.bufferSec < f.safetySec) return { hold: false, why: 'buffer below safety level' };
  const down = f.oldBitrateBps != null && f.newBitrateBps != null && f.newBitrateBps < f.oldBitrateBps;
  if (chunkUnspent && down && f.bufferSec - drainToFinishChunkSec(f) < f.safetySec) return { hold: false, why: 'buffer would run low' };
  return { hold: true, why: chunkUnspent ? 'chunk unspent' : 'old segments downloaded' };
}

export function parseSwitchPolicy(value: unknown): SprintXSwitchPolicy {
  if (value === undefined || value === null || value === '') return 'after-chunk';
  if (typeof value === 'string' && (SPRINTX_SWITCH_POLICIES as readonly string[]).includes(value)) return value as SprintXSwitchPolicy;
  throw new RangeError(`sprintxSwitch must be one of ${SPRINTX_SWITCH_POLICIES.join(', ')}, got ${JSON.stringify(value)}`);
}
