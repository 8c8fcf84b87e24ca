// A small fake of dash.js 5.2.1's MediaPlayer as the data planes touch it
// (the contract pinned by dashjs-contract.test.ts): extend() for the
// XHRLoader extension point, response interceptors, the event bus, settings
// and the buffer level. `loader()` builds the loader dash.js would: the
// data plane's extension over a parent that records what it declined.

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

export function fakeDash(bufferSec: number) {
  const factories = new Map<string, (this: { parent: unknown }) => unknown>();
  const bus = fakeEventBus();
  const declined: LoaderRequest[] = [];
  const dash = {
    getVersion: () => '5.2.1',
    extend: (name: string, factory: (this: { parent: unknown }) => unknown) => void factories.set(name, factory),
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
  return { dash, emit, loader, declined };
}
