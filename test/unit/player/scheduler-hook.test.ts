// The scheduler hook (player/dash/scheduler-hook.ts) against a small fake of
// dash.js's ScheduleController (the parent an extension overrides) and the
// player's mediaPlayerModel/abrController it reads its buffer target from:
// the loop runs only when the data plane allows it (checked again every
// POLL_MS), a running train lifts the target and zeroes the ABR's load
// delay while dash.js's own target stays readable, a loop dash.js stopped is
// left alone until dash.js restarts it, init requests name the
// representation, and the mark follows the last init requested: an older
// init's late append does not move it back, an abandoned init clears it. Fake timers: nothing here depends on the machine's speed.

import { installSchedulerHook, POLL_MS } from '../../../player/dash/scheduler-hook';
import { fakeEventBus, fakeScheduleController as controller, type ExtensionFactory } from './fake-dash';

function fakeDash() {
  const factories = new Map<string, ExtensionFactory>();
  const bus = fakeEventBus();
  const dash = {
    extend: (name: string, factory: ExtensionFactory) => void factories.set(name, factory),
    on: bus.on,
    off: bus.off,
  };
  return { dash: dash as never, factories, emit: bus.emit };
}

describe('installSchedulerHook', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("runs dash.js's schedule loop only when the data plane allows it, checking again every POLL_MS", () => {
    const { dash, factories } = fakeDash();
    let allowed = false;
    const handle = installSchedulerHook(dash, { mayIssue: () => allowed, trainBufferTargetSec: () => null });
    const c = controller(factories);
    c.instance.startScheduleTimer(0);
    expect(c.calls.start).toBe(0);
    jest.advanceTimersByTime(POLL_MS);
    expect(c.calls.start).toBe(0);
    allowed = true;
    jest.advanceTimersByTime(POLL_MS);
    expect(c.calls.start).toBe(1);
    // retick runs the loop at once
    handle.retick('video');
    expect(c.calls.start).toBe(2);
    handle.dispose();
  });

  it("a train lifts the buffer target and zeroes the ABR's load delay; dash.js's own target stays readable", () => {
    const { dash, factories } = fakeDash();
    let train: number | null = null;
    const handle = installSchedulerHook(dash, { mayIssue: () => true, trainBufferTargetSec: () => train });
    const c = controller(factories);
    expect(c.instance.getBufferTarget()).toBe(30);
    expect(c.instance.getTimeToLoadDelay()).toBe(1000);
    train = 45;
    // while the train runs dash.js is never "at the top quality" and its default target is the train's
    expect(c.instance.getBufferTarget()).toBe(45);
    expect(c.model.getBufferTimeDefaultUnadjusted()).toBe(45);
    expect(c.instance.getTimeToLoadDelay()).toBe(0);
    // what the data plane reads as dash.js's own target ignores the lift
    expect(handle.bufferTarget('video')).toBe(30);
    train = 5; // a lift below dash.js's own default does not lower it
    expect(c.model.getBufferTimeDefaultUnadjusted()).toBe(12);
    handle.dispose();
  });

  it('leaves a loop dash.js stopped alone until dash.js restarts it', () => {
    const { dash, factories } = fakeDash();
    const handle = installSchedulerHook(dash, { mayIssue: () => true, trainBufferTargetSec: () => null });
    const c = controller(factories);
    c.instance.clearScheduleTimer();
    expect(c.calls.clear).toBe(1);
    handle.retick('video');
    expect(c.calls.start).toBe(0);
    c.instance.startScheduleTimer(0);
    expect(c.calls.start).toBe(1);
    handle.retick('video');
    expect(c.calls.start).toBe(2);
    handle.dispose();
  });

  it('tells the controller which representation an init request belongs to, and stops listening when disposed', () => {
    const { dash, factories, emit } = fakeDash();
    const handle = installSchedulerHook(dash, { mayIssue: () => true, trainBufferTargetSec: () => null });
    const c = controller(factories);
    const init = {
      type: 'InitializationSegment',
      mediaType: 'video',
      representation: { id: 'rep-3', mediaInfo: { streamInfo: { id: 'stream-1' } } },
    };
    emit('fragmentLoadingStarted', { request: init });
    emit('fragmentLoadingStarted', { request: { ...init, type: 'MediaSegment' } });
    expect(c.calls.lastInitialized).toEqual(['rep-3']);
    handle.dispose();
    emit('fragmentLoadingStarted', { request: init });
    expect(c.calls.lastInitialized).toEqual(['rep-3']);
  });

  it("keeps dash.js's initialised mark at the last init requested: an older init's late append does not move it back", () => {
    const { dash, factories, emit } = fakeDash();
    const kept: string[] = [];
    const handle = installSchedulerHook(dash, {
      mayIssue: () => true,
      trainBufferTargetSec: () => null,
      onInitMarkKept: (type, appended, requested) => void kept.push(`${type} ${appended} over ${requested}`),
    });
    const c = controller(factories);
    const initOf = (id: string) => ({
      type: 'InitializationSegment',
      mediaType: 'video',
      representation: { id, mediaInfo: { streamInfo: { id: 'stream-1' } } },
    });
    const a = initOf('rep-0');
    const b = initOf('rep-1');
    emit('fragmentLoadingStarted', { request: a });
    emit('fragmentLoadingStarted', { request: b });
    // dash.js's _onBytesAppended, at A's append (behind B's request), then at B's
    c.instance.setLastInitializedRepresentationId('rep-0');
    c.instance.setLastInitializedRepresentationId('rep-1');
    expect(c.calls.lastInitialized).toEqual(['rep-0', 'rep-1', 'rep-1']);
    expect(kept).toEqual(['video rep-0 over rep-1']);
    // an older init abandoned says nothing; the latest one abandoned clears the mark (dash.js asks again)
    emit('fragmentLoadingAbandoned', { request: a });
    expect(c.calls.lastInitialized).toEqual(['rep-0', 'rep-1', 'rep-1']);
    emit('fragmentLoadingAbandoned', { request: b });
    expect(c.calls.lastInitialized).toEqual(['rep-0', 'rep-1', 'rep-1', null]);
    // with no init request on record, an append's mark goes through as dash.js sets it
    c.instance.setLastInitializedRepresentationId('rep-0');
    expect(c.calls.lastInitialized).toEqual(['rep-0', 'rep-1', 'rep-1', null, 'rep-0']);
    handle.dispose();
  });
});
