/**
 * Reading dash.js 5.2.1 FragmentRequest objects (typed loosely in its
 * index.d.ts) into the fields Sprint uses, in one place.
 */
export interface DashFragmentRequestLike {
  type?: string | null;
  mediaType?: string | null;
  url?: string | null;
  range?: string | null;
  index?: number;
  /** Media duration of the segment, seconds. */
  duration?: number;
  bytesLoaded?: number;
  startDate?: Date | null;
  firstByteDate?: Date | null;
  endDate?: Date | null;
  representation?: { id?: string; bandwidth?: number } | null;
}

export const INIT_SEGMENT_TYPE = 'InitializationSegment';
export const MEDIA_SEGMENT_TYPE = 'MediaSegment';
/** dash.js's request type for a manifest load (HTTPRequest.MPD_TYPE). */
export const MANIFEST_TYPE = 'MPD';

export function isSegmentRequest(r: DashFragmentRequestLike): boolean {
  return r.type === INIT_SEGMENT_TYPE || r.type === MEDIA_SEGMENT_TYPE;
}

export function timeMs(d: Date | null | undefined): number | null {
  return d instanceof Date && !Number.isNaN(d.getTime()) ? d.getTime() : null;
}
