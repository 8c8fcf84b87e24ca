/**
 * Buffer-based ABR rule modelled on Huang et al. [17], as the paper's
 * evaluation uses it (§V-A): "every time the buffer level increases
 * (decreases) by 10 video-seconds, the bitrate is increased (decreased). To
 * prevent oscillation, the algorithm never switches back to the last
 * bitrate."
 *
 * Reading used here: start at the lowest bitrate with the anchor at the
 * current buffer level; each time the buffer is `stepSec` above the anchor,
 * step one rung up, each time `stepSec` below, one rung down, and move the
 * anchor to the current level. "Never switch back to the last bitrate" is
 * applied upwards: stepping up to the bitrate just left because it was too
 * high needs twice the rise. Downward steps are never blocked, so the rule
 * cannot hold a bitrate the buffer is draining under.
 */
import { ladder, type DashjsForRules, type RuleInstance, type RulesContextLike } from './rule-types';

export const BUFFER_RULE_NAME = 'SprintBufferBasedRule';
export const DEFAULT_STEP_SEC = 10;

export function bufferBasedRuleFactory(dashjs: DashjsForRules, stepSec = DEFAULT_STEP_SEC): unknown {
  if (!(stepSec > 0)) throw new RangeError(`buffer-based rule step must be positive, got ${stepSec}`);
  function SprintBufferBasedRule(this: { context: unknown }): RuleInstance {
    const context = this.context;
    const SwitchRequest = dashjs.FactoryMaker.getClassFactoryByName('SwitchRequest');
    const dashMetrics = dashjs.FactoryMaker.getSingletonFactoryByName('DashMetrics')(context).getInstance();
    let index = 0;
    let previousIndex: number | null = null;
    let anchorSec: number | null = null;

    function getSwitchRequest(ctx: RulesContextLike) {
      const req = SwitchRequest(context).create();
      req.rule = BUFFER_RULE_NAME;
      if (ctx.getMediaType() !== 'video') return req;
      const reps = ladder(ctx);
      if (reps.length === 0) return req;
      const level = dashMetrics.getCurrentBufferLevel('video');
      const buffer = Number.isFinite(level) ? level : 0;
      if (anchorSec === null) anchorSec = buffer;
      index = Math.min(index, reps.length - 1);
      let next = index;
      if (buffer >= anchorSec + stepSec && index < reps.length - 1) {
        const goingBack = previousIndex === index + 1;
        if (!goingBack || buffer >= anchorSec + 2 * stepSec) next = index + 1;
      } else if (buffer <= anchorSec - stepSec && index > 0) {
        next = index - 1;
      }
      if (next !== index) {
        previousIndex = index;
        index = next;
        anchorSec = buffer;
      }
      req.representation = reps[index];
      req.priority = SwitchRequest.PRIORITY?.STRONG ?? 1;
      req.reason = { message: `[${BUFFER_RULE_NAME}] buffer ${buffer.toFixed(1)} s, rung ${index + 1}/${reps.length}` };
      return req;
    }

    function reset(): void {
      index = 0;
      previousIndex = null;
      anchorSec = null;
    }
    return { getSwitchRequest, reset };
  }
  (SprintBufferBasedRule as unknown as { __dashjs_factory_name: string }).__dashjs_factory_name = BUFFER_RULE_NAME;
  return dashjs.FactoryMaker.getClassFactory(SprintBufferBasedRule);
}
