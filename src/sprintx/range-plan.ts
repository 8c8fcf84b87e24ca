/**
 * Sprint-x range planning (paper §IV-B2, sized by §IV-A): when dash.js asks
 * for segment i of a representation stored as one byte-range-addressed file,
 * expand the request to whole consecutive segments i..j whose bytes total at
 * least the chunk size, capped at the last segment of the file and, where the
 * caller says so, at a number of segments (a bound on the media time one
 * request covers: at a low rung the model's chunk can span the whole file,
 * and Sprint-x switches bitrate only between expanded requests).
 */

/** Inclusive byte range, as in an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ExpandedRange extends ByteRange {
  firstIndex: number;
  /** Index of the last whole segment covered. */
  lastIndex: number;
  /** True when the range stops at the last segment, before reaching the chunk size. */
  reachedEnd: boolean;
  /** True when the segment cap stopped the range before the chunk size. */
  capped: boolean;
}

export function rangeLength(r: ByteRange): number {
  return r.end - r.start + 1;
}

/** Parses `a-b` (dash.js's FragmentRequest.range) into an inclusive range. */
export function parseRange(text: string): ByteRange {
  const m = /^(\d+)-(\d+)$/.exec(text.trim());
  if (!m) throw new RangeError(`not a byte range "a-b": ${JSON.stringify(text)}`);
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) {
    throw new RangeError(`invalid byte range ${JSON.stringify(text)}`);
  }
  return { start, end };
}

/**
 * Plans the expanded request starting at `segments[firstIndex]`.
 * `segments` are the media ranges of one representation in order; they must
 * be contiguous from `firstIndex` on (a gap would put bytes no segment owns
 * into the request) — the plan stops before a gap.
 */
export function planExpandedRange(
  segments: readonly ByteRange[],
  firstIndex: number,
  chunkBytes: number,
  maxSegments = Infinity,
): ExpandedRange {
  if (!Number.isInteger(firstIndex) || firstIndex < 0 || firstIndex >= segments.length) {
    throw new RangeError(`segment index ${firstIndex} outside 0..${segments.length - 1}`);
  }
  if (!(chunkBytes > 0)) throw new RangeError(`chunk size must be positive, got ${chunkBytes}`);
  if (!(maxSegments >= 1)) throw new RangeError(`segment cap must be at least 1, got ${maxSegments}`);
  const first = segments[firstIndex] as ByteRange;
  let last = firstIndex;
  let end = first.end;
  let capped = false;
  while (end - first.start + 1 < chunkBytes && last + 1 < segments.length) {
    if (last - firstIndex + 1 >= maxSegments) {
      capped = true;
      break;
    }
    const next = segments[last + 1] as ByteRange;
    if (next.start !== end + 1) break;
    last += 1;
    end = next.end;
  }
  const reachedEnd = !capped && end - first.start + 1 < chunkBytes;
  return { start: first.start, end, firstIndex, lastIndex: last, reachedEnd, capped };
}
