/**
 * Page for the CPU benchmark's download-only runs (test/bench/cpu.bench.ts):
 * downloads byte ranges of one media file through a data plane — the Sprint
 * extension's transport (player/sprint/extension-transport.ts) or the page's
 * own fetch — and only counts the bytes: nothing is appended to a
 * SourceBuffer, so nothing is decoded. What the benchmark measures in these
 * runs is the data path alone.
 *   window.sprintBench.download(options) → { bytes, requests, pieces, errors }
 */
import { detectExtension, type ExtensionTransport } from '../../../player/sprint/extension-transport';

export interface DownloadOptions {
  via: 'extension' | 'fetch';
  /** Absolute URL of the file. */
  url: string;
  /** The file's size, bytes (ranges wrap around at the end). */
  fileBytes: number;
  /** Bytes per range request. */
  rangeBytes: number;
  /** Requests kept in flight. */
  outstanding: number;
  /** Stop issuing after this long, ms; requests in flight then finish. */
  durationMs: number;
}

export interface DownloadResult {
  bytes: number;
  requests: number;
  pieces: number;
  errors: string[];
}

let transport: ExtensionTransport | null = null;

async function oneViaExtension(t: ExtensionTransport, url: string, start: number, end: number, r: DownloadResult): Promise<void> {
  await new Promise<void>((resolve) => {
    t.request(
      { url, range: { start, end } },
      {
        onHead: () => undefined,
        onData: (bytes) => {
          r.bytes += bytes.length;
          r.pieces += 1;
        },
        onEnd: () => resolve(),
        onError: (reason) => {
          r.errors.push(reason);
          resolve();
        },
      },
    );
  });
}

async function oneViaFetch(url: string, start: number, end: number, r: DownloadResult): Promise<void> {
  try {
    const res = await fetch(url, { headers: { Range: `bytes=${start}-${end}` }, cache: 'no-store' });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      r.bytes += value.length;
      r.pieces += 1;
    }
  } catch (err) {
    r.errors.push((err as Error).message);
  }
}

const api = {
  async download(o: DownloadOptions): Promise<DownloadResult> {
    const r: DownloadResult = { bytes: 0, requests: 0, pieces: 0, errors: [] };
    if (o.via === 'extension' && !transport) {
      const found = await detectExtension(3000);
      if (!found.ok) {
        r.errors.push(found.reason);
        return r;
      }
      transport = found.transport;
    }
    const stopAt = performance.now() + o.durationMs;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (performance.now() < stopAt && r.errors.length === 0) {
        const start = next;
        const end = Math.min(o.fileBytes, start + o.rangeBytes) - 1;
        next = end + 1 >= o.fileBytes ? 0 : end + 1;
        r.requests += 1;
        if (o.via === 'extension') await oneViaExtension(transport as ExtensionTransport, o.url, start, end, r);
        else await oneViaFetch(o.url, start, end, r);
      }
    };
    await Promise.all(Array.from({ length: o.outstanding }, worker));
    return r;
  },
};

(window as unknown as { sprintBench: typeof api }).sprintBench = api;
document.title = 'sprint-bench ready';
