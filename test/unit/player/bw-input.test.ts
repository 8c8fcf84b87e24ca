// Unit tests of what the BW-x rule (paper §V-C, player/abr/bw-x-rule.ts)
// reads: the project's own wire estimate, not dash.js's average; the lowest
// rung before the first trustworthy sample; and which of dash.js's own loads
// feed the estimator in stock mode (player/dataplane/stock.ts: video media
// segments, timed from the request to the last byte, small ones skipped by
// src/estimators/bandwidth.ts).

import { bwChoiceIndex, bwRuleFactory, videoEstimate } from '../../../player/abr/bw-x-rule';
import type { DashjsForRules, RulesContextLike, SwitchRequestLike } from '../../../player/abr/rule-types';
import { feedDashLoad, stockWireSample } from '../../../player/estimates/dash-load-sample';
import { BandwidthEstimator } from '../../../src/estimators/bandwidth';

const LADDER = [0.3e6, 0.7e6, 1.5e6, 3e6, 6e6];

/** Just enough of dash.js's FactoryMaker to build and call a custom rule. */
const fakeDashjs: DashjsForRules = {
  FactoryMaker: {
    getClassFactory: (cls: unknown) => (context: unknown) => ({ create: () => (cls as (this: unknown) => unknown).call({ context }) }),
    getClassFactoryByName: (() => {
      const f = ((_: unknown) => ({
        create: (): SwitchRequestLike => ({ representation: null, reason: null, priority: 0.5, rule: null }),
      })) as ReturnType<DashjsForRules['FactoryMaker']['getClassFactoryByName']>;
      f.PRIORITY = { DEFAULT: 0.5, STRONG: 1, WEAK: 0 };
      return () => f;
    })(),
    getSingletonFactoryByName: () => () => ({ getInstance: () => ({ getCurrentBufferLevel: () => 0 }) }),
  },
};

function context(dashKbps: number): RulesContextLike {
  const reps = LADDER.map((bandwidth, i) => ({ id: String(i), bandwidth }));
  return {
    getMediaType: () => 'video',
    getMediaInfo: () => ({}),
    getAbrController: () => ({ getPossibleVoRepresentationsFilteredBySettings: () => reps }),
    getThroughputController: () => ({ getAverageThroughput: () => dashKbps }),
  };
}

function choose(percent: number, wire: number | null, dashKbps: number): number {
  const factory = bwRuleFactory(fakeDashjs, percent, () => wire) as (c: unknown) => {
    create(): { getSwitchRequest(ctx: RulesContextLike): SwitchRequestLike };
  };
  const rep = factory({}).create().getSwitchRequest(context(dashKbps)).representation as { bandwidth: number };
  return rep.bandwidth;
}

