/**
 * End-to-end test of the demo content generator (demo/content/generate.ts) with the real ffmpeg:
 * one short encode (18 s: four 4 s segments and a 2 s one) into a temp folder, then assertions on
 * the files themselves: manifest structure, segment files, byte ranges read back from the sidx and
 * compared with ffmpeg's own SegmentList, the near-CBR claim (measured vs nominal bitrate, segment
 * sizes), the two layouts carrying the same encode, the completion-marker logic (a second call does
 * not regenerate; an unmarked set is regenerated) and clear errors when ffmpeg is missing or fails.
 */
import { spawn } from 'child_process';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main as cliMain } from '../../../demo/content/cli';
import { ContentInfo, ensureContent, MARKER_FILE } from '../../../demo/content/generate';
import { childrenNamed, descendantsNamed, parseXml, XmlElement } from '../../../demo/content/mini-xml';
import { listBoxes, readBytes, readSingleFileIndex } from '../../../demo/content/mp4-boxes';
import { readPackagerMpd } from '../../../demo/content/packager-mpd';

const SET = 'unit';
const DURATION = 18;
const SEGMENTS = Math.ceil(DURATION / 4);
const VIDEO_DURATIONS = [4, 4, 4, 4, 2];
const NOMINAL_VIDEO = [300_000, 700_000, 1_500_000, 3_000_000, 6_000_000];
const CBR_TOLERANCE = 0.15;
const ENCODE_TIMEOUT_MS = 180_000;

let root: string;
let setDir: string;
let info: ContentInfo;

async function mtimes(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.set(path.relative(dir, p), (await fs.stat(p)).mtimeMs);
    }
  };
  await walk(dir);
  return out;
}

async function readMpd(rel: string): Promise<XmlElement> {
  const file = path.join(setDir, rel);
  return parseXml(await fs.readFile(file, 'utf8'), file);
}

function adaptationSets(mpd: XmlElement): { video: XmlElement; audio: XmlElement } {
  const sets = descendantsNamed(mpd, 'AdaptationSet');
  const video = sets.filter((s) => s.attrs.contentType === 'video');
  const audio = sets.filter((s) => s.attrs.contentType === 'audio');
  expect(video).toHaveLength(1);
  expect(audio).toHaveLength(1);
  return { video: video[0], audio: audio[0] };
}

function within(actual: number, expected: number, tolerance: number): boolean {
  return Math.abs(actual - expected) <= tolerance * expected;
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'sprint-content-'));
  setDir = path.join(root, SET);
  info = await ensureContent({ set: SET, durationSec: DURATION, mediaRoot: root });
}, ENCODE_TIMEOUT_MS);

