// Time limits on the requests Sprint carries (player/sprint/request-clocks.ts):
// when each clock starts, one connection against parallel ones, and what is past its limit.
import { requestsPastLimit, type ClockOptions } from '../../../player/sprint/request-clocks';
import { newEntry, type Entry } from '../../../player/sprint/train-entry';
import { newTransferRecord } from '../../../player/stats/transfer-record';
import type { LoaderRequest } from '../../../player/dash/loader-types';

/** A loading video request sent at `sentMs` with dash.js's time limit `timeout` (ms) and a byte range of `size`. */
function entry(sentMs: number, timeout: number | undefined, size = 100_000): Entry {
  const req = { url: `http://127.0.0.1/v/${sentMs}.m4s`, method: 'GET', timeout, customData: {} } as LoaderRequest;
  const record = newTransferRecord({
    id: sentMs,
    via: 'sprint',
    url: req.url,
    range: `0-${size - 1}`,
    atMs: sentMs,
    expectedBytes: size,
    targetChunkBytes: null,
    rttEstimateSec: 0.1,
    bandwidthEstimateBitsPerSec: null,
  });
  return newEntry({
    type: 'video',
    kind: 'media',
    req,
    resp: {},
    range: { start: 0, end: size - 1 },
    expectedBytes: size,
    mediaSec: 4,
    bitrate: 200_000,
    atMs: sentMs,
    record,
    train: null,
    restartRun: null,
    passOn: null,
  });
}

function options(nowMs: number, oneConnection: boolean, wireLastByteMs = 0): ClockOptions {
  return { oneConnection, nowMs, rttSec: 0.1, wireLastByteMs: () => wireLastByteMs };
}

describe('requestsPastLimit', () => {
  it('on one connection starts only the head’s clock, from the last byte of the responses before it', () => {
    const a = entry(0, 5000);
    const b = entry(10, 5000);
    expect(requestsPastLimit([a, b], options(100, true, 40))).toEqual([]);
    expect(a.clockFromMs).toBe(40);
    expect(b.clockFromMs).toBeNull();
  });

  it('on parallel connections starts every clock at send', () => {
    const a = entry(0, 5000);
    const b = entry(10, 5000);
    requestsPastLimit([a, b], options(100, false, 40));
    expect([a.clockFromMs, b.clockFromMs]).toEqual([0, 10]);
  });

  it('fails a request that got nothing once past its limit, and leaves one without a limit', () => {
    const a = entry(0, 5000);
    const noLimit = entry(0, undefined);
    expect(requestsPastLimit([a, noLimit], options(5000, false))).toEqual([]);
    expect(requestsPastLimit([a, noLimit], options(5001, false))).toEqual([{ entry: a, verdict: 'expired', limitMs: 5000 }]);
    expect(noLimit.clockFromMs).toBeNull();
  });

  it('lets a response nearly in finish (grace), and not one far from done', () => {
    const nearly = entry(0, 5000);
    nearly.bytes = 99_000;
    nearly.lastByteMs = 5000;
    const far = entry(0, 5000);
    far.bytes = 10_000;
    far.lastByteMs = 5000;
    expect(requestsPastLimit([nearly, far], options(5100, false))).toEqual([
      { entry: nearly, verdict: 'grace', limitMs: 5000 },
      { entry: far, verdict: 'expired', limitMs: 5000 },
    ]);
  });

  it('skips requests no longer loading', () => {
    const a = entry(0, 1000);
    a.state = 'aborted';
    expect(requestsPastLimit([a], options(10_000, false))).toEqual([]);
  });
});
