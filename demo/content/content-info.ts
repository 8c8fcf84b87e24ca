/**
 * The schema of `content.json`, the sidecar written next to each generated content set. It tells the
 * origin, the tests, the evaluation and Sprint-x (paper §IV-B2, expanded range requests) where every
 * segment is: file names and sizes for the chunked layout, exact byte ranges for the unchunked one,
 * plus each representation's nominal and measured bitrate.
 *
 * Paths are relative to the set folder (`demo/media/<set>/`). Byte ranges are inclusive
 * [first, last], as in an HTTP Range header. Bitrates are bit/s, durations seconds.
 */
import { promises as fs } from 'fs';

export type ByteRange = [number, number];

export const CONTENT_FORMAT = 'sprint-demo-content';
export const CONTENT_VERSION = 1;

export interface RepresentationInfo {
  /** Representation@id in the manifest (ffmpeg's stream index: "0".."4" video, "5" audio). */
  id: string;
  contentType: 'video' | 'audio';
  mimeType: string;
  /** RFC 6381 codecs string, e.g. "avc1.64001f" or "mp4a.40.2". */
  codecs: string;
  /** Nominal bitrate (bit/s), as in Representation@bandwidth. */
  bandwidth: number;
  width?: number;
  height?: number;
  frameRate?: number;
  audioSamplingRate?: number;
  audioChannels?: number;
  /** Nominal segment duration (seconds); the last segment may be shorter. */
  segmentDurationSec: number;
  segmentCount: number;
  /** Sum of the media segments' bytes (no init, no index). */
  mediaBytes: number;
  /** Sum of the media segments' durations (seconds), from their sidx. */
  mediaDurationSec: number;
  /** mediaBytes * 8 / mediaDurationSec. */
  measuredBitrate: number;
  /** measuredBitrate / bandwidth. */
  measuredToNominal: number;
}

export interface ChunkedSegment {
  /** Segment number ($Number$), from 1. */
  number: number;
  file: string;
  size: number;
  startSec: number;
  durationSec: number;
}

export interface ChunkedRepresentation extends RepresentationInfo {
  initialization: { file: string; size: number };
  segments: ChunkedSegment[];
}

export interface UnchunkedSegment {
  /** Segment number, from 1 (position in the sidx). */
  number: number;
  range: ByteRange;
  size: number;
  startSec: number;
  durationSec: number;
}

export interface UnchunkedRepresentation extends RepresentationInfo {
  file: string;
  fileSize: number;
  /** ftyp + moov (SegmentBase Initialization@range). */
  initRange: ByteRange;
  /** The sidx box (SegmentBase@indexRange). */
  indexRange: ByteRange;
  /** sidx timescale (ticks per second). */
  timescale: number;
  segments: UnchunkedSegment[];
}

export interface ChunkedLayout {
  /** The manifest to serve (SegmentTemplate, 4-second $Number$ segments). */
  manifest: string;
  addressing: 'SegmentTemplate';
  /** ffmpeg's own manifest, kept for cross-checks (its bandwidths are measured, not nominal). */
  packagerManifest: string;
  representations: ChunkedRepresentation[];
}

export interface UnchunkedLayout {
  /** The manifest to serve (SegmentBase with indexRange: the player reads the sidx). */
  manifest: string;
  addressing: 'SegmentBase';
  /** ffmpeg's own manifest: SegmentList with mediaRange per segment (also playable). */
  packagerManifest: string;
  representations: UnchunkedRepresentation[];
}

export interface ContentInfo {
  format: typeof CONTENT_FORMAT;
  version: typeof CONTENT_VERSION;
  set: string;
  /** Requested (= encoded) duration in seconds. */
  durationSec: number;
  segmentDurationSec: number;
  /** recipeFingerprint() of the generator that made it. */
  recipe: string;
  generatedAt: string;
  generator: {
    ffmpeg: string;
    encodeWallSec: number;
    packageWallSec: number;
    totalWallSec: number;
  };
  /** Total bytes of each layout folder (manifests included). */
  bytes: { chunked: number; unchunked: number };
  layouts: { chunked: ChunkedLayout; unchunked: UnchunkedLayout };
}

/** Reads and sanity-checks a content.json; throws naming the file if it is not one. */
export async function readContentInfo(file: string): Promise<ContentInfo> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: not a readable content.json: ${(e as Error).message}`);
  }
  const info = parsed as Partial<ContentInfo>;
  if (info.format !== CONTENT_FORMAT || info.version !== CONTENT_VERSION) {
    throw new Error(
      `${file}: not a ${CONTENT_FORMAT} v${CONTENT_VERSION} file (format=${String(info.format)}, version=${String(info.version)})`,
    );
  }
  if (!info.layouts?.chunked?.representations?.length || !info.layouts?.unchunked?.representations?.length) {
    throw new Error(`${file}: has no representations`);
  }
  return info as ContentInfo;
}
