/**
 * One TCP/TLS connection of the socket host, adapted to the `ByteTransport` /
 * `TransportReceiver` seam of the pipelined HTTP/1.1 client (src/http/
 * transport.ts; paper §IV-B1: trains ride connections Sprint controls).
 *
 * - `write` gathers the requests the client writes in one turn of the event
 *   loop and sends them as few host `write` commands as the host's limits
 *   allow (16384 characters, 64 requests, 16 writes queued per connection:
 *   PROTOCOL.md §12), so a train's requests leave back to back.
 * - `data` events are checked for contiguous offsets (a gap closes the
 *   connection), decoded, acknowledged with the cumulative offset once at
 *   least ACK_EVERY_BYTES (or a quarter of the window) are unacknowledged
 *   (PROTOCOL.md §6: ack when the bytes are stored, not when the page has
 *   consumed them, so the host's pacing does not distort wire timing; every
 *   ≥ 256 KiB is enough: one small message per event cost as much as the
 *   event) and passed on with the host's receive time `t` (epoch ms); while
 *   the ack gate (setAckGate) says the page is behind, the ack is owed and
 *   sent by releaseAcks(), and the host stops reading the socket once its
 *   window is used (back-pressure).
 * - `closed` becomes `onClose` with kind eof / local / error.
 */
import { latin1 } from '../../../src/http/bytes';
import type { ByteTransport, TransportCloseReason, TransportReceiver } from '../../../src/http/transport';
import { decodeBase64 } from '../shared/base64';
import type { HostClosedEvent, HostDataEvent, HostOpened, TcpInfoSample } from './host-messages';
import { parseTcpInfo } from './host-messages';
import type { NativeHost } from './native-host';
import { rememberBase64 } from './piece-base64';

export interface OpenTarget {
  /** URL.hostname (IPv6 in brackets). */
  readonly hostname: string;
  readonly port: number;
  readonly tls: boolean;
  readonly allowPrivate: boolean;
}

/** Acknowledge after this many unacknowledged bytes (PROTOCOL.md §6). */
export const ACK_EVERY_BYTES = 256 * 1024;

type Early = { data: Uint8Array; t: number } | { close: TransportCloseReason; t: number };

export class HostConnection implements ByteTransport {
  readonly opened: HostOpened;
  private readonly host: NativeHost;
  private receiver: TransportReceiver | null = null;
  private readonly early: Early[] = [];
  /** Requests (as latin1 strings) not yet handed to a host `write`. */
  private readonly outbox: string[] = [];
  private flushScheduled = false;
  private writesInFlight = 0;
  private received = 0;
  private acked = 0;
  private readonly ackEvery: number;
  private localClose = false;
  private ended = false;
  private ackGate: (() => boolean) | null = null;
  private ackOwed = false;
  /** Request bytes the host confirmed written. */
  bytesWritten = 0;

  private constructor(host: NativeHost, opened: HostOpened) {
    this.host = host;
    this.opened = opened;
    this.ackEvery = Math.max(1, Math.min(ACK_EVERY_BYTES, Math.floor(opened.windowBytes / 4)));
  }

  /** Opens a connection through `host`; rejects with HostCommandError / HostUnavailableError. */
  static async open(host: NativeHost, target: OpenTarget, options: { connectTimeoutMs?: number } = {}): Promise<HostConnection> {
    let conn: HostConnection | null = null;
    const pendingEvents: Array<HostDataEvent | HostClosedEvent> = [];
    const opened = await host.open(
      {
        host: target.hostname,
        port: target.port,
        tls: target.tls,
        allowPrivate: target.allowPrivate,
        ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
      },
      {
        // Events may be routed between the reply and the construction below: keep them in order.
        onData: (ev) => (conn ? conn.onHostData(ev) : pendingEvents.push(ev)),
        onClosed: (ev) => (conn ? conn.onHostClosed(ev) : pendingEvents.push(ev)),
        onAckRefused: (message) => conn?.fail(`the host refused an ack: ${message}`),
      },
    );
    const c = new HostConnection(host, opened);
    conn = c;
    for (const ev of pendingEvents) {
      if (ev.kind === 'data') c.onHostData(ev);
      else c.onHostClosed(ev);
    }
    return c;
  }

  get conn(): number {
    return this.opened.conn;
  }

  /** While `hold()` is true, acks are owed instead of sent (releaseAcks sends them). */
  setAckGate(hold: () => boolean): void {
    this.ackGate = hold;
  }

  /** Sends the owed ack (everything received so far), if any and the gate is open. */
  releaseAcks(): void {
    if (!this.ackOwed || this.ended || this.ackGate?.()) return;
    this.ackOwed = false;
    this.acked = this.received;
    this.host.ack(this.conn, this.received);
  }

