// Figures for one player over a run's measurement window, from what the
// player reported once a second (player-session.ts): video bitrate downloaded
// (from the segments; the ABR's current choice as a fall-back) and buffer
// level over time, rebuffer count and time, startup delay, bitrate switches,
// the data plane mode and the reason it is in force, the transfers it chose
// on the wire (expanded range requests in Sprint-x, trains in Sprint, one per
// segment in stock) with their sizes and the model's chunk size, and the RTT
// and bandwidth estimates (paper §V-A QoE measures; §IV-A chunk sizing).
// Pure: records in, summary out.

import { Summary, summarize } from '../testbed/metrics';
import type { Window } from '../testbed/metrics';
import type { PlaybackStats } from '../../player/stats/types';
import { num } from '../testbed/jsonl';

/** One line of player-<port>.jsonl, loosely typed (fields depend on kind). */
export type PlayerLine = Record<string, unknown> & { kind: string; t: number };

export interface PlayerSeries {
  /** Poll times, seconds since the epoch. */
  readonly t: number[];
  readonly bitrateBps: Array<number | null>;
  readonly bufferS: Array<number | null>;
}

export interface TransferFigures {
  /** Transfers running at any time inside the window (all media types; open ones as they stood at the end). */
  readonly count: number;
  /** Video transfers running inside the window. */
  readonly videoCount: number;
  /** Bytes of the video transfers (what was asked for on the wire). */
  readonly videoBytes: Summary | null;
  /** The model's chunk size when each video transfer was issued (Sprint modes). */
  readonly targetChunkBytes: Summary | null;
  readonly cancelled: number;
  readonly wastedBytes: number;
  /** Video segments dash.js asked for per video transfer on the wire. */
  readonly segmentsPerTransfer: number | null;
  /**
   * The most transfers in progress at once inside the window (all media types), from the
   * player's own start and end times: 1 for a player that loads one segment at a time
   * (video and audio apart: up to 2), more with Shaka's prefetch or Sprint's trains.
   */
  readonly maxInFlight?: number;
  /** Sprint trains running inside the window. */
  readonly trains: number;
  readonly trainBytes: Summary | null;
}

/**
 * How a player ended the run on another data plane than it asked for (the extension or its host missing,
 * content or a server that cannot support the mode: it fell back), or null. `auto` asks for whichever
 * plane the page can run, so it never falls back.
 */
export function fallbackOf(p: Pick<PlayerSummary, 'label' | 'requestedMode' | 'mode' | 'modeReason'>): string | null {
  if (p.mode === null || p.requestedMode === null || p.requestedMode === 'auto' || p.mode === p.requestedMode) return null;
  return `player ${p.label}: asked for ${p.requestedMode}, ran ${p.mode}${p.modeReason ? ` (${p.modeReason})` : ''}`;
}

