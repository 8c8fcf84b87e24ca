// The presentation-order rule for audio on the train's connection
// (src/train/audio-order.ts): video waits only while it leads audio by a
// whole segment (or half the audio buffered, when that is more) and audio
// still wants to load.
import { allowedLeadSec, holdVideoForAudio, type AudioOrderState } from '../../../src/train/audio-order';

const base: AudioOrderState = { videoAheadSec: 8, audioAheadSec: 8, audioBufferSec: 4, audioTargetSec: 30, videoSegmentSec: 4 };

describe('holdVideoForAudio', () => {
  it('lets video lead audio by less than one segment', () => {
    expect(holdVideoForAudio(base)).toBe(false);
    expect(holdVideoForAudio({ ...base, videoAheadSec: 11.9 })).toBe(false);
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
    expect(holdVideoForAudio({ ...deep, videoAheadSec: 38.9 })).toBe(false);
    expect(holdVideoForAudio({ ...deep, videoAheadSec: 39 })).toBe(true);
  });
  it('falls back to one segment when audio has little buffered (start-up, after a seek)', () => {
    expect(allowedLeadSec({ audioBufferSec: 0, videoSegmentSec: 4 })).toBe(4);
    expect(allowedLeadSec({ audioBufferSec: 6, videoSegmentSec: 4 })).toBe(4);
    expect(allowedLeadSec({ audioBufferSec: NaN, videoSegmentSec: 4 })).toBe(4);
    expect(allowedLeadSec({ audioBufferSec: -1, videoSegmentSec: 0 })).toBe(0.001);
  });
});
