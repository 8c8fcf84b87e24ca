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
// - the ladder's: with a discrete bitrate ladder a player that plays what it
//   downloads cannot take that much for long: in the paused regime its
//   long-run throughput is its rung's bitrate, and BW-x picks the highest
//   rung at or under x % of its estimate. So: the highest rung at or under
//   the paper's figure (the lowest rung when none is). A player whose
//   estimate is the true fair share reaches 100 % of it; one whose estimate
//   is lower (stock's downward spiral) falls short of it. It stays on the
//   paper's figure, not video's, so every committed summary keeps the rung
//   it was read against; where audio's bitrate puts video's share under
//   that rung (the 3 Mbit/s testbed's x = 100 %: 1.30 Mbit/s against the
//   1.35 rung), the README names the rung below.
// Pure.

import { bwPercentOf } from '../../src/abr/bw-preset';

export interface ExpectedShare {
  /** min(100, x): the paper's expected fair share, % of the fair share. */
  readonly paperPercent: number;
  /** min(100, x) of the fair share less the audio's bitrate: video's expected share, % of the fair share. */
  readonly videoPercent: number;
  /** The ladder's rung the rule settles on when its estimate is the fair share, bit/s. */
  readonly ladderRungBps: number;
  /** That rung as % of the fair share. */
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
  const cap = (paperPercent / 100) * fairShareBps;
  const sorted = [...ladderBps].sort((a, b) => a - b);
  const under = sorted.filter((b) => b <= cap);
  const ladderRungBps = under.length > 0 ? (under[under.length - 1] as number) : (sorted[0] as number);
  return {
    paperPercent,
    videoPercent: paperPercent * (Math.max(0, fairShareBps - audioBps) / fairShareBps),
    ladderRungBps,
    ladderPercent: (100 * ladderRungBps) / fairShareBps,
  };
}