export interface PlayerSummary {
  readonly port: number;
  readonly label: string;
  readonly requestedMode: string | null;
  /** Mode in force at the end (null if the player never resolved one). */
  readonly mode: string | null;
  readonly modeReason: string | null;
  readonly abr: string | null;
  readonly ready: boolean;
  readonly startupDelayS: number | null;
  /** True if any poll saw the page hidden (a throttled player is not a fair comparison). */
  readonly everHidden: boolean;
  readonly polls: number;
  readonly pollErrors: number;
  /**
   * Video bitrate over the window, bit/s: the median nominal bitrate of the
   * video segments downloaded (paper Fig. 7: "video bitrate downloaded"), or,
   * when no segment finished in the window, of the ABR's current choice at each poll.
   */
  readonly bitrateMedianBps: number | null;
  readonly bitrateSource: 'segments' | 'polls' | null;
  /** Time-average of the ABR's current choice (dash.js's current representation) over the polls. */
  readonly selectedBitrateMeanBps: number | null;
  /** Video segments downloaded in the window, and changes of bitrate between consecutive ones. */
  readonly videoSegments: number;
  readonly downloadSwitches: number | null;
  readonly bufferS: Summary | null;
  /**
   * Within the window (switches: quality changes rendered, as dash.js reports
   * them). rebufferCount counts every stall that was in progress at some time
   * inside the window — one that began before the window and went on into it
   * included; rebufferS is the stall time inside the window.
   */
  readonly rebufferCount: number | null;
  readonly rebufferS: number | null;
  /** A stall began before the window and was still in progress when it opened. */
  readonly stallInProgressAtStart: boolean;
  /** The player was stalled at the last poll of the window. */
  readonly stalledAtEnd: boolean;
  /** Media time played inside the window, seconds (null without polls on both sides). */
  readonly playedS: number | null;
  /**
   * The longest time inside the window, seconds, over which playback did not
   * advance while the player reported no stall and had not ended (a wedged
   * player: on the testbed one sat at 0 for 115 s after dash.js reset its
   * MediaSource, with no stall reported); null without two polls in it.
   */
  readonly frozenS: number | null;
  /** Media seconds playback went back inside the window (dash.js restarting it from an earlier time, e.g. after a MediaSource reset). */
  readonly rewoundS: number;
  /** Console lines in the window reporting a MEDIA_ERR_DECODE (dash.js resets the MediaSource on each). */
  readonly decodeErrors: number;
  /** dash.js errors reported inside the window, and the last error the player reported (up to the window's end). */
  readonly errorsInWindow: number | null;
  readonly lastError: string | null;
  /** Segments that could not arrive inside the window and were asked again at a lower rung (player/abr/rescue.ts). */
  readonly rescues: number;
  readonly switches: number | null;
  /** Over the whole run. */
  readonly rebufferCountTotal: number | null;
  readonly rebufferSTotal: number | null;
  readonly switchesTotal: number | null;
  readonly ended: boolean;
  readonly transfers: TransferFigures;
  readonly estimates: {
    /** The RTT the data plane sized chunks with (TCP_INFO when the transport reads it, else the probes). */
    readonly rttMs: Summary | null;
    /** RTT of the ~1 s probe requests (paper §IV-A), ms. */
    readonly probeRttMs: Summary | null;
    /** Smoothed RTT from TCP_INFO of the connection carrying Sprint's trains, ms. */
    readonly tcpInfoRttMs: Summary | null;
    readonly bandwidthBps: Summary | null;
    readonly chunkBytes: Summary | null;
    readonly source: string | null;
  };
  /** Player-reported errors and page errors (first few). */
  readonly errors: readonly string[];
  readonly series: PlayerSeries;
}

const maybe = (values: Array<number | null>): Summary | null => {
  const ok = values.filter((v): v is number => v !== null);
  return ok.length > 0 ? summarize(ok) : null;
};

/**
 * The player's playback state as logged (player/stats/types.ts), read
 * loosely: every field may be missing or malformed in a log, so each is
 * checked where it is used. Keyed by PlaybackStats, so a renamed field does
 * not compile here.
 */
type Playback = { [K in keyof PlaybackStats]?: unknown };

/** Cumulative counter at the last poll at or before time t (null if none). */
function counterAt(polls: readonly PlayerLine[], t: number, read: (p: Playback) => number | null): number | null {
  let value: number | null = null;
  for (const p of polls) {
    if (p.t > t) break;
    const v = read((p['playback'] ?? {}) as Playback);
    if (v !== null) value = v;
  }
  return value;
}

/** Index of the last poll at or before time t, or -1. */
function lastAtOrBefore(polls: readonly PlayerLine[], t: number): number {
  let at = -1;
  for (let i = 0; i < polls.length; i++) {
    if ((polls[i] as PlayerLine).t > t) break;
    at = i;
  }
  return at;
}

const playbackOf = (p: PlayerLine | undefined): Playback => (p?.['playback'] ?? {}) as Playback;

/**
 * Whether the stall that was in progress at poll i (if any) went on after it:
 * from the player's `stallStartMs` when the log has it, else (older logs) from
 * the counters: rebuffer time grew from poll i to the next one while the
 * count did not (so it is the same stall).
 */
function stallContinuesAfter(polls: readonly PlayerLine[], i: number): boolean {
  const at = playbackOf(polls[i]);
  if (at.stallStartMs !== undefined) return num(at.stallStartMs) !== null;
  const next = polls[i + 1];
  if (!next) return false;
  const a = playbackOf(polls[i]);
  const b = playbackOf(next);
  const msA = num(a.rebufferMs);
  const msB = num(b.rebufferMs);
  return msA !== null && msB !== null && msB > msA && num(a.rebufferCount) === num(b.rebufferCount);
}

/** Whether the player was stalled at poll i (`stallStartMs`, else rebuffer time grew into it from the previous poll). */
function stalledAt(polls: readonly PlayerLine[], i: number): boolean {
  const at = playbackOf(polls[i]);
  if (at.stallStartMs !== undefined) return num(at.stallStartMs) !== null;
  const prev = polls[i - 1];
  if (!prev) return false;
  const msA = num(playbackOf(prev).rebufferMs);
  const msB = num(at.rebufferMs);
  return msA !== null && msB !== null && msB > msA;
}

