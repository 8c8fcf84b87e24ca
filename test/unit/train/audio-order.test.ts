// The presentation-order rule for audio on the train's connection
// (src/train/audio-order.ts): video waits only while it leads audio by a
// whole segment (or half the audio buffered, when that is more) and audio
// still wants to load.
import { allowedLeadSec, audioMayPipeline, audioOrder, type AudioOrderState } from '../../../src/train/audio-order';
import { RestartRun } from '../../../src/train/restart-reserve';

const holdVideoForAudio = (s: AudioOrderState): boolean => audioOrder(s).hold;

const base: AudioOrderState = { videoAheadSec: 8, audioAheadSec: 8, audioBufferSec: 4, audioTargetSec: 30, videoSegmentSec: 4 };

describe('holdVideoForAudio', () => {
  it("lets video lead audio by less than one segment (within 5 % counts as one: audio segments are not exactly video's length)", () => {
    expect(holdVideoForAudio(base)).toBe(false);
    expect(holdVideoForAudio({ ...base, videoAheadSec: 11.7 })).toBe(false);
    expect(holdVideoForAudio({ ...base, videoAheadSec: 11.9 })).toBe(true);
  });
  it('holds video a whole segment ahead of audio that still wants to load', () => {
    expect(holdVideoForAudio({ ...base, videoAheadSec: 12 })).toBe(true);
    expect(holdVideoForAudio({ ...base, videoAheadSec: 40, audioTargetSec: NaN })).toBe(true);
  });
  it('never holds for audio at its buffer target (video may run ahead, e.g. in a train past the target)', () => {
    expect(holdVideoForAudio({ ...base, videoAheadSec: 60, audioAheadSec: 30, audioBufferSec: 30, audioTargetSec: 30 })).toBe(false);
  });
  it('uses the next video segment as the unit (short segments hold sooner)', () => {
    expect(holdVideoForAudio({ ...base, videoAheadSec: 10, videoSegmentSec: 2 })).toBe(true);
    expect(holdVideoForAudio({ ...base, videoAheadSec: 10, videoSegmentSec: 0 })).toBe(true);
  });
  it('lets video lead by up to half the audio buffered when that is more than a segment', () => {
    const deep = { ...base, audioBufferSec: 26, audioAheadSec: 26 };
    expect(allowedLeadSec(deep)).toBe(13);
    expect(holdVideoForAudio({ ...deep, videoAheadSec: 34 })).toBe(false); // 8 s ahead: two segments, under 13 s
    expect(holdVideoForAudio({ ...deep, videoAheadSec: 38.3 })).toBe(false);
    expect(holdVideoForAudio({ ...deep, videoAheadSec: 38.4 })).toBe(true);
  });
  it('falls back to one segment when audio has little buffered (start-up, after a seek)', () => {
    expect(allowedLeadSec({ audioBufferSec: 0, videoSegmentSec: 4 })).toBe(4);
    expect(allowedLeadSec({ audioBufferSec: 6, videoSegmentSec: 4 })).toBe(4);
    expect(allowedLeadSec({ audioBufferSec: NaN, videoSegmentSec: 4 })).toBe(4);
    expect(allowedLeadSec({ audioBufferSec: -1, videoSegmentSec: 0 })).toBe(0.001);
  });
  it('shrinks the lead by the rate video arrives at over its bitrate, never below a segment', () => {
    const deep = { audioBufferSec: 26, videoSegmentSec: 4 };
    expect(allowedLeadSec({ ...deep, videoRateRatio: 1.2 })).toBe(13);
    expect(allowedLeadSec({ ...deep, videoRateRatio: 0.5 })).toBe(6.5);
    expect(allowedLeadSec({ ...deep, videoRateRatio: 0.1 })).toBe(4);
    expect(allowedLeadSec({ ...deep, videoRateRatio: NaN })).toBe(13);
  });
});

