/**
 * Measures what ffmpeg packaged: walks the chunked and unchunked layout folders and builds the
 * per-representation records of content.json (segment files and sizes; byte ranges from the sidx;
 * nominal vs measured bitrate). It is strict: a missing or extra segment, a gap or overlap between
 * byte ranges, a range that does not start at a movie fragment, or a disagreement between the sidx
 * and ffmpeg's SegmentList throws, so broken content is never marked complete.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import {
  ByteRange,
  ChunkedRepresentation,
  ChunkedSegment,
  RepresentationInfo,
  UnchunkedRepresentation,
  UnchunkedSegment,
} from './content-info';
import { CHUNKED_INIT_TEMPLATE, CHUNKED_MEDIA_TEMPLATE, expandTemplate, UNCHUNKED_FILE_TEMPLATE } from './ffmpeg-args';
import { parseSidx, readBytes, readSingleFileIndex, readTopLevelBoxes } from './mp4-boxes';
import { PackagerRepresentation } from './packager-mpd';
import { AUDIO, SEGMENT_DURATION_SEC, VIDEO_LADDER, VideoRung } from './recipe';

/** Nominal facts of one representation, before its segments are measured. */
type BaseInfo = Omit<RepresentationInfo, 'segmentCount' | 'mediaBytes' | 'mediaDurationSec' | 'measuredBitrate' | 'measuredToNominal'>;

/**
 * Pairs ffmpeg's representations with the recipe: video in ladder order (checked by picture size),
 * then the audio. Returns the nominal description of each.
 */
export function describeRepresentations(
  reps: PackagerRepresentation[],
  where: string,
  ladder: readonly VideoRung[] = VIDEO_LADDER,
): BaseInfo[] {
  const video = reps.filter((r) => r.contentType === 'video');
  const audio = reps.filter((r) => r.contentType === 'audio');
  if (video.length !== ladder.length || audio.length !== 1) {
    throw new Error(`${where}: expected ${ladder.length} video and 1 audio representations, found ${video.length} and ${audio.length}`);
  }
  const out: BaseInfo[] = video.map((r, i) => {
    const rung = ladder[i];
    if (r.width !== rung.width || r.height !== rung.height) {
      throw new Error(
        `${where}: video representation ${r.id} is ${r.width}x${r.height}, expected rung ${i} (${rung.width}x${rung.height})`,
      );
    }
    return {
      id: r.id,
      contentType: 'video',
      mimeType: r.mimeType,
      codecs: r.codecs,
      bandwidth: rung.bandwidth,
      width: r.width,
      height: r.height,
      frameRate: r.frameRate,
      segmentDurationSec: SEGMENT_DURATION_SEC,
    };
  });
  const a = audio[0];
  out.push({
    id: a.id,
    contentType: 'audio',
    mimeType: a.mimeType,
    codecs: a.codecs,
    bandwidth: AUDIO.bandwidth,
    audioSamplingRate: a.audioSamplingRate,
    audioChannels: a.audioChannels,
    segmentDurationSec: SEGMENT_DURATION_SEC,
  });
  return out;
}

function measured(base: BaseInfo, sizes: number[], durationsSec: number[]): RepresentationInfo {
  const mediaBytes = sizes.reduce((s, x) => s + x, 0);
  const mediaDurationSec = durationsSec.reduce((s, x) => s + x, 0);
  const measuredBitrate = Math.round((mediaBytes * 8) / mediaDurationSec);
  return {
    ...base,
    segmentCount: sizes.length,
    mediaBytes,
    mediaDurationSec: Number(mediaDurationSec.toFixed(6)),
    measuredBitrate,
    measuredToNominal: Number((measuredBitrate / base.bandwidth).toFixed(4)),
  };
}

/** How far a chunk's duration may differ from the same segment in the single file (seconds). */
const SEGMENT_TIMING_TOLERANCE_SEC = 0.05;

function round6(x: number): number {
  return Number(x.toFixed(6));
}

/** Measures one representation of the single-file layout in `dir`. */
export async function scanUnchunked(dir: string, base: BaseInfo, packager: PackagerRepresentation): Promise<UnchunkedRepresentation> {
  const file = expandTemplate(UNCHUNKED_FILE_TEMPLATE, base.id);
  const full = path.join(dir, file);
  if (packager.baseUrl !== file) throw new Error(`${full}: ffmpeg's manifest names "${packager.baseUrl}" for representation ${base.id}`);
  const index = await readSingleFileIndex(full);
  const { sidx } = index;
  const starts = new Map(index.boxes.map((b) => [b.start, b.type]));
  let expectStart = index.indexRange[1] + 1;
  let t = sidx.earliestPresentationTime;
  const segments: UnchunkedSegment[] = sidx.references.map((ref, i) => {
    if (ref.range[0] !== expectStart)
      throw new Error(`${full}: segment ${i + 1} starts at byte ${ref.range[0]}, expected ${expectStart} (gap or overlap)`);
    const type = starts.get(ref.range[0]);
    if (type !== 'moof' && type !== 'styp')
      throw new Error(
        `${full}: segment ${i + 1} at byte ${ref.range[0]} does not start with a moof/styp box (found ${type ?? 'no box boundary'})`,
      );
    expectStart = ref.range[1] + 1;
    const seg = {
      number: i + 1,
      range: ref.range,
      size: ref.size,
      startSec: round6(t / sidx.timescale),
      durationSec: round6(ref.durationTicks / sidx.timescale),
    };
    t += ref.durationTicks;
    return seg;
  });
  if (segments.length === 0) throw new Error(`${full}: the sidx lists no segments`);
  if (expectStart !== index.fileSize)
    throw new Error(`${full}: the last segment ends at byte ${expectStart - 1} but the file has ${index.fileSize} bytes`);
  const listed = packager.mediaRanges ?? [];
  const same = listed.length === segments.length && listed.every((r, i) => r[0] === segments[i].range[0] && r[1] === segments[i].range[1]);
  if (!same) {
    throw new Error(
      `${full}: the sidx byte ranges disagree with ffmpeg's SegmentList (${segments.length} vs ${listed.length} segments; ` +
        `first: ${JSON.stringify(segments[0]?.range)} vs ${JSON.stringify(listed[0])})`,
    );
  }
  const initRange: ByteRange = index.initRange;
  return {
    ...measured(
      base,
      segments.map((s) => s.size),
      segments.map((s) => s.durationSec),
    ),
    file,
    fileSize: index.fileSize,
    initRange,
    indexRange: index.indexRange,
    timescale: sidx.timescale,
    segments,
  };
}