/** Playback moved less than this between two polls, seconds: it did not advance. */
const STILL_S = 0.05;
/** Playback moved back more than this between two polls, seconds: a rewind (not clock jitter). */
const REWIND_S = 0.5;

/**
 * Over consecutive polls inside the window (the one before it included):
 * the longest run of time in which currentTime did not advance while
 * neither poll saw a stall, playback had begun and the player had not
 * ended, and the media seconds playback went back.
 */
function frozenAndRewound(polls: readonly PlayerLine[], window: Window | null): { frozenS: number | null; rewoundS: number } {
  const from = window === null ? 0 : Math.max(0, lastAtOrBefore(polls, window.fromS));
  const to = window === null ? polls.length - 1 : lastAtOrBefore(polls, window.toS);
  let frozen: number | null = null;
  let run = 0;
  let rewound = 0;
  // Before playback first moved it is starting up, not standing still.
  let started = polls.slice(0, from + 1).some((p) => (num(playbackOf(p).currentTimeSec) ?? 0) > 0);
  for (let i = from; i < to; i++) {
    const a = polls[i] as PlayerLine;
    const b = polls[i + 1] as PlayerLine;
    const ta = num(playbackOf(a).currentTimeSec);
    const tb = num(playbackOf(b).currentTimeSec);
    const dt = b.t - a.t;
    if (ta === null || tb === null || !(dt > 0)) continue;
    // Only the part of the interval inside the window counts.
    const span = window === null ? dt : Math.min(b.t, window.toS) - Math.max(a.t, window.fromS);
    if (tb < ta - REWIND_S) rewound += ta - tb;
    const still = Math.abs(tb - ta) < STILL_S || tb < ta;
    run =
      started && still && !stalledAt(polls, i) && !stalledAt(polls, i + 1) && playbackOf(b).ended !== true ? run + Math.max(0, span) : 0;
    if (ta > 0 || tb > 0) started = true;
    frozen = Math.max(frozen ?? 0, run);
  }
  return { frozenS: frozen, rewoundS: rewound };
}

/** Rescues (the last poll's list, all so far) that happened inside the window. */
function rescuesIn(last: PlayerLine | undefined, window: Window | null): number {
  const list = last?.['rescues'];
  if (!Array.isArray(list)) return 0;
  return list.filter((r) => {
    const at = num((r as Record<string, unknown>)['atMs']);
    return at !== null && (window === null || (at / 1000 >= window.fromS && at / 1000 < window.toS));
  }).length;
}

/** The most transfers open at once inside the window (an open one runs to the end of the log). */
export function maxInFlight(transfers: readonly PlayerLine[], window: Window | null): number {
  const events: Array<[number, number]> = [];
  for (const x of transfers) {
    const start = num(x['startMs']);
    if (start === null) continue;
    const end = num(x['endMs']) ?? Infinity;
    const from = window === null ? start : Math.max(start, window.fromS * 1000);
    const to = window === null ? end : Math.min(end, window.toS * 1000);
    if (to <= from) continue;
    events.push([from, 1], [to, -1]);
  }
  // Ends before starts at the same instant: back-to-back is not overlap.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of events) {
    open += d;
    most = Math.max(most, open);
  }
  return most;
}

