/**
 * Demo content generator: makes a DASH content set (a near-CBR H.264 ladder of 4-second segments
 * plus AAC audio, paper §V's setting) in two layouts from ONE encode, only when it is missing.
 *
 *   demo/media/<set>/chunked/manifest.mpd     one file per segment (SegmentTemplate)
 *   demo/media/<set>/unchunked/manifest.mpd   one file per representation, byte ranges (SegmentBase + sidx)
 *   demo/media/<set>/<layout>/master.m3u8     HLS playlists of the same files (hls-write.ts)
 *   demo/media/<set>/content.json             every segment's file/size or byte range (content-info.ts)
 *   demo/media/<set>/.complete                completion marker, written last
 *
 * A set counts as present only if its marker matches the requested duration and the current recipe.
 * Otherwise it is generated into a temporary folder next to it and renamed into place, so a
 * half-finished generation is redone, never served. A lock file keeps two processes from generating
 * the same set at once.
 */
import { existsSync, promises as fs } from 'fs';
import * as path from 'path';
import { CONTENT_FORMAT, CONTENT_VERSION, ContentInfo, readContentInfo, UnchunkedRepresentation } from './content-info';
import {
  CHUNKED_INIT_TEMPLATE,
  CHUNKED_MEDIA_TEMPLATE,
  encodeArgs,
  packageChunkedArgs,
  packageUnchunkedArgs,
  recipeFingerprint,
} from './ffmpeg-args';
import { ffmpegVersion, runFfmpeg } from './ffmpeg-run';
import { describeRepresentations, folderBytes, scanChunked, scanUnchunked } from './layout-scan';
import { writeHlsPlaylists } from './hls-write';
import { writeChunkedMpd, writeUnchunkedMpd } from './mpd-write';
import { readPackagerMpd } from './packager-mpd';
import { DEFAULT_DURATION_SEC, SEGMENT_DURATION_SEC, setRecipe } from './recipe';

export * from './content-info';

export interface EnsureContentOptions {
  /** Content set name: 'demo' (600 s by default), 'test' (120 s) or any [A-Za-z0-9_-] name (120 s). */
  set: 'demo' | 'test' | string;
  /** Length in seconds (>= one segment, <= 4 h). Default from DEFAULT_DURATION_SEC. */
  durationSec?: number;
  /** Folder holding the sets. Default: <repository>/demo/media. */
  mediaRoot?: string;
  /** Progress lines (no trailing newline). Default: silent. */
  log?: (line: string) => void;
  /** Regenerate even if a complete set is present. */
  force?: boolean;
  /** ffmpeg executable. Default: $FFMPEG or "ffmpeg" on PATH. */
  ffmpegPath?: string;
}

export const CONTENT_FILE = 'content.json';
export const MARKER_FILE = '.complete';
const LOCK_WAIT_MS = 30 * 60 * 1000;
const LOCK_POLL_MS = 500;
const MAX_DURATION_SEC = 4 * 3600;

interface Marker {
  recipe: string;
  durationSec: number;
  completedAt: string;
}

/** <repository>/demo/media, found from this file's location (works from demo/ and from dist/demo/). */
export function defaultMediaRoot(): string {
  let dir = __dirname;
  for (let i = 0; i < 10; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'demo', 'media');
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error(`cannot find the repository root (a folder with package.json) above ${__dirname}; pass mediaRoot`);
}

/** Folder of a content set. */
export function contentDir(set: string, mediaRoot: string = defaultMediaRoot()): string {
  return path.join(mediaRoot, checkSetName(set));
}

function checkSetName(set: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(set)) {
    throw new Error(`content set name "${set}" is not allowed: use letters, digits, '-' and '_' (e.g. demo, test)`);
  }
  return set;
}

