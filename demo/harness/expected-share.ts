// Paper §V-C / Fig. 11's "expected fair share" of a player under a BW-x ABR
// (the bitrate set to x % of the measured throughput): min(100 %, x) of the
// fair share. The report measures a player's video bytes against three
// figures, each a % of the fair share:
// - the paper's: min(100 %, x). The paper's player was video only.
// - video's: min(100 %, x) of the fair share less the audio's nominal
//   bitrate. Our players play audio too, from the same fair share: on
//   Sprint's connection the BW-x rule budgets video from the connection's
//   rate less the riding audio's bitrate (player/abr/bw-x-rule.ts), and in
//   the other modes video's own connection measures what audio leaves it.
//   Equal to the paper's for a video-only player (or a summary that does not
//   record the audio).
// - the ladder's: what a BW-x player whose estimate is the true fair share
//   sustains on a discrete ladder. Its rule picks the highest rung at or
//   under x % of video's share (the fair share less the audio: the budget
//   player/abr/bw-x-rule.ts computes), the lowest rung when none is. A
//   player that plays what it downloads cannot take more than that rung
//   for long where the rung is under video's share: the buffer fills and
//   downloading pauses, so its long-run throughput is the rung's bitrate.
//   Where the rung is above video's share (x > 100 %) the buffer never
//   fills and the expectation is video's share. A player whose estimate is
//   lower (stock's downward spiral) falls short of it; one that downloads
//   far ahead of its playback (a minimum train of minutes of media) reads
//   above it inside a 5-minute window. (Taken under the paper's figure, it
//   would name rungs BW-x cannot choose: 0.7 Mbit/s at x = 50 % of the
//   3 Mbit/s testbed's 1.43 Mbit/s share, where video's budget is 0.65.)
// Pure.

import { bwPercentOf } from '../../src/abr/bw-preset';

export interface ExpectedShare {
  /** min(100, x): the paper's expected fair share, % of the fair share. */
  readonly paperPercent: number;
  /** min(100, x) of the fair share less the audio's bitrate: video's expected share, % of the fair share. */
  readonly videoPercent: number;
  /** The ladder's rung the rule settles on when its estimate is the fair share, bit/s. */
  readonly ladderRungBps: number;
  /** The ladder's expectation, % of the fair share: that rung, or video's share where the rung is above it. */
  readonly ladderPercent: number;
}

/**
 * The expected shares of a BW-x player (null for other ABRs, without a fair
 * share, or without a ladder). `ladderBps` is the video ladder, any order;
 * `audioBps` the audio's nominal bitrate (0: a video-only player).
 */
export function expectedShare(
  abr: string | null | undefined,
  fairShareBps: number | null,
  ladderBps: readonly number[],
  audioBps = 0,
): ExpectedShare | null {
  const x = bwPercentOf(abr);
  if (x === null || !(fairShareBps !== null && fairShareBps > 0) || ladderBps.length === 0) return null;
  if (!(Number.isFinite(audioBps) && audioBps >= 0)) throw new RangeError(`audio bitrate must be a finite number >= 0, got ${audioBps}`);
  const paperPercent = Math.min(100, x);
  const videoShareBps = Math.max(0, fairShareBps - audioBps);
  const budget = (x / 100) * videoShareBps;
  const sorted = [...ladderBps].sort((a, b) => a - b);
  const under = sorted.filter((b) => b <= budget);
  const ladderRungBps = under.length > 0 ? (under[under.length - 1] as number) : (sorted[0] as number);
  return {
    paperPercent,
    videoPercent: paperPercent * (videoShareBps / fairShareBps),
    ladderRungBps,
    ladderPercent: (100 * Math.min(ladderRungBps, videoShareBps)) / fairShareBps,
  };
}
