/**
 * The byte ranges of a representation's segments as dash.js 5.2.1 knows them:
 * for content addressed by byte ranges (SegmentBase with a sidx index)
 * dash.js parses the index and stores every segment, with its `mediaRange`
 * ("start-end"), on `Representation.segments` (pinned by
 * test/unit/player/dashjs-contract.test.ts). Sprint-x plans expanded ranges
 * over them.
 */

/** The `mediaRange` of every segment of `representation`, or null when dash.js has not listed them (or lists one). */
export function segmentMediaRanges(representation: unknown): string[] | null {
  const segments = (representation as { segments?: Array<{ mediaRange?: unknown }> } | null | undefined)?.segments;
  if (!Array.isArray(segments) || segments.length <= 1) return null;
  const ranges = segments.map((s) => s?.mediaRange);
  return ranges.every((r): r is string => typeof r === 'string') ? ranges : null;
}
