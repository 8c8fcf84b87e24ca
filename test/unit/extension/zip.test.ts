// The extension's ZIP writer (extension/install/zip.ts), read back by an
// independent reader written here from the format (end record → central
// directory → local headers → raw deflate): names, bytes and CRCs round-trip,
// the same input gives the same archive, bad names are refused.

import * as zlib from 'zlib';
import { crc32, zip } from '../../../extension/install/zip';

interface Read {
  name: string;
  data: Buffer;
  crc: number;
}

function unzip(buf: Buffer): Read[] {
  const end = buf.length - 22;
  expect(buf.readUInt32LE(end)).toBe(0x06054b50);
  const count = buf.readUInt16LE(end + 10);
  let p = buf.readUInt32LE(end + 16);
  const out: Read[] = [];
  for (let i = 0; i < count; i += 1) {
    expect(buf.readUInt32LE(p)).toBe(0x02014b50);
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const size = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    expect(buf.readUInt32LE(local)).toBe(0x04034b50);
    const lName = buf.readUInt16LE(local + 26);
    const lExtra = buf.readUInt16LE(local + 28);
    const body = buf.subarray(local + 30 + lName + lExtra, local + 30 + lName + lExtra + size);
    const data = method === 8 ? zlib.inflateRawSync(body) : method === 0 ? Buffer.from(body) : Buffer.alloc(0);
    out.push({ name, data, crc });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

describe('zip', () => {
  it('round-trips names and bytes, sorted, with the CRC-32 of each file', () => {
    const text = Buffer.from('{"manifest_version":3}\n'.repeat(50));
    const random = Buffer.alloc(3000);
    for (let i = 0; i < random.length; i += 1) random[i] = (i * 7919 + 13) % 251;
    const archive = zip([
      { name: 'manifest.json', data: text },
      { name: 'background.js', data: random },
      { name: 'icons/a b.png', data: Buffer.alloc(0) },
    ]);
    const read = unzip(archive);
    expect(read.map((r) => r.name)).toEqual(['background.js', 'icons/a b.png', 'manifest.json']);
    expect(read[2]?.data.equals(text)).toBe(true);
    expect(read[0]?.data.equals(random)).toBe(true);
    expect(read[1]?.data.length).toBe(0);
    for (const r of read) expect(r.crc).toBe(crc32(r.data));
  });

  it('computes the standard CRC-32', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).toBe(0);
  });

  it('gives the same bytes for the same files in any order', () => {
    const a = { name: 'a.js', data: Buffer.from('a') };
    const b = { name: 'b.js', data: Buffer.from('b') };
    expect(zip([a, b]).equals(zip([b, a]))).toBe(true);
  });

  it.each(['/abs.js', '../up.js', 'a/../b.js', 'a\\b.js', 'dir/', ''])('refuses the entry name %p', (name) => {
    expect(() => zip([{ name, data: Buffer.from('x') }])).toThrow(/bad entry name/);
  });

  it('refuses a duplicate name', () => {
    expect(() =>
      zip([
        { name: 'a', data: Buffer.from('1') },
        { name: 'a', data: Buffer.from('2') },
      ]),
    ).toThrow(/duplicate/);
  });
});
