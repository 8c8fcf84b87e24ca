// Unit tests of the estimates both Sprint modes size their chunks from
// (player/estimates/estimate-hub.ts): Program 1 on the bootstrap values
// before any sample, the page's fixed chunk, the cap, TCP_INFO taking
// precedence over the probes, wire and dash.js-load samples, what reaches
// stats().estimates, and real one-byte probes against a loopback server.

import { plainRequestPath, RequestPath } from '../../../player/dataplane/request-path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chunkSize } from '../../../src/model/chunk-size';
import { BOOTSTRAP_BANDWIDTH_BITS_PER_SEC, BOOTSTRAP_RTT_SEC, EstimateHub, MAX_CHUNK_BYTES } from '../../../player/estimates/estimate-hub';
import type { DataPlaneContext } from '../../../player/dataplane/data-plane';
import { StatsRecorder } from '../../../player/stats/recorder';

/** The parts of a data plane context the hub reads; everything else is never touched. */
function context(manifestUrl: string, extra: Partial<DataPlaneContext> = {}): DataPlaneContext {
  const warnings: string[] = [];
  return {
    manifestUrl,
    requests: plainRequestPath(),
    stats: new StatsRecorder('sprint'),
    log: { info: () => undefined, warn: (m: string) => void warnings.push(m), error: () => undefined },
    epsilon: 0.1,
    minimumTrain: true,
    sprintWindowBdps: 2,
    sprintxSwitch: 'after-chunk',
    sprintxMaxRangeSec: 60,
    ...extra,
  } as unknown as DataPlaneContext;
}

