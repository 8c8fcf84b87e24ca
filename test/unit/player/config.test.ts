// Unit tests of the player's option checking (player/config.ts): defaults
// filled in, every option checked with an error naming it, unknown option
// names refused.

import { normalizeConfig, PLAYER_CONFIG_DEFAULTS } from '../../../player/config';
import type { SprintPlayerOptions } from '../../../player/options';

describe('normalizeConfig', () => {
  it('fills in the defaults', () => {
    expect(normalizeConfig(undefined)).toEqual(PLAYER_CONFIG_DEFAULTS);
    expect(normalizeConfig({})).toEqual(PLAYER_CONFIG_DEFAULTS);
    expect(PLAYER_CONFIG_DEFAULTS).toMatchObject({
      mode: 'auto',
      abr: 'dash-default',
      epsilon: 0.1,
      minimumTrain: true,
      sprintWindowBdps: 2,
      sprintxSwitch: 'after-chunk',
      sprintxMaxRangeSec: 60,
      sprintxAudioSec: 0,
    });
  });

  it('keeps valid values', () => {
    const c = normalizeConfig({
      mode: 'sprint',
      abr: 'bw-80',
      sprintTransport: 'fetch',
      epsilon: 0.05,
      chunkBytes: 1_000_000,
      minimumTrain: false,
      sprintWindowBdps: 1.5,
      sprintxSwitch: 'immediate',
      sprintxSafetySec: 0,
      sprintxMaxRangeSec: 30,
      sprintxAudioSec: 16,
      log: false,
      autoPlay: false,
    });
    expect(c).toMatchObject({
      mode: 'sprint',
      abr: 'bw-80',
      sprintTransport: 'fetch',
      epsilon: 0.05,
      chunkBytes: 1_000_000,
      minimumTrain: false,
      sprintWindowBdps: 1.5,
      sprintxSwitch: 'immediate',
      sprintxSafetySec: 0,
      sprintxMaxRangeSec: 30,
      sprintxAudioSec: 16,
      log: false,
      autoPlay: false,
    });
  });

  it('treats an option given as undefined as not given', () => {
    expect(normalizeConfig({ chunkBytes: undefined, sprintxSafetySec: undefined, abr: undefined })).toEqual(PLAYER_CONFIG_DEFAULTS);
  });

  it.each([
    [{ mode: 'turbo' }, /unknown mode "turbo"/],
    [{ abr: 'bola' }, /unknown ABR preset "bola"/],
    [{ sprintTransport: 'socket' }, /sprintTransport must be one of "auto", "extension", "fetch", got "socket"/],
    [{ epsilon: 1 }, /epsilon must be a number in \(0, 1\), got 1/],
    [{ chunkBytes: 1.5 }, /chunkBytes must be a positive integer number of bytes, at most 268435456, got 1.5/],
    [{ chunkBytes: 2 ** 30 }, /chunkBytes must be .* at most 268435456, got 1073741824/],
    [{ minimumTrain: 'no' }, /minimumTrain must be true or false, got "no"/],
    [{ sprintWindowBdps: 0.5 }, /sprintWindowBdps must be a number of fair BDPs in \[1, 8\], got 0.5/],
    [{ sprintWindowBdps: 9 }, /sprintWindowBdps must be a number of fair BDPs in \[1, 8\], got 9/],
    [{ sprintWindowBdps: '2' }, /sprintWindowBdps must be a number of fair BDPs in \[1, 8\], got "2"/],
    [{ sprintxSwitch: 'later' }, /sprintxSwitch must be one of after-chunk, immediate/],
    [{ sprintxSafetySec: -1 }, /sprintxSafetySec must be a number of seconds >= 0, got -1/],
    [{ sprintxMaxRangeSec: 0 }, /sprintxMaxRangeSec must be a number of seconds > 0, got 0/],
    [{ sprintxAudioSec: -4 }, /sprintxAudioSec must be a number of seconds >= 0, got -4/],
    [{ sprintxAudioSec: '16' }, /sprintxAudioSec must be a number of seconds >= 0, got "16"/],
    [{ dashSettings: 'fast' }, /dashSettings must be an object of dash.js settings/],
    [{ beforeAttach: 3 }, /beforeAttach must be a function, got 3/],
  ])('refuses %p with an error naming the option', (options, message) => {
    expect(() => normalizeConfig(options as unknown as SprintPlayerOptions)).toThrow(message);
    expect(() => normalizeConfig(options as unknown as SprintPlayerOptions)).toThrow(/^Sprint.createPlayer: /);
  });

  it('refuses an option name it does not know, listing the ones it does', () => {
    expect(() => normalizeConfig({ chunkSize: 5 } as unknown as SprintPlayerOptions)).toThrow(
      /unknown option "chunkSize"; the options are mode, abr, .*chunkBytes/,
    );
  });
});
