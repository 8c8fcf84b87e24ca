/**
 * Buffer-based ABR rule modelled on Huang et al. [17], as the paper's
 * evaluation uses it (§V-A): "every time the buffer level increases
 * (decreases) by 10 video-seconds, the bitrate is increased (decreased). To
 * prevent oscillation, the algorithm never switches back to the last
 * bitrate."
 *
 * Reading used here: start at the lowest bitrate with the anchor at the
 * current buffer level; each time the buffer is `stepSec` above the anchor,
 * step one rung up, each time it has fallen a step below, one rung down, and
 * move the anchor to the current level. "Never switch back to the last
 * bitrate" is applied upwards: stepping up to the bitrate just left because
 * it was too high needs twice the rise. Downward steps are never blocked, so
 * the rule cannot hold a bitrate the buffer is draining under — which needs
 * one refinement of the literal reading: a buffer anchored under two steps
 * can never fall a whole step (an anchor of 5 s would need -5 s), so the
 * player would sit at a rung a little above its throughput, stalling, for
 * good. Below two steps a step down is therefore due once the buffer has
 * lost half of the anchor (measured: Sprint-x's third 3 Mbit/s × 256 KB run,
 * anchored at 5.5 s on the 1.5 Mbit/s rung with a 1.43 Mbit/s share,
 * stalled 16 times), and at most one such step per HALF_STEP_GAP_SEC: dash.js
 * asks the rule at every request, and at an empty buffer (anchor 0, half of
 * it 0) each request would otherwise take one more rung — more rungs per
 * stall for a data plane that pipelines requests than for one that does not.
 * Above two steps nothing changes.
 */
import { ladder, type DashjsForRules, type RuleInstance, type RulesContextLike } from './rule-types';

export const BUFFER_RULE_NAME = 'SprintBufferBasedRule';
export const DEFAULT_STEP_SEC = 10;

/** Least time between two half-anchor steps down, seconds (one segment of the demo and eval content). */
export const HALF_STEP_GAP_SEC = 4;

/** Where the rule stands: the rung, the rung it last left, the buffer level it last moved at, and when (seconds, any clock). */
export interface BufferRuleState {
  readonly index: number;
  readonly previousIndex: number | null;
  readonly anchorSec: number;
  readonly movedAtSec: number | null;
}

/** How far the buffer must fall below the anchor for a step down: a step, or half the anchor below two steps. */
export function downStepSec(anchorSec: number, stepSec: number): number {
  return Math.min(stepSec, anchorSec / 2);
}

/** The rule's decision for one request, given the video buffer level (seconds), the number of rungs and the time now (seconds). Pure. */
export function nextStep(
  state: BufferRuleState,
  bufferSec: number,
  rungs: number,
  nowSec: number,
  stepSec = DEFAULT_STEP_SEC,
): BufferRuleState {
  const { index, anchorSec } = state;
  let next = index;
  if (bufferSec >= anchorSec + stepSec && index < rungs - 1) {
    const goingBack = state.previousIndex === index + 1;
    if (!goingBack || bufferSec >= anchorSec + 2 * stepSec) next = index + 1;
  } else if (index > 0 && bufferSec <= anchorSec - stepSec) {
    next = index - 1;
  } else if (
    index > 0 &&
    bufferSec <= anchorSec - downStepSec(anchorSec, stepSec) &&
    (state.movedAtSec === null || nowSec - state.movedAtSec >= HALF_STEP_GAP_SEC)
  ) {
    next = index - 1;
  }
  return next === index ? state : { index: next, previousIndex: index, anchorSec: bufferSec, movedAtSec: nowSec };
}

export function bufferBasedRuleFactory(dashjs: DashjsForRules, stepSec = DEFAULT_STEP_SEC): unknown {
  if (!(stepSec > 0)) throw new RangeError(`buffer-based rule step must be positive, got ${stepSec}`);
  function SprintBufferBasedRule(this: { context: unknown }): RuleInstance {
    const context = this.context;
    const SwitchRequest = dashjs.FactoryMaker.getClassFactoryByName('SwitchRequest');
    const dashMetrics = dashjs.FactoryMaker.getSingletonFactoryByName('DashMetrics')(context).getInstance();
    let index = 0;
    let previousIndex: number | null = null;
    let anchorSec: number | null = null;
    let movedAtSec: number | null = null;

    function getSwitchRequest(ctx: RulesContextLike) {
      const req = SwitchRequest(context).create();
      req.rule = BUFFER_RULE_NAME;
      if (ctx.getMediaType() !== 'video') return req;
      const reps = ladder(ctx);
      if (reps.length === 0) return req;
      const level = dashMetrics.getCurrentBufferLevel('video');
      const buffer = Number.isFinite(level) ? level : 0;
      if (anchorSec === null) anchorSec = buffer;
      const step = nextStep(
        { index: Math.min(index, reps.length - 1), previousIndex, anchorSec, movedAtSec },
        buffer,
        reps.length,
        performance.now() / 1000,
        stepSec,
      );
      index = step.index;
      previousIndex = step.previousIndex;
      anchorSec = step.anchorSec;
      movedAtSec = step.movedAtSec;
      req.representation = reps[index];
      req.priority = SwitchRequest.PRIORITY?.STRONG ?? 1;
      req.reason = { message: `[${BUFFER_RULE_NAME}] buffer ${buffer.toFixed(1)} s, rung ${index + 1}/${reps.length}` };
      return req;
    }

    function reset(): void {
      index = 0;
      previousIndex = null;
      anchorSec = null;
      movedAtSec = null;
    }
    return { getSwitchRequest, reset };
  }
  (SprintBufferBasedRule as unknown as { __dashjs_factory_name: string }).__dashjs_factory_name = BUFFER_RULE_NAME;
  return dashjs.FactoryMaker.getClassFactory(SprintBufferBasedRule);
}
