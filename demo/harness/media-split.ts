// A player's bytes split by media type, from its origin's access log: the
// wire capture counts everything a player's port carried (video and audio,
// every connection), while the paper's figures are for the *video* flow.
// Each response's body bytes are spread evenly over the time the origin was
// sending it and counted inside the measurement window; the file a URL names
// says its media type (content.json of the set). Our origin logs start and
// end in epoch ms; nginx (nginx-origin.ts) logs its end in epoch seconds and
// its request time. Pure: records in, rates out.

import type { ContentInfo } from '../content/content-info';
import { num } from '../testbed/jsonl';

export type MediaKind = 'video' | 'audio';

/** File name (last path component) → media type, for every file of both layouts. */
export function mediaFiles(info: Pick<ContentInfo, 'layouts'>): Map<string, MediaKind> {
  const files = new Map<string, MediaKind>();
  const kind = (t: string): MediaKind | null => (t === 'video' || t === 'audio' ? t : null);
  for (const r of info.layouts.chunked.representations) {
    const k = kind(r.contentType);
    if (!k) continue;
    files.set(r.initialization.file, k);
    for (const s of r.segments) files.set(s.file, k);
  }
  for (const r of info.layouts.unchunked.representations) {
    const k = kind(r.contentType);
    if (k) files.set(r.file, k);
  }
  return files;
}

export interface MediaRates {
  /** Body bytes of video files sent inside the window, as bit/s. */
  readonly videoBitsPerSec: number;
  readonly audioBitsPerSec: number;
  /** Access-log lines that named a media file and were counted. */
  readonly records: number;
}

/** Last path component of a URL, without the query: the file a request names. */
export function fileOf(url: string): string {
  return url.split('?')[0]?.split('/').pop() ?? '';
}

/** When the origin was sending a response's body, epoch seconds; null if the line does not say. */
export function sendingInterval(r: Record<string, unknown>): { fromS: number; toS: number } | null {
  const end = num(r['end']);
  if (end === null) return null;
  if (r['server'] === 'nginx') {
    const took = num(r['requestTimeS']) ?? 0;
    return { fromS: end - took, toS: end };
  }
  const start = num(r['start']) ?? num(r['arrival']);
  return { fromS: (start ?? end) / 1000, toS: end / 1000 };
}

/** Video and audio rates of one origin's access log over [fromS, toS). */
export function mediaRates(
  log: ReadonlyArray<Record<string, unknown>>,
  window: { fromS: number; toS: number },
  files: ReadonlyMap<string, MediaKind>,
): MediaRates {
  const bytes: Record<MediaKind, number> = { video: 0, audio: 0 };
  let records = 0;
  for (const r of log) {
    const url = typeof r['url'] === 'string' ? r['url'] : null;
    const body = num(r['bytes']);
    if (url === null || body === null || body <= 0) continue;
    const k = files.get(fileOf(url));
    const when = sendingInterval(r);
    if (!k || !when) continue;
    records += 1;
    const span = when.toS - when.fromS;
    const overlap = Math.min(when.toS, window.toS) - Math.max(when.fromS, window.fromS);
    if (span <= 0) {
      if (when.toS >= window.fromS && when.toS < window.toS) bytes[k] += body;
    } else if (overlap > 0) {
      bytes[k] += (body * overlap) / span;
    }
  }
  const sec = window.toS - window.fromS;
  return { videoBitsPerSec: sec > 0 ? (bytes.video * 8) / sec : 0, audioBitsPerSec: sec > 0 ? (bytes.audio * 8) / sec : 0, records };
}
