// Unit tests of the player's typed events (player/stats/events.ts) and of the
// stats recorder that fires them: listeners get copies taken when the event
// fires, `off` unsubscribes, a listener that throws is reported and does not
// stop the others, and the recorder's moments (mode, fallback, warnings,
// transfer end) reach listeners while stats() keeps the records.

import { SprintEvents } from '../../../player/stats/events';
import { StatsRecorder } from '../../../player/stats/recorder';
import type { TransferRecord } from '../../../player/stats/types';

function transfer(id: number): TransferRecord {
  return {
    id,
    via: 'sprint',
    url: 'http://o/v.mp4',
    range: '0-9',
    startMs: 1,
    firstByteMs: 2,
    endMs: 3,
    bytes: 10,
    expectedBytes: 10,
    throughputBitsPerSec: 80_000,
    targetChunkBytes: null,
    rttEstimateSec: null,
    bandwidthEstimateBitsPerSec: null,
    segmentsServed: 1,
    cancelled: false,
    wastedBytes: 0,
    error: null,
  };
}

describe('SprintEvents', () => {
  it('delivers to every listener until it unsubscribes', () => {
    const ev = new SprintEvents();
    const a: string[] = [];
    const b: string[] = [];
    const la = (e: { message: string }): void => void a.push(e.message);
    ev.on('warning', la);
    ev.on('warning', (e) => void b.push(e.message));
    ev.emit('warning', { message: 'one' });
    ev.off('warning', la);
    ev.emit('warning', { message: 'two' });
    expect(a).toEqual(['one']);
    expect(b).toEqual(['one', 'two']);
    expect(ev.has('warning')).toBe(true);
    expect(ev.has('trainEnd')).toBe(false);
  });

  it('reports a listener that throws and still calls the others', () => {
    const errors: string[] = [];
    const ev = new SprintEvents((name, e) => void errors.push(`${name}: ${(e as Error).message}`));
    const heard: string[] = [];
    ev.on('fallback', () => {
      throw new Error('page bug');
    });
    ev.on('fallback', (e) => void heard.push(e.reason));
    ev.emit('fallback', { from: 'sprint', to: 'stock', reason: 'host gone' });
    expect(errors).toEqual(['fallback: page bug']);
    expect(heard).toEqual(['host gone']);
  });
});

describe('StatsRecorder events', () => {
  it('fires the mode once resolved and a fallback with its reason, as stats() shows them', () => {
    const r = new StatsRecorder('auto');
    const heard: string[] = [];
    r.events.on('modeResolved', (e) => void heard.push(`mode ${e.mode}`));
    r.events.on('fallback', (e) => void heard.push(`fallback ${e.from} -> ${e.to}: ${e.reason}`));
    r.resolveMode('sprint', 'the extension answered');
    r.fallBack('sprint', '3 requests in a row failed');
    expect(heard).toEqual(['mode sprint', 'fallback sprint -> stock: 3 requests in a row failed']);
    expect(r.mode).toBe('stock');
    expect(r.modeReason).toBe('fell back from sprint during playback: 3 requests in a row failed');
  });

  it('hands a copy of the ended transfer (later changes to the live record do not reach it)', () => {
    const r = new StatsRecorder('sprint');
    const heard: TransferRecord[] = [];
    r.events.on('transferEnd', (e) => void heard.push(e));
    const t = transfer(1);
    r.addTransfer(t);
    r.endTransfer(t);
    t.wastedBytes = 99;
    expect(heard).toHaveLength(1);
    expect(heard[0]).toEqual({ ...t, wastedBytes: 0 });
    expect(heard[0]).not.toBe(t);
  });

  it('fires each distinct warning once and keeps it in stats', () => {
    const r = new StatsRecorder('sprint');
    const heard: string[] = [];
    r.events.on('warning', (e) => void heard.push(e.message));
    r.warn('turned fast switching off');
    r.warn('turned fast switching off');
    expect(heard).toEqual(['turned fast switching off']);
    expect(r.warnings).toEqual(['turned fast switching off']);
  });
});