/** Timing of one chunked segment from its own sidx, or undefined if it has none. */
async function segmentTiming(file: string): Promise<{ startSec: number; durationSec: number } | undefined> {
  const { boxes } = await readTopLevelBoxes(file);
  if (!boxes.some((b) => b.type === 'moof') || !boxes.some((b) => b.type === 'mdat')) {
    throw new Error(`${file}: not a media segment (no moof/mdat; boxes: ${boxes.map((b) => b.type).join(',')})`);
  }
  const sb = boxes.find((b) => b.type === 'sidx');
  if (!sb) return undefined;
  const sidx = parseSidx(await readBytes(file, sb.start, sb.size), sb.start, file);
  const ticks = sidx.references.reduce((s, r) => s + r.durationTicks, 0);
  return { startSec: round6(sidx.earliestPresentationTime / sidx.timescale), durationSec: round6(ticks / sidx.timescale) };
}

/**
 * Measures one representation of the one-file-per-segment layout in `dir`. `reference` is the same
 * representation in the unchunked layout (same encode): the segment counts must match, and its
 * timing is used where a chunk carries no sidx of its own. Chunks past that count that start at or
 * after `presentationEndSec` are returned in `beyondEnd` (ffmpeg's chunked audio can end with one
 * extra AAC frame at the end: a SegmentTemplate of that duration never addresses it).
 */
export async function scanChunked(
  dir: string,
  base: BaseInfo,
  reference: UnchunkedRepresentation,
  names: string[],
  presentationEndSec: number,
): Promise<{ representation: ChunkedRepresentation; beyondEnd: string[] }> {
  const initFile = expandTemplate(CHUNKED_INIT_TEMPLATE, base.id);
  const init = await fs.stat(path.join(dir, initFile)).catch(() => {
    throw new Error(`${path.join(dir, initFile)}: initialization segment missing`);
  });
  const prefix = expandTemplate(CHUNKED_MEDIA_TEMPLATE.split('$Number')[0], base.id);
  const suffix = CHUNKED_MEDIA_TEMPLATE.split('$Number%05d$')[1];
  const mine = new Set(
    names.filter((n) => n.startsWith(prefix) && n.endsWith(suffix) && /^\d+$/.test(n.slice(prefix.length, n.length - suffix.length))),
  );
  const count = reference.segments.length;
  const segments: ChunkedSegment[] = [];
  const beyondEnd: string[] = [];
  for (let n = 1; n <= mine.size; n++) {
    const file = expandTemplate(CHUNKED_MEDIA_TEMPLATE, base.id, n);
    const full = path.join(dir, file);
    if (!mine.has(file)) throw new Error(`${full}: segment ${n} missing (numbering must run 1..${mine.size})`);
    const size = (await fs.stat(full)).size;
    const own = await segmentTiming(full);
    if (n > count) {
      if (own && own.startSec >= presentationEndSec - 1e-6) {
        beyondEnd.push(file);
        continue;
      }
      throw new Error(
        `${dir}: representation ${base.id} has ${mine.size} segment files but the same encode's single file has ${count} segments`,
      );
    }
    const ref = reference.segments[n - 1];
    const timing = own ?? { startSec: ref.startSec, durationSec: ref.durationSec };
    // Same encode, same cut points, except that ffmpeg's two DASH modes account for the AAC priming
    // frame differently: audio boundaries may be one frame (21.3 ms at 48 kHz) apart.
    if (Math.abs(timing.durationSec - ref.durationSec) > SEGMENT_TIMING_TOLERANCE_SEC) {
      throw new Error(`${full}: lasts ${timing.durationSec} s but segment ${n} of ${reference.file} lasts ${ref.durationSec} s`);
    }
    segments.push({ number: n, file, size, ...timing });
  }
  if (segments.length !== count) {
    throw new Error(
      `${dir}: representation ${base.id} has ${segments.length} segment files but the same encode's single file has ${count} segments`,
    );
  }
  return {
    representation: {
      ...measured(
        base,
        segments.map((s) => s.size),
        segments.map((s) => s.durationSec),
      ),
      initialization: { file: initFile, size: init.size },
      segments,
    },
    beyondEnd,
  };
}

/** Total size of the regular files in `dir` (not recursive). */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    if (e.isFile()) total += (await fs.stat(path.join(dir, e.name))).size;
  }
  return total;
}
