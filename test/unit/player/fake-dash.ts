// A small fake of dash.js 5.2.1's MediaPlayer as the data planes touch it
// (the contract pinned by dashjs-contract.test.ts): extend() for the
// XHRLoader extension point, response interceptors, the event bus, settings
// and the buffer level. `loader()` builds the loader dash.js would: the
// data plane's extension over a parent that records what it declined;
// `fakeScheduleController` builds a ScheduleController the way dash.js
// would, over a parent that counts the schedule loop's starts.

import type { LoaderRequest, LoaderResponse } from '../../../player/dash/loader-types';

export interface LoaderExtension {
  load(request: LoaderRequest, response: LoaderResponse): unknown;
}

/** dash.js's event bus as MediaPlayer exposes it (`on`, `off`), with `emit` and a listener count for the test. */
export function fakeEventBus() {
  const handlers = new Map<string, Set<(e: unknown) => void>>();
  return {
    on: (ev: string, fn: (e: unknown) => void) => void (handlers.get(ev) ?? handlers.set(ev, new Set()).get(ev))!.add(fn),
    off: (ev: string, fn: (e: unknown) => void) => void handlers.get(ev)?.delete(fn),
    emit: (ev: string, e: unknown): void => handlers.get(ev)?.forEach((fn) => fn(e)),
    listeners: (): number => [...handlers.values()].reduce((a, set) => a + set.size, 0),
  };
}

/** What dash.js's `extend` registers: a factory called with its parent and, for ScheduleController, its config. */
export type ExtensionFactory = (this: { parent: unknown }, config?: unknown) => unknown;

export function fakeDash(bufferSec: number) {
  const factories = new Map<string, ExtensionFactory>();
  const bus = fakeEventBus();
  const declined: LoaderRequest[] = [];
  const dash = {
    getVersion: () => '5.2.1',
    extend: (name: string, factory: ExtensionFactory) => void factories.set(name, factory),
    addResponseInterceptor: () => undefined,
    updateSettings: () => undefined,
    on: bus.on,
    off: bus.off,
    getSettings: () => ({ streaming: { abr: { autoSwitchBitrate: { video: true } } } }),
    getBufferLength: () => bufferSec,
  };
  const emit = bus.emit;
  const loader = (): LoaderExtension => {
    const factory = factories.get('XHRLoader');
    if (!factory) throw new Error('the data plane did not extend XHRLoader');
    return factory.call({ parent: { load: (r: LoaderRequest) => void declined.push(r) } }) as LoaderExtension;
  };
  return { dash, emit, loader, declined, factories };
}

/** dash.js's ScheduleController as the scheduler hook sees it, with the player's model and ABR controller. */
export function fakeScheduleController(factories: ReadonlyMap<string, ExtensionFactory>) {
  const calls = { start: 0, clear: 0, lastInitialized: [] as Array<string | null> };
  const model = { getBufferTimeDefaultUnadjusted: (): number => 12 };
  const abr = { isPlayingAtTopQuality: (_rep?: { mediaInfo?: { type?: string } }): boolean => true };
  const parent = {
    startScheduleTimer: (_value?: number) => void calls.start++,
    clearScheduleTimer: () => void calls.clear++,
    reset: () => undefined,
    getStreamId: () => 'stream-1',
    setLastInitializedRepresentationId: (id: string | null) => void calls.lastInitialized.push(id),
    // dash.js's schedule loop target: the model's default when not at the top quality
    getBufferTarget: () => (abr.isPlayingAtTopQuality({ mediaInfo: { type: 'video' } }) ? 30 : model.getBufferTimeDefaultUnadjusted()),
    getTimeToLoadDelay: () => 1000,
    getType: () => 'video',
  };
  const factory = factories.get('ScheduleController');
  if (!factory) throw new Error('the hook did not extend ScheduleController');
  const overrides = factory.call({ parent }, { type: 'video', mediaPlayerModel: model, abrController: abr }) as Record<
    string,
    (...a: unknown[]) => unknown
  >;
  // FactoryMaker.extend(…, override=true): the parent's own properties are replaced by the extension's
  const instance = { ...parent, ...overrides } as typeof parent;
  return { instance, calls, model, abr };
}
