/**
 * What every peer page (peer.html: Shaka Player, hls.js) shares: the query (set, layout, hold=1),
 * the content's manifest URLs, the overlay, and `window.sprintPlayer` with the peer's stats() in
 * the shape the A/B harness reads from the Sprint demo page (demo/page/demo.ts), released at once
 * or, with hold=1, when the harness calls `window.sprintRelease()`.
 */
import type { PeerRecorder } from './peer-stats';

export interface PeerPageParams {
  readonly params: URLSearchParams;
  readonly video: HTMLVideoElement;
  /** The content's DASH manifest (`media/<set>/<layout>/manifest.mpd`, or `manifest=`). */
  readonly mpdUrl: string;
  /** The same content's HLS master playlist (`media/<set>/<layout>/master.m3u8`, or `manifest=`). */
  readonly hlsUrl: string;
}

/** A positive integer query value (`prefetch=4`), its default when absent; anything else throws. */
export function intParam(params: URLSearchParams, name: string, fallback: number): number {
  const v = params.get(name);
  if (v === null) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`peer page: ${name}=${v}: expected a positive integer`);
  return n;
}

function el<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`peer page: missing #${id}`);
  return found as T;
}

const mbit = (bps: number | null): string => (bps === null ? '–' : `${(bps / 1e6).toFixed(2)} Mbit/s`);

/**
 * Runs a peer page: `create` makes the player and returns its recorder (now, or on release with
 * hold=1); the overlay follows its stats twice a second.
 */
export function runPeerPage(create: (p: PeerPageParams) => PeerRecorder): void {
  const params = new URLSearchParams(location.search);
  const base = `media/${encodeURIComponent(params.get('set') ?? 'demo')}/${encodeURIComponent(params.get('layout') ?? 'unchunked')}`;
  const page: PeerPageParams = {
    params,
    video: el<HTMLVideoElement>('video'),
    mpdUrl: params.get('manifest') ?? `${base}/manifest.mpd`,
    hlsUrl: params.get('manifest') ?? `${base}/master.m3u8`,
  };
  const overlay = el<HTMLElement>('overlay');
  const w = window as unknown as { sprintPlayer?: PeerRecorder; sprintRelease?: () => void };
  const start = (): void => {
    let recorder: PeerRecorder;
    try {
      recorder = create(page);
    } catch (e) {
      overlay.textContent = `error: ${(e as Error).message}`;
      throw e;
    }
    w.sprintPlayer = recorder;
    const render = (): void => {
      const s = recorder.stats();
      const p = s.playback;
      overlay.textContent = [
        `player     ${s.modeReason}`,
        `bitrate    ${mbit(p.videoBitrate)}`,
        `buffer     ${p.videoBufferSec.toFixed(1)} s`,
        `estimate   ${mbit(s.estimates.bandwidthBitsPerSec)}`,
        `in flight  ${recorder.inFlight}`,
        `rebuffers  ${p.rebufferCount} (${(p.rebufferMs / 1000).toFixed(1)} s)   switches ${p.bitrateSwitches}`,
        `time       ${p.currentTimeSec.toFixed(1)} s`,
        ...p.errors.slice(-2),
      ].join('\n');
    };
    setInterval(render, 500);
    render();
  };
  if (params.get('hold') === '1') {
    w.sprintRelease = (): void => {
      delete w.sprintRelease;
      start();
    };
  } else {
    start();
  }
}
