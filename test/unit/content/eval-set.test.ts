// Unit tests of the evaluation content set's definition (demo/content/recipe.ts
// `eval`, encodeArgs/recipeFingerprint in ffmpeg-args.ts) and of the
// generator's skip logic for it (generate.ts ensureContent), without
// encoding anything: the ladder reaches 1.5× the largest fair share of the
// paper's Fig. 6 grid, is near-CBR like the demo ladder and allowed by its
// H.264 level; the set outlasts a 20-minute run; adding it leaves the demo
// and test sets' recipe (and so their generated media) current; a complete
// eval set is not regenerated (and `sprint content` says so), and a set made
// by another recipe or of another length is.

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main as contentMain } from '../../../demo/content/cli';
import { CONTENT_FILE, CONTENT_FORMAT, CONTENT_VERSION, ensureContent, MARKER_FILE } from '../../../demo/content/generate';
import { encodeArgs, recipeFingerprint } from '../../../demo/content/ffmpeg-args';
import {
  EVAL_LADDER,
  EVAL_MIN_DURATION_SEC,
  FRAME_RATE,
  SEGMENT_DURATION_SEC,
  BWX2_MIN_DURATION_SEC,
  setRecipe,
  VIDEO_LADDER,
  X264,
} from '../../../demo/content/recipe';

/** Paper Fig. 6 rates (bit/s); one bulk flow, so the fair share is half the rate. */
const GRID_RATES = [1.5e6, 3e6, 6e6, 25e6];

describe('the eval content set', () => {
  const r = setRecipe('eval');

  it("has a ladder from 300 kbit/s to at least 1.5× the grid's largest fair share", () => {
    expect(r.ladder).toBe(EVAL_LADDER);
    const top = r.ladder[r.ladder.length - 1]!.bandwidth;
    expect(r.ladder[0]!.bandwidth).toBe(300_000);
    expect(top).toBe(20_000_000);
    const largestFairShare = Math.max(...GRID_RATES) / 2;
    expect(top).toBeGreaterThanOrEqual(1.5 * largestFairShare);
    // Every fair share of the grid lies below the top rung (the buffer does not simply fill).
    for (const rate of GRID_RATES) expect(top).toBeGreaterThan(rate / 2);
  });

  it('rises in steps of at most 2.35× with even 16:9 pictures, starting with the demo ladder', () => {
    expect(r.ladder.slice(0, VIDEO_LADDER.length)).toEqual(VIDEO_LADDER);
    for (let i = 1; i < r.ladder.length; i++) {
      const ratio = r.ladder[i]!.bandwidth / r.ladder[i - 1]!.bandwidth;
      expect(ratio).toBeGreaterThan(1);
      expect(ratio).toBeLessThanOrEqual(2.35);
      expect(r.ladder[i]!.width).toBeGreaterThanOrEqual(r.ladder[i - 1]!.width);
    }
    for (const rung of r.ladder) {
      expect(rung.width % 2).toBe(0);
      expect(rung.height % 2).toBe(0);
      expect(rung.width * 9).toBe(rung.height * 16);
    }
  });

  it('stays within its H.264 level (Baseline level 4.0: 24 Mbit/s with NAL HRD, 8192 macroblocks a frame, 245760 a second)', () => {
    expect(r.level).toBe('4.0');
    for (const rung of r.ladder) {
      const mbs = Math.ceil(rung.width / 16) * Math.ceil(rung.height / 16);
      expect(rung.bandwidth).toBeLessThanOrEqual(24_000_000);
      expect(mbs).toBeLessThanOrEqual(8192);
      expect(mbs * FRAME_RATE).toBeLessThanOrEqual(245_760);
    }
  });

  it("outlasts a 20-minute measurement after the warm-up, with video alone before it and the harness's margin", () => {
    expect(EVAL_MIN_DURATION_SEC).toBe(60 + 90 + 1200 + 60);
    expect(r.defaultDurationSec).toBeGreaterThanOrEqual(EVAL_MIN_DURATION_SEC);
    expect(r.defaultDurationSec % SEGMENT_DURATION_SEC).toBe(0);
  });

  it('encodes every rung near-CBR at its bitrate with the eval level, like the demo ladder', () => {
    const args = encodeArgs(r.defaultDurationSec, 'encode.mp4', r);
    expect(args.filter((a) => a.startsWith('testsrc2='))).toHaveLength(r.ladder.length);
    expect(args.filter((a) => a.startsWith('sine='))).toHaveLength(1);
    expect(args.join(' ')).toContain(`-map ${r.ladder.length}:a`);
    const at = (flag: string): string => args[args.indexOf(flag) + 1]!;
    expect(at('-level:v')).toBe('4.0');
    expect(at('-x264-params')).toBe('nal-hrd=cbr');
    r.ladder.forEach((rung, i) => {
      const k = `${rung.bandwidth / 1000}k`;
      for (const f of ['-b:v', '-maxrate:v', '-minrate:v', '-bufsize:v']) expect(at(`${f}:${i}`)).toBe(k);
    });
    expect(args).toContain(`testsrc2=size=960x540:rate=${FRAME_RATE}:duration=${r.defaultDurationSec}`);
  });

  it("has its own recipe fingerprint and leaves the demo and test sets' fingerprint as it was", () => {
    expect(recipeFingerprint('eval')).not.toBe(recipeFingerprint());
    expect(recipeFingerprint('demo')).toBe(recipeFingerprint());
    expect(recipeFingerprint('test')).toBe(recipeFingerprint());
    expect(recipeFingerprint('anything-else')).toBe(recipeFingerprint());
    expect(encodeArgs(600, 'x.mp4')).toEqual(encodeArgs(600, 'x.mp4', { ladder: VIDEO_LADDER, level: X264.level }));
  });
});

