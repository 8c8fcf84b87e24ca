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

/**
 * The evaluation ladder (`--set eval`). The paper (§V-A) keeps the top bitrate above the fair share
 * in every experiment, otherwise the buffer fills and a run measures pauses instead of the data
 * plane. The largest fair share of the Fig. 6 grid is 25 Mbit/s ÷ 2 flows = 12.5 Mbit/s; the top
 * rung is 20 Mbit/s (1.6×). The lower rungs are the demo ladder's, so results at 1.5–6 Mbit/s are
 * comparable with demo-set runs; above, steps of ~1.5× keep a rung within 50 % of any fair share.
 * Resolution stops at 960x540: what the experiments need is segment bytes (CBR with HRD filler
 * gives them at any size) and the decoder's CPU on the 2-core test machine grows with pixels, not
 * with filler. Level 4.0 allows 20 Mbit/s (Baseline, 24 Mbit/s with NAL HRD) at 540p25.
 */
export const EVAL_LADDER: readonly VideoRung[] = [
  ...VIDEO_LADDER,
  { bandwidth: 9_000_000, width: 960, height: 540 },
  { bandwidth: 13_000_000, width: 960, height: 540 },
  { bandwidth: 20_000_000, width: 960, height: 540 },
];

/**
 * The evaluation ladder's bitrates at one small picture (`--set eval-light`): segment bytes are what
 * the data plane meets, and CBR with HRD filler carries them at any size, while decoding a 540p rung
 * at 9-20 Mbit/s took much of the 2-core test machine at 25 Mbit/s. Filler NAL units are dropped
 * before decoding, so every rung here costs the browser about what the bottom rung does.
 */
export const EVAL_LIGHT_LADDER: readonly VideoRung[] = EVAL_LADDER.map(({ bandwidth }) => ({ bandwidth, width: 320, height: 180 }));

/**
 * The BW-x ladder (`--set bwx`, paper §V-C / Fig. 11). A BW-x rule plays the highest rung under x %
 * of its estimate; with the demo ladder's 0.7 → 1.5 Mbit/s step that is 0.7 Mbit/s for every x from
 * 47 to 99 % of a 1.5 Mbit/s fair share (the 3 Mbit/s, one-bulk-flow setting), so a paused-regime
 * run measures the ladder, not the data plane. Here steps of at most 0.15 Mbit/s between them keep
 * the rung played within 0.15 Mbit/s of x·fair share from 0.7 to 1.5 Mbit/s (BW-80 at 1.43–1.5
 * Mbit/s: the 1.1 rung, 92–96 % of the paper's expectation). The demo rungs are kept.
 */
export const BWX_LADDER: readonly VideoRung[] = [
  ...VIDEO_LADDER,
  ...[850_000, 1_000_000, 1_100_000, 1_200_000, 1_350_000].map((bandwidth) => ({ bandwidth, width: 640, height: 360 })),
].sort((a, b) => a.bandwidth - b.bandwidth);

/**
 * The BW-x ladder with the gap under 0.7 Mbit/s filled too (`--set bwx2`): `bwx` plus 0.45 and 0.6
 * Mbit/s, so the steps are at most 0.15 Mbit/s from 0.3 to 1.5 Mbit/s. With `bwx`'s 0.3 → 0.7 step,
 * BW-50 at the 3 Mbit/s testbed's fair share (1.43 Mbit/s measured, audio 0.128 of it: video's
 * budget 0.65 Mbit/s) plays 0.3 Mbit/s, and a run measures how far ahead one minimum train fills the
 * buffer on that rung, not the data plane (docs/results.md, Fig. 11). `bwx` is kept as it was: the committed
 * runs that played it rebuild against it. Long enough for the paper's 25-minute Fig. 11 runs
 * (BWX2_MIN_DURATION_SEC).
 */
export const BWX2_LADDER: readonly VideoRung[] = [
  ...BWX_LADDER,
  ...[450_000, 600_000].map((bandwidth) => ({ bandwidth, width: 480, height: 270 })),
].sort((a, b) => a.bandwidth - b.bandwidth);

/** Per-set recipe: ladder, H.264 level and default length. */
export interface SetRecipe {
  readonly ladder: readonly VideoRung[];
  /** x264 -level (the codecs string follows it: 3.1 → avc1.42c01f, 4.0 → avc1.42c028). */
  readonly level: string;
  readonly defaultDurationSec: number;
}

/**
 * Longest video stretch the eval set must outlast: the paper's 20-minute measurement after a 90 s
 * warm-up, with paper Fig. 12's 60 s of video alone before it, plus the harness's 60 s content margin
 * (demo/harness/ab.ts CONTENT_MARGIN_S).
 */
export const EVAL_MIN_DURATION_SEC = 60 + 90 + 20 * 60 + 60;

/**
 * Longest video stretch the bwx2 set must outlast: paper Fig. 11's runs last 25 minutes, and in
 * the paused regime a train's cycle (one minimum train, then the pause while the buffer drains)
 * at BW-50 on the 3 Mbit/s testbed is ~6 minutes, as long as a 5-minute window: measured over
 * 5 minutes, the figure is the window's phase in the cycle. So: 60 s warm-up, 25 minutes, the
 * harness's 60 s content margin (demo/harness/ab.ts CONTENT_MARGIN_S), and the ~8 minutes of
 * media one minimum train at 0.45 Mbit/s holds, which the player may download ahead of playback.
 */
export const BWX2_MIN_DURATION_SEC = 60 + 25 * 60 + 60 + 8 * 60;

/** The named sets. Any other name gets the demo ladder and the `test` length. */
export const SET_RECIPES: Readonly<Record<string, SetRecipe>> = {
  demo: { ladder: VIDEO_LADDER, level: X264.level, defaultDurationSec: 600 },
  test: { ladder: VIDEO_LADDER, level: X264.level, defaultDurationSec: 120 },
  eval: { ladder: EVAL_LADDER, level: '4.0', defaultDurationSec: 1500 },
  'eval-light': { ladder: EVAL_LIGHT_LADDER, level: '4.0', defaultDurationSec: 1500 },
  bwx: { ladder: BWX_LADDER, level: X264.level, defaultDurationSec: 600 },
  bwx2: { ladder: BWX2_LADDER, level: X264.level, defaultDurationSec: BWX2_MIN_DURATION_SEC },
};

/** The recipe of a content set (demo ladder and test length for unnamed sets). */
export function setRecipe(set: string): SetRecipe {
  return SET_RECIPES[set] ?? { ladder: VIDEO_LADDER, level: X264.level, defaultDurationSec: SET_RECIPES.test!.defaultDurationSec };
}

/** Default durations per content set, in seconds. Any other set defaults to the `test` length. */
export const DEFAULT_DURATION_SEC: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(SET_RECIPES).map(([k, r]) => [k, r.defaultDurationSec]),
);

/** Bump when the generator's output changes in a way the ffmpeg command lines do not show. */
export const LAYOUT_VERSION = 1;
