/**
 * Demo page controller: reads the query parameters, creates a Sprint player
 * on the demo content and keeps a small overlay with the live bitrate,
 * buffer, throughput and data plane mode. Exposes the player as
 * `window.sprintPlayer` so tests and curious users can read `stats()`, and
 * subscribes to every player event (counted in `window.sprintEvents`, the
 * latest few shown under the overlay): what a site embedding the player does.
 */
import type { SprintPlayer } from '../../player/create-player';
import type * as SprintApi from '../../player/index';

declare global {
  interface Window {
    Sprint: typeof SprintApi;
    sprintPlayer?: SprintPlayer;
    /** With `hold=1`: creates the player (once); absent once called and without hold. */
    sprintRelease?: () => void;
    /** Player events heard since the page loaded: a count per event and the last few, newest last. */
    sprintEvents?: {
      counts: Record<string, number>;
      /** Record ids of the transferEnd and trainEnd events heard, in order (the first MAX_HEARD_IDS of each). */
      ids: Record<string, number[]>;
      last: Array<{ name: string; atMs: number; text: string }>;
    };
  }
}

const params = new URLSearchParams(location.search);
const set = params.get('set') ?? 'demo';
const layout = params.get('layout') ?? 'unchunked';
const mode = params.get('mode') ?? 'auto';
const abr = params.get('abr') ?? undefined;
const transport = params.get('transport') ?? undefined;
// Experiment knobs (the A/B harness passes them with --page-query):
//   chunk=BYTES  a fixed chunk size instead of the model's
//   mpt=0        Sprint without the minimum pipeline train (paper Fig. 11)
//   swin=N       Sprint's outstanding window in fair BDPs (default 2; 1 is the paper's minimum)
//   buffer=SEC   dash.js's buffer targets (default, top quality, long form)
//   saudio=train|own   Sprint (extension): audio on the train's connection or dash.js's
//   sxswitch=after-chunk|immediate   Sprint-x's switch policy
//   sxsafety=SEC Sprint-x's safety level (buffered video below which a switch is never held)
//   sxmaxsec=SEC the most media time one Sprint-x expanded request covers
//   sxaudio=SEC  Sprint-x: media time of one expanded audio request (0: audio left to dash.js)
//   fragtimeout=MS dash.js's fragment request timeout (default 20000; tests of the segment rescue)
//   mpdtimeout=MS  dash.js's manifest request timeout (default 10000); behind a
//                multi-second queue both defaults are shorter than one request
//   quality=top|lowest  a fixed video rung (ABR off): the CPU benchmark
//                compares data planes on the same bytes
//   cdntoken=T   a site's request interceptor (dash.addRequestInterceptor): every request gets
//                ?token=T and the header X-CDN-Token: T (the demo origin's requireToken checks both)
//   cmcd=query|headers  dash.js's CMCD on, in that transmission mode
//   rttprobes=every-second|when-quiet  the player's rttProbes option
//   hold=1       load the page and the player bundle, then wait: the player is
//                created when window.sprintRelease() is called (the harness's
//                --preload-pages loads pages on an idle link, plays later)
const chunk = params.get('chunk');
const sxSwitch = params.get('sxswitch') ?? undefined;
const sprintAudio = params.get('saudio') ?? undefined;
const sxSafety = params.get('sxsafety');
const sxMaxSec = params.get('sxmaxsec');
const sxAudio = params.get('sxaudio');
const mpt = params.get('mpt');
const sprintWindow = params.get('swin');
const bufferTarget = params.get('buffer');
const fragTimeout = params.get('fragtimeout');
const mpdTimeout = params.get('mpdtimeout');
const quality = params.get('quality');
const hold = parseSwitch('hold', params.get('hold')) ?? false;
const cdnToken = params.get('cdntoken');
const cmcd = params.get('cmcd');
const rttProbes = params.get('rttprobes') ?? undefined;
const manifest = params.get('manifest') ?? `media/${encodeURIComponent(set)}/${encodeURIComponent(layout)}/manifest.mpd`;

function el<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`demo page: missing #${id}`);
  return found as T;
}

function mbit(bps: number | null | undefined): string {
  return bps == null ? '–' : `${(bps / 1e6).toFixed(2)} Mbit/s`;
}

function renderLinks(): void {
  const nav = el<HTMLElement>('links');
  for (const l of ['unchunked', 'chunked']) {
    for (const m of ['auto', 'stock', 'sprint-x', 'sprint']) {
      const a = document.createElement('a');
      const q = new URLSearchParams(params);
      q.set('layout', l);
      q.set('mode', m);
      a.href = `?${q.toString()}`;
      a.textContent = `${l}/${m}`;
      nav.appendChild(a);
    }
  }
}

