/**
 * Tests for the strict MP4 box / sidx reader (demo/content/mp4-boxes.ts) on hand-built boxes:
 * absolute byte ranges from a sidx (versions 0 and 1), 64-bit box sizes, and clear errors for
 * truncated, oversized, hierarchical or inconsistent input. The reader on real ffmpeg output is
 * covered by generate.test.ts.
 */
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { listBoxes, parseSidx, readSingleFileIndex, readTopLevelBoxes } from '../../../demo/content/mp4-boxes';

function box(type: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt32BE(8 + payload.length, 0);
  h.write(type, 4, 'latin1');
  return Buffer.concat([h, payload]);
}

interface Ref {
  size: number;
  duration: number;
  hierarchical?: boolean;
}

function sidxBox(version: 0 | 1, timescale: number, ept: number, firstOffset: number, refs: Ref[], countOverride?: number): Buffer {
  const head = Buffer.alloc(4 + 8 + (version === 0 ? 8 : 16) + 4);
  let p = 0;
  head.writeUInt8(version, p);
  p += 4;
  head.writeUInt32BE(1, p);
  head.writeUInt32BE(timescale, p + 4);
  p += 8;
  if (version === 0) {
    head.writeUInt32BE(ept, p);
    head.writeUInt32BE(firstOffset, p + 4);
    p += 8;
  } else {
    head.writeBigUInt64BE(BigInt(ept), p);
    head.writeBigUInt64BE(BigInt(firstOffset), p + 8);
    p += 16;
  }
  head.writeUInt16BE(countOverride ?? refs.length, p + 2);
  const body = Buffer.alloc(12 * refs.length);
  refs.forEach((r, i) => {
    body.writeUInt32BE(((r.hierarchical ? 1 : 0) * 0x80000000 + r.size) >>> 0, 12 * i);
    body.writeUInt32BE(r.duration, 12 * i + 4);
    body.writeUInt32BE(0x90000000, 12 * i + 8);
  });
  return box('sidx', Buffer.concat([head, body]));
}

function fragment(size: number): Buffer {
  // moof (16 bytes) + mdat filling the rest, so each reference starts at a box boundary.
  return Buffer.concat([box('moof', Buffer.alloc(8)), box('mdat', Buffer.alloc(size - 24))]);
}

describe('listBoxes', () => {
  it('lists top-level boxes with their offsets and sizes', () => {
    const buf = Buffer.concat([box('ftyp', Buffer.alloc(12)), box('moov', Buffer.alloc(100)), box('mdat', Buffer.alloc(5))]);
    expect(listBoxes(buf, 'mem')).toEqual([
      { type: 'ftyp', start: 0, size: 20, headerSize: 8 },
      { type: 'moov', start: 20, size: 108, headerSize: 8 },
      { type: 'mdat', start: 128, size: 13, headerSize: 8 },
    ]);
  });

  it('reads a 64-bit largesize and a size-0 box that runs to the end', () => {
    const large = Buffer.alloc(16 + 4);
    large.writeUInt32BE(1, 0);
    large.write('mdat', 4, 'latin1');
    large.writeBigUInt64BE(20n, 8);
    const toEnd = Buffer.alloc(8 + 3);
    toEnd.write('free', 4, 'latin1');
    expect(listBoxes(Buffer.concat([large, toEnd]), 'mem')).toEqual([
      { type: 'mdat', start: 0, size: 20, headerSize: 16 },
      { type: 'free', start: 20, size: 11, headerSize: 8 },
    ]);
  });

  it('rejects a box that claims more bytes than remain, naming where', () => {
    const buf = Buffer.concat([box('ftyp', Buffer.alloc(4)), box('moov', Buffer.alloc(10)).subarray(0, 12)]);
    expect(() => listBoxes(buf, 'f.mp4')).toThrow(/f\.mp4: at byte 12: box 'moov' claims 18 bytes but only 12 remain/);
  });

  it('rejects a size smaller than the header, truncated headers and non-box bytes', () => {
    const small = box('free');
    small.writeUInt32BE(4, 0);
    expect(() => listBoxes(small, 'm')).toThrow(/claims 4 bytes, less than its own 8-byte header/);
    expect(() => listBoxes(Buffer.alloc(5), 'm')).toThrow(/truncated box header/);
    const junk = Buffer.from('\u0000\u0000\u0000\u0010\u0001\u0002\u0003\u0004xxxxxxxx', 'latin1');
    expect(() => listBoxes(junk, 'm')).toThrow(/not printable/);
  });
});

