/**
 * The pinned dash.js 5.2.1 namespace as Sprint uses it, in one place. Its ESM
 * build (what webpack picks) does not export `FactoryMaker` by name — only
 * its default export, the `dashjs` object, carries it — yet custom ABR rules
 * need it. This module exposes the named exports plus `FactoryMaker`.
 */
import * as dashjsNamed from 'dashjs';

type FactoryMakerLike = {
  getClassFactory(c: unknown): unknown;
  getClassFactoryByName(n: string): unknown;
  getSingletonFactoryByName(n: string): unknown;
};

// index.d.ts declares no default export; the ESM build has one.
const dashjsDefault = (dashjsNamed as unknown as { default?: { FactoryMaker?: FactoryMakerLike } }).default;
const fromDefault = dashjsDefault?.FactoryMaker;
// A computed key: a static `.FactoryMaker` on the namespace makes webpack warn that the export is missing.
const FACTORY_MAKER_KEY: string = 'FactoryMaker';
const fromNamed = (dashjsNamed as unknown as Record<string, FactoryMakerLike | undefined>)[FACTORY_MAKER_KEY];
const factoryMaker = fromNamed ?? fromDefault;
if (!factoryMaker) throw new Error('Sprint: dash.js FactoryMaker not found in the bundled dash.js (expected dash.js 5.2.1)');

export const dashjs = { ...dashjsNamed, FactoryMaker: factoryMaker };
export type DashjsNamespace = typeof dashjs;
