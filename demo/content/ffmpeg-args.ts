/**
 * ffmpeg command lines for the demo content: ONE encode of the whole ladder into an intermediate
 * MP4, then two stream-copy (`-c copy`) packaging runs of that same encode with ffmpeg's DASH muxer:
 *  - chunked: one file per segment, SegmentTemplate ($Number$), 4-second segments;
 *  - unchunked: one file per representation with one global sidx (byte-range addressed).
 * Pure functions: they only build argument arrays (see ffmpeg-run.ts for running them).
 */
import { createHash } from 'crypto';
import { AUDIO, FRAME_RATE, GOP_FRAMES, LAYOUT_VERSION, SEGMENT_DURATION_SEC, SetRecipe, setRecipe, VIDEO_LADDER, X264 } from './recipe';

/** The demo ladder and level (the `demo` and `test` sets). */
const DEMO_RECIPE: Pick<SetRecipe, 'ladder' | 'level'> = { ladder: VIDEO_LADDER, level: X264.level };

/** File names inside a layout folder ($RepresentationID$ is ffmpeg's output stream index). */
export const CHUNKED_INIT_TEMPLATE = 'init-$RepresentationID$.m4s';
export const CHUNKED_MEDIA_TEMPLATE = 'chunk-$RepresentationID$-$Number%05d$.m4s';
export const UNCHUNKED_FILE_TEMPLATE = 'rep-$RepresentationID$.mp4';

const QUIET = ['-hide_banner', '-nostdin', '-y', '-loglevel', 'error'];

function kbit(bitsPerSec: number): string {
  return `${Math.round(bitsPerSec / 1000)}k`;
}

/**
 * The single encode: a moving synthetic picture (lavfi testsrc2, drawn natively at each rung's size,
 * which costs less CPU than scaling one picture down) for every rung, each encoded by libx264 in
 * CBR (nal-hrd=cbr, equal -b:v/-maxrate/-minrate/-bufsize) with a fixed GOP of exactly one segment
 * and no scene-cut keyframes, plus an AAC-LC tone. Output streams 0..n-1 are the video rungs (lowest
 * first), stream n is the audio. Progress goes to stdout as `-progress` key=value lines.
 */
export function encodeArgs(durationSec: number, outFile: string, recipe: Pick<SetRecipe, 'ladder' | 'level'> = DEMO_RECIPE): string[] {
  const ladder = recipe.ladder;
  const args = [...QUIET, '-nostats', '-progress', 'pipe:1'];
  for (const r of ladder) {
    args.push('-f', 'lavfi', '-i', `testsrc2=size=${r.width}x${r.height}:rate=${FRAME_RATE}:duration=${durationSec}`);
  }
  args.push('-f', 'lavfi', '-i', `sine=frequency=${AUDIO.toneHz}:beep_factor=2:sample_rate=${AUDIO.sampleRate}:duration=${durationSec}`);
  ladder.forEach((_, i) => args.push('-map', `${i}:v`));
  args.push('-map', `${ladder.length}:a`);
  args.push(
    '-c:v',
    'libx264',
    '-preset',
    X264.preset,
    '-profile:v',
    X264.profile,
    '-level:v',
    recipe.level,
    '-pix_fmt',
    X264.pixFmt,
    '-g',
    String(GOP_FRAMES),
    '-keyint_min',
    String(GOP_FRAMES),
    '-sc_threshold',
    '0',
    '-x264-params',
    'nal-hrd=cbr',
  );
  ladder.forEach((r, i) => {
    const rate = kbit(r.bandwidth);
    args.push(`-b:v:${i}`, rate, `-maxrate:v:${i}`, rate, `-minrate:v:${i}`, rate, `-bufsize:v:${i}`, rate);
  });
  args.push(
    '-c:a',
    'aac',
    '-b:a',
    kbit(AUDIO.bandwidth),
    '-ar',
    String(AUDIO.sampleRate),
    '-ac',
    String(AUDIO.channels),
    '-f',
    'mp4',
    outFile,
  );
  return args;
}

function packageCommon(input: string): string[] {
  return [
    ...QUIET,
    '-i',
    input,
    '-map',
    '0',
    '-c',
    'copy',
    '-f',
    'dash',
    '-seg_duration',
    String(SEGMENT_DURATION_SEC),
    '-adaptation_sets',
    'id=0,streams=v id=1,streams=a',
  ];
}

/** Chunked layout: SegmentTemplate, one file per segment, no SegmentTimeline. */
export function packageChunkedArgs(input: string, outMpd: string): string[] {
  return [
    ...packageCommon(input),
    '-use_template',
    '1',
    '-use_timeline',
    '0',
    '-init_seg_name',
    CHUNKED_INIT_TEMPLATE,
    '-media_seg_name',
    CHUNKED_MEDIA_TEMPLATE,
    outMpd,
  ];
}

/** Unchunked layout: one file per representation, one global sidx after the moov. */
export function packageUnchunkedArgs(input: string, outMpd: string): string[] {
  return [
    ...packageCommon(input),
    '-use_template',
    '0',
    '-use_timeline',
    '0',
    '-single_file',
    '1',
    '-global_sidx',
    '1',
    '-single_file_name',
    UNCHUNKED_FILE_TEMPLATE,
    outMpd,
  ];
}

/** Expands ffmpeg's DASH name templates for one representation (and segment number). */
export function expandTemplate(template: string, representationId: string, segmentNumber?: number): string {
  return template.replace(/\$RepresentationID\$/g, representationId).replace(/\$Number%05d\$/g, () => {
    if (segmentNumber === undefined) throw new Error(`template ${template} needs a segment number`);
    return String(segmentNumber).padStart(5, '0');
  });
}

/**
 * A short hash of a set's recipe: the three command lines (which carry every ladder, encoder and
 * segmenting setting) and LAYOUT_VERSION. Stored in the completion marker to detect stale content.
 * Without a set (or for demo, test and unnamed sets) it is the demo ladder's.
 */
export function recipeFingerprint(set?: string): string {
  const recipe = [
    encodeArgs(1, 'encode.mp4', set === undefined ? DEMO_RECIPE : setRecipe(set)),
    packageChunkedArgs('encode.mp4', 'x.mpd'),
    packageUnchunkedArgs('encode.mp4', 'x.mpd'),
    LAYOUT_VERSION,
  ];
  return createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 16);
}
