// HostConnection (extension/src/worker/host-connection.ts) against a fake
// native host: flow-control acks are cumulative and batched (one per
// ACK_EVERY_BYTES, or a quarter of a smaller window), every byte still
// reaches the receiver in order, and the window reported by `open` is used
// (PROTOCOL.md §6).

import { ACK_EVERY_BYTES, HostConnection } from '../../../extension/src/worker/host-connection';
import { encodeBase64 } from '../../../extension/src/shared/base64';
import type { ConnHandler, NativeHost } from '../../../extension/src/worker/native-host';

function fakeHost(windowBytes?: number): { host: NativeHost; acks: number[]; handler: () => ConnHandler } {
  const acks: number[] = [];
  let h: ConnHandler | null = null;
  const host = {
    open: async (_fields: Record<string, unknown>, handler: ConnHandler) => {
      h = handler;
      return { conn: 1, localAddr: '127.0.0.1:1', remoteAddr: '127.0.0.1:2', connectMs: 0.1, t: 1, windowBytes: windowBytes ?? 4 << 20 };
    },
    ack: (_conn: number, offset: number) => acks.push(offset),
    command: async () => ({}),
  } as unknown as NativeHost;
  return { host, acks, handler: () => h as ConnHandler };
}

async function feed(windowBytes: number | undefined, sizes: number[]): Promise<{ acks: number[]; got: number }> {
  const f = fakeHost(windowBytes);
  const conn = await HostConnection.open(f.host, { hostname: '127.0.0.1', port: 2, tls: false, allowPrivate: true });
  let got = 0;
  let expectByte = 0;
  conn.attach({
    onData: (bytes) => {
      for (const b of bytes) {
        if (b !== expectByte % 251) throw new Error('bytes out of order');
        expectByte += 1;
      }
      got += bytes.length;
    },
    onClose: () => undefined,
  });
  let offset = 0;
  for (const n of sizes) {
    const bytes = new Uint8Array(n).map((_, i) => (offset + i) % 251);
    f.handler().onData({ kind: 'data', conn: 1, offset, n, t: 2, data: encodeBase64(bytes) });
    offset += n;
  }
  return { acks: f.acks, got };
}

test('acks are cumulative and sent once per ACK_EVERY_BYTES, not per event', async () => {
  const sizes = Array.from({ length: 64 }, () => 16 * 1024); // 1 MiB in 16 KiB events
  const { acks, got } = await feed(undefined, sizes);
  expect(got).toBe(1024 * 1024);
  expect(acks).toEqual([1, 2, 3, 4].map((k) => k * ACK_EVERY_BYTES));
});

test('a small window is acknowledged every quarter window', async () => {
  const { acks } = await feed(
    64 * 1024,
    Array.from({ length: 8 }, () => 8 * 1024),
  );
  expect(acks).toEqual([16, 32, 48, 64].map((k) => k * 1024));
});

test('one event larger than the batch is acknowledged at once', async () => {
  const { acks } = await feed(undefined, [256 * 1024, 1000]);
  expect(acks).toEqual([256 * 1024]);
});
