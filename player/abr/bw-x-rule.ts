/**
 * BW-x ABR rule of the paper's evaluation (§V-C): "set the video bitrate to
 * x% of the measured throughput" — here the highest rung of the ladder not
 * above x% of a wire-true throughput estimate, the lowest rung before the
 * first trustworthy sample or when nothing fits. x below 100 makes the player
 * less aggressive, which fills the buffer and exercises the minimum train
 * (Fig. 11).
 *
 * The estimate (`WireEstimate`) is the project's own bandwidth estimator
 * (src/estimators/bandwidth.ts, which skips transfers that fit in one initial
 * window) fed with every mode's transfers: Sprint-x's and Sprint's wire
 * samples, and in stock mode dash.js's own loads timed from request to last
 * byte (player/estimates/dash-load-sample.ts: never above what the link can have
 * carried). createPlayer passes it from `stats().estimates` (videoEstimate):
 * where audio rides Sprint's connection, the connection's rate less the
 * audio's bitrate, as video's own connection measures in the other modes.
 * Counted whole, the riding audio (0.13 Mbit/s) put the estimate 9–11 % above
 * what video received on the 3 Mbit/s testbed, and BW-100 chose 3–5 % above
 * it: the buffer drained, 13–32 stalls in 5 minutes (docs/design/05-throughput-estimates.md). dash.js's own
 * average throughput is not used: its per-segment samples leave out the
 * first progress event's bytes and time, which reads far above the link when
 * the bytes reach the page in bursts (docs/design/05-throughput-estimates.md).
 */
import { ladder, type DashjsForRules, type RuleInstance, type RulesContextLike } from './rule-types';
import type { EstimateStats } from '../stats/types';

export function bwRuleName(percent: number): string {
  return `SprintBw${percent}Rule`;
}

/** The estimate the rule reads, bit/s, or null before the first trustworthy sample. */
export type WireEstimate = () => number | null;

/**
 * The throughput video has, bit/s, from the player's estimates: the wire
 * estimate less the bitrate of audio sharing Sprint's connection; null before
 * the first trustworthy sample, or when audio's bitrate leaves nothing.
 */
export function videoEstimate(e: Pick<EstimateStats, 'bandwidthBitsPerSec' | 'bandwidthSamples' | 'sharedAudioBitsPerSec'>): number | null {
  if (!(e.bandwidthSamples > 0) || e.bandwidthBitsPerSec === null || !(e.bandwidthBitsPerSec > 0)) return null;
  const audio = e.sharedAudioBitsPerSec ?? 0;
  const video = e.bandwidthBitsPerSec - (audio > 0 ? audio : 0);
  return video > 0 ? video : null;
}

/** Index (in `bitrates`, lowest first) of the highest rung not above percent% of `estimateBps`; 0 without an estimate. */
export function bwChoiceIndex(bitrates: readonly number[], estimateBps: number | null, percent: number): number {
  const budget = estimateBps !== null && Number.isFinite(estimateBps) && estimateBps > 0 ? (estimateBps * percent) / 100 : 0;
  let choice = 0;
  bitrates.forEach((b, i) => {
    if (b <= budget) choice = i;
  });
  return choice;
}

export function bwRuleFactory(dashjs: DashjsForRules, percent: number, estimate?: WireEstimate): unknown {
  if (!(percent > 0 && percent <= 1000)) throw new RangeError(`BW-x percent must be in (0, 1000], got ${percent}`);
  const name = bwRuleName(percent);
  function SprintBwRule(this: { context: unknown }): RuleInstance {
    const context = this.context;
    const SwitchRequest = dashjs.FactoryMaker.getClassFactoryByName('SwitchRequest');
    function getSwitchRequest(ctx: RulesContextLike) {
      const req = SwitchRequest(context).create();
      req.rule = name;
      if (ctx.getMediaType() !== 'video') return req;
      const reps = ladder(ctx);
      if (reps.length === 0) return req;
      // Without a wire estimate (a rule registered outside createPlayer): dash.js's own average.
      let bps: number | null;
      if (estimate) bps = estimate();
      else {
        const kbps = ctx.getThroughputController().getAverageThroughput('video');
        bps = Number.isFinite(kbps) && kbps > 0 ? kbps * 1000 : null;
      }
      const choice =
        reps[
          bwChoiceIndex(
            reps.map((r) => r.bandwidth),
            bps,
            percent,
          )
        ];
      req.representation = choice;
      req.priority = SwitchRequest.PRIORITY?.STRONG ?? 1;
      req.reason = {
        message: `[${name}] ${estimate ? 'wire' : 'dash.js'} throughput ${bps === null ? 'not measured yet' : `${(bps / 1e6).toFixed(2)} Mbit/s`} → ${((choice?.bandwidth ?? 0) / 1e6).toFixed(2)} Mbit/s`,
      };
      return req;
    }
    return { getSwitchRequest, reset: () => undefined };
  }
  (SprintBwRule as unknown as { __dashjs_factory_name: string }).__dashjs_factory_name = name;
  return dashjs.FactoryMaker.getClassFactory(SprintBwRule);
}