function lastTransferThroughput(player: SprintPlayer): number | null {
  const t = player.stats().transfers;
  for (let i = t.length - 1; i >= 0; i--) {
    const v = t[i]?.throughputBitsPerSec;
    if (v != null) return v;
  }
  return null;
}

/** `mpt=` as a boolean; anything but 0/1/on/off/true/false is an error the overlay shows. */
function parseSwitch(name: string, value: string | null): boolean | undefined {
  if (value === null) return undefined;
  if (['1', 'on', 'true'].includes(value)) return true;
  if (['0', 'off', 'false'].includes(value)) return false;
  throw new RangeError(`demo page: ${name}=${value}: expected 1/on/true or 0/off/false`);
}

/** `chunk=`, `buffer=`, … as a number (> 0, or >= 0 with min 'zero'); anything else is an error the overlay shows. */
function parseNumber(name: string, value: string | null, min: 'positive' | 'zero' = 'positive'): number | undefined {
  if (value === null) return undefined;
  const n = Number(value);
  const ok = value.trim() !== '' && Number.isFinite(n) && (min === 'zero' ? n >= 0 : n > 0);
  if (!ok) throw new RangeError(`demo page: ${name}=${value}: expected ${min === 'zero' ? 'a number >= 0' : 'a positive number'}`);
  return n;
}

/** The page's knobs that become dash.js settings (`buffer=`, `fragtimeout=`, `mpdtimeout=`, `quality=`). */
interface DashKnobs {
  readonly target: number | undefined;
  readonly fragmentTimeoutMs: number | undefined;
  readonly manifestTimeoutMs: number | undefined;
  readonly fixedRung: 'top' | 'lowest' | null;
  readonly cmcd: string | null;
}

/** dash.js settings from the page's knobs (undefined when none is given). */
function dashSettings({
  target,
  fragmentTimeoutMs,
  manifestTimeoutMs,
  fixedRung,
  cmcd,
}: DashKnobs): SprintApi.SprintPlayerOptions['dashSettings'] {
  if (target === undefined && fragmentTimeoutMs === undefined && manifestTimeoutMs === undefined && fixedRung === null && cmcd === null)
    return undefined;
  const streaming: Record<string, unknown> = {};
  if (cmcd !== null) {
    if (cmcd !== 'query' && cmcd !== 'headers') throw new RangeError(`demo page: cmcd=${cmcd}: expected query or headers`);
    streaming['cmcd'] = { enabled: true, mode: cmcd };
  }
  if (target !== undefined)
    streaming['buffer'] = { bufferTimeDefault: target, bufferTimeAtTopQuality: target, bufferTimeAtTopQualityLongForm: target };
  if (fragmentTimeoutMs !== undefined) streaming['fragmentRequestTimeout'] = fragmentTimeoutMs;
  if (manifestTimeoutMs !== undefined) streaming['manifestRequestTimeout'] = manifestTimeoutMs;
  if (fixedRung !== null)
    streaming['abr'] = { autoSwitchBitrate: { video: false }, initialBitrate: { video: fixedRung === 'top' ? 1e9 : 1 } };
  return { streaming } as SprintApi.SprintPlayerOptions['dashSettings'];
}

/** One line of text for an event (the demo shows the last few). */
function describeEvent(name: SprintApi.SprintEventName, e: SprintApi.SprintEventMap[SprintApi.SprintEventName]): string {
  const r = e as unknown as Record<string, unknown>;
  switch (name) {
    case 'modeResolved':
    case 'fallback':
      return `${String(r['mode'] ?? r['from'])}: ${String(r['reason'])}`;
    case 'transferEnd':
      return `#${String(r['id'])} ${String(r['via'])} ${(Number(r['bytes']) / 1e6).toFixed(2)} MB${r['cancelled'] ? ' cancelled' : ''}${r['error'] ? ` error ${String(r['error'])}` : ''}`;
    case 'trainEnd':
      return `train #${String(r['id'])} ${(Number(r['completedBytes']) / 1e6).toFixed(2)} MB in ${String(r['requests'])} requests`;
    case 'estimates':
      return `rtt ${r['rttSec'] == null ? '–' : `${(Number(r['rttSec']) * 1000).toFixed(0)} ms`}, bandwidth ${mbit(r['bandwidthBitsPerSec'] as number | null)}`;
    case 'warning':
      return String(r['message']);
    default:
      return JSON.stringify(e).slice(0, 160);
  }
}

/** What a site behind a token-checking CDN adds to every request dash.js makes (and so Sprint's). */
function addCdnToken(player: SprintPlayer, token: string): void {
  player.dash.addRequestInterceptor(async (request) => {
    const url = new URL(request.url);
    url.searchParams.set('token', token);
    request.url = url.href;
    request.headers = { ...request.headers, 'X-CDN-Token': token };
    return request;
  });
}

