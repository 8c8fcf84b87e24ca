/**
 * A TrainTransport over the page's own `fetch` (no extension). The browser,
 * not Sprint, maps requests onto connections: over HTTP/1.1 several requests
 * in flight ride parallel connections; over HTTP/2 they are streams of one.
 * Used where the browser already multiplexes, and as the reference transport
 * in tests of the train scheduler. Wire timing is the time `fetch` handed
 * each piece of body to the page.
 *
 * Chromium keeps separate connections (pools) for credentialed and
 * uncredentialed requests, so the credentials mode chooses the connections:
 *  - on an HTTP/2 or HTTP/3 origin, `same-origin`, like dash.js's own
 *    requests: with `omit` the trains rode an HTTP/2 connection of their own
 *    beside the one carrying dash.js's manifest, init segments and audio
 *    (measured with the HTTP/2 origin's log, test/e2e/h2-origin.test.ts);
 *    with the same mode the whole player shares one connection. Cookies
 *    behave as for dash.js's requests: sent to the page's own origin, never
 *    cross-origin;
 *  - otherwise (a page forcing `fetch` on HTTP/1.1, as the scheduler's tests
 *    do), `omit`: the train's parallel requests then have a pool of their
 *    own, which dash.js's audio and init requests do not take connections
 *    from (measured: 6 % idle inside a train in the same pool, 1.8 % apart,
 *    test/e2e/sprint-paused-trains.test.ts).
 */
import type { RequestTicket, ResponseSink, TrainRequest, TrainTransport } from './train-transport';
import { credentialsFor } from '../dataplane/request-path';
import { nowMs } from '../dataplane/clock';

export class FetchTrainTransport implements TrainTransport {
  readonly name = 'fetch';
  /** dash.js's load headers and credentials go out as the page set them; CORS applies as to dash.js's own XHR. */
  readonly carriesPageHeaders = true;
  private readonly controllers = new Set<AbortController>();
  /**
   * With `same-origin` (chosen only on HTTP/2 or HTTP/3 origins) every
   * request of the player shares one TCP connection: audio must ride the
   * trains too, in presentation order, or it waits behind the video bytes
   * already in the connection's buffers (measured on the 3 Mbit/s testbed
   * with audio left to dash.js on the shared connection: 25 and 35 stalls
   * in 300 s with 25-30 s of video buffered).
   */
  readonly oneConnection: boolean;

  /** The RTT probes take the other pool, so a train never inherits a probe's connection. */
  readonly probeCredentials: RequestCredentials;

  constructor(private readonly credentials: RequestCredentials = 'omit') {
    this.probeCredentials = credentials === 'omit' ? 'same-origin' : 'omit';
    this.oneConnection = credentials !== 'omit';
  }

  request(req: TrainRequest, sink: ResponseSink): RequestTicket {
    const controller = new AbortController();
    this.controllers.add(controller);
    let cancelled = false;
    const headers: Record<string, string> = { ...req.headers };
    if (req.range) headers.Range = `bytes=${req.range.start}-${req.range.end}`;
    const credentials = credentialsFor({ url: req.url, headers, withCredentials: req.withCredentials === true }, this.credentials);
    void (async () => {
      try {
        const res = await fetch(req.url, { headers, cache: 'no-store', credentials, signal: controller.signal });
        const h: Record<string, string> = {};
        res.headers.forEach((v, k) => (h[k] = v));
        if (cancelled) return;
        sink.onHead(res.status, h, nowMs());
        if (!res.body) throw new Error('response has no body stream');
        const reader = res.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (cancelled) return;
          if (done) break;
          sink.onData(value, nowMs());
        }
        sink.onEnd(nowMs());
      } catch (e) {
        if (!cancelled) sink.onError((e as Error).message || String(e), true);
      } finally {
        this.controllers.delete(controller);
      }
    })();
    return {
      cancel: () => {
        cancelled = true;
        controller.abort();
      },
    };
  }

  close(): void {
    for (const c of this.controllers) c.abort();
    this.controllers.clear();
  }
}
