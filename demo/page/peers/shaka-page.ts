/**
 * Peer page `shaka`: Shaka Player (its DASH build) on the content's DASH manifest with its own
 * defaults and ABR; `prefetch=N` sets `streaming.segmentPrefetchLimit` (Shaka's default is 1).
 * Every segment request is recorded from Shaka's networking engine: a request filter when it is
 * issued, `downloadheadersreceived`, then `downloadcompleted` or `downloadfailed`.
 */
import shaka from 'shaka-player/dist/shaka-player.dash';
import { bufferedAhead, PeerRecorder, PeerRequest } from './peer-stats';
import { intParam, runPeerPage } from './peer-page';

type Request = shaka.extern.Request;
type Context = shaka.extern.RequestContext | undefined;
/** Shaka's events carry their fields on the event (a FakeEvent built from a map). */
type DownloadEvent = Event & { request?: Request; context?: Context; response?: shaka.extern.Response; error?: unknown };

const { RequestType, AdvancedRequestType } = shaka.net.NetworkingEngine;

/** The stream of each URL a request with a stream context named: the sidx request names none. */
const streamOfUrl = new Map<string, shaka.extern.Stream>();

/**
 * A segment request as the recorder takes it; null for other requests. A request with no segment
 * reference (the init segment, or the sidx of SegmentBase content, which Shaka asks for with no
 * stream in its context) is recorded as `init`, with the stream its URL was last asked for by.
 */
function describe(request: Request, context: Context): PeerRequest | null {
  const type = context?.type;
  if (type !== AdvancedRequestType.INIT_SEGMENT && type !== AdvancedRequestType.MEDIA_SEGMENT) return null;
  const url = request.uris[0] ?? '';
  if (context?.stream) streamOfUrl.set(url, context.stream);
  const stream = context?.stream ?? streamOfUrl.get(url);
  const range = /^bytes=(\d+-\d+)$/.exec(request.headers['Range'] ?? '');
  return {
    kind: type === AdvancedRequestType.MEDIA_SEGMENT && context?.segment ? 'media' : 'init',
    mediaType: stream?.type ?? 'unknown',
    url,
    range: range ? (range[1] as string) : null,
    representationId: stream ? (stream.originalId ?? String(stream.id)) : null,
    bandwidth: stream?.bandwidth ?? null,
  };
}

runPeerPage(({ params, video, mpdUrl }) => {
  shaka.polyfill.installAll();
  const prefetch = params.has('prefetch') ? intParam(params, 'prefetch', 1) : null;
  const player = new shaka.Player();
  if (prefetch !== null) player.configure('streaming.segmentPrefetchLimit', prefetch);
  const limit = player.getConfiguration().streaming.segmentPrefetchLimit;
  const reason = `Shaka Player ${shaka.Player.version}, segmentPrefetchLimit ${limit}${prefetch === null ? ' (default)' : ''}, its own ABR`;
  const recorder = new PeerRecorder(video, 'shaka', reason, () => {
    const active = player.getVariantTracks().find((t) => t.active);
    const buffered = player.getBufferedInfo();
    const ahead = (ranges: shaka.extern.BufferedRange[]): number => {
      const r = ranges.find((x) => x.start <= video.currentTime + 0.1 && video.currentTime < x.end);
      return r ? r.end - video.currentTime : 0;
    };
    const estimate = player.getStats().estimatedBandwidth;
    return {
      videoBitrate: active?.videoBandwidth ?? null,
      bandwidthBitsPerSec: Number.isFinite(estimate) && estimate > 0 ? estimate : null,
      videoBufferSec: buffered.video.length > 0 ? ahead(buffered.video) : bufferedAhead(video.buffered, video.currentTime),
      audioBufferSec: ahead(buffered.audio),
    };
  });

  // The same request object goes through the filter, the headers and the completion or failure.
  const ids = new WeakMap<Request, number>();
  const net = player.getNetworkingEngine();
  net?.registerRequestFilter((type, request, context) => {
    const described = type === RequestType.SEGMENT ? describe(request, context) : null;
    if (described) ids.set(request, recorder.begin(described));
  });
  const idOf = (e: DownloadEvent): number | undefined => (e.request ? ids.get(e.request) : undefined);
  player.addEventListener('downloadheadersreceived', (e) => {
    const id = idOf(e as DownloadEvent);
    if (id !== undefined) recorder.firstByte(id);
  });
  player.addEventListener('downloadcompleted', (e) => {
    const ev = e as DownloadEvent;
    const id = idOf(ev);
    if (id === undefined) return;
    ids.delete(ev.request as Request);
    recorder.end(id, ev.response?.data.byteLength ?? 0, 'ok');
  });
  player.addEventListener('downloadfailed', (e) => {
    const ev = e as DownloadEvent & { aborted?: boolean; httpResponseCode?: number };
    const id = idOf(ev);
    if (id === undefined) return;
    ids.delete(ev.request as Request);
    const code = (ev.error as { code?: number } | null)?.code;
    const aborted = code === shaka.util.Error.Code.OPERATION_ABORTED;
    recorder.end(id, 0, aborted ? 'aborted' : 'error', aborted ? null : `shaka error ${code ?? '?'} (HTTP ${ev.httpResponseCode ?? 0})`);
  });
  player.addEventListener('error', (e) => {
    const err = (e as Event & { detail?: { code?: number; message?: string } }).detail;
    recorder.error(`shaka error ${err?.code ?? '?'}`);
  });

  void player
    .attach(video)
    .then(() => player.load(mpdUrl))
    .then(() => video.play())
    .catch((err: { code?: number; message?: string }) => recorder.error(`shaka load: ${err.code ?? ''} ${err.message ?? String(err)}`));
  video.muted = true;
  (window as unknown as { shakaPlayer: unknown }).shakaPlayer = player;
  return recorder;
});
