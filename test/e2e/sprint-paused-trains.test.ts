/**
 * Trains that stay trains when the buffer is full (paper §IV-B1): with an
 * ABR less aggressive than the link (BW-10) and a small buffer target,
 * downloading pauses and resumes with a minimum train of small segments
 * (the 0.3 Mbit/s rung, ~150 KB per 4 s segment). Within a train the
 * server must always have the next request in hand while the previous
 * response is being sent: the outstanding requests cover a window of bytes
 * (src/model/outstanding-window.ts), not a fixed 2 requests.
 *
 * The origin emulates a 600 ms RTT on loopback and paces bodies at 4 Mbit/s,
 * so a fair BDP is ~300 KB. The train transport is fetch, whose concurrent
 * requests go on parallel HTTP/1.1 connections, so a train is judged on the
 * origin's log across connections (demo/harness/wire-log.ts, as `sprint wire`
 * reports it): every request after a train's first arrives before the
 * previous response ends and was issued while an earlier one was arriving;
 * from the second train on, whose window is sized from measured samples
 * rather than the start-up estimate, the wire idles under 5 % of the train.
 * SPRINT_DEBUG_TRAINS=1 prints every train and request.
 */
import { parseWireLine, plannedTransfers, playerTransfers, trainsOnWire, type WireRequest } from '../../demo/harness/wire-log';
import { demoUrl, mediaRecords, startStack, waitForPlayback, type Stack } from './support/playback';

describe('trains at a full buffer, small segments, 600 ms RTT', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ rateLimitBitsPerSec: 4e6, latencyMs: 600 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('keep the next request at the origin while the previous response is sent, and the wire busy inside each train', async () => {
    const params = { layout: 'unchunked', mode: 'sprint', transport: 'fetch', abr: 'bw-10', buffer: '8', chunk: '1500000' };
    await stack.page.goto(demoUrl(stack.origin, params));
    const s = await waitForPlayback(stack.page, 50, 240_000);
    expect(s.mode).toBe('sprint');
    expect(s.estimates.transport).toBe('fetch');
    expect(s.playback.errors).toEqual([]);

    const types = new Map<string, string>();
    for (const x of s.segments) types.set(x.url.split('/').pop() as string, x.mediaType);
    const requests = mediaRecords(stack.origin)
      .map((r) => parseWireLine(JSON.stringify(r)))
      .filter((r): r is WireRequest => r !== null && r.status !== null && r.status < 300);
    const lastEnd = Math.max(...requests.map((r) => r.endMs));
    // The trains that ended, each with the video requests that arrived while it ran.
    const planned = plannedTransfers(
      s.trains.filter((t) => t.mediaType === 'video' && t.endMs !== null).map((t) => ({ kind: 'train', ...t })),
    );
    const transfers = playerTransfers([
      ...s.transfers.map((t) => ({ ...t, kind: 'transfer' })),
      ...s.segments.map((x) => ({ ...x, kind: 'segment' })),
    ]);
    const trains = trainsOnWire(requests, planned, types, lastEnd, transfers).filter((w) => w.requests >= 3);
    const summary = trains.map((w) => ({
      train: w.train.label,
      requests: w.requests,
      pipelined: w.pipelined,
      playerRequests: w.playerRequests,
      issuedWhileArriving: w.playerPipelined,
      idlePercent: w.idleShare === null ? null : Math.round(1000 * w.idleShare) / 10,
      secs: w.fromMs !== null && w.toMs !== null ? (w.toMs - w.fromMs) / 1000 : null,
    }));
    process.stderr.write(`trains on the wire: ${JSON.stringify(summary)}\n`);
    if (process.env['SPRINT_DEBUG_TRAINS']) {
      for (const t of s.trains)
        process.stderr.write(
          `train ${t.id}: start ${t.startMs.toFixed(0)} end ${t.endMs?.toFixed(0)} window ${t.window} rtt ${t.rttEstimateSec} bw ${t.bandwidthEstimateBitsPerSec} target ${t.targetBytes}\n`,
        );
      const t0 = Math.min(...requests.map((r) => r.arrivalMs ?? r.startMs));
      for (const r of [...requests].sort((a, b) => (a.arrivalMs ?? 0) - (b.arrivalMs ?? 0))) {
        process.stderr.write(
          `  conn ${r.conn} ${r.url.split('/').pop()} ${r.range} bytes ${r.bytes} arrival ${((r.arrivalMs ?? 0) - t0).toFixed(0)} start ${(r.startMs - t0).toFixed(0)} end ${(r.endMs - t0).toFixed(0)}\n`,
        );
      }
    }

    // Downloading paused and resumed: more than one train of several requests.
    expect(trains.length).toBeGreaterThanOrEqual(2);
    for (const [i, w] of trains.entries()) {
      // Every request after the train's first arrived before the response ahead of it ended.
      expect({ train: w.train.label, notPipelined: w.requests - 1 - w.pipelined }).toEqual({ train: w.train.label, notPipelined: 0 });
      // The player issued each of the train's requests after the first while an earlier one was still arriving.
      expect({ train: w.train.label, issuedWithNothingArriving: (w.playerRequests ?? 0) - 1 - (w.playerPipelined ?? 0) }).toEqual({
        train: w.train.label,
        issuedWithNothingArriving: 0,
      });
      // The wire idles less than 5 % of the train's time, once the window rests on measured samples.
      if (i === 0) continue;
      expect({ train: w.train.label, idleUnder5Percent: (w.idleShare ?? 1) < 0.05 }).toEqual({
        train: w.train.label,
        idleUnder5Percent: true,
      });
    }
  });
});
