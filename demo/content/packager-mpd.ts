/**
 * Reads the manifest that ffmpeg's DASH muxer wrote (the "packager manifest") for what the generator
 * takes from it: each Representation's id, codecs string, picture size / audio format, and, for the
 * single-file layout, its SegmentList byte ranges (cross-checked against the sidx). The manifests
 * that are served are written by mpd-write.ts, not taken from ffmpeg.
 */
import { ByteRange } from './content-info';
import { childrenNamed, descendantsNamed, parseXml, XmlElement } from './mini-xml';

export interface PackagerRepresentation {
  id: string;
  contentType: 'video' | 'audio';
  mimeType: string;
  codecs: string;
  width?: number;
  height?: number;
  frameRate?: number;
  audioSamplingRate?: number;
  audioChannels?: number;
  /** SegmentList only. */
  baseUrl?: string;
  initRange?: ByteRange;
  mediaRanges?: ByteRange[];
}

function parseRange(s: string, where: string): ByteRange {
  const m = /^(\d+)-(\d+)$/.exec(s);
  if (!m) throw new Error(`${where}: bad byte range "${s}"`);
  const r: ByteRange = [Number(m[1]), Number(m[2])];
  if (r[1] < r[0]) throw new Error(`${where}: byte range "${s}" ends before it starts`);
  return r;
}

function positiveInt(v: string | undefined, what: string, where: string): number {
  if (v === undefined || !/^\d+$/.test(v) || Number(v) <= 0) throw new Error(`${where}: missing or bad ${what} "${v}"`);
  return Number(v);
}

function frameRateOf(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const m = /^(\d+)(?:\/(\d+))?$/.exec(v);
  return m ? Number(m[1]) / Number(m[2] ?? 1) : undefined;
}

function readRepresentation(rep: XmlElement, set: XmlElement, where: string): PackagerRepresentation {
  const id = rep.attrs.id;
  if (!id) throw new Error(`${where}: a Representation has no id`);
  const w = `${where}: Representation ${id}`;
  const mimeType = rep.attrs.mimeType ?? set.attrs.mimeType;
  const codecs = rep.attrs.codecs ?? set.attrs.codecs;
  if (!mimeType || !codecs) throw new Error(`${w}: missing mimeType or codecs`);
  const type = set.attrs.contentType ?? mimeType.split('/')[0];
  if (type !== 'video' && type !== 'audio') throw new Error(`${w}: unexpected content type "${type}"`);
  const out: PackagerRepresentation = { id, contentType: type, mimeType, codecs };
  if (type === 'video') {
    out.width = positiveInt(rep.attrs.width, 'width', w);
    out.height = positiveInt(rep.attrs.height, 'height', w);
    out.frameRate = frameRateOf(rep.attrs.frameRate ?? set.attrs.frameRate);
  } else {
    out.audioSamplingRate = positiveInt(rep.attrs.audioSamplingRate ?? set.attrs.audioSamplingRate, 'audioSamplingRate', w);
    const acc = childrenNamed(rep, 'AudioChannelConfiguration')[0] ?? childrenNamed(set, 'AudioChannelConfiguration')[0];
    if (acc) out.audioChannels = positiveInt(acc.attrs.value, 'AudioChannelConfiguration@value', w);
  }
  const list = childrenNamed(rep, 'SegmentList')[0];
  if (list) {
    const base = childrenNamed(rep, 'BaseURL')[0];
    if (!base || base.text.trim() === '') throw new Error(`${w}: SegmentList without a BaseURL`);
    out.baseUrl = base.text.trim();
    const init = childrenNamed(list, 'Initialization')[0];
    if (!init?.attrs.range) throw new Error(`${w}: SegmentList without Initialization@range`);
    out.initRange = parseRange(init.attrs.range, w);
    out.mediaRanges = childrenNamed(list, 'SegmentURL').map((s) => {
      if (!s.attrs.mediaRange) throw new Error(`${w}: SegmentURL without mediaRange`);
      return parseRange(s.attrs.mediaRange, w);
    });
  }
  return out;
}

/** Parses ffmpeg's MPD text; `where` names the file in errors. */
export function readPackagerMpd(text: string, where: string): PackagerRepresentation[] {
  const mpd = parseXml(text, where);
  if (mpd.name !== 'MPD') throw new Error(`${where}: root element is <${mpd.name}>, not <MPD>`);
  const reps: PackagerRepresentation[] = [];
  for (const set of descendantsNamed(mpd, 'AdaptationSet')) {
    for (const rep of childrenNamed(set, 'Representation')) reps.push(readRepresentation(rep, set, where));
  }
  if (reps.length === 0) throw new Error(`${where}: no Representation elements`);
  return reps;
}