/** A loopback server answering every request with one byte (206), or with `status`. */
async function oneByteServer(status = 206): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server = http.createServer((_req, res) => {
    n += 1;
    res.writeHead(status, { 'Content-Type': 'application/octet-stream', 'Content-Range': 'bytes 0-0/100' });
    res.end(status === 206 ? 'x' : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/media/rep-0.mp4`,
    requests: () => n,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Waits (bounded) until `ok` holds. */
async function until(ok: () => boolean, what: string, tries = 100): Promise<void> {
  for (let i = 0; i < tries && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
}

describe('EstimateHub without samples', () => {
  it('sizes the chunk from the bootstrap values', () => {
    const hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'test' });
    expect(hub.measuredRttSec()).toBeNull();
    expect(hub.rttSec()).toBe(BOOTSTRAP_RTT_SEC);
    expect(hub.minRttSec()).toBe(0);
    expect(hub.bandwidthBitsPerSec()).toBeNull();
    const expected = chunkSize({ bandwidthBitsPerSec: BOOTSTRAP_BANDWIDTH_BITS_PER_SEC, rttSec: BOOTSTRAP_RTT_SEC, epsilon: 0.1 });
    expect(hub.model()).toEqual(expected);
  });
});

describe('EstimateHub with samples (no probes answered)', () => {
  let origin: Awaited<ReturnType<typeof oneByteServer>>;
  let hub: EstimateHub;
  beforeEach(async () => {
    origin = await oneByteServer();
  });
  afterEach(async () => {
    hub?.destroy();
    await origin.close();
  });

  it("uses the page's fixed chunk size, never above the cap", () => {
    hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'test' });
    const ctx = context(origin.url, { chunkBytes: 123_456 });
    hub.install(ctx);
    expect(hub.chunkBytes()).toBe(123_456);
    hub.destroy();
    hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'test' });
    hub.install(context(origin.url, { chunkBytes: 4 * MAX_CHUNK_BYTES }));
    expect(hub.chunkBytes()).toBe(MAX_CHUNK_BYTES);
  });

  it('caps the model chunk too (a fast, long path)', () => {
    hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'test' });
    hub.install(context(origin.url));
    hub.addTcpRtt(2);
    for (let i = 0; i < 20; i++) hub.addWireSample(100e6, 1); // 800 Mbit/s over 2 s RTT: a chunk of GBs
    expect(chunkSize({ bandwidthBitsPerSec: hub.bandwidthBitsPerSec() as number, rttSec: 2, epsilon: 0.1 }).chunkBytes).toBeGreaterThan(
      MAX_CHUNK_BYTES,
    );
    expect(hub.chunkBytes()).toBe(MAX_CHUNK_BYTES);
  });

  it('publishes wire samples and TCP_INFO RTTs to stats, TCP_INFO before the probes', () => {
    let changes = 0;
    hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'train wire timing', onChange: () => void changes++ });
    const ctx = context(origin.url);
    hub.install(ctx);
    hub.addWireSample(2_000_000, 1);
    expect(ctx.stats.estimates.bandwidthBitsPerSec).toBeCloseTo(16e6, -5);
    expect(ctx.stats.estimates.bandwidthSamples).toBe(1);
    hub.addTcpRtt(0.05);
    expect(hub.rttSec()).toBeCloseTo(0.05, 6);
    expect(hub.minRttSec()).toBeCloseTo(0.05, 6);
    expect(ctx.stats.estimates.tcpInfoRttSec).toBeCloseTo(0.05, 6);
    expect(ctx.stats.estimates.source).toBe('rtt: tcp-info of the media connection; bandwidth: train wire timing');
    expect(ctx.stats.estimates.chunkBytes).toBe(chunkSize({ bandwidthBitsPerSec: 16e6, rttSec: 0.05, epsilon: 0.1 }).chunkBytes);
    expect(changes).toBeGreaterThanOrEqual(2);
  });

  it('names a new bandwidth source once the data plane switches to it', () => {
    hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'train wire timing' });
    const ctx = context(origin.url);
    hub.install(ctx);
    hub.setBandwidthSource('tcp-info byte counter of the media connection');
    hub.publish();
    expect(ctx.stats.estimates.source).toMatch(/bandwidth: tcp-info byte counter of the media connection$/);
  });

  it("fires the player's 'estimates' event with a copy of what it published", () => {
    hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'test' });
    const ctx = context(origin.url);
    const heard: Array<number | null> = [];
    ctx.stats.events.on('estimates', (e) => void heard.push(e.bandwidthBitsPerSec));
    hub.install(ctx);
    hub.addWireSample(1_000_000, 1);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBeCloseTo(8e6, -5);
  });

  it("takes dash.js's own video media loads as samples, nothing else", () => {
    hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'test' });
    const ctx = context(origin.url);
    hub.install(ctx);
    const load = (mediaType: string, type: string) => ({
      type,
      mediaType,
      bytesLoaded: 1_000_000,
      startDate: new Date(1_000_000),
      endDate: new Date(1_002_000),
    });
    hub.addDashLoad(load('audio', 'MediaSegment'), null);
    hub.addDashLoad(load('video', 'InitializationSegment'), null);
    hub.addDashLoad(load('video', 'MediaSegment'), new Error('cut'));
    expect(ctx.stats.estimates.bandwidthSamples).toBe(0);
    hub.addDashLoad(load('video', 'MediaSegment'), null);
    expect(ctx.stats.estimates.bandwidthSamples).toBe(1);
    expect(ctx.stats.estimates.bandwidthBitsPerSec).toBeCloseTo(4e6, -4);
  });
});

/** A context whose request path counts into its stats, as the player's does. */
function countingContext(url: string, extra: Partial<DataPlaneContext> = {}): DataPlaneContext {
  const ctx = context(url, extra);
  return {
    ...ctx,
    requests: new RequestPath({ interceptors: () => [], withCredentials: () => false }, (k) => ctx.stats.count(`requests.${k}` as const)),
  };
}

describe('EstimateHub probes', () => {
  it('by default probes each second, as the paper does', async () => {
    const origin = await oneByteServer();
    const hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'test' });
    const ctx = countingContext(origin.url);
    try {
      hub.install(ctx);
      // The counter counts a probe when it is sent, the origin when it arrives: wait for the wire.
      await until(() => origin.requests() >= 3, 'three probes at the origin');
      expect(ctx.stats.counters['requests.probe'] ?? 0).toBeGreaterThanOrEqual(3);
    } finally {
      hub.destroy();
      await origin.close();
    }
  });

  it("with rttProbes 'when-quiet': one probe at start-up, then none while the quiet period without samples runs", async () => {
    const origin = await oneByteServer();
    const hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'test' });
    const ctx = countingContext(origin.url, { rttProbes: 'when-quiet' });
    try {
      hub.install(ctx);
      await until(() => ctx.stats.estimates.rttSamples > 0, 'the start-up probe');
      // the old prober sent one a second: two more seconds would have held two more
      await new Promise((r) => setTimeout(r, 2500));
      expect(origin.requests()).toBe(1);
      expect(ctx.stats.counters['requests.probe']).toBe(1);
    } finally {
      hub.destroy();
      await origin.close();
    }
  });

  it('measures the RTT with one-byte requests to the probe URL once no sample came for the quiet period', async () => {
    const origin = await oneByteServer();
    const hub = new EstimateHub({ counterPrefix: 'sprint', bandwidthSource: 'test', probeQuietMs: 100 });
    const ctx = countingContext(origin.url);
    try {
      hub.install(ctx);
      await until(() => ctx.stats.estimates.rttSamples > 0, 'a probe');
      expect(origin.requests()).toBeGreaterThanOrEqual(1);
      expect(ctx.stats.counters['requests.probe']).toBe(origin.requests());
      expect(ctx.stats.estimates.probeRttSec).toBeGreaterThan(0);
      expect(hub.measuredRttSec()).toBe(ctx.stats.estimates.probeRttSec);
      expect(ctx.stats.estimates.source).toBe('rtt: range probes; bandwidth: test');
    } finally {
      hub.destroy();
      await origin.close();
    }
  });

  it('counts failed probes under its prefix and keeps the bootstrap RTT', async () => {
    const origin = await oneByteServer(500);
    const hub = new EstimateHub({ counterPrefix: 'sprintx', bandwidthSource: 'test', probeQuietMs: 100 });
    const ctx = context(origin.url);
    try {
      hub.install(ctx);
      await until(() => (ctx.stats.counters['sprintx.probeErrors'] ?? 0) > 0, 'a probe error');
      expect(hub.measuredRttSec()).toBeNull();
      expect(hub.rttSec()).toBe(BOOTSTRAP_RTT_SEC);
    } finally {
      hub.destroy();
      await origin.close();
    }
  });
});