/** Bound on the ids kept per event name (tests compare them with the stats' records). */
const MAX_HEARD_IDS = 10_000;

function listenToEvents(player: SprintPlayer): void {
  const log = {
    counts: {} as Record<string, number>,
    ids: {} as Record<string, number[]>,
    last: [] as Array<{ name: string; atMs: number; text: string }>,
  };
  window.sprintEvents = log;
  for (const name of window.Sprint.SPRINT_EVENT_NAMES) {
    player.on(name, (e) => {
      log.counts[name] = (log.counts[name] ?? 0) + 1;
      const id = (e as { id?: unknown }).id;
      if ((name === 'transferEnd' || name === 'trainEnd') && typeof id === 'number') {
        const ids = (log.ids[name] ??= []);
        if (ids.length < MAX_HEARD_IDS) ids.push(id);
      }
      log.last.push({ name, atMs: Date.now(), text: describeEvent(name, e) });
      if (log.last.length > 8) log.last.shift();
    });
  }
}

function start(): void {
  renderLinks();
  const video = el<HTMLVideoElement>('video');
  const overlay = el<HTMLElement>('overlay');
  const reason = el<HTMLElement>('reason');
  let player: SprintPlayer;
  try {
    const target = parseNumber('buffer', bufferTarget);
    if (quality !== null && quality !== 'top' && quality !== 'lowest')
      throw new RangeError(`demo page: quality=${quality}: expected top or lowest`);
    player = window.Sprint.createPlayer(video, manifest, {
      mode: mode as SprintApi.RequestedMode,
      abr: abr as SprintApi.SprintPlayerOptions['abr'],
      sprintTransport: transport as SprintApi.SprintPlayerOptions['sprintTransport'],
      chunkBytes: parseNumber('chunk', chunk),
      minimumTrain: parseSwitch('mpt', mpt),
      sprintWindowBdps: parseNumber('swin', sprintWindow),
      sprintAudio: sprintAudio as SprintApi.SprintPlayerOptions['sprintAudio'],
      sprintxSwitch: sxSwitch as SprintApi.SprintPlayerOptions['sprintxSwitch'],
      sprintxSafetySec: sxSafety === null ? undefined : parseNumber('sxsafety', sxSafety),
      sprintxMaxRangeSec: parseNumber('sxmaxsec', sxMaxSec),
      sprintxAudioSec: parseNumber('sxaudio', sxAudio, 'zero'),
      rttProbes: rttProbes as SprintApi.SprintPlayerOptions['rttProbes'],
      dashSettings: dashSettings({
        target,
        fragmentTimeoutMs: parseNumber('fragtimeout', fragTimeout),
        manifestTimeoutMs: parseNumber('mpdtimeout', mpdTimeout),
        fixedRung: quality,
        cmcd,
      }),
    });
    if (cdnToken !== null) addCdnToken(player, cdnToken);
  } catch (e) {
    overlay.textContent = `error: ${(e as Error).message}`;
    throw e;
  }
  window.sprintPlayer = player;
  listenToEvents(player);
  const render = (): void => {
    const s = player.stats();
    const p = s.playback;
    overlay.textContent = [
      `mode       ${s.mode ?? 'resolving'}${s.mode === 'sprint' && s.estimates.transport ? ` (${s.estimates.transport})` : ''}${s.requestedMode !== s.mode ? ` (asked ${s.requestedMode})` : ''}`,
      `bitrate    ${mbit(p.videoBitrate)}`,
      `buffer     ${p.videoBufferSec.toFixed(1)} s`,
      `throughput ${mbit(lastTransferThroughput(player))} wire, ${mbit(p.dashThroughputBitsPerSec)} dash.js`,
      `chunk      ${s.estimates.chunkBytes == null ? '–' : `${(s.estimates.chunkBytes / 1e6).toFixed(2)} MB`}`,
      `rebuffers  ${p.rebufferCount} (${(p.rebufferMs / 1000).toFixed(1)} s)   switches ${p.bitrateSwitches}${s.deferredSwitches.length ? ` (${s.deferredSwitches.length} held)` : ''}`,
      `time       ${p.currentTimeSec.toFixed(1)} s`,
    ].join('\n');
    const heard = window.sprintEvents?.last.filter((x) => x.name !== 'estimates').slice(-3) ?? [];
    reason.textContent = [`data plane: ${s.modeReason}`, ...heard.map((x) => `${x.name}: ${x.text}`)].join('\n');
  };
  setInterval(render, 500);
  render();
}

if (hold) {
  window.sprintRelease = (): void => {
    delete window.sprintRelease;
    start();
  };
} else {
  start();
}
