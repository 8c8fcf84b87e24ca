// Unit tests of the segment and transfer records every mode writes to
// stats() (player/dataplane/segment-records.ts), driven through a small fake
// of dash.js's event bus: dash.js's own loads are recorded once, with their
// wire figures; loads a data plane answered are not recorded again; a load
// dash.js abandoned is 'aborted'; the data planes' own records take the
// segment's identity from dash.js's request.

import { DashFragmentRecorder, recordAnsweredSegment } from '../../../player/dataplane/segment-records';
import type { DataPlaneContext } from '../../../player/dataplane/data-plane';
import { StatsRecorder } from '../../../player/stats/recorder';
import { fakeEventBus } from './fake-dash';

const EVENTS = { FRAGMENT_LOADING_COMPLETED: 'fragmentLoadingCompleted', FRAGMENT_LOADING_ABANDONED: 'fragmentLoadingAbandoned' };

/** dash.js's `on`/`off`, as MediaPlayer exposes them. */
function fakeDash() {
  const bus = fakeEventBus();
  return { dash: { on: bus.on, off: bus.off }, emit: bus.emit, listeners: bus.listeners };
}

function context(dash: object): DataPlaneContext {
  return { dash, dashjs: { MediaPlayer: { events: EVENTS } }, stats: new StatsRecorder('auto') } as unknown as DataPlaneContext;
}

function videoRequest(index: number) {
  return {
    type: 'MediaSegment',
    mediaType: 'video',
    url: 'http://o/media/rep-2.mp4',
    range: `${index * 1000}-${index * 1000 + 999}`,
    index,
    representation: { id: 'rep-2', bandwidth: 1_500_000 },
    bytesLoaded: 1000,
    startDate: new Date(10_000),
    firstByteDate: new Date(10_100),
    endDate: new Date(10_500),
  };
}

describe('DashFragmentRecorder', () => {
  it("records dash.js's own loads once each, with their wire figures, and hands them on", () => {
    const { dash, emit } = fakeDash();
    const ctx = context(dash);
    const seen: unknown[] = [];
    const rec = new DashFragmentRecorder((r) => void seen.push(r));
    rec.install(ctx);
    const r = videoRequest(3);
    emit(EVENTS.FRAGMENT_LOADING_COMPLETED, { request: r });
    const [segment] = ctx.stats.segments.toArray();
    const [transfer] = ctx.stats.transfers.toArray();
    expect(segment).toMatchObject({
      kind: 'media',
      mediaType: 'video',
      index: 3,
      range: '3000-3999',
      representationId: 'rep-2',
      bandwidth: 1_500_000,
      bytes: 1000,
      status: 'ok',
      requestMs: 10_000,
      endMs: 10_500,
    });
    expect(transfer).toMatchObject({ via: 'stock', bytes: 1000, segmentsServed: 1, cancelled: false });
    expect(segment?.transferId).toBe(transfer?.id);
    // 1000 bytes from first byte to last byte in 400 ms
    expect(transfer?.throughputBitsPerSec).toBeCloseTo(20_000, 6);
    expect(seen).toEqual([r]);
  });

  it('skips loads the data plane answered, until it hands one back to dash.js', () => {
    const { dash, emit } = fakeDash();
    const ctx = context(dash);
    const rec = new DashFragmentRecorder();
    rec.install(ctx);
    const r = videoRequest(4);
    rec.noteLoad(r, true);
    emit(EVENTS.FRAGMENT_LOADING_COMPLETED, { request: r });
    expect(ctx.stats.segments.toArray()).toHaveLength(0);
    // dash.js retries with the same object; this time the data plane declined it
    rec.noteLoad(r, false);
    emit(EVENTS.FRAGMENT_LOADING_COMPLETED, { request: r });
    expect(ctx.stats.segments.toArray()).toHaveLength(1);
  });

  it('records an abandoned load as aborted and a failed one as an error, and no non-segment requests', () => {
    const { dash, emit } = fakeDash();
    const ctx = context(dash);
    const rec = new DashFragmentRecorder();
    rec.install(ctx);
    emit(EVENTS.FRAGMENT_LOADING_ABANDONED, { request: videoRequest(5) });
    emit(EVENTS.FRAGMENT_LOADING_COMPLETED, { request: videoRequest(6), error: new Error('HTTP 404') });
    emit(EVENTS.FRAGMENT_LOADING_COMPLETED, { request: { ...videoRequest(7), type: 'MPD' } });
    const segments = ctx.stats.segments.toArray();
    expect(segments.map((s) => s.status)).toEqual(['aborted', 'error']);
    expect(ctx.stats.transfers.toArray().map((t) => t.error)).toEqual([null, 'HTTP 404']);
    expect(ctx.stats.transfers.toArray()[0]?.wastedBytes).toBe(1000);
  });

  it('stops listening when destroyed', () => {
    const { dash, emit, listeners } = fakeDash();
    const ctx = context(dash);
    const rec = new DashFragmentRecorder();
    rec.install(ctx);
    expect(listeners()).toBe(2);
    rec.destroy();
    expect(listeners()).toBe(0);
    emit(EVENTS.FRAGMENT_LOADING_COMPLETED, { request: videoRequest(1) });
    expect(ctx.stats.segments.toArray()).toHaveLength(0);
  });
});

describe('recordAnsweredSegment', () => {
  it("takes the segment's identity from dash.js's request and the figures from the data plane", () => {
    const stats = new StatsRecorder('sprint-x');
    recordAnsweredSegment(stats, videoRequest(9), {
      url: 'http://o/media/rep-2.mp4',
      bytes: 0,
      requestMs: 1,
      firstByteMs: null,
      endMs: 2,
      status: 'error',
      transferId: 7,
    });
    recordAnsweredSegment(stats, undefined, {
      kind: 'init',
      mediaType: 'audio',
      bandwidth: 64_000,
      url: 'http://o/a.mp4',
      bytes: 10,
      requestMs: 1,
      firstByteMs: 1,
      endMs: 2,
      status: 'ok',
      transferId: 8,
    });
    const [failed, init] = stats.segments.toArray();
    expect(failed).toMatchObject({
      kind: 'media',
      mediaType: 'video',
      index: 9,
      range: '9000-9999',
      representationId: 'rep-2',
      bandwidth: 1_500_000,
      bytes: 0,
      status: 'error',
      transferId: 7,
    });
    expect(init).toMatchObject({ kind: 'init', mediaType: 'audio', range: null, representationId: null, bandwidth: 64_000, status: 'ok' });
    expect(Number.isNaN(init?.index)).toBe(true);
  });
});
