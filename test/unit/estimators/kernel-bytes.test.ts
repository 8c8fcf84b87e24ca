// Bandwidth samples from the kernel's byte counter (src/estimators/kernel-bytes.ts):
// only intervals of continuous arrival count, and a burst of late reads cannot
// inflate them (the counter moved when the bytes arrived).
import { KernelByteMeter } from '../../../src/estimators/kernel-bytes';

describe('KernelByteMeter', () => {
  it('samples the bytes received between two readings while bytes flow', () => {
    const m = new KernelByteMeter();
    expect(m.read({ bytesReceived: 1_000_000, atMs: 10_000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 1_187_500, atMs: 11_000, flowing: true })).toEqual({ bytes: 187_500, seconds: 1 });
    expect(m.read({ bytesReceived: 1_562_500, atMs: 13_000, flowing: true })).toEqual({ bytes: 375_000, seconds: 2 });
  });

  it('skips an interval that began or ended with nothing arriving (a request round trip, a pause)', () => {
    const m = new KernelByteMeter();
    m.read({ bytesReceived: 0, atMs: 0, flowing: false });
    expect(m.read({ bytesReceived: 50_000, atMs: 1000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 200_000, atMs: 2000, flowing: false })).toBeNull();
    expect(m.read({ bytesReceived: 200_000, atMs: 3000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 380_000, atMs: 4000, flowing: true })).toEqual({ bytes: 180_000, seconds: 1 });
  });

  it('skips an interval in which the connection went idle, even if bytes flow at both ends', () => {
    const m = new KernelByteMeter();
    m.read({ bytesReceived: 0, atMs: 0, flowing: true });
    m.markIdle();
    expect(m.read({ bytesReceived: 300_000, atMs: 5000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 480_000, atMs: 6000, flowing: true })).toEqual({ bytes: 180_000, seconds: 1 });
  });

  it('treats a counter that went backwards as a new connection, and refuses empty or timeless intervals', () => {
    const m = new KernelByteMeter();
    m.read({ bytesReceived: 9_000_000, atMs: 0, flowing: true });
    expect(m.read({ bytesReceived: 100_000, atMs: 1000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 280_000, atMs: 2000, flowing: true })).toEqual({ bytes: 180_000, seconds: 1 });
    expect(m.read({ bytesReceived: 280_000, atMs: 3000, flowing: true })).toBeNull();
    expect(m.read({ bytesReceived: 400_000, atMs: 3000, flowing: true })).toBeNull();
  });
});
