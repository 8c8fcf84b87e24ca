// The byte transport under Sprint's pipelined HTTP/1.1 client (paper §IV-B1):
// one TCP (or TLS) connection that Sprint controls. The extension implements it
// with the native socket host (or chrome.sockets.tcp), tests with a fake or a
// loopback socket. The transport moves bytes only; all HTTP lives in src/http/.
//
// Contract:
// - The transport is connected before the client is created over it.
// - `write` queues bytes in order; it never reorders or drops them. A failed
//   write is reported later through `onClose({kind: 'error'})`.
// - The transport delivers received bytes in order through the receiver's
//   `onData`, each slice with its receive time, then exactly one `onClose`;
//   nothing after `onClose`.
// - After `close()` the transport may still deliver `onClose` (kind 'local');
//   the receiver ignores anything after its own close.
// - Slices passed to `onData` are owned by the receiver afterwards (the
//   client hands views of them to its callers): do not reuse the buffer.

/** One connection's send side, as seen by the HTTP client. */
export interface ByteTransport {
  /** Queues bytes to send, in order. */
  write(bytes: Uint8Array): void;
  /** Closes the connection (both directions); idempotent. */
  close(): void;
}

/** Why a connection ended. */
export interface TransportCloseReason {
  /**
   * 'eof': the server closed its side cleanly (TCP FIN; for TLS, after a
   * close_notify or what the transport treats as a clean end).
   * 'error': reset, timeout, TLS failure, write failure, host crash.
   * 'local': we closed it.
   */
  readonly kind: 'eof' | 'error' | 'local';
  /** Human-readable detail, e.g. "ECONNRESET" or "native host exited". */
  readonly message: string;
}

/** What the transport calls: implemented by the pipelined client. */
export interface TransportReceiver {
  /**
   * Bytes received from the server, in order. `atMs`: receive time in
   * milliseconds on the caller's clock (monotonic preferred, e.g.
   * performance.now() or the host's timestamp converted to one clock).
   */
  onData(bytes: Uint8Array, atMs: number): void;
  /**
   * The connection ended; called once, after the last onData. `atMs` as for
   * onData (it times the end of a body delimited by the close); omitted → the
   * time of the last onData.
   */
  onClose(reason: TransportCloseReason, atMs?: number): void;
}
