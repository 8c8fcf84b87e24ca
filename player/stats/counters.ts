/**
 * The counters of `stats().counters`: a fixed, documented set (a counter
 * not listed here does not compile). A counter absent from `stats()` has not
 * happened yet (zero).
 */
export const COUNTERS = {
  'requests.media':
    "media requests the player sent (dash.js's own segment loads, Sprint's train requests and re-issues, Sprint-x's expanded ranges)",
  'requests.manifest': "manifest requests the player sent (the mode checks' fetch, dash.js's own loads)",
  'requests.check': "requests the mode checks sent besides the manifest (Sprint-x's Range check)",
  'requests.probe': 'RTT probes sent (player/estimates/rtt-prober.ts)',
  rescues: 'segments that could not arrive and were asked again one rung or more lower (player/abr/rescue.ts)',
  'manifest.handedOver':
    "dash.js's manifest request answered from the mode checks' fetch, one request fewer at start-up (player/dataplane/manifest-handoff.ts)",
  'manifest.loadedByDash':
    "dash.js's first manifest request sent to the origin although the mode checks had fetched it (why: the player log)",

  'sprint.trains': 'trains begun (each time downloading resumed)',
  'sprint.reserveResumes':
    "trains begun above the player's own resume level because the restart reserve asked for more buffer (src/train/restart-reserve.ts)",
  'sprint.timeouts': "requests cancelled at dash.js's fragment request timeout (failed back as timed out: the segment rescue steps down)",
  'sprint.timeoutGrace':
    "requests let past dash.js's fragment request timeout because their response was still arriving and would be in sooner than a new request could bring anything (player/sprint/time-limit.ts); one that then fails counts in sprint.timeouts too",
  'sprint.audioOnTrain': "audio segments carried on the train's connection (sprintAudio 'train')",
  'sprint.audioPipelined':
    'audio segments requested while an earlier audio request was still in flight on the connection (audio pipelined in presentation order with the video)',
  'sprint.audioHolds': 'times a video request waited for audio to ask for its next segment (presentation order on one connection)',
  'sprint.audioHoldTimeouts':
    'audio, with nothing in flight, did not ask for its next segment within 1 s of a hold; video went on without it',
  'sprint.switchesInTrain': 'bitrate switches that kept the train running (no drain)',
  'sprint.switchesDrained': "bitrate switches that took dash.js's own path (wait for loading requests)",
  'sprint.reissued': 'requests sent again after their connection went away',
  'sprint.requestErrors': 'requests that failed for good (failed back to dash.js)',
  'sprint.failedBackToDash': "failed requests handed to dash.js's retry",
  'sprint.abortedByDash': 'requests dash.js aborted',
  'sprint.abortedBehindFailure': 'requests aborted because a request ahead of them failed (dash.js asks for them again, in order)',
  'sprint.droppedAtStreamStop':
    'requests still queued when dash.js stopped their stream (a period end, a MediaSource reset after a decode error): cancelled silently',
  'sprint.initMarkKept':
    "init segment appends that would have moved dash.js's initialised representation back to an older one than the last init requested (ignored)",
  'sprint.appendWatchdog': 'completions released because dash.js did not report the previous append in time',
  'sprint.quotaExceeded': "the browser's media buffer was full: trains stopped going past dash.js's target",
  'sprint.pathInfoErrors': 'TCP_INFO reads that failed',
  'sprint.probeErrors': 'RTT probes that failed',
  'sprint.fallbacks': 'falls back to stock loading during playback',
  'sprint.refused':
    "Sprint's requests the origin answered with an HTTP error (4xx, 5xx): the segment went to dash.js's own loader, and a few in a row fall back to stock",
  'sprint.headersNotCarried':
    "loads whose headers or credentials (from the page's request interceptors, CMCD, xhrWithCredentials) the extension's sockets cannot send: Sprint fell back instead of dropping them",

  'sprintx.transfers': 'expanded Range requests (video and, with sprintxAudioSec, audio)',
  'sprintx.audioTransfers': 'expanded Range requests for audio (sprintxAudioSec)',
  'sprintx.cancellations': 'expanded requests cancelled before their end (switch, seek)',
  'sprintx.wastedBytes': 'bytes received by cancelled expanded requests and never handed to dash.js',
  'sprintx.transferErrors': 'expanded requests that failed',
  'sprintx.segmentsFailedBack': "segments failed back to dash.js's retry",
  'sprintx.segmentsAbortedByDash': 'segments dash.js aborted while waiting for an expanded request',
  'sprintx.notExpandable': 'video segment requests Sprint-x left to dash.js (range unknown in the index)',
  'sprintx.switchesHeld': 'bitrate switches held until the chunk was in (after-chunk policy)',
  'sprintx.switchesHeld.applied': 'held switches that took effect',
  'sprintx.switchesHeld.withdrawn': 'held switches the ABR stopped asking for',
  'sprintx.switchesHeld.superseded': 'held switches overtaken by a seek, an error or a fallback',
  'sprintx.probeErrors': 'RTT probes that failed',
  'sprintx.fallbacks': 'falls back to stock loading during playback',
  'sprintx.refused':
    "expanded requests the origin answered with an HTTP error (4xx, 5xx): Sprint-x fell back to stock, the segments waiting went to dash.js's own loader",
} as const;

export type CounterName = keyof typeof COUNTERS;
export type Counters = Partial<Record<CounterName, number>>;
