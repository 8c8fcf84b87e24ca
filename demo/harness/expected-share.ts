// Paper §V-C / Fig. 11's "expected fair share" of a player under a BW-x ABR
// (the bitrate set to x % of the measured throughput): min(100 %, x) of the
// fair share. With a discrete bitrate ladder a player that plays what it
// downloads cannot take that much for long: in the paused regime its long-run
// throughput is its rung's bitrate, and BW-x picks the highest rung at or
// under x % of its estimate. So the report shows both: the paper's figure,
// and the ladder's — the highest rung at or under min(100 %, x) of the fair
// share (the lowest rung when none is), as a % of the fair share. A player
// whose estimate is the true fair share reaches 100 % of the ladder's figure;
// one whose estimate is lower (stock's downward spiral) falls short of it.
// Pure.

import { bwPercentOf } from '../../src/abr/bw-preset';

export interface ExpectedShare {
  /** min(100, x): the paper's expected fair share, % of the fair share. */
  readonly paperPercent: number;
  /** The ladder's rung the rule settles on when its estimate is the fair share, bit/s. */
  readonly ladderRungBps: number;
  /** That rung as % of the fair share. */
  readonly ladderPercent: number;
}

/**
 * The expected shares of a BW-x player (null for other ABRs, without a fair
 * share, or without a ladder). `ladderBps` is the video ladder, any order.
 */
export function expectedShare(
  abr: string | null | undefined,
  fairShareBps: number | null,
  ladderBps: readonly number[],
): ExpectedShare | null {
  const x = bwPercentOf(abr);
  if (x === null || !(fairShareBps !== null && fairShareBps > 0) || ladderBps.length === 0) return null;
  const paperPercent = Math.min(100, x);
  const cap = (paperPercent / 100) * fairShareBps;
  const sorted = [...ladderBps].sort((a, b) => a - b);
  const under = sorted.filter((b) => b <= cap);
  const ladderRungBps = under.length > 0 ? (under[under.length - 1] as number) : (sorted[0] as number);
  return { paperPercent, ladderRungBps, ladderPercent: (100 * ladderRungBps) / fairShareBps };
}