export function summarizePlayer(lines: readonly PlayerLine[], window: Window | null, meta: { port: number; label: string }): PlayerSummary {
  const open = lines.find((l) => l.kind === 'open');
  const polls = lines.filter((l) => l.kind === 'poll').sort((a, b) => a.t - b.t);
  const ready = polls.filter((p) => p['ready'] === true);
  const last = ready[ready.length - 1];
  const inWindow = (t: number): boolean => window === null || (t >= window.fromS && t < window.toS);
  const wPolls = ready.filter((p) => inWindow(p.t));
  const pb = (p: PlayerLine): Playback => (p['playback'] ?? {}) as Playback;

  const bitrates = wPolls.map((p) => num(pb(p).videoBitrate));
  // Time-weighted mean: each poll's bitrate holds until the next poll.
  let weighted = 0;
  let weight = 0;
  for (let i = 0; i + 1 < wPolls.length; i++) {
    const b = num(pb(wPolls[i] as PlayerLine).videoBitrate);
    const dt = (wPolls[i + 1] as PlayerLine).t - (wPolls[i] as PlayerLine).t;
    if (b !== null && dt > 0) {
      weighted += b * dt;
      weight += dt;
    }
  }
  // Video media segments that finished downloading in the window, in request order.
  const downloaded = lines
    .filter((l) => l.kind === 'segment' && l['mediaType'] === 'video' && l['segmentKind'] !== 'init' && l['status'] === 'ok')
    .filter((l) => inWindow((num(l['endMs']) ?? l.t * 1000) / 1000))
    .sort((a, b) => (num(a['requestMs']) ?? 0) - (num(b['requestMs']) ?? 0));
  const segmentRates = downloaded.map((l) => num(l['bandwidth'])).filter((v): v is number => v !== null);
  let downloadSwitches = 0;
  for (let i = 1; i < segmentRates.length; i++) if (segmentRates[i] !== segmentRates[i - 1]) downloadSwitches++;
  const bitrateSummary = segmentRates.length > 0 ? summarize(segmentRates) : maybe(bitrates);
  const bitrateSource: PlayerSummary['bitrateSource'] = segmentRates.length > 0 ? 'segments' : bitrateSummary ? 'polls' : null;

  const delta = (read: (p: Playback) => number | null): number | null => {
    if (window === null) return last ? read(pb(last)) : null;
    const end = counterAt(ready, window.toS, read);
    if (end === null) return null;
    return end - (counterAt(ready, window.fromS, read) ?? 0);
  };
  // A stall in progress when the window opens began before it (so the
  // counter's difference misses it) but its time inside the window is
  // rebuffering all the same: it counts once.
  const startIdx = window === null ? -1 : lastAtOrBefore(ready, window.fromS);
  const stallInProgressAtStart = startIdx >= 0 && stallContinuesAfter(ready, startIdx);
  const countDelta = delta((p) => num(p.rebufferCount));
  const rebufferCount = countDelta === null ? null : countDelta + (stallInProgressAtStart ? 1 : 0);
  const rebufferMs = delta((p) => num(p.rebufferMs));
  const endIdx = window === null ? ready.length - 1 : lastAtOrBefore(ready, window.toS);
  const stalledAtEnd = endIdx >= 0 && (window === null || (ready[endIdx] as PlayerLine).t >= window.fromS) && stalledAt(ready, endIdx);
  const played = delta((p) => num(p.currentTimeSec));
  const { frozenS, rewoundS } = frozenAndRewound(ready, window);
  const decodeErrors = lines.filter(
    (l) => l.kind === 'console' && inWindow(l.t) && typeof l['text'] === 'string' && (l['text'] as string).includes('MEDIA_ERR_DECODE'),
  ).length;
  // errorCount where the player reports it; older logs: the length of the (capped) error list.
  const errorsInWindow = delta((p) => num(p.errorCount) ?? (Array.isArray(p.errors) ? p.errors.length : null));
  const errorsAtEnd = endIdx >= 0 ? playbackOf(ready[endIdx]).errors : undefined;
  const lastError = Array.isArray(errorsAtEnd) && errorsAtEnd.length > 0 ? String(errorsAtEnd[errorsAtEnd.length - 1]) : null;
  const switches = delta((p) => num(p.bitrateSwitches));

  // Transfers: media type from the segments each one served, else from the URL (one file per representation).
  const typeOfTransfer = new Map<number, string>();
  const typeOfUrl = new Map<string, string>();
  for (const s of lines) {
    if (s.kind !== 'segment' || typeof s['mediaType'] !== 'string') continue;
    const id = num(s['transferId']);
    if (id !== null) typeOfTransfer.set(id, s['mediaType'] as string);
    if (typeof s['url'] === 'string') typeOfUrl.set(s['url'] as string, s['mediaType'] as string);
  }
  const mediaTypeOf = (x: PlayerLine): string | undefined => typeOfTransfer.get(num(x['id']) ?? -1) ?? typeOfUrl.get(String(x['url']));
  const videoSegments = lines.filter(
    (l) =>
      l.kind === 'segment' &&
      l['mediaType'] === 'video' &&
      l['segmentKind'] !== 'init' &&
      inWindow(num(l['endMs']) !== null ? (num(l['endMs']) as number) / 1000 : l.t),
  );
  // A transfer counts in the window if it was running during it (long expanded ranges span minutes).
  const overlaps = (x: PlayerLine): boolean => {
    if (window === null) return true;
    const start = (num(x['startMs']) ?? x.t * 1000) / 1000;
    const end = (num(x['endMs']) ?? x.t * 1000) / 1000;
    return start < window.toS && end >= window.fromS;
  };
  const transfers = lines.filter((l) => l.kind === 'transfer' && overlaps(l));
  const video = transfers.filter((x) => mediaTypeOf(x) === 'video');
  const trains = lines.filter((l) => l.kind === 'train' && overlaps(l));
  const videoTrains = trains.filter((x) => x['mediaType'] === undefined || x['mediaType'] === 'video');
  const transferFigures: TransferFigures = {
    count: transfers.length,
    videoCount: video.length,
    videoBytes: maybe(video.map((x) => num(x['bytes']))),
    targetChunkBytes: maybe(video.map((x) => num(x['targetChunkBytes']))),
    cancelled: transfers.filter((x) => x['cancelled'] === true).length,
    wastedBytes: transfers.reduce((a, x) => a + (num(x['wastedBytes']) ?? 0), 0),
    segmentsPerTransfer: video.length > 0 ? videoSegments.filter((s) => s['status'] === 'ok').length / video.length : null,
    maxInFlight: maxInFlight(transfers, window),
    trains: videoTrains.length,
    trainBytes: maybe(videoTrains.map((x) => num(x['completedBytes']))),
  };

  const est = (p: PlayerLine): Record<string, unknown> => (p['estimates'] ?? {}) as Record<string, unknown>;
  const ms = (key: string): Array<number | null> =>
    wPolls.map((p) => {
      const v = num(est(p)[key]);
      return v === null ? null : v * 1000;
    });
  const errors: string[] = [];
  for (const e of (last ? (pb(last).errors as unknown[] | undefined) : undefined) ?? []) errors.push(String(e));
  for (const l of lines) if (l.kind === 'pageerror') errors.push(`page error: ${String(l['message'])}`);

  const startup = last ? num(pb(last).startupDelayMs) : null;
  return {
    port: meta.port,
    label: meta.label,
    requestedMode: (last?.['requestedMode'] as string | undefined) ?? (open?.['mode'] as string | undefined) ?? null,
    mode: (last?.['mode'] as string | null | undefined) ?? null,
    modeReason: (last?.['modeReason'] as string | undefined) ?? null,
    abr: (open?.['abr'] as string | undefined) ?? null,
    ready: ready.length > 0,
    startupDelayS: startup === null ? null : startup / 1000,
    everHidden: polls.some((p) => p['visibility'] === 'hidden'),
    polls: polls.length,
    pollErrors: lines.filter((l) => l.kind === 'poll-error').length,
    bitrateMedianBps: bitrateSummary ? bitrateSummary.median : null,
    bitrateSource,
    selectedBitrateMeanBps: weight > 0 ? weighted / weight : null,
    videoSegments: downloaded.length,
    downloadSwitches: segmentRates.length > 0 ? downloadSwitches : null,
    bufferS: maybe(wPolls.map((p) => num(pb(p).videoBufferSec))),
    rebufferCount,
    rebufferS: rebufferMs === null ? null : rebufferMs / 1000,
    stallInProgressAtStart,
    stalledAtEnd,
    playedS: window === null ? (last ? num(pb(last).currentTimeSec) : null) : played,
    frozenS,
    rewoundS,
    decodeErrors,
    errorsInWindow,
    lastError,
    rescues: rescuesIn(last, window),
    switches,
    rebufferCountTotal: last ? num(pb(last).rebufferCount) : null,
    rebufferSTotal: last && num(pb(last).rebufferMs) !== null ? (num(pb(last).rebufferMs) as number) / 1000 : null,
    switchesTotal: last ? num(pb(last).bitrateSwitches) : null,
    ended: last ? pb(last).ended === true : false,
    transfers: transferFigures,
    estimates: {
      rttMs: maybe(ms('rttSec')),
      probeRttMs: maybe(ms('probeRttSec')),
      tcpInfoRttMs: maybe(ms('tcpInfoRttSec')),
      bandwidthBps: maybe(wPolls.map((p) => num(est(p)['bandwidthBitsPerSec']))),
      chunkBytes: maybe(wPolls.map((p) => num(est(p)['chunkBytes']))),
      source: last ? ((est(last)['source'] as string | null | undefined) ?? null) : null,
    },
    errors: errors.slice(0, 10),
    series: {
      t: ready.map((p) => p.t),
      bitrateBps: ready.map((p) => num(pb(p).videoBitrate)),
      bufferS: ready.map((p) => num(pb(p).videoBufferSec)),
    },
  };
}
