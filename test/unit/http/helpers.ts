// Test helpers for src/http (Sprint's pipelined trains, paper §IV-B1): a
// recorder that turns parser events into a comparable transcript (body pieces
// merged, so different splits of the same stream compare equal), a fake
// transport that records what the client writes and lets a test play the
// server, and byte/string conversions. No mocks of the code under test: the
// parser and client run for real; only the network is replaced.

import { ResponseParser, type ResponseParserOptions } from '../../../src/http/response-parser';
import type { HttpParseError } from '../../../src/http/errors';
import type { RequestMethod } from '../../../src/http/framing';
import type { ByteTransport, TransportCloseReason, TransportReceiver } from '../../../src/http/transport';

export function bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

export function text(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return s;
}

export type Event =
  | {
      readonly e: 'head';
      readonly index: number;
      readonly status: number;
      readonly version: string;
      readonly keepAlive: boolean;
      readonly framing: string;
      readonly interim: readonly number[];
    }
  | { readonly e: 'body'; readonly data: string }
  | { readonly e: 'end' }
  | { readonly e: 'error'; readonly code: string; readonly offset: number; readonly index: number; readonly message: string };

/** A parser wired to a transcript. */
export function recordingParser(
  methods: readonly RequestMethod[],
  options?: ResponseParserOptions,
): { parser: ResponseParser; events: Event[]; pieces: Array<{ piece: Uint8Array; atMs: number }> } {
  const events: Event[] = [];
  const pieces: Array<{ piece: Uint8Array; atMs: number }> = [];
  const parser = new ResponseParser(
    {
      onHead: (h) =>
        events.push({
          e: 'head',
          index: h.index,
          status: h.status,
          version: h.httpVersion,
          keepAlive: h.keepAlive,
          framing: h.framing.kind,
          interim: h.interim,
        }),
      onBody: (piece, atMs) => {
        pieces.push({ piece, atMs });
        const last = events[events.length - 1];
        if (last?.e === 'body') events[events.length - 1] = { e: 'body', data: last.data + text(piece) };
        else events.push({ e: 'body', data: text(piece) });
      },
      onEnd: () => events.push({ e: 'end' }),
      onError: (err: HttpParseError) =>
        events.push({ e: 'error', code: err.code, offset: err.offset, index: err.responseIndex, message: err.message }),
    },
    options,
  );
  for (const m of methods) parser.expect(m);
  return { parser, events, pieces };
}

/** Parses `stream` pushed as the given parts (then optionally finishes with EOF) and returns the transcript. */
export function parseParts(
  parts: readonly Uint8Array[],
  methods: readonly RequestMethod[],
  finish: 'eof' | 'error' | null = null,
  options?: ResponseParserOptions,
): Event[] {
  const { parser, events } = recordingParser(methods, options);
  parts.forEach((p, i) => parser.push(p, i));
  if (finish) parser.finish(finish, parts.length, 'test');
  return events;
}

/** Deterministic PRNG (mulberry32) for reproducible random splits. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `stream` cut at the sorted positions `cuts`. */
export function cutAt(stream: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    out.push(stream.subarray(from, c));
    from = c;
  }
  out.push(stream.subarray(from));
  return out;
}

/** A transport whose "server" is the test: it records the client's writes and delivers bytes on request. */
export class FakeTransport implements ByteTransport {
  readonly writes: Uint8Array[] = [];
  closeCalls = 0;
  receiver: TransportReceiver | null = null;
  /** Called after each write (to answer synchronously, for example). */
  onWrite: ((bytes: Uint8Array) => void) | null = null;
  private clock = 0;

  write(b: Uint8Array): void {
    this.writes.push(b);
    this.onWrite?.(b);
  }

  close(): void {
    this.closeCalls += 1;
  }

  /** Everything written, as text. */
  get written(): string {
    return this.writes.map(text).join('');
  }

  /** The server sends `data` (in one onData call), stamped with an increasing clock. */
  send(data: string | Uint8Array): void {
    this.clock += 1;
    (this.receiver as TransportReceiver).onData(typeof data === 'string' ? bytes(data) : data, this.clock);
  }

  /** The server ends the connection. */
  end(kind: TransportCloseReason['kind'] = 'eof', message = 'test'): void {
    this.clock += 1;
    (this.receiver as TransportReceiver).onClose({ kind, message }, this.clock);
  }
}

/** A 200/206 response with Content-Length. */
export function resp(body: string, extra: Record<string, string> = {}, status = 200, version = '1.1'): string {
  const reason = status === 206 ? 'Partial Content' : 'OK';
  const lines = [`HTTP/${version} ${status} ${reason}`, `Content-Length: ${body.length}`];
  for (const [k, v] of Object.entries(extra)) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** A 206 response for bytes first..last of `whole`. */
export function partial(whole: string, first: number, last: number, extra: Record<string, string> = {}): string {
  return resp(whole.slice(first, last + 1), { 'Content-Range': `bytes ${first}-${last}/${whole.length}`, ...extra }, 206);
}
