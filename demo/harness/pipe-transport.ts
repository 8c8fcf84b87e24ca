// A DevTools-protocol transport over Chromium's `--remote-debugging-pipe`:
// the browser reads commands from its fd 3 and writes responses and events
// to its fd 4, each message a JSON text ended by a NUL byte. The harness runs
// Chromium inside the client network namespace (`ip netns exec`), where its
// loopback is not reachable from puppeteer in the host namespace; the pipes
// are inherited across the namespace switch, so puppeteer drives the browser
// through them (`puppeteer.connect({ transport })`).

import type { Readable, Writable } from 'stream';

/** The shape puppeteer-core's `connect({ transport })` expects. */
export interface ProtocolTransport {
  send(message: string): void;
  close(): void;
  onmessage?: (message: string) => void;
  onclose?: () => void;
}

/** Splits a byte stream into NUL-terminated messages; keeps the unfinished tail. */
export class NulSplitter {
  private pending: Buffer[] = [];

  /** Feeds bytes; returns the complete messages they finish, in order. */
  push(chunk: Buffer): string[] {
    const out: string[] = [];
    if (chunk.indexOf(0) < 0) {
      this.pending.push(chunk);
      return out;
    }
    const all = this.pending.length > 0 ? Buffer.concat([...this.pending, chunk]) : chunk;
    let start = 0;
    let end = all.indexOf(0, start);
    while (end >= 0) {
      out.push(all.toString('utf8', start, end));
      start = end + 1;
      end = all.indexOf(0, start);
    }
    this.pending = start < all.length ? [all.subarray(start)] : [];
    return out;
  }
}

export class PipeTransport implements ProtocolTransport {
  onmessage?: (message: string) => void;
  onclose?: () => void;
  private closed = false;
  private readonly splitter = new NulSplitter();

  constructor(
    private readonly toBrowser: Writable,
    fromBrowser: Readable,
  ) {
    fromBrowser.on('data', (chunk: Buffer) => {
      for (const message of this.splitter.push(chunk)) {
        // Deliver asynchronously, as puppeteer's own transports do.
        setImmediate(() => {
          if (!this.closed) this.onmessage?.(message);
        });
      }
    });
    const ended = (): void => {
      if (this.closed) return;
      this.closed = true;
      this.onclose?.();
    };
    fromBrowser.on('close', ended);
    fromBrowser.on('end', ended);
    // A browser that dies mid-write gives EPIPE; the 'close' above reports it.
    fromBrowser.on('error', () => undefined);
    toBrowser.on('error', () => undefined);
  }

  send(message: string): void {
    if (this.closed) return;
    this.toBrowser.write(message);
    this.toBrowser.write('\0');
  }

  close(): void {
    this.closed = true;
  }
}
