/**
 * BW-x ABR rule of the paper's evaluation (§V-C): "set the video bitrate to
 * x% of the measured throughput" — here the highest rung of the ladder not
 * above x% of dash.js's average measured throughput (its own estimate, which
 * Sprint keeps true to the wire), the lowest rung when nothing is measured
 * yet or nothing fits. x below 100 makes the player less aggressive, which
 * fills the buffer and exercises the minimum train (Fig. 11).
 */
import { ladder, type DashjsForRules, type RuleInstance, type RulesContextLike } from './rule-types';

export function bwRuleName(percent: number): string {
  return `SprintBw${percent}Rule`;
}

export function bwRuleFactory(dashjs: DashjsForRules, percent: number): unknown {
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
      const kbps = ctx.getThroughputController().getAverageThroughput('video');
      const budget = Number.isFinite(kbps) && kbps > 0 ? (kbps * 1000 * percent) / 100 : 0;
      let choice = reps[0];
      for (const r of reps) if (r.bandwidth <= budget) choice = r;
      req.representation = choice;
      req.priority = SwitchRequest.PRIORITY?.STRONG ?? 1;
      req.reason = { message: `[${name}] throughput ${(kbps / 1000).toFixed(2)} Mbit/s → ${((choice?.bandwidth ?? 0) / 1e6).toFixed(2)} Mbit/s` };
      return req;
    }
    return { getSwitchRequest, reset: () => undefined };
  }
  (SprintBwRule as unknown as { __dashjs_factory_name: string }).__dashjs_factory_name = name;
  return dashjs.FactoryMaker.getClassFactory(SprintBwRule);
}
