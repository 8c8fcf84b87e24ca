/**
 * Peer page `hlsjs`: hls.js with its defaults and ABR on the content's HLS playlists (written
 * beside the MPDs by demo/content/hls-write.ts: the same fMP4 files and byte ranges). Every
 * fragment request is recorded from hls.js's events: FRAG_LOADING when it is issued, FRAG_LOADED
 * or a fragment load error, or its loader stats (init segments, aborts). hls.js loads one
 * fragment at a time per stream (video, audio) by design.
 */
import Hls, { type Fragment } from 'hls.js';
import { AUDIO_BANDWIDTH_DATA_ID } from '../../content/hls-session-data';
import { bufferedAhead, PeerRecorder } from './peer-stats';
import { runPeerPage } from './peer-page';

/** `…/<id>.m3u8` → the representation id the playlists are named after. */
const idOfPlaylist = (url: string | undefined): string | null => (url ? (/([^/]+)\.m3u8(?:\?.*)?$/.exec(url)?.[1] ?? null) : null);

runPeerPage(({ video, hlsUrl }) => {
  const hls = new Hls();
  let audioBitrate = 0;
  const videoBitrateOf = (level: number): number | null => {
    const l = hls.levels[level];
    return l ? l.bitrate - audioBitrate : null;
  };
  const open = new Map<Fragment, number>();
  /** Epoch ms of a time on the performance clock (hls.js's loader stats). */
  const epochMs = (t: number): number => performance.timeOrigin + t;
  // hls.js sends no FRAG_LOADED for an init segment, nor an event for an aborted load: both are
  // read from the fragment's loader stats at every stats() call.
  const sweep = (): void => {
    for (const [frag, id] of open) {
      const { aborted, loaded, loading } = frag.stats;
      if (!aborted && !(frag.sn === 'initSegment' && loading.end > 0)) continue;
      open.delete(frag);
      if (loading.first > 0) recorder.firstByte(id, epochMs(loading.first));
      recorder.end(id, loaded, aborted ? 'aborted' : 'ok', null, loading.end > 0 ? epochMs(loading.end) : Date.now());
    }
  };
  const recorder = new PeerRecorder(video, 'hlsjs', `hls.js ${Hls.version}, defaults, its own ABR`, () => {
    sweep();
    const estimate = hls.bandwidthEstimate;
    const main = hls.mainForwardBufferInfo;
    return {
      videoBitrate: hls.currentLevel >= 0 ? videoBitrateOf(hls.currentLevel) : null,
      bandwidthBitsPerSec: Number.isFinite(estimate) && estimate > 0 ? estimate : null,
      videoBufferSec: main ? main.len : bufferedAhead(video.buffered, video.currentTime),
      // hls.js keeps no public per-track figure for the audio buffer: the element's (audio and video together).
      audioBufferSec: bufferedAhead(video.buffered, video.currentTime),
    };
  });

  hls.on(Hls.Events.MANIFEST_LOADED, (_e, data) => {
    audioBitrate = Number(data.sessionData?.[AUDIO_BANDWIDTH_DATA_ID]?.['VALUE'] ?? 0) || 0;
  });
  hls.on(Hls.Events.FRAG_LOADING, (_e, { frag }) => {
    const earlier = open.get(frag);
    if (earlier !== undefined) recorder.end(earlier, 0, 'aborted');
    const audio = frag.type === 'audio';
    const playlist = audio ? hls.audioTracks[frag.level]?.url : hls.levels[frag.level]?.uri;
    const [first, end] = frag.byteRange;
    open.set(
      frag,
      recorder.begin({
        kind: frag.sn === 'initSegment' ? 'init' : 'media',
        mediaType: audio ? 'audio' : 'video',
        url: frag.url,
        range: first !== undefined && end !== undefined ? `${first}-${end - 1}` : null,
        representationId: idOfPlaylist(playlist),
        bandwidth: audio ? audioBitrate || null : videoBitrateOf(frag.level),
      }),
    );
  });
  hls.on(Hls.Events.FRAG_LOADED, (_e, { frag, payload }) => {
    const id = open.get(frag);
    if (id === undefined) return;
    open.delete(frag);
    const { loading } = frag.stats;
    if (loading.first > 0) recorder.firstByte(id, epochMs(loading.first));
    recorder.end(id, payload.byteLength, 'ok', null, loading.end > 0 ? epochMs(loading.end) : Date.now());
  });
  hls.on(Hls.Events.ERROR, (_e, data) => {
    const frag = data.frag;
    const id = frag ? open.get(frag) : undefined;
    const failedLoad = frag !== undefined && id !== undefined && /^(frag|init)/i.test(String(data.details));
    if (failedLoad) {
      open.delete(frag);
      recorder.end(id, frag.stats.loaded, 'error', String(data.details));
    }
    // Non-fatal reports such as bufferStalledError are hls.js's view of a stall, counted from the <video> already.
    if (data.fatal || failedLoad) recorder.error(`hls.js ${data.fatal ? 'fatal ' : ''}error ${String(data.details)}`);
  });

  hls.loadSource(hlsUrl);
  hls.attachMedia(video);
  video.muted = true;
  video.autoplay = true;
  (window as unknown as { hls: unknown }).hls = hls;
  return recorder;
});
