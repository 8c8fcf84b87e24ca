/**
 * The buffer-based rule's step decision (player/abr/buffer-based-rule.ts
 * nextStep, paper §V-A): one rung per 10 s of buffer change, "never back to
 * the last bitrate" upwards, and — the refinement — a buffer anchored under
 * two steps still steps down once it has lost half of the anchor, at most one
 * such step per 4 s, so the rule can neither sit for good on a rung the
 * buffer drains under nor fall a rung per request while the buffer is empty.
 * The numbers of the first case are Sprint-x's third 3 Mbit/s × 256 KB run:
 * anchored at 5.47 s on the 1.5 Mbit/s rung (share 1.43 Mbit/s), the buffer
 * fell to 1.5 s and then stalled 16 times while the literal rule waited for
 * -4.5 s.
 */
import { downStepSec, HALF_STEP_GAP_SEC, nextStep } from '../../../player/abr/buffer-based-rule';

const RUNGS = 9; // the eval ladder: 0.3, 0.7, 1.5, 3, 6, … Mbit/s

describe('buffer-based rule: one step', () => {
  it('steps down from a rung the buffer drains under even when anchored below two steps', () => {
    const at = { index: 2, previousIndex: 3, anchorSec: 5.47, movedAtSec: 87 };
    // Still above half the anchor: holds.
    expect(nextStep(at, 3.0, RUNGS, 93)).toBe(at);
    // Fell to 1.5 s (the run's level, 8 s after the last move): one rung down, anchored there.
    expect(nextStep(at, 1.5, RUNGS, 95)).toEqual({ index: 1, previousIndex: 2, anchorSec: 1.5, movedAtSec: 95 });
    expect(downStepSec(5.47, 10)).toBeCloseTo(2.735, 6);
  });

  it('keeps the paper’s 10 s steps once the anchor is two steps up or more, with no wait', () => {
    const at = { index: 4, previousIndex: 3, anchorSec: 30, movedAtSec: 100 };
    expect(downStepSec(30, 10)).toBe(10);
    expect(nextStep(at, 20.5, RUNGS, 100.1)).toBe(at);
    expect(nextStep(at, 20, RUNGS, 100.1)).toEqual({ index: 3, previousIndex: 4, anchorSec: 20, movedAtSec: 100.1 });
    expect(nextStep(at, 39.9, RUNGS, 100.1)).toBe(at);
    expect(nextStep(at, 40, RUNGS, 100.1)).toEqual({ index: 5, previousIndex: 4, anchorSec: 40, movedAtSec: 100.1 });
  });

  it('needs twice the rise to go back up to the rung it just left', () => {
    const at = { index: 1, previousIndex: 2, anchorSec: 1.5, movedAtSec: 0 };
    expect(nextStep(at, 11.5, RUNGS, 50)).toBe(at);
    expect(nextStep(at, 21.5, RUNGS, 50)).toMatchObject({ index: 2, previousIndex: 1, anchorSec: 21.5 });
    // Another rung than the last one is a plain step.
    expect(nextStep({ ...at, previousIndex: 0 }, 11.5, RUNGS, 50).index).toBe(2);
  });

  it('walks down while the buffer is empty one rung per 4 s, not one per request, and never past either end', () => {
    let s = { index: 4, previousIndex: null as number | null, anchorSec: 0.4, movedAtSec: 0 as number | null };
    const steps: Array<[number, number]> = [];
    // dash.js asks at every request: here every half second for 20 s, the buffer empty throughout.
    for (let t = 10; t <= 30; t += 0.5) {
      const next = nextStep(s, 0, RUNGS, t);
      if (next.index !== s.index) steps.push([t, next.index]);
      s = next;
    }
    expect(steps).toEqual([
      [10, 3],
      [10 + HALF_STEP_GAP_SEC, 2],
      [10 + 2 * HALF_STEP_GAP_SEC, 1],
      [10 + 3 * HALF_STEP_GAP_SEC, 0],
    ]);
    const top = { index: RUNGS - 1, previousIndex: RUNGS - 2, anchorSec: 10, movedAtSec: 0 };
    expect(nextStep(top, 200, RUNGS, 5)).toBe(top);
  });
});
