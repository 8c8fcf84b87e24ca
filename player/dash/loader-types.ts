/**
 * The parts of dash.js 5.2.1's loader contract Sprint relies on, typed in one
 * place (dash.js's index.d.ts leaves them loose). See
 * docs/dashjs-integration.md, "Plug-in points".
 *
 * HTTPLoader calls `XHRLoader.load(request, response)`; a loader fills
 * `response.{url,status,statusText,headers,data}`, reports progress through
 * `request.customData.onprogress({loaded,total,lengthComputable,time})`, ends
 * with `request.customData.onloadend()`, and sets `request.customData.abort`.
 */
import type { DashFragmentRequestLike } from '../dataplane/dash-request';

export interface WireTiming {
  startMs: number;
  firstByteMs: number;
  endMs: number;
  traces: Array<{ startMs: number; durationMs: number; bytes: number }>;
}

export interface SprintFailure {
  /** The transfer ended by a timeout (else a network error, a cut). */
  timedOut: boolean;
  /** Body bytes the transfer carrying the segment received. */
  bytes: number;
  startMs: number;
  firstByteMs: number | null;
}

export interface LoaderCustomData {
  request?: DashFragmentRequestLike & { traces?: Array<{ s: Date; d: number; b: number[] }> };
  onloadend?: () => void;
  onprogress?: (e: { loaded: number; total: number; lengthComputable: boolean; time?: number; noTrace?: boolean }) => void;
  onabort?: () => void;
  ontimeout?: (e: unknown) => void;
  abort?: () => void;
  /** Set by a Sprint data plane: the real wire timing of the bytes it delivered. */
  sprintWire?: WireTiming;
  /**
   * Set by a Sprint data plane when it fails a load back to dash.js: what its
   * own transfer got (the segment rescue, player/abr/rescue.ts, reads it; a
   * data plane reports no progress for a segment it could not deliver).
   */
  sprintFailure?: SprintFailure;
}

export interface LoaderRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  responseType?: string;
  body?: unknown;
  credentials?: RequestCredentials;
  timeout?: number;
  customData: LoaderCustomData;
}

export interface LoaderResponse {
  url?: string;
  status?: number;
  statusText?: string;
  headers?: Record<string, string>;
  /** A segment's bytes; a text request's string (the manifest: dash.js's TextRequest asks for responseType ''). */
  data?: ArrayBuffer | string;
  request?: LoaderRequest;
}

/**
 * A data plane that may take over some loads; it returns false to leave a
 * load to dash.js. A load it took it may still hand to dash.js's own loader
 * (`passOn`, at most once, instead of answering it): the request then goes
 * out exactly as dash.js built it.
 */
export interface SegmentLoadHandler {
  tryLoad(request: LoaderRequest, response: LoaderResponse, passOn?: () => void): boolean;
}
