// The hold that keeps riding audio in order with the video (player/sprint/audio-hold.ts).
import { AUDIO_IDLE_MAX_MS, AudioHold, type AudioHoldCounter } from '../../../player/sprint/audio-hold';

function hold(): { h: AudioHold; counted: AudioHoldCounter[] } {
  const counted: AudioHoldCounter[] = [];
  return { h: new AudioHold((c) => counted.push(c)), counted };
}

describe('AudioHold', () => {
  it('holds while the audio order asks, counting each hold once', () => {
    const { h, counted } = hold();
    expect(h.decide(true, true, 0)).toBe(true);
    expect(h.decide(true, true, 500)).toBe(true);
    expect(counted).toEqual(['sprint.audioHolds']);
    expect(h.decide(false, true, 600)).toBe(false);
    expect(h.decide(true, true, 700)).toBe(true);
    expect(counted).toEqual(['sprint.audioHolds', 'sprint.audioHolds']);
  });

  it('has no time limit while waiting is expected (audio in flight)', () => {
    const { h, counted } = hold();
    for (let t = 0; t <= 30_000; t += 1000) expect(h.decide(true, true, t)).toBe(true);
    expect(counted).toEqual(['sprint.audioHolds']);
    expect(h.suspended).toBe(false);
  });

  it('stops holding once audio, with nothing in flight, has not asked within the limit, until it asks', () => {
    const { h, counted } = hold();
    expect(h.decide(true, false, 0)).toBe(true);
    expect(h.decide(true, false, AUDIO_IDLE_MAX_MS)).toBe(true);
    expect(h.decide(true, false, AUDIO_IDLE_MAX_MS + 1)).toBe(false);
    expect(counted).toEqual(['sprint.audioHolds', 'sprint.audioHoldTimeouts']);
    expect(h.suspended).toBe(true);
    expect(h.decide(true, true, AUDIO_IDLE_MAX_MS + 100)).toBe(false);
    h.audioAsked();
    expect(h.suspended).toBe(false);
    expect(h.decide(true, false, 5000)).toBe(true);
  });

  it('restarts the idle clock when audio gets busy again', () => {
    const { h } = hold();
    expect(h.decide(true, false, 0)).toBe(true);
    expect(h.decide(true, true, 900)).toBe(true); // audio asked and is in flight
    expect(h.decide(true, false, 1500)).toBe(true); // idle again from 1500
    expect(h.decide(true, false, 1500 + AUDIO_IDLE_MAX_MS)).toBe(true);
    expect(h.decide(true, false, 1501 + AUDIO_IDLE_MAX_MS)).toBe(false);
  });
});