describe('ensureContent skips what is done', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'sprint-eval-set-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A set folder that looks complete: marker and a minimal content.json. */
  function plant(set: string, recipe: string, durationSec: number): void {
    const dir = path.join(root, set);
    mkdirSync(dir, { recursive: true });
    // what the HLS playlists written beside the manifests (hls-write.ts) read too
    const rep = {
      id: '0',
      contentType: 'video',
      codecs: 'avc1.64001f',
      bandwidth: 300_000,
      initialization: { file: 'init-0.m4s', size: 800 },
      file: 'rep-0.mp4',
      initRange: [0, 799],
      segments: [],
    };
    writeFileSync(
      path.join(dir, CONTENT_FILE),
      JSON.stringify({
        format: CONTENT_FORMAT,
        version: CONTENT_VERSION,
        set,
        durationSec,
        segmentDurationSec: 4,
        recipe,
        generatedAt: '2026-01-01T00:00:00Z',
        generator: {},
        bytes: {},
        layouts: {
          chunked: { manifest: 'chunked/manifest.mpd', representations: [rep] },
          unchunked: { manifest: 'unchunked/manifest.mpd', representations: [rep] },
        },
      }),
    );
    writeFileSync(path.join(dir, MARKER_FILE), JSON.stringify({ recipe, durationSec, completedAt: '2026-01-01T00:00:00Z' }));
  }

  it('returns a complete eval set made by the current recipe without running ffmpeg', async () => {
    plant('eval', recipeFingerprint('eval'), 1500);
    const lines: string[] = [];
    const info = await ensureContent({ set: 'eval', mediaRoot: root, ffmpegPath: path.join(root, 'no-ffmpeg'), log: (l) => lines.push(l) });
    expect(info.set).toBe('eval');
    expect(info.durationSec).toBe(1500);
    expect(lines).toEqual([]);
  });

  it('sprint content --set eval says there is nothing to do for a complete current set', async () => {
    plant('eval', recipeFingerprint('eval'), 1500);
    const err: string[] = [];
    const out: string[] = [];
    const e = jest.spyOn(process.stderr, 'write').mockImplementation((t) => (err.push(String(t)), true));
    const o = jest.spyOn(process.stdout, 'write').mockImplementation((t) => (out.push(String(t)), true));
    try {
      expect(await contentMain(['--set', 'eval', '--media', root])).toBe(0);
    } finally {
      e.mockRestore();
      o.mockRestore();
    }
    expect(err.join('')).toMatch(
      /content\[eval\]: .*eval is complete and current \(generated 2026-01-01T00:00:00Z, 1500 s\): nothing to do/,
    );
    expect(JSON.parse(out.join('')).durationSec).toBe(1500);
  });

  it('regenerates an eval folder made by the demo recipe or of another length (and says why)', async () => {
    plant('eval', recipeFingerprint('demo'), 1500);
    const lines: string[] = [];
    await expect(
      ensureContent({ set: 'eval', mediaRoot: root, ffmpegPath: path.join(root, 'no-ffmpeg'), log: (l) => lines.push(l) }),
    ).rejects.toThrow(/ffmpeg not found/);
    expect(lines[0]).toMatch(/content\[eval\]: generating into .*: it was made by another recipe/);
    plant('eval', recipeFingerprint('eval'), 600);
    const more: string[] = [];
    await expect(
      ensureContent({ set: 'eval', mediaRoot: root, ffmpegPath: path.join(root, 'no-ffmpeg'), log: (l) => more.push(l) }),
    ).rejects.toThrow(/ffmpeg not found/);
    expect(more[0]).toMatch(/it is 600 s long, 1500 s requested/);
  });
});

