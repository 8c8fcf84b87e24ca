/**
 * A tiny, strict reader for the few ISO-BMFF (MP4) boxes the demo content needs: the top-level box
 * list of a file and the segment index box `sidx` (ISO/IEC 14496-12 §8.16.3).
 *
 * Why: the unchunked layout addresses media by byte ranges (paper §IV-B2, Sprint-x expands those
 * ranges), so every media segment's [start, end] must be known exactly. They are read here from the
 * sidx that ffmpeg writes after the moov, not guessed. "Strict" means: any box that does not fit in
 * its file, any truncated or unsupported sidx, throws an Error that names the file and byte offset.
 *
 * Byte ranges are inclusive [first, last], as in an HTTP Range header.
 */
import { promises as fs } from 'fs';

/** One box as found in a file. `start` is the offset of its first header byte. */
export interface BoxHeader {
  type: string;
  /** File offset of the box header. */
  start: number;
  /** Whole box size in bytes, header included. */
  size: number;
  /** 8, or 16 with a 64-bit largesize. */
  headerSize: number;
}

/** One reference of a sidx: a media subsegment (for ffmpeg's DASH output, one segment). */
export interface SidxReference {
  /** Inclusive byte range of the subsegment in the file. */
  range: [number, number];
  size: number;
  /** Subsegment duration in `timescale` ticks. */
  durationTicks: number;
  startsWithSap: boolean;
}

export interface Sidx {
  version: number;
  referenceId: number;
  timescale: number;
  earliestPresentationTime: number;
  firstOffset: number;
  references: SidxReference[];
}

/** Layout of a single-file (on-demand) representation: init, index and media by byte range. */
export interface SingleFileIndex {
  fileSize: number;
  boxes: BoxHeader[];
  /** ftyp + moov: everything before the sidx. */
  initRange: [number, number];
  /** The sidx box itself. */
  indexRange: [number, number];
  sidx: Sidx;
}

const MAX_BOXES = 1_000_000;

function fail(where: string, offset: number, what: string): never {
  throw new Error(`${where}: at byte ${offset}: ${what}`);
}

function boxType(bytes: Uint8Array, where: string, offset: number): string {
  for (const b of bytes) {
    if (b < 0x20 || b > 0x7e)
      fail(where, offset, `box type is not printable (bytes ${Buffer.from(bytes).toString('hex')}): not an MP4 box`);
  }
  return Buffer.from(bytes).toString('latin1');
}

function toSafeNumber(v: bigint, where: string, offset: number, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) fail(where, offset, `${what} ${v} is too large`);
  return Number(v);
}

/**
 * Parses one box header from `header` (at least 8 bytes; 16 if a largesize follows).
 * `offset` is the header's position in the file, `limit` the end of the enclosing space.
 */
function parseHeader(header: Buffer, offset: number, limit: number, where: string): BoxHeader {
  if (header.length < 8) fail(where, offset, `truncated box header (${limit - offset} bytes left, need 8)`);
  const size32 = header.readUInt32BE(0);
  const type = boxType(header.subarray(4, 8), where, offset);
  let size: number;
  let headerSize = 8;
  if (size32 === 1) {
    if (header.length < 16) fail(where, offset, `truncated 64-bit size of box '${type}'`);
    size = toSafeNumber(header.readBigUInt64BE(8), where, offset, `size of box '${type}'`);
    headerSize = 16;
  } else if (size32 === 0) {
    size = limit - offset; // extends to the end of the file
  } else {
    size = size32;
  }
  if (size < headerSize) fail(where, offset, `box '${type}' claims ${size} bytes, less than its own ${headerSize}-byte header`);
  if (offset + size > limit) {
    fail(where, offset, `box '${type}' claims ${size} bytes but only ${limit - offset} remain`);
  }
  return { type, start: offset, size, headerSize };
}

/** Lists the boxes in `buf` (e.g. a whole small file, or a box's payload). `base` = file offset of buf[0]. */
export function listBoxes(buf: Buffer, where: string, base = 0): BoxHeader[] {
  const boxes: BoxHeader[] = [];
  let pos = 0;
  while (pos < buf.length) {
    if (boxes.length >= MAX_BOXES) fail(where, base + pos, `more than ${MAX_BOXES} boxes`);
    const h = parseHeader(buf.subarray(pos, pos + 16), base + pos, base + buf.length, where);
    boxes.push(h);
    pos += h.size;
  }
  return boxes;
}

/** Lists the top-level boxes of a file without reading the media data (positional header reads only). */
export async function readTopLevelBoxes(file: string): Promise<{ fileSize: number; boxes: BoxHeader[] }> {
  const fh = await fs.open(file, 'r');
  try {
    const fileSize = (await fh.stat()).size;
    const boxes: BoxHeader[] = [];
    const header = Buffer.alloc(16);
    let pos = 0;
    while (pos < fileSize) {
      if (boxes.length >= MAX_BOXES) fail(file, pos, `more than ${MAX_BOXES} boxes`);
      const { bytesRead } = await fh.read(header, 0, Math.min(16, fileSize - pos), pos);
      const h = parseHeader(header.subarray(0, bytesRead), pos, fileSize, file);
      boxes.push(h);
      pos += h.size;
    }
    return { fileSize, boxes };
  } finally {
    await fh.close();
  }
}

