// The video/audio split of a player's bytes from its origin's access log
// (demo/harness/media-split.ts): files named by content.json, bytes spread
// over the time each response was being sent and cut at the window, our
// origin's and nginx's log lines, and lines that say nothing.

import { mediaFiles, mediaRates } from '../../../demo/harness/media-split';

const info = {
  layouts: {
    chunked: {
      representations: [
        { contentType: 'video', initialization: { file: 'init-0.m4s' }, segments: [{ file: 'chunk-0-00001.m4s' }] },
        { contentType: 'audio', initialization: { file: 'init-5.m4s' }, segments: [{ file: 'chunk-5-00001.m4s' }] },
      ],
    },
    unchunked: {
      representations: [
        { contentType: 'video', file: 'rep-0.mp4' },
        { contentType: 'audio', file: 'rep-5.mp4' },
      ],
    },
  },
} as never;

describe('mediaFiles', () => {
  it('names every file of both layouts with its media type', () => {
    const m = mediaFiles(info);
    expect(m.get('init-0.m4s')).toBe('video');
    expect(m.get('chunk-0-00001.m4s')).toBe('video');
    expect(m.get('chunk-5-00001.m4s')).toBe('audio');
    expect(m.get('rep-0.mp4')).toBe('video');
    expect(m.get('rep-5.mp4')).toBe('audio');
    expect(m.size).toBe(6);
  });
});

describe('mediaRates', () => {
  const files = mediaFiles(info);
  const window = { fromS: 100, toS: 200 };

  it('spreads each response over its sending time and counts what falls in the window (our origin: ms)', () => {
    const log = [
      // 1,000,000 bytes sent from 90 s to 110 s: half inside the window.
      { url: '/media/demo/unchunked/rep-0.mp4', bytes: 1_000_000, start: 90_000, end: 110_000 },
      // wholly inside.
      { url: '/media/demo/unchunked/rep-0.mp4', bytes: 2_000_000, start: 120_000, end: 150_000 },
      // audio, wholly inside.
      { url: '/media/demo/unchunked/rep-5.mp4?x=1', bytes: 100_000, start: 150_000, end: 151_000 },
      // after the window.
      { url: '/media/demo/unchunked/rep-0.mp4', bytes: 5_000_000, start: 200_000, end: 210_000 },
      // not media, no bytes, unknown file.
      { url: '/probe', bytes: 2, start: 120_000, end: 120_000 },
      { url: '/media/demo/unchunked/rep-0.mp4', bytes: 0, start: 120_000, end: 121_000 },
      { url: '/media/demo/unchunked/other.mp4', bytes: 9_000, start: 120_000, end: 121_000 },
    ];
    const r = mediaRates(log, window, files);
    expect(r.videoBitsPerSec).toBeCloseTo(((500_000 + 2_000_000) * 8) / 100, 6);
    expect(r.audioBitsPerSec).toBeCloseTo((100_000 * 8) / 100, 6);
    expect(r.records).toBe(4);
  });

  it('reads nginx lines (end in seconds, request time) and instant responses by their end', () => {
    const log = [
      { server: 'nginx', url: '/media/demo/chunked/chunk-0-00001.m4s', bytes: 400_000, end: 195, requestTimeS: 10 },
      { server: 'nginx', url: '/media/demo/chunked/chunk-0-00001.m4s', bytes: 300_000, end: 205, requestTimeS: 10 },
      { url: '/media/demo/chunked/init-0.m4s', bytes: 800, start: 150_000, end: 150_000 },
    ];
    const r = mediaRates(log, window, files);
    expect(r.videoBitsPerSec).toBeCloseTo(((400_000 + 150_000 + 800) * 8) / 100, 6);
    expect(r.audioBitsPerSec).toBe(0);
  });
});
