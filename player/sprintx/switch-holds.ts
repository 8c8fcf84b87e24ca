/**
 * The record of bitrate switches Sprint-x holds back (paper §IV-B2 with the
 * `after-chunk` policy of src/sprintx/switch-policy.ts), in `stats().
 * deferredSwitches`: when the ABR first asked, what it asked for last, when
 * the hold ended and why, and how many bytes of the old representation the
 * protected transfer received meanwhile.
 *
 * dash.js asks its ABR again before every segment request, so a hold spans
 * the ABR's repeated wishes. It ends when the switch goes ahead, when the
 * ABR stops asking (a segment request came with no wish since the previous
 * one: `withdrawn`), or when the transfer it protected is dropped another
 * way (a seek, an error, a fallback: `superseded`).
 */
import type { Logger } from '../log';
import type { StatsRecorder } from '../stats/recorder';
import type { DeferredSwitchRecord } from '../stats/types';
import type { ExpandedStream } from './expanded-stream';

interface OpenHold {
  record: DeferredSwitchRecord;
  stream: ExpandedStream;
  receivedAtAsk: number;
}

export class SwitchHolds {
  private open: OpenHold | null = null;
  private wishedSinceRequest = false;

  constructor(
    private readonly stats: StatsRecorder,
    private readonly log: Logger,
  ) {}

  /** The ABR asked to leave `stream`'s representation for `toId`, and the switch is held. */
  wish(mediaType: string, stream: ExpandedStream, toId: string | null, nowMs: number): void {
    if (this.open && this.open.stream !== stream) this.end('superseded', 'the protected transfer ended', nowMs);
    if (!this.open) {
      const record: DeferredSwitchRecord = {
        mediaType,
        fromRepresentationId: stream.representationId,
        toRepresentationId: toId,
        askedMs: nowMs,
        wishes: 0,
        endedMs: null,
        outcome: null,
        why: null,
        transferId: stream.record.id,
        oldBytesMeanwhile: 0,
      };
      this.open = { record, stream, receivedAtAsk: stream.log.receivedBytes };
      this.stats.deferredSwitches.push(record);
      this.stats.count('sprintx.switchesHeld');
      this.log.info(
        `hold switch ${stream.representationId} -> ${toId}: transfer #${stream.record.id} has ${stream.log.receivedBytes} of its chunk`,
      );
    }
    const h = this.open;
    h.record.wishes += 1;
    h.record.toRepresentationId = toId;
    h.record.oldBytesMeanwhile = stream.log.receivedBytes - h.receivedAtAsk;
    this.wishedSinceRequest = true;
  }

  /** dash.js issued a video media request: a hold the ABR no longer asks for ends. */
  onMediaRequest(nowMs: number): void {
    if (this.open && !this.wishedSinceRequest) this.end('withdrawn', 'the ABR stopped asking', nowMs);
    this.wishedSinceRequest = false;
  }

  /** The switch went ahead (`why` from the policy: the chunk was delivered, the buffer ran low, ...). */
  applied(why: string, nowMs: number): void {
    this.end('applied', why, nowMs);
  }

  /** The transfer `stream` is being dropped another way (seek, error, fallback). */
  supersede(stream: ExpandedStream | null, why: string, nowMs: number): void {
    if (this.open && (stream === null || this.open.stream === stream)) this.end('superseded', why, nowMs);
  }

  private end(outcome: NonNullable<DeferredSwitchRecord['outcome']>, why: string, nowMs: number): void {
    const h = this.open;
    if (!h) return;
    this.open = null;
    h.record.endedMs = nowMs;
    h.record.outcome = outcome;
    h.record.why = why;
    h.record.oldBytesMeanwhile = h.stream.log.receivedBytes - h.receivedAtAsk;
    this.stats.count(`sprintx.switchesHeld.${outcome}`);
    this.stats.endDeferredSwitch(h.record);
    this.log.info(
      `held switch ${h.record.fromRepresentationId} -> ${h.record.toRepresentationId} ${outcome} (${why}) after ${Math.round(nowMs - h.record.askedMs)} ms, ${h.record.oldBytesMeanwhile} bytes of the old representation meanwhile`,
    );
  }
}