/** Reads `length` bytes at `offset` of `file`, failing if the file is shorter. */
export async function readBytes(file: string, offset: number, length: number): Promise<Buffer> {
  const fh = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    if (bytesRead !== length) fail(file, offset, `wanted ${length} bytes, file has only ${bytesRead} there`);
    return buf;
  } finally {
    await fh.close();
  }
}

/**
 * Parses a whole `sidx` box (header included) that sits at file offset `boxStart`.
 * Reference byte ranges are absolute file offsets: they start at the first byte after the sidx
 * plus first_offset (ISO/IEC 14496-12 §8.16.3.3). Hierarchical sidx (reference_type 1) is refused.
 */
export function parseSidx(box: Buffer, boxStart: number, where: string): Sidx {
  const h = parseHeader(box.subarray(0, 16), boxStart, boxStart + box.length, where);
  if (h.type !== 'sidx') fail(where, boxStart, `expected a 'sidx' box, found '${h.type}'`);
  if (h.size !== box.length) fail(where, boxStart, `sidx box is ${h.size} bytes but ${box.length} were given`);
  let p = h.headerSize;
  const need = (n: number, what: string): void => {
    if (p + n > box.length) fail(where, boxStart + p, `sidx truncated while reading ${what}`);
  };
  need(4, 'version/flags');
  const version = box.readUInt8(p);
  if (version > 1) fail(where, boxStart + p, `unsupported sidx version ${version}`);
  p += 4;
  need(8, 'reference_ID/timescale');
  const referenceId = box.readUInt32BE(p);
  const timescale = box.readUInt32BE(p + 4);
  if (timescale === 0) fail(where, boxStart + p + 4, 'sidx timescale is 0');
  p += 8;
  let earliestPresentationTime: number;
  let firstOffset: number;
  if (version === 0) {
    need(8, 'earliest_presentation_time/first_offset');
    earliestPresentationTime = box.readUInt32BE(p);
    firstOffset = box.readUInt32BE(p + 4);
    p += 8;
  } else {
    need(16, 'earliest_presentation_time/first_offset');
    earliestPresentationTime = toSafeNumber(box.readBigUInt64BE(p), where, boxStart + p, 'earliest_presentation_time');
    firstOffset = toSafeNumber(box.readBigUInt64BE(p + 8), where, boxStart + p + 8, 'first_offset');
    p += 16;
  }
  need(4, 'reference_count');
  const count = box.readUInt16BE(p + 2);
  p += 4;
  if (p + count * 12 !== box.length) {
    fail(where, boxStart + p, `sidx declares ${count} references (${count * 12} bytes) but has ${box.length - p} bytes left`);
  }
  const references: SidxReference[] = [];
  let next = boxStart + h.size + firstOffset;
  for (let i = 0; i < count; i++, p += 12) {
    const word = box.readUInt32BE(p);
    if (word >>> 31 === 1) fail(where, boxStart + p, `sidx reference ${i} points to another sidx (hierarchical index): not supported`);
    const size = word & 0x7fffffff;
    if (size === 0) fail(where, boxStart + p, `sidx reference ${i} has size 0`);
    const durationTicks = box.readUInt32BE(p + 4);
    const startsWithSap = box.readUInt32BE(p + 8) >>> 31 === 1;
    references.push({ range: [next, next + size - 1], size, durationTicks, startsWithSap });
    next += size;
  }
  return { version, referenceId, timescale, earliestPresentationTime, firstOffset, references };
}

/**
 * Reads the index of a single-file representation: the one top-level sidx, what precedes it (the
 * initialization range) and the media ranges it lists, checked to lie inside the file.
 */
export async function readSingleFileIndex(file: string): Promise<SingleFileIndex> {
  const { fileSize, boxes } = await readTopLevelBoxes(file);
  const sidxBoxes = boxes.filter((b) => b.type === 'sidx');
  if (sidxBoxes.length !== 1) fail(file, 0, `expected exactly one top-level sidx, found ${sidxBoxes.length}`);
  const sb = sidxBoxes[0];
  if (!boxes.some((b) => b.type === 'moov' && b.start < sb.start)) fail(file, sb.start, 'no moov box before the sidx');
  const sidx = parseSidx(await readBytes(file, sb.start, sb.size), sb.start, file);
  for (const [i, r] of sidx.references.entries()) {
    if (r.range[1] >= fileSize)
      fail(file, r.range[0], `sidx reference ${i} ends at byte ${r.range[1]}, past the end of the ${fileSize}-byte file`);
  }
  return {
    fileSize,
    boxes,
    initRange: [0, sb.start - 1],
    indexRange: [sb.start, sb.start + sb.size - 1],
    sidx,
  };
}
