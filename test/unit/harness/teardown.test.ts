// The harness's teardown stack (demo/harness/teardown.ts): newest first,
// every step once, a failing step reported and the others still run.

import { TeardownStack } from '../../../demo/harness/teardown';

describe('TeardownStack', () => {
  it('undoes in reverse order of set-up, each step once, and reports failures without stopping', async () => {
    const t = new TeardownStack();
    const done: string[] = [];
    t.push('testbed', () => void done.push('testbed'));
    t.push('origin', async () => {
      await new Promise((r) => setTimeout(r, 5));
      done.push('origin');
    });
    t.push('browser', () => {
      throw new Error('already gone');
    });
    t.push('player', () => void done.push('player'));
    const errors: string[] = [];
    await t.unwind((what, e) => void errors.push(`${what}: ${(e as Error).message}`));
    expect(done).toEqual(['player', 'origin', 'testbed']);
    expect(errors).toEqual(['browser: already gone']);
    expect(t.size).toBe(0);
    await t.unwind(() => undefined);
    expect(done).toHaveLength(3);
  });
});