  /** Acks are being held back for the page. */
  get acksHeld(): boolean {
    return this.ackOwed;
  }

  /** Bytes received from the server so far. */
  get bytesRead(): number {
    return this.received;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Sets the receiver; bytes that arrived before are delivered now, in order. */
  attach(receiver: TransportReceiver): void {
    if (this.receiver) throw new Error('HostConnection.attach: a receiver is already attached');
    this.receiver = receiver;
    for (const e of this.early.splice(0)) {
      if ('data' in e) receiver.onData(e.data, e.t);
      else receiver.onClose(e.close, e.t);
    }
  }

  // ---- ByteTransport ----

  write(bytes: Uint8Array): void {
    if (this.localClose || this.ended) throw new Error(`HostConnection.write: connection ${this.conn} is closed`);
    this.outbox.push(latin1(bytes));
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      queueMicrotask(() => {
        this.flushScheduled = false;
        this.flush();
      });
    }
  }

  close(): void {
    if (this.localClose || this.ended) return;
    this.localClose = true;
    this.outbox.length = 0;
    this.host.command('close', { conn: this.conn }).catch(() => undefined); // unknown_conn / host gone: already closed
  }

  /** Reads TCP_INFO of this connection now. */
  async tcpInfo(): Promise<{ info: TcpInfoSample; t: number }> {
    const r = await this.host.command('tcpInfo', { conn: this.conn });
    const info = parseTcpInfo(r.info);
    if (!info || typeof r.t !== 'number') throw new Error('tcpInfo result malformed');
    return { info, t: r.t };
  }

  // ---- internals ----

  private flush(): void {
    const limits = this.host.hello;
    while (this.outbox.length > 0 && this.writesInFlight < limits.maxPendingWrites && !this.localClose && !this.ended) {
      let text = '';
      let count = 0;
      while (
        this.outbox.length > 0 &&
        count < limits.maxRequestsPerWrite &&
        text.length + (this.outbox[0] as string).length <= limits.maxWriteBytes
      ) {
        text += this.outbox.shift() as string;
        count += 1;
      }
      if (count === 0) {
        this.fail(`a request of ${(this.outbox[0] as string).length} bytes exceeds the host's write limit of ${limits.maxWriteBytes}`);
        return;
      }
      this.writesInFlight += 1;
      this.host.command('write', { conn: this.conn, requests: text }).then(
        (r) => {
          this.writesInFlight -= 1;
          if (typeof r.bytes === 'number') this.bytesWritten += r.bytes;
          this.flush();
        },
        (err: Error) => {
          this.writesInFlight -= 1;
          this.fail(`write refused: ${err.message}`);
        },
      );
    }
  }

  private onHostData(ev: HostDataEvent): void {
    if (this.ended || this.localClose) return;
    if (ev.offset !== this.received) {
      this.fail(`data event at offset ${ev.offset} where ${this.received} was expected (gap or overlap)`);
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = decodeBase64(ev.data);
    } catch (err) {
      this.fail(`data event at offset ${ev.offset}: ${(err as Error).message}`);
      return;
    }
    if (bytes.length !== ev.n) {
      this.fail(`data event at offset ${ev.offset} says ${ev.n} bytes, carries ${bytes.length}`);
      return;
    }
    rememberBase64(bytes, ev.data);
    this.received += ev.n;
    if (this.ackGate?.()) this.ackOwed = true;
    else if (this.received - this.acked >= this.ackEvery) {
      this.ackOwed = false;
      this.acked = this.received;
      this.host.ack(this.conn, this.received);
    }
    this.deliver({ data: bytes, t: ev.t });
  }

  private onHostClosed(ev: HostClosedEvent): void {
    if (this.ended) return;
    const kind: TransportCloseReason['kind'] = ev.reason === 'eof' ? 'eof' : ev.reason === 'local' ? 'local' : 'error';
    const message = ev.message ? `${ev.reason}: ${ev.message}` : ev.reason;
    this.end({ kind, message }, ev.t);
  }

  /** Closes the connection because of a defect and reports it as an error close. */
  private fail(message: string): void {
    if (this.ended) return;
    if (!this.localClose) {
      this.localClose = true;
      this.host.command('close', { conn: this.conn }).catch(() => undefined);
    }
    this.end({ kind: 'error', message }, Date.now());
  }

  private end(reason: TransportCloseReason, t: number): void {
    this.ended = true;
    this.outbox.length = 0;
    this.deliver({ close: reason, t });
  }

  private deliver(e: Early): void {
    const r = this.receiver;
    if (!r) {
      this.early.push(e);
      return;
    }
    if ('data' in e) r.onData(e.data, e.t);
    else r.onClose(e.close, e.t);
  }
}
