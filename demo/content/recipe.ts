/**
 * The demo content recipe: bitrate ladder, segment duration, frame rate, encoder settings, audio.
 *
 * Paper §V: the players download 4-second video segments from a ladder of bitrates; what matters for
 * the data plane is segment size in bytes, so the ladder is near-constant bitrate (x264 CBR with
 * HRD filler) and resolutions are kept low to make generation fast. A change here changes
 * the ffmpeg command lines and so `recipeFingerprint()` (ffmpeg-args.ts), which makes existing
 * generated sets count as stale and be regenerated.
 */
export interface VideoRung {
  /** Nominal bitrate in bit/s (x264 -b:v = -maxrate = -minrate = -bufsize). */
  bandwidth: number;
  width: number;
  height: number;
}

/** Segment duration in seconds; also the GOP length (one IDR per segment). */
export const SEGMENT_DURATION_SEC = 4;
export const FRAME_RATE = 25;
export const GOP_FRAMES = SEGMENT_DURATION_SEC * FRAME_RATE;

/** Lowest to highest. All 16:9, even dimensions; level 3.1 covers the top rung at 25 fps. */
export const VIDEO_LADDER: readonly VideoRung[] = [
  { bandwidth: 300_000, width: 320, height: 180 },
  { bandwidth: 700_000, width: 480, height: 270 },
  { bandwidth: 1_500_000, width: 640, height: 360 },
  { bandwidth: 3_000_000, width: 768, height: 432 },
  { bandwidth: 6_000_000, width: 960, height: 540 },
];

/**
 * x264 settings. `ultrafast` (no CABAC, no B-frames) makes Constrained Baseline, level 3.1, which
 * ffmpeg signals as avc1.42c01f and Chromium's MSE plays. Chosen for speed: measured ~1.6x less CPU
 * than `superfast` (High profile, avc1.64001f) for this ladder, and the bitrate, not the picture
 * quality, is what the experiments need.
 */
export const X264 = { preset: 'ultrafast', profile: 'baseline', level: '3.1', pixFmt: 'yuv420p' } as const;

/** AAC-LC (mp4a.40.2) from ffmpeg's native encoder; a continuous tone keeps its rate near nominal. */
export const AUDIO = { bandwidth: 128_000, sampleRate: 48_000, channels: 2, toneHz: 440 } as const;

/** Default durations per content set, in seconds. Any other set defaults to the `test` length. */
export const DEFAULT_DURATION_SEC: Readonly<Record<string, number>> = { demo: 600, test: 120 };

/** Bump when the generator's output changes in a way the ffmpeg command lines do not show. */
export const LAYOUT_VERSION = 1;
