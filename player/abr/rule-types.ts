/**
 * The dash.js 5.2.1 custom ABR rule contract, as Sprint's evaluation rules use
 * it. A rule is a factory-built class (`__dashjs_factory_name`) whose
 * `getSwitchRequest(rulesContext)` returns a SwitchRequest naming the
 * Representation to load next (or NO_CHANGE). dash.js calls it each time it
 * is about to request a segment (ScheduleController → checkPlaybackQuality),
 * so the ABR decides at issue time whatever the data plane underneath.
 * Register with `player.addABRCustomRule('qualitySwitchRules', name, factory)`.
 */

export interface RepresentationLike {
  id: string;
  bandwidth: number;
  /** Position in the adaptation set's bitrate ladder. */
  absoluteIndex?: number;
}

export interface RulesContextLike {
  getMediaType(): string;
  getMediaInfo(): unknown;
  getAbrController(): {
    getPossibleVoRepresentationsFilteredBySettings(mediaInfo: unknown, includeCompatibleMediaInfos?: boolean): RepresentationLike[];
  };
  getThroughputController(): { getAverageThroughput(mediaType: string): number };
  getRepresentation?(): RepresentationLike | null;
}

export interface SwitchRequestLike {
  representation: unknown;
  reason: unknown;
  priority: number;
  rule?: string | null;
}

export interface DashjsForRules {
  FactoryMaker: {
    getClassFactory(cls: unknown): unknown;
    getClassFactoryByName(name: string): ((context: unknown) => { create(): SwitchRequestLike }) & {
      NO_CHANGE?: unknown;
      PRIORITY?: { DEFAULT: number; STRONG: number; WEAK: number };
    };
    getSingletonFactoryByName(name: string): (context: unknown) => { getInstance(): { getCurrentBufferLevel(type: string): number } };
  };
}

export interface RuleInstance {
  getSwitchRequest(rulesContext: RulesContextLike): SwitchRequestLike;
  reset(): void;
}

/** Ladder sorted by bitrate, lowest first. */
export function ladder(ctx: RulesContextLike): RepresentationLike[] {
  const reps = ctx.getAbrController().getPossibleVoRepresentationsFilteredBySettings(ctx.getMediaInfo(), true);
  return [...reps].sort((a, b) => a.bandwidth - b.bandwidth);
}