afterAll(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('generated files', () => {
  it('has both layouts, content.json (as returned) and the completion marker, and nothing else', async () => {
    expect((await fs.readdir(root)).sort()).toEqual([SET]);
    expect((await fs.readdir(setDir)).sort()).toEqual([MARKER_FILE, 'chunked', 'content.json', 'unchunked']);
    expect(JSON.parse(await fs.readFile(path.join(setDir, 'content.json'), 'utf8'))).toEqual(info);
    expect(info.durationSec).toBe(DURATION);
  });

  it('chunked manifest: SegmentTemplate with 4 s $Number$ segments, the nominal ladder and one audio', async () => {
    const mpd = await readMpd('chunked/manifest.mpd');
    expect(mpd.name).toBe('MPD');
    expect(mpd.attrs.type).toBe('static');
    expect(mpd.attrs.mediaPresentationDuration).toBe('PT18.000S');
    const { video, audio } = adaptationSets(mpd);
    const vReps = childrenNamed(video, 'Representation');
    expect(vReps.map((r) => Number(r.attrs.bandwidth))).toEqual(NOMINAL_VIDEO);
    expect(vReps.every((r) => /^avc1\.[0-9a-fA-F]{6}$/.test(r.attrs.codecs))).toBe(true);
    const aReps = childrenNamed(audio, 'Representation');
    expect(aReps).toHaveLength(1);
    expect(aReps[0].attrs.codecs).toBe('mp4a.40.2');

    for (const set of [video, audio]) {
      const tpl = childrenNamed(set, 'SegmentTemplate');
      expect(tpl).toHaveLength(1);
      const t = tpl[0].attrs;
      expect(Number(t.duration) / Number(t.timescale)).toBe(4);
      expect(t.media).toContain('$Number');
      expect(descendantsNamed(set, 'SegmentTimeline')).toHaveLength(0);
      for (const rep of childrenNamed(set, 'Representation')) {
        const id = rep.attrs.id;
        const name = (n: number): string => t.media.replace('$RepresentationID$', id).replace('$Number%05d$', String(n).padStart(5, '0'));
        await expect(fs.stat(path.join(setDir, 'chunked', t.initialization.replace('$RepresentationID$', id)))).resolves.toBeTruthy();
        for (let n = Number(t.startNumber); n <= SEGMENTS; n++) {
          await expect(fs.stat(path.join(setDir, 'chunked', name(n)))).resolves.toBeTruthy();
        }
        await expect(fs.stat(path.join(setDir, 'chunked', name(SEGMENTS + 1)))).rejects.toThrow(/ENOENT/);
      }
    }
  });

  it('unchunked manifest: one file per representation, SegmentBase whose indexRange is its sidx', async () => {
    const mpd = await readMpd('unchunked/manifest.mpd');
    const { video, audio } = adaptationSets(mpd);
    expect(childrenNamed(video, 'Representation').map((r) => Number(r.attrs.bandwidth))).toEqual(NOMINAL_VIDEO);
    const reps = [...childrenNamed(video, 'Representation'), ...childrenNamed(audio, 'Representation')];
    expect(reps).toHaveLength(6);
    for (const rep of reps) {
      const file = path.join(setDir, 'unchunked', childrenNamed(rep, 'BaseURL')[0].text);
      const base = childrenNamed(rep, 'SegmentBase');
      expect(base).toHaveLength(1);
      const [i0, i1] = base[0].attrs.indexRange.split('-').map(Number);
      const [n0, n1] = childrenNamed(base[0], 'Initialization')[0].attrs.range.split('-').map(Number);
      const index = await readBytes(file, i0, i1 - i0 + 1);
      expect(listBoxes(index, file, i0).map((b) => b.type)).toEqual(['sidx']);
      expect([n0, n1]).toEqual([0, i0 - 1]);
      expect(listBoxes(await readBytes(file, 0, n1 + 1), file).map((b) => b.type)).toEqual(['ftyp', 'moov']);
    }
  });

  it("unchunked byte ranges are contiguous, fill the file and agree with the sidx and with ffmpeg's SegmentList", async () => {
    const packagerFile = path.join(setDir, info.layouts.unchunked.packagerManifest);
    const packager = readPackagerMpd(await fs.readFile(packagerFile, 'utf8'), packagerFile);
    expect(info.layouts.unchunked.representations).toHaveLength(6);
    for (const rep of info.layouts.unchunked.representations) {
      const file = path.join(setDir, 'unchunked', rep.file);
      const size = (await fs.stat(file)).size;
      expect(rep.fileSize).toBe(size);
      const ranges = rep.segments.map((s) => s.range);
      expect(ranges).toHaveLength(SEGMENTS);
      expect(ranges[0][0]).toBe(rep.indexRange[1] + 1);
      ranges.forEach((r, i) => {
        expect(r[1]).toBeGreaterThanOrEqual(r[0]);
        if (i > 0) expect(r[0]).toBe(ranges[i - 1][1] + 1);
      });
      expect(ranges[ranges.length - 1][1]).toBe(size - 1);
      for (const r of ranges) expect((await readBytes(file, r[0] + 4, 4)).toString('latin1')).toBe('moof');

      const fromSidx = (await readSingleFileIndex(file)).sidx.references.map((x) => x.range);
      expect(fromSidx).toEqual(ranges);
      const listed = packager.find((p) => p.id === rep.id);
      expect(listed?.baseUrl).toBe(rep.file);
      expect(listed?.mediaRanges).toEqual(fromSidx);
    }
  });

  it('content.json lists every chunked segment file with its size, and the folder holds nothing else', async () => {
    const layout = info.layouts.chunked;
    // the HLS playlists beside the MPD: a master and one per representation (hls-write.ts)
    const expected = new Set(['manifest.mpd', 'ffmpeg.mpd', 'master.m3u8']);
    for (const rep of layout.representations) {
      expect(rep.segments.map((s) => s.number)).toEqual([1, 2, 3, 4, 5]);
      expected.add(`${rep.id}.m3u8`);
      expected.add(rep.initialization.file);
      for (const s of [rep.initialization, ...rep.segments]) {
        expected.add(s.file);
        expect((await fs.stat(path.join(setDir, 'chunked', s.file))).size).toBe(s.size);
      }
    }
    expect(new Set(await fs.readdir(path.join(setDir, 'chunked')))).toEqual(expected);
  });

  it('both layouts carry the same video encode: every chunk equals its byte range from the moof on', async () => {
    const chunked = new Map(info.layouts.chunked.representations.map((r) => [r.id, r]));
    for (const rep of info.layouts.unchunked.representations.filter((r) => r.contentType === 'video')) {
      const single = await fs.readFile(path.join(setDir, 'unchunked', rep.file));
      for (const [i, seg] of rep.segments.entries()) {
        const chunkFile = path.join(setDir, 'chunked', chunked.get(rep.id)!.segments[i].file);
        const chunk = await fs.readFile(chunkFile);
        const moof = listBoxes(chunk, chunkFile).find((b) => b.type === 'moof')!;
        expect(chunk.subarray(moof.start).equals(single.subarray(seg.range[0], seg.range[1] + 1))).toBe(true);
      }
    }
  });
});

describe('near-constant bitrate', () => {
  it('fixed GOP: every video segment lasts exactly 4 s (the last one the 2 s remainder)', () => {
    for (const layout of [info.layouts.chunked, info.layouts.unchunked]) {
      for (const rep of layout.representations.filter((r) => r.contentType === 'video')) {
        expect(rep.segments.map((s) => s.durationSec)).toEqual(VIDEO_DURATIONS);
      }
    }
  });

  it("each representation's bytes*8/duration, measured on disk, is within 15% of nominal", async () => {
    for (const rep of info.layouts.unchunked.representations) {
      const bytes = rep.segments.reduce((s, x) => s + x.range[1] - x.range[0] + 1, 0);
      const measured = (bytes * 8) / DURATION;
      expect({ id: rep.id, ok: within(measured, rep.bandwidth, CBR_TOLERANCE), measured }).toMatchObject({ ok: true });
      expect(within(rep.measuredBitrate, measured, 0.01)).toBe(true);
    }
    for (const rep of info.layouts.chunked.representations) {
      let bytes = 0;
      for (const s of rep.segments) bytes += (await fs.stat(path.join(setDir, 'chunked', s.file))).size;
      const measured = (bytes * 8) / DURATION;
      expect({ id: rep.id, ok: within(measured, rep.bandwidth, CBR_TOLERANCE), measured }).toMatchObject({ ok: true });
    }
  });

  it('every video segment is within 15% of nominal * duration / 8 bytes', () => {
    for (const rep of info.layouts.unchunked.representations.filter((r) => r.contentType === 'video')) {
      rep.segments.forEach((s, i) => {
        const nominalBytes = (rep.bandwidth * VIDEO_DURATIONS[i]) / 8;
        expect({
          id: rep.id,
          segment: s.number,
          size: s.size,
          nominalBytes,
          ok: within(s.size, nominalBytes, CBR_TOLERANCE),
        }).toMatchObject({ ok: true });
      });
    }
  });
});

describe('completion marker', () => {
  it('a second call (and the CLI) reuse the complete set without regenerating', async () => {
    const before = await mtimes(setDir);
    const again = await ensureContent({ set: SET, durationSec: DURATION, mediaRoot: root });
    expect(again.generatedAt).toBe(info.generatedAt);

    let out = '';
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    let code: number;
    try {
      code = await cliMain(['--set', SET, '--duration', String(DURATION), '--media', root]);
    } finally {
      write.mockRestore();
    }
    expect(code).toBe(0);
    const printed = JSON.parse(out);
    expect(printed.dir).toBe(setDir);
    expect(printed.generatedAt).toBe(info.generatedAt);
    expect(printed.representations.map((r: { bandwidth: number }) => r.bandwidth)).toEqual([...NOMINAL_VIDEO, 128_000]);
    expect(await mtimes(setDir)).toEqual(before);
  });

  it(
    'a set without its marker is regenerated, and leftovers of dead runs are removed',
    async () => {
      const deadPid = await new Promise<number>((resolve, reject) => {
        const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
        child.on('error', reject);
        child.on('exit', () => resolve(child.pid!));
      });
      const leftover = path.join(root, `.${SET}.tmp-${deadPid}-1`);
      await fs.mkdir(leftover);
      await fs.writeFile(path.join(leftover, 'encode.mp4'), 'half');
      await fs.rm(path.join(setDir, MARKER_FILE));
      const before = await mtimes(setDir);

      const lines: string[] = [];
      const redone = await ensureContent({ set: SET, durationSec: DURATION, mediaRoot: root, log: (l) => lines.push(l) });
      expect(lines.join('\n')).toMatch(/no completion marker/);
      expect(redone.generatedAt).not.toBe(info.generatedAt);
      const after = await mtimes(setDir);
      expect(after.has(MARKER_FILE)).toBe(true);
      expect(after.get('unchunked/rep-0.mp4')).toBeGreaterThan(before.get('unchunked/rep-0.mp4')!);
      expect((await fs.readdir(root)).sort()).toEqual([SET]);
      info = redone;
    },
    ENCODE_TIMEOUT_MS,
  );
});

describe('errors', () => {
  let errRoot: string;
  beforeEach(async () => {
    errRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'sprint-content-err-'));
  });
  afterEach(async () => {
    await fs.rm(errRoot, { recursive: true, force: true });
  });

  it('names the install command when ffmpeg is missing, and leaves nothing behind', async () => {
    await expect(
      ensureContent({ set: 'x', durationSec: 8, mediaRoot: errRoot, ffmpegPath: path.join(errRoot, 'no-ffmpeg') }),
    ).rejects.toThrow(/ffmpeg not found .*install ffmpeg: apt-get install -y ffmpeg/);
    expect(await fs.readdir(errRoot)).toEqual([]);
  });

  it('reports a failing ffmpeg with the tail of its stderr, and leaves nothing behind', async () => {
    const fake = path.join(errRoot, 'fake-ffmpeg');
    await fs.writeFile(
      fake,
      [
        '#!/bin/sh',
        'case "$*" in *-version*) echo "ffmpeg version 0.0-fake"; exit 0;; esac',
        'echo "first line of noise" >&2',
        'echo "Unknown encoder \'libx264\'" >&2',
        'exit 1',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const media = path.join(errRoot, 'media');
    await expect(ensureContent({ set: 'x', durationSec: 8, mediaRoot: media, ffmpegPath: fake })).rejects.toThrow(
      /ffmpeg encode failed \(exit code 1\)[\s\S]*Unknown encoder 'libx264'/,
    );
    expect(await fs.readdir(media)).toEqual([]);
  });

  it('rejects bad set names and durations before doing anything', async () => {
    await expect(ensureContent({ set: '../etc', mediaRoot: errRoot })).rejects.toThrow(/content set name "..\/etc" is not allowed/);
    await expect(ensureContent({ set: 'x', durationSec: 2, mediaRoot: errRoot })).rejects.toThrow(/out of range/);
    await expect(ensureContent({ set: 'x', durationSec: Number.NaN, mediaRoot: errRoot })).rejects.toThrow(/out of range/);
    expect(await fs.readdir(errRoot)).toEqual([]);
  });

  it('the CLI exits 2 on bad arguments', async () => {
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await cliMain(['--bogus'])).toBe(2);
      expect(await cliMain(['--duration', 'ten'])).toBe(2);
      expect(await cliMain(['--set', '../x'])).toBe(2);
      expect(await cliMain(['--media'])).toBe(2);
      expect(err.mock.calls.map((c) => String(c[0])).join('')).toMatch(/unknown argument "--bogus"[\s\S]*--duration "ten"/);
    } finally {
      err.mockRestore();
    }
  });
});