describe('audioOrder at a train that resumes after a pause (the stall it prevents)', () => {
  // The testbed's BW-80 run: the train resumed with 20.2 s of video and 24.2 s of audio buffered; dash.js's
  // audio target was the video buffered + 1 s. 13 s later, two 1.35 Mbit/s video segments (8 s) in flight
  // and arriving at the restart rate (0.29 Mbit/s, 21 % of the bitrate), dash.js asked for a third.
  const restart: AudioOrderState = {
    videoAheadSec: 7.2 + 8,
    audioAheadSec: 11.2,
    audioBufferSec: 11.2,
    audioTargetSec: 7.2 + 1,
    videoSegmentSec: 4,
    videoInFlightSec: 8,
    videoRateRatio: 0.29 / 1.35,
  };

  it('holds the third video request: audio will want to load once the video in flight lands', () => {
    expect(audioOrder(restart)).toEqual({ hold: true, awaitingVideo: true });
    // The second testbed run: the same state with audio's segments a few ms longer than video's — held too.
    expect(audioOrder({ ...restart, audioAheadSec: 11.21, audioBufferSec: 11.21 }).hold).toBe(true);
  });

  it('did not hold it before (audio above its target now, half its buffer allowed at any rate): it went, audio waited 14 s', () => {
    expect(holdVideoForAudio({ ...restart, videoInFlightSec: 0, videoRateRatio: NaN })).toBe(false);
    // Either refinement alone is not enough here.
    expect(audioOrder({ ...restart, videoRateRatio: NaN }).hold).toBe(false);
    expect(audioOrder({ ...restart, videoInFlightSec: 0 }).hold).toBe(false);
  });

  it('holds the third video request of a restart slower than the one the reserve last sampled (the rate read from the time spent)', () => {
    // The testbed's BW-100 run (demo/results/README.md, "Restarts, measured"): a restart began at 552.4 s with two 1.35 Mbit/s
    // segments (656 and 683 KB); at 568.3 s, the first not yet arrived, dash.js asked for a third, with 9.0 s of
    // video and 13.0 s of audio buffered (audio one segment ahead), dash.js's audio target the video buffered + 1 s.
    // The one restart sampled before (also after a 5 s pause) had delivered its first segment at 0.90 Mbit/s.
    const run = new RestartRun(552_400);
    const atMs = 568_300;
    const bitrate = 1_350_000;
    const planned = 902_300;
    const thirdRequest = (videoRateRatio: number): AudioOrderState => ({
      videoAheadSec: 9 + 8,
      audioAheadSec: 13,
      audioBufferSec: 13,
      audioTargetSec: 10,
      videoSegmentSec: 4,
      videoInFlightSec: 8,
      videoRateRatio,
    });
    // Before: the planned rate until the first arrival. Video may lead by 4.3 s: the third request went, audio's
    // next queued behind it and arrived after audio's buffer had run out.
    expect(audioOrder(thirdRequest(planned / bitrate)).hold).toBe(false);
    // Now: even with the whole first segment counted as arrived, 16 s says at most 0.33 Mbit/s.
    const rate = run.deliveringBitsPerSec(atMs, 656_072 * 8, planned) as number;
    expect(rate).toBeLessThan(340_000);
    expect(audioOrder(thirdRequest(rate / bitrate))).toEqual({ hold: true, awaitingVideo: true });
  });

  it('once audio has asked (its request in flight behind the video), video goes on', () => {
    expect(
      audioOrder({
        ...restart,
        videoAheadSec: 9.1 + 4,
        audioAheadSec: 9.3 + 4,
        audioBufferSec: 9.3,
        audioTargetSec: 10.1,
        videoInFlightSec: 4,
      }).hold,
    ).toBe(false);
  });

  it('audio below its target now is not awaiting video (its silence would be a stalled audio loop)', () => {
    expect(audioOrder({ ...restart, audioTargetSec: 30 })).toEqual({ hold: true, awaitingVideo: false });
  });

  it('audio that stays at its target once the video lands does not hold video', () => {
    expect(
      audioOrder({ ...restart, audioBufferSec: 20, audioAheadSec: 20, videoAheadSec: 30, audioTargetSec: 8, videoInFlightSec: 8 }).hold,
    ).toBe(false);
  });
});

describe('audioMayPipeline', () => {
  it('lets audio ask for its next segment while one is in flight, up to the video asked for', () => {
    // v(i) asked, a(i) in flight: a(i+1) may not pass v(i)'s end
    expect(audioMayPipeline({ videoAheadSec: 12, audioAheadSec: 8, audioSegmentSec: 4 })).toBe(true);
    expect(audioMayPipeline({ videoAheadSec: 12, audioAheadSec: 12, audioSegmentSec: 4 })).toBe(false);
    expect(audioMayPipeline({ videoAheadSec: 24, audioAheadSec: 8, audioSegmentSec: 4 })).toBe(true);
  });
  it('lets AAC segments a few frames longer than video go (within 5 % of a segment)', () => {
    expect(audioMayPipeline({ videoAheadSec: 12, audioAheadSec: 8.1, audioSegmentSec: 4 })).toBe(true);
    expect(audioMayPipeline({ videoAheadSec: 12, audioAheadSec: 8.3, audioSegmentSec: 4 })).toBe(false);
  });
  it('never lets audio lead video on the connection', () => {
    expect(audioMayPipeline({ videoAheadSec: 4, audioAheadSec: 8, audioSegmentSec: 4 })).toBe(false);
  });
  it('refuses on unknown media times (dash.js then keeps its one audio request)', () => {
    expect(audioMayPipeline({ videoAheadSec: NaN, audioAheadSec: 0, audioSegmentSec: 4 })).toBe(false);
    expect(audioMayPipeline({ videoAheadSec: 12, audioAheadSec: NaN, audioSegmentSec: 4 })).toBe(false);
    // an unknown segment length counts as none: audio only up to the video asked for
    expect(audioMayPipeline({ videoAheadSec: 12, audioAheadSec: 11, audioSegmentSec: NaN })).toBe(true);
    expect(audioMayPipeline({ videoAheadSec: 12, audioAheadSec: 12.5, audioSegmentSec: 0 })).toBe(false);
  });
});
