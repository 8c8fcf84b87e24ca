/**
 * HLS playlists of a content set, written beside each layout's manifest.mpd from content.json, so
 * hls.js plays the very bytes the DASH players play:
 *  - master.m3u8: one variant per video rung, audio as an EXT-X-MEDIA rendition;
 *  - <id>.m3u8: a VOD media playlist per representation, fMP4 with EXT-X-MAP. The chunked layout
 *    names each segment's file, the unchunked one addresses the representation's file by
 *    EXT-X-BYTERANGE (the ranges its sidx gives, as the DASH players ask for them).
 * A variant's BANDWIDTH is its video rung's nominal rate plus the audio's (HLS counts every
 * rendition a variant plays); the audio's nominal rate is also given as session data
 * (AUDIO_BANDWIDTH_DATA_ID), so a page can report the video rung's rate as the DASH players do.
 */
import { promises as fs } from 'fs';
import * as path from 'path';
import type { ChunkedRepresentation, ContentInfo, RepresentationInfo, UnchunkedRepresentation } from './content-info';
import { AUDIO_BANDWIDTH_DATA_ID } from './hls-session-data';

/** Master playlist file name in each layout folder. */
export const HLS_MASTER = 'master.m3u8';

const quoted = (s: string): string => `"${s.replace(/"/g, "'")}"`;

function mediaPlaylist(segmentLines: string[], durations: number[], map: string): string {
  return [
    '#EXTM3U',
    '#EXT-X-VERSION:7',
    `#EXT-X-TARGETDURATION:${Math.max(1, ...durations.map((d) => Math.round(d)))}`,
    '#EXT-X-MEDIA-SEQUENCE:1',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    '#EXT-X-INDEPENDENT-SEGMENTS',
    map,
    ...segmentLines,
    '#EXT-X-ENDLIST',
    '',
  ].join('\n');
}

/** Media playlist of one chunked representation: a file per segment. */
export function chunkedMediaPlaylist(r: ChunkedRepresentation): string {
  const lines = r.segments.flatMap((s) => [`#EXTINF:${s.durationSec.toFixed(6)},`, s.file]);
  return mediaPlaylist(
    lines,
    r.segments.map((s) => s.durationSec),
    `#EXT-X-MAP:URI=${quoted(r.initialization.file)}`,
  );
}

/** Media playlist of one unchunked representation: byte ranges of its one file. */
export function unchunkedMediaPlaylist(r: UnchunkedRepresentation): string {
  const byteRange = ([first, last]: readonly [number, number]): string => `${last - first + 1}@${first}`;
  const lines = r.segments.flatMap((s) => [`#EXTINF:${s.durationSec.toFixed(6)},`, `#EXT-X-BYTERANGE:${byteRange(s.range)}`, r.file]);
  return mediaPlaylist(
    lines,
    r.segments.map((s) => s.durationSec),
    `#EXT-X-MAP:URI=${quoted(r.file)},BYTERANGE=${quoted(byteRange(r.initRange))}`,
  );
}

/** Media playlist file name of a representation. */
export function mediaPlaylistName(r: RepresentationInfo): string {
  return `${r.id}.m3u8`;
}

/** Master playlist: every video rung a variant, the (first) audio representation their audio. */
export function masterPlaylist(reps: readonly RepresentationInfo[]): string {
  const video = reps.filter((r) => r.contentType === 'video').sort((a, b) => a.bandwidth - b.bandwidth);
  const audio = reps.find((r) => r.contentType === 'audio');
  const lines = ['#EXTM3U', '#EXT-X-VERSION:7', '#EXT-X-INDEPENDENT-SEGMENTS'];
  if (audio) {
    lines.push(`#EXT-X-SESSION-DATA:DATA-ID=${quoted(AUDIO_BANDWIDTH_DATA_ID)},VALUE=${quoted(String(audio.bandwidth))}`);
    lines.push(
      `#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="audio",DEFAULT=YES,AUTOSELECT=YES` +
        `${audio.audioChannels ? `,CHANNELS="${audio.audioChannels}"` : ''},URI=${quoted(mediaPlaylistName(audio))}`,
    );
  }
  for (const v of video) {
    const attrs = [
      `BANDWIDTH=${v.bandwidth + (audio?.bandwidth ?? 0)}`,
      `CODECS=${quoted([v.codecs, ...(audio ? [audio.codecs] : [])].join(','))}`,
      ...(v.width && v.height ? [`RESOLUTION=${v.width}x${v.height}`] : []),
      ...(v.frameRate ? [`FRAME-RATE=${v.frameRate.toFixed(3)}`] : []),
      ...(audio ? ['AUDIO="audio"'] : []),
    ];
    lines.push(`#EXT-X-STREAM-INF:${attrs.join(',')}`, mediaPlaylistName(v));
  }
  lines.push('');
  return lines.join('\n');
}

/** Every playlist of a content set: path relative to the set folder → text. */
export function hlsPlaylists(info: ContentInfo): Map<string, string> {
  const out = new Map<string, string>();
  const { chunked, unchunked } = info.layouts;
  const chunkedDir = path.posix.dirname(chunked.manifest);
  const unchunkedDir = path.posix.dirname(unchunked.manifest);
  out.set(path.posix.join(chunkedDir, HLS_MASTER), masterPlaylist(chunked.representations));
  for (const r of chunked.representations) out.set(path.posix.join(chunkedDir, mediaPlaylistName(r)), chunkedMediaPlaylist(r));
  out.set(path.posix.join(unchunkedDir, HLS_MASTER), masterPlaylist(unchunked.representations));
  for (const r of unchunked.representations) out.set(path.posix.join(unchunkedDir, mediaPlaylistName(r)), unchunkedMediaPlaylist(r));
  return out;
}

/**
 * Writes the set's playlists into `dir` where missing or different (a set made before playlists
 * existed gets them without a new encode). Each file is written aside and renamed into place, so a
 * reader never sees half a playlist. Returns the paths written.
 */
export async function writeHlsPlaylists(dir: string, info: ContentInfo): Promise<string[]> {
  const written: string[] = [];
  for (const [rel, text] of hlsPlaylists(info)) {
    const file = path.join(dir, rel);
    const current = await fs.readFile(file, 'utf8').catch(() => null);
    if (current === text) continue;
    await fs.mkdir(path.dirname(file), { recursive: true });
    const aside = `${file}.tmp-${process.pid}`;
    await fs.writeFile(aside, text);
    await fs.rename(aside, file);
    written.push(rel);
  }
  return written;
}