function checkDuration(set: string, durationSec: number | undefined): number {
  const d = durationSec ?? DEFAULT_DURATION_SEC[set] ?? DEFAULT_DURATION_SEC.test;
  if (!Number.isFinite(d) || d < SEGMENT_DURATION_SEC || d > MAX_DURATION_SEC) {
    throw new Error(
      `content duration ${durationSec} s for set "${set}" is out of range: use ${SEGMENT_DURATION_SEC}..${MAX_DURATION_SEC} seconds`,
    );
  }
  if (Math.round(d * 1000) !== d * 1000) throw new Error(`content duration ${d} s: use at most millisecond precision`);
  return d;
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

/** The content.json of a complete, current set in `dir`, or a reason why it is not usable. */
async function presentContent(dir: string, set: string, durationSec: number): Promise<ContentInfo | string> {
  let marker: Marker;
  try {
    marker = JSON.parse(await fs.readFile(path.join(dir, MARKER_FILE), 'utf8')) as Marker;
  } catch {
    return (await exists(dir)) ? 'it has no completion marker (unfinished generation)' : 'it does not exist';
  }
  if (marker.recipe !== recipeFingerprint(set)) return `it was made by another recipe (${marker.recipe}, now ${recipeFingerprint(set)})`;
  if (marker.durationSec !== durationSec) return `it is ${marker.durationSec} s long, ${durationSec} s requested`;
  try {
    return await readContentInfo(path.join(dir, CONTENT_FILE));
  } catch (e) {
    return `its ${CONTENT_FILE} is unusable (${(e as Error).message})`;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `<root>/.<set>.lock` (O_EXCL, holds our pid); waits for a live holder, breaks a dead one's. */
async function acquireLock(root: string, set: string, log: (l: string) => void): Promise<() => Promise<void>> {
  const lock = path.join(root, `.${set}.lock`);
  const deadline = Date.now() + LOCK_WAIT_MS;
  let said = false;
  for (;;) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rm(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot create lock ${lock}: ${(e as Error).message}`);
    }
    const holder = Number(await fs.readFile(lock, 'utf8').catch(() => ''));
    if (!Number.isInteger(holder) || holder <= 0 || !pidAlive(holder)) {
      log(`content[${set}]: removing stale lock ${lock} (holder ${holder || 'unknown'} is gone)`);
      await fs.rm(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`content set "${set}": still locked by pid ${holder} after ${LOCK_WAIT_MS / 60000} min (${lock})`);
    if (!said) log(`content[${set}]: waiting for pid ${holder}, which is generating it`);
    said = true;
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}

/** Removes leftovers of earlier runs (.<set>.tmp-* / .<set>.old-*) whose process is gone. */
async function removeLeftovers(root: string, set: string, log: (l: string) => void): Promise<void> {
  for (const name of await fs.readdir(root)) {
    const m = new RegExp(`^\\.${set}\\.(tmp|old)-(\\d+)-`).exec(name);
    if (m && (Number(m[2]) === process.pid || !pidAlive(Number(m[2])))) {
      log(`content[${set}]: removing leftover ${name}`);
      await fs.rm(path.join(root, name), { recursive: true, force: true });
    }
  }
}

function secs(ms: number): number {
  return Number((ms / 1000).toFixed(1));
}

/** Encodes once, packages twice, measures, writes manifests + content.json + marker, all in `work`. */
async function generateInto(
  work: string,
  set: string,
  durationSec: number,
  ffmpeg: string,
  log: (l: string) => void,
): Promise<ContentInfo> {
  const t0 = Date.now();
  const version = await ffmpegVersion(ffmpeg);
  const chunkedDir = path.join(work, 'chunked');
  const unchunkedDir = path.join(work, 'unchunked');
  await fs.mkdir(chunkedDir, { recursive: true });
  await fs.mkdir(unchunkedDir, { recursive: true });
  const intermediate = path.join(work, 'encode.mp4');

  const recipe = setRecipe(set);
  const rungs = recipe.ladder.map((r) => `${r.bandwidth / 1000}k@${r.width}x${r.height}`).join(', ');
  log(`content[${set}]: encoding ${durationSec} s once (${version.split(' ').slice(0, 3).join(' ')}): video ${rungs}; audio AAC`);
  let nextReport = 0;
  await runFfmpeg(ffmpeg, encodeArgs(durationSec, intermediate, recipe), {
    label: 'encode',
    onProgressSec: (sec) => {
      const pct = Math.min(100, Math.floor((100 * sec) / durationSec));
      if (pct >= nextReport) {
        const speed = sec / Math.max(0.001, (Date.now() - t0) / 1000);
        log(`content[${set}]: encode ${pct}% (${sec.toFixed(0)}/${durationSec} s of media, ${speed.toFixed(2)}x realtime)`);
        nextReport = pct + 10;
      }
    },
  });
  const t1 = Date.now();
  log(`content[${set}]: encoded in ${secs(t1 - t0)} s; packaging both layouts with -c copy`);
  await runFfmpeg(ffmpeg, packageChunkedArgs(intermediate, 'ffmpeg.mpd'), { label: 'package chunked', cwd: chunkedDir });
  await runFfmpeg(ffmpeg, packageUnchunkedArgs(intermediate, 'ffmpeg.mpd'), { label: 'package unchunked', cwd: unchunkedDir });
  await fs.rm(intermediate);
  const t2 = Date.now();

  const chunkedMpd = path.join(chunkedDir, 'ffmpeg.mpd');
  const unchunkedMpd = path.join(unchunkedDir, 'ffmpeg.mpd');
  const chunkedPackager = readPackagerMpd(await fs.readFile(chunkedMpd, 'utf8'), chunkedMpd);
  const unchunkedPackager = readPackagerMpd(await fs.readFile(unchunkedMpd, 'utf8'), unchunkedMpd);
  const bases = describeRepresentations(unchunkedPackager, unchunkedMpd, recipe.ladder);
  const chunkedIds = describeRepresentations(chunkedPackager, chunkedMpd, recipe.ladder)
    .map((b) => `${b.id}:${b.codecs}`)
    .join(' ');
  if (chunkedIds !== bases.map((b) => `${b.id}:${b.codecs}`).join(' ')) {
    throw new Error(`the two packaging runs disagree on representations: chunked ${chunkedIds}`);
  }

  const unchunked: UnchunkedRepresentation[] = [];
  for (const [i, base] of bases.entries()) unchunked.push(await scanUnchunked(unchunkedDir, base, unchunkedPackager[i]));
  const chunkNames = await fs.readdir(chunkedDir);
  const chunked = [];
  for (const [i, base] of bases.entries()) {
    const { representation, beyondEnd } = await scanChunked(chunkedDir, base, unchunked[i], chunkNames, durationSec);
    for (const f of beyondEnd) {
      log(`content[${set}]: removing chunked/${f}: it starts at the end of the presentation (unaddressable)`);
      await fs.rm(path.join(chunkedDir, f));
    }
    chunked.push(representation);
  }

  await fs.writeFile(
    path.join(chunkedDir, 'manifest.mpd'),
    writeChunkedMpd({
      set,
      durationSec,
      segmentDurationSec: SEGMENT_DURATION_SEC,
      initTemplate: CHUNKED_INIT_TEMPLATE,
      mediaTemplate: CHUNKED_MEDIA_TEMPLATE,
      representations: chunked,
    }),
  );
  await fs.writeFile(
    path.join(unchunkedDir, 'manifest.mpd'),
    writeUnchunkedMpd({
      set,
      durationSec,
      segmentDurationSec: SEGMENT_DURATION_SEC,
      representations: unchunked,
    }),
  );

  const info: ContentInfo = {
    format: CONTENT_FORMAT,
    version: CONTENT_VERSION,
    set,
    durationSec,
    segmentDurationSec: SEGMENT_DURATION_SEC,
    recipe: recipeFingerprint(set),
    generatedAt: new Date().toISOString(),
    generator: { ffmpeg: version, encodeWallSec: secs(t1 - t0), packageWallSec: secs(t2 - t1), totalWallSec: secs(Date.now() - t0) },
    bytes: { chunked: await folderBytes(chunkedDir), unchunked: await folderBytes(unchunkedDir) },
    layouts: {
      chunked: {
        manifest: 'chunked/manifest.mpd',
        addressing: 'SegmentTemplate',
        packagerManifest: 'chunked/ffmpeg.mpd',
        representations: chunked,
      },
      unchunked: {
        manifest: 'unchunked/manifest.mpd',
        addressing: 'SegmentBase',
        packagerManifest: 'unchunked/ffmpeg.mpd',
        representations: unchunked,
      },
    },
  };
  await fs.writeFile(path.join(work, CONTENT_FILE), JSON.stringify(info, null, 1) + '\n');
  const marker: Marker = { recipe: info.recipe, durationSec, completedAt: new Date().toISOString() };
  await fs.writeFile(path.join(work, MARKER_FILE), JSON.stringify(marker) + '\n');
  for (const r of unchunked) {
    log(
      `content[${set}]: rep ${r.id} ${r.contentType} nominal ${r.bandwidth} bit/s, measured ${r.measuredBitrate} (x${r.measuredToNominal}), ${r.segmentCount} segments, ${r.fileSize} bytes`,
    );
  }
  return info;
}

/** The set's HLS playlists written (where missing or stale) before its content.json is handed out. */
async function withPlaylists(dir: string, info: ContentInfo): Promise<ContentInfo> {
  await writeHlsPlaylists(dir, info);
  return info;
}

/**
 * Returns the content set `opts.set`, generating it first if it is missing, unfinished, of another
 * duration or made by another recipe (or if `force`). Resolves to the parsed content.json.
 */
export async function ensureContent(opts: EnsureContentOptions): Promise<ContentInfo> {
  const set = checkSetName(opts.set);
  const durationSec = checkDuration(set, opts.durationSec);
  const log = opts.log ?? ((): void => undefined);
  const root = path.resolve(opts.mediaRoot ?? defaultMediaRoot());
  const dir = path.join(root, set);
  const ffmpeg = opts.ffmpegPath ?? process.env.FFMPEG ?? 'ffmpeg';

  if (!opts.force) {
    const present = await presentContent(dir, set, durationSec);
    if (typeof present !== 'string') return withPlaylists(dir, present);
    log(`content[${set}]: generating into ${dir}: ${present}`);
  } else {
    log(`content[${set}]: generating into ${dir} (forced)`);
  }

  await fs.mkdir(root, { recursive: true });
  const release = await acquireLock(root, set, log);
  try {
    if (!opts.force) {
      const present = await presentContent(dir, set, durationSec); // another process may have made it meanwhile
      if (typeof present !== 'string') return withPlaylists(dir, present);
    }
    await removeLeftovers(root, set, log);
    const stamp = `${process.pid}-${Date.now()}`;
    const work = path.join(root, `.${set}.tmp-${stamp}`);
    await fs.mkdir(work);
    let info: ContentInfo;
    try {
      info = await generateInto(work, set, durationSec, ffmpeg, log);
    } catch (e) {
      await fs.rm(work, { recursive: true, force: true });
      throw e;
    }
    if (await exists(dir)) {
      const old = path.join(root, `.${set}.old-${stamp}`);
      await fs.rename(dir, old);
      await fs.rm(old, { recursive: true, force: true });
    }
    await fs.rename(work, dir);
    log(
      `content[${set}]: ready in ${info.generator.totalWallSec} s: ${dir} ` +
        `(chunked ${(info.bytes.chunked / 1e6).toFixed(1)} MB, unchunked ${(info.bytes.unchunked / 1e6).toFixed(1)} MB)`,
    );
    return withPlaylists(dir, info);
  } finally {
    await release();
  }
}
