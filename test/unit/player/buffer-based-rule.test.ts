/**
 * The buffer-based rule's step decision (player/abr/buffer-based-rule.ts
 * nextStep, paper §V-A): one rung per 10 s of buffer change, "never back to
 * the last bitrate" upwards, and — the refinement — a buffer anchored under
 * two steps still steps down once it has lost half of the anchor, so the rule
 * cannot sit for good on a rung the buffer drains under. The numbers of the
 * first case are Sprint-x's third 3 Mbit/s × 256 KB run: anchored at 5.47 s
 * on the 1.5 Mbit/s rung (share 1.43 Mbit/s), the buffer fell to 1.5 s and
 * then stalled 16 times while the literal rule waited for -4.5 s.
 */
import { downStepSec, nextStep } from '../../../player/abr/buffer-based-rule';

const RUNGS = 9; // the eval ladder: 0.3, 0.7, 1.5, 3, 6, … Mbit/s

describe('buffer-based rule: one step', () => {
  it('steps down from a rung the buffer drains under even when anchored below two steps', () => {
    const at = { index: 2, previousIndex: 3, anchorSec: 5.47 };
    // Still above half the anchor: holds.
    expect(nextStep(at, 3.0, RUNGS)).toBe(at);
    // Fell to 1.5 s (the run's level): one rung down, anchored there.
    expect(nextStep(at, 1.5, RUNGS)).toEqual({ index: 1, previousIndex: 2, anchorSec: 1.5 });
    expect(downStepSec(5.47, 10)).toBeCloseTo(2.735, 6);
  });

  it('keeps the paper’s 10 s steps once the anchor is two steps up or more', () => {
    const at = { index: 4, previousIndex: 3, anchorSec: 30 };
    expect(downStepSec(30, 10)).toBe(10);
    expect(nextStep(at, 20.5, RUNGS)).toBe(at);
    expect(nextStep(at, 20, RUNGS)).toEqual({ index: 3, previousIndex: 4, anchorSec: 20 });
    expect(nextStep(at, 39.9, RUNGS)).toBe(at);
    expect(nextStep(at, 40, RUNGS)).toEqual({ index: 5, previousIndex: 4, anchorSec: 40 });
  });

  it('needs twice the rise to go back up to the rung it just left', () => {
    const at = { index: 1, previousIndex: 2, anchorSec: 1.5 };
    expect(nextStep(at, 11.5, RUNGS)).toBe(at);
    expect(nextStep(at, 21.5, RUNGS)).toEqual({ index: 2, previousIndex: 1, anchorSec: 21.5 });
    // Another rung than the last one is a plain step.
    const elsewhere = { index: 1, previousIndex: 0, anchorSec: 1.5 };
    expect(nextStep(elsewhere, 11.5, RUNGS).index).toBe(2);
  });

  it('walks down to the lowest rung while the buffer is empty, and never past either end', () => {
    let s = { index: 3, previousIndex: null as number | null, anchorSec: 0.4 };
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      s = nextStep(s, 0, RUNGS);
      seen.push(s.index);
    }
    expect(seen).toEqual([2, 1, 0, 0, 0]);
    const top = { index: RUNGS - 1, previousIndex: RUNGS - 2, anchorSec: 10 };
    expect(nextStep(top, 200, RUNGS)).toBe(top);
  });
});
