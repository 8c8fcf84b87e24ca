/**
 * The content a run's players played, as its run record keeps it: the set's
 * name, the recipe fingerprint that made it and its video ladder (from the
 * set's content.json when the run ended). A summary reads the ladder from
 * here rather than from today's recipe (demo/content/recipe.ts), so a set
 * whose ladder changes later does not change what committed runs are
 * measured against (the BW-x expected shares, expected-share.ts). It reads
 * the set's media files on this machine (audio vs video, media-split.ts)
 * only while they are still the content the run played: a set regenerated
 * by another recipe may give its files other names. A run recorded before
 * the record kept its content reads as the recipe of its set says.
 */
import { readFileSync } from 'fs';
import * as path from 'path';
import { contentDir, CONTENT_FILE, defaultMediaRoot } from '../content/generate';
import type { ContentInfo } from '../content/content-info';
import { setRecipe } from '../content/recipe';

export interface RunContent {
  readonly set: string;
  /** recipeFingerprint() of the generator that made the set (content.json `recipe`). */
  readonly recipe: string;
  /** The video rungs' nominal bitrates, bit/s, lowest first. */
  readonly videoLadderBps: readonly number[];
}

/** What a run record keeps of a content set's content.json. */
export function describeContent(info: Pick<ContentInfo, 'set' | 'recipe' | 'layouts'>): RunContent {
  const videoLadderBps = info.layouts.unchunked.representations
    .filter((r) => r.contentType === 'video')
    .map((r) => r.bandwidth)
    .sort((a, b) => a - b);
  return { set: info.set, recipe: info.recipe, videoLadderBps };
}

/** The set's content.json on this machine (`mediaRoot`: demo/media), or null when it is missing or unreadable. */
export function readContentInfoSync(set: string, mediaRoot?: string): ContentInfo | null {
  try {
    return JSON.parse(readFileSync(path.join(contentDir(set, mediaRoot ?? defaultMediaRoot()), CONTENT_FILE), 'utf8')) as ContentInfo;
  } catch {
    return null;
  }
}

/** The content description of a set on this machine (null when the set is not there or its content.json is not one). */
export function currentContent(set: string, mediaRoot?: string): RunContent | null {
  const info = readContentInfoSync(set, mediaRoot);
  try {
    return info ? describeContent(info) : null;
  } catch {
    return null;
  }
}

/** The video ladder a run played: its record's, else (older runs) its set's recipe's. */
export function runLadderBps(record: {
  readonly settings: { readonly contentSet: string };
  readonly content?: RunContent | null;
}): number[] {
  if (record.content && record.content.videoLadderBps.length > 0) return [...record.content.videoLadderBps];
  return setRecipe(record.settings.contentSet).ladder.map((r) => r.bandwidth);
}

/**
 * Whether the set on this machine (`current`) is the content a run played:
 * the same recipe. A run that does not record its content counts as played
 * on what is there (runs made before the record kept it).
 */
export function isContentOfRun(recorded: RunContent | null | undefined, current: Pick<ContentInfo, 'recipe'>): boolean {
  return !recorded || recorded.recipe === current.recipe;
}
