/**
 * Sprint-x's switch policy (src/sprintx/switch-policy.ts): when a bitrate
 * switch may cancel the expanded request in flight.
 */
import { decideSwitch, drainToFinishChunkSec, parseSwitchPolicy, type SwitchFacts } from '../../../src/sprintx/switch-policy';

const MB = 1e6;
/** A transfer on the old representation, 3 of its 10 MB chunk in, 20 s buffered, safety 8 s. */
const base: SwitchFacts = {
  policy: 'after-chunk',
  forced: false,
  transferOnOldRepresentation: true,
  transferFailed: false,
  transferFinished: false,
  receivedBytes: 3 * MB,
  chunkTargetBytes: 10 * MB,
  unservedBytes: 0.5 * MB,
  bufferSec: 20,
  safetySec: 8,
};

describe('decideSwitch', () => {
  it('holds a switch while the chunk is unspent', () => {
    expect(decideSwitch(base)).toEqual({ hold: true, why: 'chunk unspent' });
  });

  it('lets the switch go at the first segment boundary after the chunk is in', () => {
    // chunk received and every received segment handed to dash.js
    expect(decideSwitch({ ...base, receivedBytes: 10 * MB, unservedBytes: 0 })).toEqual({ hold: false, why: 'chunk delivered' });
    expect(decideSwitch({ ...base, transferFinished: true, receivedBytes: 10 * MB, unservedBytes: 0 })).toEqual({
      hold: false,
      why: 'chunk delivered',
    });
  });

  it('hands over old-representation segments already downloaded before switching', () => {
    expect(decideSwitch({ ...base, transferFinished: true, receivedBytes: 10 * MB, unservedBytes: 2 * MB })).toEqual({
      hold: true,
      why: 'old segments downloaded',
    });
    // even with the buffer low: they are here, handing them over is instant
    expect(decideSwitch({ ...base, transferFinished: true, receivedBytes: 10 * MB, unservedBytes: 2 * MB, bufferSec: 1 })).toEqual({
      hold: true,
      why: 'old segments downloaded',
    });
  });

  it('cancels a running transfer when the buffer is below the safety level', () => {
    expect(decideSwitch({ ...base, bufferSec: 7.9 })).toEqual({ hold: false, why: 'buffer below safety level' });
    expect(decideSwitch({ ...base, bufferSec: 8 })).toEqual({ hold: true, why: 'chunk unspent' });
  });

  it('never holds a forced switch, a failed transfer, or one on another representation', () => {
    expect(decideSwitch({ ...base, forced: true }).hold).toBe(false);
    expect(decideSwitch({ ...base, transferFailed: true })).toEqual({ hold: false, why: 'transfer failed' });
    expect(decideSwitch({ ...base, transferOnOldRepresentation: false })).toEqual({ hold: false, why: 'no transfer to protect' });
  });

  it('does not hold a switch down when finishing the chunk at the old bitrate would take the buffer below the safety level', () => {
    // leaving 3 Mbit/s for 1.5 Mbit/s on a 1.2 Mbit/s link, 7 MB of the chunk left:
    // 56 Mbit arrive in 46.7 s and add 18.7 s of media: the buffer drains 28 s
    const down = {
      ...base,
      receivedBytes: 3 * MB,
      chunkTargetBytes: 10 * MB,
      oldBitrateBps: 3e6,
      newBitrateBps: 1.5e6,
      bandwidthBps: 1.2e6,
    };
    expect(drainToFinishChunkSec(down)).toBeCloseTo(28, 6);
    expect(decideSwitch({ ...down, bufferSec: 30 })).toEqual({ hold: false, why: 'buffer would run low' });
    expect(decideSwitch({ ...down, bufferSec: 36.1 })).toEqual({ hold: true, why: 'chunk unspent' });
    // a switch up is held: the buffer grows while the chunk finishes
    expect(decideSwitch({ ...down, oldBitrateBps: 0.7e6, newBitrateBps: 1.5e6, bufferSec: 10 })).toEqual({
      hold: true,
      why: 'chunk unspent',
    });
    // the old bitrate within the measured bandwidth: nothing drains
    expect(drainToFinishChunkSec({ ...down, oldBitrateBps: 1e6 })).toBe(0);
    // unknown bandwidth: the safety level alone decides, as before
    expect(decideSwitch({ ...down, bandwidthBps: null, bufferSec: 10 })).toEqual({ hold: true, why: 'chunk unspent' });
  });

  it("the immediate policy (the paper's) never holds", () => {
    expect(decideSwitch({ ...base, policy: 'immediate' })).toEqual({ hold: false, why: 'immediate policy' });
  });
});

describe('parseSwitchPolicy', () => {
  it('defaults to after-chunk and rejects unknown values with the choices', () => {
    expect(parseSwitchPolicy(undefined)).toBe('after-chunk');
    expect(parseSwitchPolicy('immediate')).toBe('immediate');
    expect(() => parseSwitchPolicy('later')).toThrow(/after-chunk, immediate/);
  });
});