describe('parseSidx', () => {
  it('turns references into absolute inclusive byte ranges after the sidx plus first_offset (v0)', () => {
    const s = sidxBox(0, 12800, 0, 0, [
      { size: 1000, duration: 51200 },
      { size: 900, duration: 51200 },
      { size: 400, duration: 25600 },
    ]);
    const at = 848;
    const sidx = parseSidx(s, at, 'f');
    const first = at + s.length;
    expect(sidx.timescale).toBe(12800);
    expect(sidx.references.map((r) => r.range)).toEqual([
      [first, first + 999],
      [first + 1000, first + 1899],
      [first + 1900, first + 2299],
    ]);
    expect(sidx.references.map((r) => r.durationTicks)).toEqual([51200, 51200, 25600]);
    expect(sidx.references.every((r) => r.startsWithSap)).toBe(true);
  });

  it('reads 64-bit times and offsets (v1) and honours first_offset', () => {
    const s = sidxBox(1, 48000, 2 ** 33, 100, [{ size: 10, duration: 1024 }]);
    const sidx = parseSidx(s, 0, 'f');
    expect(sidx.earliestPresentationTime).toBe(2 ** 33);
    expect(sidx.references[0].range).toEqual([s.length + 100, s.length + 109]);
  });

  it('refuses hierarchical indexes, bad counts, unknown versions and other boxes', () => {
    expect(() => parseSidx(sidxBox(0, 1, 0, 0, [{ size: 5, duration: 1, hierarchical: true }]), 0, 'f')).toThrow(/hierarchical index/);
    expect(() => parseSidx(sidxBox(0, 1, 0, 0, [{ size: 5, duration: 1 }], 2), 0, 'f')).toThrow(/declares 2 references/);
    const v2 = sidxBox(0, 1, 0, 0, []);
    v2.writeUInt8(2, 8);
    expect(() => parseSidx(v2, 0, 'f')).toThrow(/unsupported sidx version 2/);
    expect(() => parseSidx(sidxBox(0, 0, 0, 0, []), 0, 'f')).toThrow(/timescale is 0/);
    expect(() => parseSidx(box('moof', Buffer.alloc(8)), 0, 'f')).toThrow(/expected a 'sidx' box, found 'moof'/);
    expect(() => parseSidx(sidxBox(0, 1, 0, 0, [{ size: 0, duration: 1 }]), 0, 'f')).toThrow(/size 0/);
  });
});

describe('readSingleFileIndex / readTopLevelBoxes on files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sprint-mp4-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const head = Buffer.concat([box('ftyp', Buffer.alloc(16)), box('moov', Buffer.alloc(200))]);

  it('finds the init range, the index range and the media ranges', async () => {
    const frags = [fragment(500), fragment(700)];
    const sidx = sidxBox(
      1,
      1000,
      0,
      0,
      frags.map((f) => ({ size: f.length, duration: 4000 })),
    );
    const file = path.join(dir, 'ok.mp4');
    await fs.writeFile(file, Buffer.concat([head, sidx, ...frags]));
    const idx = await readSingleFileIndex(file);
    expect(idx.initRange).toEqual([0, head.length - 1]);
    expect(idx.indexRange).toEqual([head.length, head.length + sidx.length - 1]);
    const s0 = head.length + sidx.length;
    expect(idx.sidx.references.map((r) => r.range)).toEqual([
      [s0, s0 + 499],
      [s0 + 500, s0 + 1199],
    ]);
    expect(idx.fileSize).toBe(s0 + 1200);
    expect((await readTopLevelBoxes(file)).boxes.map((b) => b.type)).toEqual(['ftyp', 'moov', 'sidx', 'moof', 'mdat', 'moof', 'mdat']);
  });

  it('rejects an index that points past the end of the file', async () => {
    const frags = [fragment(500)];
    const sidx = sidxBox(0, 1000, 0, 0, [
      { size: 500, duration: 4000 },
      { size: 500, duration: 4000 },
    ]);
    const file = path.join(dir, 'short.mp4');
    await fs.writeFile(file, Buffer.concat([head, sidx, ...frags]));
    await expect(readSingleFileIndex(file)).rejects.toThrow(/short\.mp4: at byte \d+: sidx reference 1 ends at byte \d+, past the end/);
  });

  it('rejects a file without a sidx and a truncated file', async () => {
    const none = path.join(dir, 'none.mp4');
    await fs.writeFile(none, Buffer.concat([head, fragment(100)]));
    await expect(readSingleFileIndex(none)).rejects.toThrow(/expected exactly one top-level sidx, found 0/);
    const cut = path.join(dir, 'cut.mp4');
    await fs.writeFile(cut, Buffer.concat([head, fragment(100)]).subarray(0, head.length + 50));
    await expect(readTopLevelBoxes(cut)).rejects.toThrow(/cut\.mp4: at byte \d+: box 'mdat' claims 84 bytes but only 34 remain/);
  });
});
