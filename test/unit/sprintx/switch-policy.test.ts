/**
 * Sprint-x's switch policy (src/sprintx/switch-policy.ts): when a bitrate
 * switch may cancel the expanded request in flight.
 */
import { decideSwitch, parseSwitchPolicy, type SwitchFacts } from '../../../src/sprintx/switch-policy';

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
