// ExpandedStream (player/sprintx/expanded-stream.ts) cancelled at the edge: a range whose every byte
// has arrived, with only the body's end still to read, ends complete, not cancelled; a range cut short
// is cancelled and hands its waiting segment back. The response is a real streamed Response whose
// body the test feeds and closes.

import { ExpandedStream, type PendingSegment } from '../../../player/sprintx/expanded-stream';
import type { RequestPath } from '../../../player/dataplane/request-path';
import type { TransferRecord } from '../../../player/stats/types';

const LENGTH = 100;

function transfer(): TransferRecord {
  return {
    id: 1,
    via: 'sprint-x',
    url: 'http://origin.test/rep-1.mp4',
    range: `0-${LENGTH - 1}`,
    startMs: 0,
    firstByteMs: null,
    endMs: null,
    bytes: 0,
    expectedBytes: LENGTH,
    throughputBitsPerSec: null,
    targetChunkBytes: LENGTH,
    rttEstimateSec: null,
    bandwidthEstimateBitsPerSec: null,
    segmentsServed: 0,
    cancelled: false,
    wastedBytes: 0,
    error: null,
  };
}

/** A stream over a 206 response of LENGTH bytes that the test feeds `arrived` bytes of and then holds open. */
async function streamWith(
  arrived: number,
): Promise<{ stream: ExpandedStream; record: TransferRecord; close: () => void; failed: string[] }> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(new Uint8Array(arrived));
    },
  });
  const response = new Response(body, { status: 206, headers: { 'Content-Range': `bytes 0-${LENGTH - 1}/1000` } });
  const requests = { send: () => Promise.resolve(response) } as unknown as RequestPath;
  const record = transfer();
  const failed: string[] = [];
  const stream = new ExpandedStream(
    record.url,
    { start: 0, end: LENGTH - 1, firstIndex: 0, lastIndex: 0, reachedEnd: false, capped: false },
    'rep-1',
    record,
    { onWireSample: () => undefined, onEnd: () => undefined },
    'omit',
    { requests, request: { url: record.url, headers: {}, withCredentials: false } },
  );
  const waiting: PendingSegment = { range: { start: LENGTH, end: LENGTH + 9 }, deliver: () => undefined, fail: (r) => failed.push(r) };
  stream.request(waiting);
  stream.start();
  for (let i = 0; i < 100 && record.bytes < arrived; i++) await new Promise((r) => setTimeout(r, 5));
  expect(record.bytes).toBe(arrived);
  return { stream, record, close: () => controller.close(), failed };
}

describe('ExpandedStream cancelled', () => {
  it('after every byte of its range arrived: ends complete, not cancelled', async () => {
    const { stream, record, close } = await streamWith(LENGTH);
    expect(stream.finished).toBe(true); // for the switch policy: nothing left to wait for
    stream.cancel('bitrate switch');
    close();
    expect(record.cancelled).toBe(false);
    expect(record.error).toBeNull();
    expect(record.endMs).not.toBeNull();
  });

  it('before its range arrived: cancelled, and the segment still waiting is handed back', async () => {
    const { stream, record, close, failed } = await streamWith(60);
    expect(stream.finished).toBe(false);
    stream.cancel('bitrate switch');
    close();
    expect(record.cancelled).toBe(true);
    expect(record.bytes).toBe(60);
    expect(record.error).toBe('cancelled: bitrate switch');
    expect(failed).toEqual(['cancelled: bitrate switch']);
  });
});
