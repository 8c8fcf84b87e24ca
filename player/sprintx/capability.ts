/**
 * Can Sprint-x run here? (paper §IV-B2). Checks, before playback starts:
 *   1. the manifest is static and byte-range addressed (manifest-inspection);
 *   2. the media server honours a Range request from this page: a 2-byte
 *      probe must come back 206 (a server that answers 200 ignores Range; a
 *      fetch error means cross-origin Range is blocked by CORS). It is built
 *      as dash.js would build a segment load (player/dataplane/request-path.ts).
 * Each "no" carries the reason shown in stats, the overlay and the console.
 */
import type { Availability, ModeProvider } from '../dataplane/resolve-mode';
import { inspectManifest } from './manifest-inspection';
import { SprintXDataPlane } from './sprintx-data-plane';
import { plainRequestPath, type RequestPath } from '../dataplane/request-path';
import { MEDIA_SEGMENT_TYPE } from '../dataplane/dash-request';

/** Asks for 2 bytes of `url` on the request path (the page's interceptors run on it, as on a segment load). */
export async function probeRangeSupport(url: string, requests: RequestPath = plainRequestPath()): Promise<string | null> {
  const controller = new AbortController();
  let res: Response;
  try {
    res = await requests.fetch(
      'check',
      { url, type: MEDIA_SEGMENT_TYPE },
      { range: { start: 0, end: 1 }, credentials: 'omit', signal: controller.signal },
    );
  } catch (e) {
    return `Range request to ${url} failed (cross-origin Range blocked by CORS, or the server is unreachable): ${(e as Error).message}`;
  }
  try {
    if (res.status === 200) return 'the media server ignores Range requests (answered 200 with the whole file)';
    if (res.status !== 206) return `the media server answered a Range request with HTTP ${res.status}`;
    const cr = res.headers.get('Content-Range');
    if (cr !== null && !/^bytes 0-1\/(\d+|\*)$/.test(cr)) return `the media server sent a mismatched Content-Range "${cr}"`;
    return null;
  } finally {
    controller.abort(); // never download more than the probe needs
  }
}

export const sprintXProvider: ModeProvider = {
  mode: 'sprint-x',
  async check(ctx): Promise<Availability> {
    const manifest = await ctx.manifest();
    if (!manifest.ok) return { ok: false, reason: manifest.problem };
    // Relative URLs resolve against where the manifest came from after redirects, as dash.js resolves them.
    const inspection = inspectManifest(manifest.text, manifest.url);
    if (inspection.unsupported !== null || inspection.firstMediaUrl === null) {
      return { ok: false, reason: inspection.unsupported ?? 'no media file found in the manifest' };
    }
    const rangeProblem = await probeRangeSupport(inspection.firstMediaUrl, ctx.requests);
    if (rangeProblem !== null) return { ok: false, reason: rangeProblem };
    return {
      ok: true,
      plane: new SprintXDataPlane(inspection.firstMediaUrl, inspection.segmentLists),
      reason: 'byte-range addressed content and a server honouring Range requests',
    };
  },
};
