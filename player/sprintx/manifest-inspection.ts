/**
 * Reads a DASH manifest (MPD) to decide whether Sprint-x can work on it
 * (paper §IV-B2: "this approach will not work if video segments are stored
 * as separate files"): static content whose representations are each one
 * file addressed by byte ranges (SegmentBase with a sidx, or SegmentList with
 * mediaRange). Collects the SegmentList byte ranges, which dash.js itself
 * only materialises one segment at a time.
 */
import type { ByteRange } from '../../src/sprintx/range-plan';
import { parseRange } from '../../src/sprintx/range-plan';

export interface ManifestInspection {
  /** null when Sprint-x can run; otherwise why not. */
  unsupported: string | null;
  /** Absolute URL of the first video (else audio) representation's file. */
  firstMediaUrl: string | null;
  /** SegmentList media ranges by representation id (SegmentBase content has none: dash.js reads the sidx). */
  segmentLists: Map<string, ByteRange[]>;
}

function childrenNamed(el: Element, name: string): Element[] {
  return Array.from(el.children).filter((c) => c.localName === name);
}

function baseUrlOf(el: Element, parentBase: string): string {
  const b = childrenNamed(el, 'BaseURL')[0]?.textContent?.trim();
  return b ? new URL(b, parentBase).href : parentBase;
}

export function inspectManifest(xmlText: string, manifestUrl: string): ManifestInspection {
  const segmentLists = new Map<string, ByteRange[]>();
  const fail = (why: string): ManifestInspection => ({ unsupported: why, firstMediaUrl: null, segmentLists });
  const doc = new DOMParser().parseFromString(xmlText, 'application/xml');
  const mpd = doc.documentElement;
  if (!mpd || mpd.localName !== 'MPD' || doc.getElementsByTagName('parsererror').length > 0) {
    return fail('manifest is not a valid MPD document');
  }
  if ((mpd.getAttribute('type') ?? 'static') !== 'static') return fail('live (dynamic) manifests are not supported');
  if (mpd.getElementsByTagNameNS('*', 'SegmentTemplate').length > 0) {
    return fail(
      'content is chunked (one file per segment, SegmentTemplate): Sprint-x needs one file per representation addressed by byte ranges',
    );
  }
  let firstVideo: string | null = null;
  let firstAudio: string | null = null;
  let mediaReps = 0;
  const mpdBase = baseUrlOf(mpd, manifestUrl);
  for (const period of childrenNamed(mpd, 'Period')) {
    const periodBase = baseUrlOf(period, mpdBase);
    for (const set of childrenNamed(period, 'AdaptationSet')) {
      const setBase = baseUrlOf(set, periodBase);
      const setType = `${set.getAttribute('contentType') ?? ''} ${set.getAttribute('mimeType') ?? ''}`;
      for (const rep of childrenNamed(set, 'Representation')) {
        const type = `${setType} ${rep.getAttribute('mimeType') ?? ''}`;
        const isVideo = type.includes('video');
        const isAudio = type.includes('audio');
        if (!isVideo && !isAudio) continue;
        mediaReps += 1;
        const id = rep.getAttribute('id') ?? '';
        const repBase = baseUrlOf(rep, setBase);
        const hasBase = [rep, set, period].some((e) => childrenNamed(e, 'SegmentBase').length > 0);
        const list = [rep, set, period].map((e) => childrenNamed(e, 'SegmentList')[0]).find((e) => e !== undefined);
        if (list) {
          const ranges: ByteRange[] = [];
          for (const su of childrenNamed(list, 'SegmentURL')) {
            const mr = su.getAttribute('mediaRange');
            if (!mr || su.getAttribute('media')) {
              return fail(`representation ${id}: SegmentList without mediaRange (segments are separate files)`);
            }
            try {
              ranges.push(parseRange(mr));
            } catch (e) {
              return fail(`representation ${id}: ${(e as Error).message}`);
            }
          }
          segmentLists.set(id, ranges);
        } else if (!hasBase) {
          return fail(`representation ${id}: no SegmentBase or SegmentList byte ranges`);
        }
        if (isVideo && firstVideo === null) firstVideo = repBase;
        if (isAudio && firstAudio === null) firstAudio = repBase;
      }
    }
  }
  if (mediaReps === 0) return fail('manifest has no audio or video representations');
  return { unsupported: null, firstMediaUrl: firstVideo ?? firstAudio, segmentLists };
}
