/**
 * The HLS playlists written beside the MPDs (demo/content/hls-write.ts): the same files and byte
 * ranges as content.json names, variants at the video rung plus the audio, and written only where
 * missing or different.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { ChunkedRepresentation, ContentInfo, UnchunkedRepresentation } from '../../../demo/content/content-info';
import { hlsPlaylists, masterPlaylist, writeHlsPlaylists } from '../../../demo/content/hls-write';
import { AUDIO_BANDWIDTH_DATA_ID } from '../../../demo/content/hls-session-data';

const base = {
  mimeType: 'video/mp4',
  segmentDurationSec: 4,
  segmentCount: 2,
  mediaBytes: 0,
  mediaDurationSec: 8,
  measuredBitrate: 0,
  measuredToNominal: 1,
};
const video = {
  ...base,
  id: '0',
  contentType: 'video' as const,
  codecs: 'avc1.42c01f',
  bandwidth: 300_000,
  width: 320,
  height: 180,
  frameRate: 25,
};
const audio = {
  ...base,
  id: '5',
  contentType: 'audio' as const,
  mimeType: 'audio/mp4',
  codecs: 'mp4a.40.2',
  bandwidth: 128_000,
  audioChannels: 2,
};

const chunked = (r: typeof video | typeof audio): ChunkedRepresentation => ({
  ...r,
  initialization: { file: `init-${r.id}.m4s`, size: 800 },
  segments: [
    { number: 1, file: `chunk-${r.id}-00001.m4s`, size: 1000, startSec: 0, durationSec: 4 },
    { number: 2, file: `chunk-${r.id}-00002.m4s`, size: 900, startSec: 4, durationSec: 4.010667 },
  ],
});
const unchunked = (r: typeof video | typeof audio): UnchunkedRepresentation => ({
  ...r,
  file: `rep-${r.id}.mp4`,
  fileSize: 3000,
  initRange: [0, 768],
  indexRange: [769, 1168],
  timescale: 1000,
  segments: [
    { number: 1, range: [1169, 2168], size: 1000, startSec: 0, durationSec: 4 },
    { number: 2, range: [2169, 2999], size: 831, startSec: 4, durationSec: 3.989333 },
  ],
});

const info = {
  set: 'unit',
  layouts: {
    chunked: { manifest: 'chunked/manifest.mpd', representations: [chunked(video), chunked(audio)] },
    unchunked: { manifest: 'unchunked/manifest.mpd', representations: [unchunked(video), unchunked(audio)] },
  },
} as unknown as ContentInfo;

describe('HLS playlists of a content set', () => {
  it('gives each video rung a variant at its rate plus the audio, and the audio rate as session data', () => {
    const m = masterPlaylist([video, audio]);
    expect(m).toContain(`#EXT-X-SESSION-DATA:DATA-ID="${AUDIO_BANDWIDTH_DATA_ID}",VALUE="128000"`);
    expect(m).toContain('#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="audio",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="5.m3u8"');
    expect(m).toContain(
      '#EXT-X-STREAM-INF:BANDWIDTH=428000,CODECS="avc1.42c01f,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000,AUDIO="audio"\n0.m3u8\n',
    );
  });

  it('names the chunked files and the unchunked byte ranges content.json gives', () => {
    const all = hlsPlaylists(info);
    expect([...all.keys()].sort()).toEqual(
      ['chunked/0.m3u8', 'chunked/5.m3u8', 'chunked/master.m3u8', 'unchunked/0.m3u8', 'unchunked/5.m3u8', 'unchunked/master.m3u8'].sort(),
    );
    const c = all.get('chunked/5.m3u8') as string;
    expect(c).toContain(
      '#EXT-X-MAP:URI="init-5.m4s"\n#EXTINF:4.000000,\nchunk-5-00001.m4s\n#EXTINF:4.010667,\nchunk-5-00002.m4s\n#EXT-X-ENDLIST',
    );
    expect(c).toContain('#EXT-X-TARGETDURATION:4\n');
    const u = all.get('unchunked/0.m3u8') as string;
    expect(u).toContain('#EXT-X-MAP:URI="rep-0.mp4",BYTERANGE="769@0"');
    expect(u).toContain(
      '#EXTINF:4.000000,\n#EXT-X-BYTERANGE:1000@1169\nrep-0.mp4\n#EXTINF:3.989333,\n#EXT-X-BYTERANGE:831@2169\nrep-0.mp4\n',
    );
    expect(u).toMatch(/#EXT-X-PLAYLIST-TYPE:VOD[\s\S]*#EXT-X-ENDLIST\n$/);
  });

  it('writes what is missing or stale, and leaves current files alone', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-hls-'));
    try {
      expect((await writeHlsPlaylists(dir, info)).length).toBe(6);
      const master = path.join(dir, 'unchunked', 'master.m3u8');
      const before = statSync(master).mtimeMs;
      expect(await writeHlsPlaylists(dir, info)).toEqual([]);
      expect(statSync(master).mtimeMs).toBe(before);
      writeFileSync(master, 'stale');
      expect(await writeHlsPlaylists(dir, info)).toEqual(['unchunked/master.m3u8']);
      expect(readFileSync(master, 'utf8')).toMatch(/^#EXTM3U/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