describe('the bwx content set', () => {
  const r = setRecipe('bwx');

  it('keeps the demo rungs and fills 0.7-1.5 Mbit/s in steps of at most 0.15 Mbit/s', () => {
    const rates = r.ladder.map((x) => x.bandwidth);
    for (const rung of VIDEO_LADDER) expect(rates).toContain(rung.bandwidth);
    expect([...rates].sort((a, b) => a - b)).toEqual(rates);
    const mid = rates.filter((b) => b >= 700_000 && b <= 1_500_000);
    for (let i = 1; i < mid.length; i++) expect(mid[i]! - mid[i - 1]!).toBeLessThanOrEqual(150_000);
    for (let i = 1; i < r.ladder.length; i++) expect(r.ladder[i]!.width).toBeGreaterThanOrEqual(r.ladder[i - 1]!.width);
    expect(r.defaultDurationSec).toBe(600);
  });
});

describe('the bwx2 content set', () => {
  const r = setRecipe('bwx2');
  const rates = r.ladder.map((x) => x.bandwidth);

  it('leaves bwx as the committed runs played it', () => {
    const bwx = [300e3, 700e3, 850e3, 1e6, 1.1e6, 1.2e6, 1.35e6, 1.5e6, 3e6, 6e6];
    expect(setRecipe('bwx').ladder.map((x) => x.bandwidth)).toEqual(bwx);
  });

  it("keeps bwx's rungs and fills 0.3-1.5 Mbit/s in steps of at most 0.15 Mbit/s", () => {
    for (const rung of setRecipe('bwx').ladder) expect(rates).toContain(rung.bandwidth);
    expect([...rates].sort((a, b) => a - b)).toEqual(rates);
    const mid = rates.filter((b) => b >= 300_000 && b <= 1_500_000);
    for (let i = 1; i < mid.length; i++) expect(mid[i]! - mid[i - 1]!).toBeLessThanOrEqual(150_000);
    for (let i = 1; i < r.ladder.length; i++) expect(r.ladder[i]!.width).toBeGreaterThanOrEqual(r.ladder[i - 1]!.width);
  });

  it("outlasts the paper's 25-minute Fig. 11 run with a minimum train downloaded ahead", () => {
    expect(r.defaultDurationSec).toBe(BWX2_MIN_DURATION_SEC);
    expect(r.defaultDurationSec).toBeGreaterThanOrEqual(60 + 25 * 60 + 60 + 8 * 60);
  });

  it("gives BW-50 a rung above the bottom one at video's budget on the 3 Mbit/s testbed", () => {
    // 50 % of the 1.43 Mbit/s fair share measured there less audio's 0.128: 0.65 Mbit/s.
    const budget = 0.5 * (1_430_000 - 128_000);
    const under = (ladder: number[]) => Math.max(...ladder.filter((b) => b <= budget));
    expect(under(setRecipe('bwx').ladder.map((x) => x.bandwidth))).toBe(300_000);
    expect(under(rates)).toBe(600_000);
  });
});

describe('the eval-light content set', () => {
  const r = setRecipe('eval-light');

  it("has eval's bitrates, length and level at one small picture", () => {
    expect(r.ladder.map((x) => x.bandwidth)).toEqual(EVAL_LADDER.map((x) => x.bandwidth));
    expect(r.defaultDurationSec).toBe(setRecipe('eval').defaultDurationSec);
    expect(r.level).toBe('4.0');
    for (const rung of r.ladder) expect([rung.width, rung.height]).toEqual([320, 180]);
  });

  it('is encoded as near-CBR with HRD filler at every rung, so the bytes are there without the pixels', () => {
    const args = encodeArgs(12, 'out.mp4', r);
    expect(args.join(' ')).toContain('nal-hrd=cbr');
    r.ladder.forEach((rung, i) => {
      expect(args).toContain(`testsrc2=size=320x180:rate=${FRAME_RATE}:duration=12`);
      const rate = args[args.indexOf(`-b:v:${i}`) + 1];
      for (const k of ['maxrate', 'minrate', 'bufsize']) expect(args[args.indexOf(`-${k}:v:${i}`) + 1]).toBe(rate);
      expect(parseInt(rate!, 10) * 1000).toBe(rung.bandwidth);
    });
  });
});