describe('BW-x input', () => {
  it("reads the wire estimate, not dash.js's average (7.25 Mbit/s on a 3 Mbit/s link)", () => {
    // BW-80 with the wire's 1.43 Mbit/s fair share: 1.14 Mbit/s → the 0.7 Mbit/s rung; dash.js's 7.25 would give 3 Mbit/s.
    expect(choose(80, 1.43e6, 7250)).toBe(0.7e6);
    expect(choose(80, 3e6, 7250)).toBe(1.5e6);
  });

  it('takes the lowest rung before the first trustworthy sample, whatever dash.js reads', () => {
    expect(choose(80, null, 7250)).toBe(0.3e6);
  });

  it('picks the highest rung not above x% of the estimate', () => {
    expect(bwChoiceIndex(LADDER, 10e6, 80)).toBe(4);
    expect(bwChoiceIndex(LADDER, 1.875e6, 80)).toBe(2);
    expect(bwChoiceIndex(LADDER, 1.874e6, 80)).toBe(1);
    expect(bwChoiceIndex(LADDER, 0.1e6, 80)).toBe(0);
    expect(bwChoiceIndex(LADDER, null, 80)).toBe(0);
  });

  // Audio riding Sprint's connection is in the connection's rate; video has that less audio's bitrate.
  it("budgets video from the wire estimate less the bitrate of audio sharing Sprint's connection", () => {
    const e = { bandwidthBitsPerSec: 1.52e6, bandwidthSamples: 5 };
    expect(videoEstimate(e)).toBe(1.52e6);
    expect(videoEstimate({ ...e, sharedAudioBitsPerSec: null })).toBe(1.52e6);
    expect(videoEstimate({ ...e, sharedAudioBitsPerSec: 128_000 })).toBe(1.52e6 - 128_000);
    // The testbed's BW-100: the 1.5 Mbit/s rung on the whole connection's rate, 1.35 on video's.
    const ladder = [0.3e6, 0.7e6, 0.85e6, 1e6, 1.1e6, 1.2e6, 1.35e6, 1.5e6, 3e6, 6e6];
    expect(ladder[bwChoiceIndex(ladder, videoEstimate(e), 100)]).toBe(1.5e6);
    expect(ladder[bwChoiceIndex(ladder, videoEstimate({ ...e, sharedAudioBitsPerSec: 128_000 }), 100)]).toBe(1.35e6);
    // No trustworthy sample yet, or nothing left for video: no estimate (the lowest rung).
    expect(videoEstimate({ ...e, bandwidthSamples: 0 })).toBeNull();
    expect(videoEstimate({ ...e, bandwidthBitsPerSec: null })).toBeNull();
    expect(videoEstimate({ ...e, sharedAudioBitsPerSec: 2e6 })).toBeNull();
  });
});

describe("stock mode: which of dash.js's loads feed the estimator", () => {
  const at = (ms: number) => new Date(1_000_000 + ms);
  const seg = (over: Record<string, unknown> = {}) => ({
    type: 'MediaSegment',
    mediaType: 'video',
    bytesLoaded: 1_500_000,
    startDate: at(0),
    firstByteDate: at(3600),
    endDate: at(4600),
    ...over,
  });

  it("times a video media segment from the request to its last byte, never from dash.js's first progress event", () => {
    // 1.5 MB: request at 0, first progress event at 3.6 s (bytes already buffered below the page), last byte at 4.6 s.
    // From the first progress event it would read 12 Mbit/s; from the request, 2.6 Mbit/s.
    const s = stockWireSample(seg(), null);
    expect(s).toEqual({ bytes: 1_500_000, seconds: 4.6 });
  });

  it('skips audio, init segments, failed loads and loads without timing', () => {
    expect('skip' in stockWireSample(seg({ mediaType: 'audio' }), null)).toBe(true);
    expect('skip' in stockWireSample(seg({ type: 'InitializationSegment' }), null)).toBe(true);
    expect('skip' in stockWireSample(seg(), new Error('timeout'))).toBe(true);
    expect('skip' in stockWireSample(seg({ endDate: null }), null)).toBe(true);
    expect('skip' in stockWireSample(seg({ bytesLoaded: NaN }), null)).toBe(true);
  });

  it('leaves a segment that fits in one initial window out of the estimate', () => {
    const est = new BandwidthEstimator();
    const small = stockWireSample(seg({ bytesLoaded: 12_000, endDate: at(5) }), null) as { bytes: number; seconds: number };
    expect(est.addTransfer(small.bytes, small.seconds).accepted).toBe(false);
    expect(est.estimateBitsPerSec()).toBeUndefined();
    const big = stockWireSample(seg(), null) as { bytes: number; seconds: number };
    expect(est.addTransfer(big.bytes, big.seconds).accepted).toBe(true);
    expect(est.estimateBitsPerSec()).toBeCloseTo((1_500_000 * 8) / 4.6, 0);
  });

  it('feeds the same samples from the loads a Sprint data plane leaves to dash.js (feedDashLoad)', () => {
    const est = new BandwidthEstimator();
    expect(feedDashLoad(est, seg({ mediaType: 'audio' }), null)).toBe(false);
    expect(feedDashLoad(est, seg(), new Error('cut'))).toBe(false);
    expect(est.sampleCount).toBe(0);
    expect(feedDashLoad(est, seg(), null)).toBe(true);
    expect(est.sampleCount).toBe(1);
  });
});
