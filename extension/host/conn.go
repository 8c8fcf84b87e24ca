// conn.go: one open connection: the reader with credit-based flow control, the request writer, the
// optional TCP_INFO sampler, and teardown.
//
// Flow control: the host sends data events for at most windowBytes bytes that the extension has not yet
// acknowledged (ack with a cumulative offset). When the window is full the reader stops calling read(), the
// kernel's receive buffer fills and TCP's own flow control slows the server. So the extension's pace, not
// the host's memory, bounds a fast download; and the host's memory per connection is bounded by the window.
//
// Ordering per connection, as PROTOCOL.md promises: the open reply, then data events in offset order (and
// tcpInfo events, and write replies, interleaved), then exactly one closed event, after which nothing more
// is said about the connection.
package main

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"
)

// writeJob is one validated write waiting for the socket.
type writeJob struct {
	id       int64
	bytes    []byte
	requests int
}

// Conn is one connection owned by the host.
type Conn struct {
	id     uint64
	h      *Host
	open   Command // the open command: target, port, tls
	d      *dialed
	window int64
	chunk  int

	mu       sync.Mutex
	cond     *sync.Cond // signalled on ack and on close
	sent     int64      // stream offset of the next byte to send in a data event
	acked    int64      // every byte before this offset has been consumed by the extension
	closing  bool
	reason   string // closed-event reason once closing
	message  string
	written  int64 // request bytes written to the socket
	writeQ   chan writeJob
	done     chan struct{} // closed when teardown starts: stops writer and sampler
	workers  sync.WaitGroup
	sampleMs int
}

func newConn(h *Host, id uint64, open Command, d *dialed, window, chunk int) *Conn {
	c := &Conn{id: id, h: h, open: open, d: d, window: int64(window), chunk: chunk, sampleMs: open.SampleIntervalMs,
		writeQ: make(chan writeJob, h.cfg.Limits.MaxPendingWrites), done: make(chan struct{})}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// start launches the reader, writer and sampler goroutines. Call it after the open reply was sent, so no
// event can overtake the reply.
func (c *Conn) start() {
	c.workers.Add(1)
	go c.writeLoop()
	if c.sampleMs > 0 {
		c.workers.Add(1)
		go c.sampleLoop()
	}
	c.h.goroutines.Add(1)
	go c.readLoop()
}

// readLoop reads the socket within the credit window and sends data events; on the first error it tears
// the connection down and sends the closed event.
func (c *Conn) readLoop() {
	defer c.h.goroutines.Done()
	buf := make([]byte, c.chunk)
	var lastEvent time.Time
	for {
		c.mu.Lock()
		for !c.closing && c.sent-c.acked >= c.window {
			c.cond.Wait()
		}
		if c.closing {
			c.mu.Unlock()
			break
		}
		room := int(min(int64(c.chunk), c.window-(c.sent-c.acked)))
		offset := c.sent
		c.mu.Unlock()

		n, err := c.d.conn.Read(buf[:room])
		t := c.h.now()
		if n > 0 && n < room && err == nil && streaming(lastEvent, time.Now()) {
			n, t, err = c.gather(buf[:room], n, t)
		}
		if n > 0 {
			c.mu.Lock()
			c.sent += int64(n)
			c.mu.Unlock()
			c.h.out.SendData(c.id, offset, t, buf[:n])
			lastEvent = time.Now()
		}
		if err != nil {
			reason, message := classifyReadErr(err)
			c.beginClose(reason, message)
			break
		}
	}
	c.teardown()
}

// While a connection is streaming (its previous data event left less than streamingGap ago), the bytes
// that arrive within gatherWindow of a read are gathered into the same data event, up to the room the chunk
// and the window leave: a few large messages instead of many small ones, since every message costs the
// browser and the extension a fixed amount whatever its size. The first read after a pause goes out at once,
// so the start of a response after an idle connection keeps its exact receive time; within a stream an
// event's t (the receive time of its last byte) is at most gatherWindow after its first byte arrived.
const (
	gatherWindow = 20 * time.Millisecond
	streamingGap = 50 * time.Millisecond
)

// streaming reports whether the previous data event (zero: none yet) left less than streamingGap before now.
func streaming(lastEvent, now time.Time) bool {
	return !lastEvent.IsZero() && now.Sub(lastEvent) < streamingGap
}

// gather reads more into buf[n:] until it is full or gatherWindow has passed and returns the new length, the
// receive time of the last bytes read and the read error, if any (the window's own timeout is not one).
func (c *Conn) gather(buf []byte, n int, t float64) (int, float64, error) {
	if c.d.conn.SetReadDeadline(time.Now().Add(gatherWindow)) != nil {
		return n, t, nil
	}
	defer c.d.conn.SetReadDeadline(time.Time{})
	for n < len(buf) {
		m, err := c.d.conn.Read(buf[n:])
		if m > 0 {
			n += m
			t = c.h.now()
		}
		if err != nil {
			if isTimeout(err) {
				return n, t, nil
			}
			return n, t, err
		}
	}
	return n, t, nil
}

// classifyReadErr maps a read error to a closed-event reason.
func classifyReadErr(err error) (reason, message string) {
	switch {
	case errors.Is(err, io.EOF):
		return "eof", ""
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "reset", describeNetErr(err)
	case errors.Is(err, syscall.ETIMEDOUT), isTimeout(err):
		return "timeout", describeNetErr(err)
	default:
		return "error", describeNetErr(err)
	}
}

// beginClose marks the connection closing (the first reason wins), wakes the reader, and closes the socket
// so blocked reads and writes return. Safe to call more than once and from any goroutine.
func (c *Conn) beginClose(reason, message string) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.closing = true
	c.reason, c.message = reason, message
	c.cond.Broadcast()
	c.mu.Unlock()
	// Closing the TCP socket (not the TLS layer) never blocks: no close_notify is sent, the server sees FIN.
	c.d.tcp.Close()
}

// teardown runs once, on the reader goroutine, after the reader stopped: it stops the writer and sampler,
// answers writes that never reached the socket, frees the connection slot and sends the closed event.
func (c *Conn) teardown() {
	c.beginClose("error", "reader stopped") // no-op when already closing (the normal case)
	close(c.done)
	c.workers.Wait()
	c.failQueuedWrites()
	c.h.removeConn(c.id)
	c.mu.Lock()
	ev := ClosedEvent{Event: "closed", Conn: c.id, Reason: c.reason, Message: c.message,
		BytesRead: c.sent, BytesWritten: c.written}
	c.mu.Unlock()
	ev.T = c.h.now()
	c.h.out.Send(ev)
	detail := ev.Reason
	if ev.Message != "" {
		detail += ": " + ev.Message
	}
	c.h.logger.Printf("conn %d closed (%s), read %d bytes, wrote %d", c.id, detail, ev.BytesRead, ev.BytesWritten)
}

// failQueuedWrites answers every write still queued after the writer stopped. No write can be queued
// after this: enqueueWrite refuses once closing is set, which happened before the writer stopped.
func (c *Conn) failQueuedWrites() {
	c.mu.Lock()
	reason := c.reason
	c.mu.Unlock()
	for {
		select {
		case job := <-c.writeQ:
			c.h.reply(&job.id, nil, protoErr(CodeConnClosed, "connection %d closed (%s) before this write reached the socket", c.id, reason))
		default:
			return
		}
	}
}

// ack records that the extension consumed every byte before offset.
func (c *Conn) ack(offset int64) *ProtoError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if offset > c.sent {
		return protoErr(CodeBadMessage, "ack offset %d is beyond the %d bytes sent on connection %d", offset, c.sent, c.id)
	}
	if offset > c.acked {
		c.acked = offset
		c.cond.Broadcast()
	}
	return nil
}

// enqueueWrite queues validated request bytes for the writer goroutine.
func (c *Conn) enqueueWrite(job writeJob) *ProtoError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return protoErr(CodeConnClosed, "connection %d is closing (%s)", c.id, c.reason)
	}
	select {
	case c.writeQ <- job:
		return nil
	default:
		return protoErr(CodeLimit, "connection %d already has %d writes waiting for the socket", c.id, cap(c.writeQ))
	}
}

// writeLoop writes queued requests in order, each with a deadline, takes the socket out of interactive ACK
// mode after each (quickack_linux.go), and replies to each write.
func (c *Conn) writeLoop() {
	defer c.workers.Done()
	timeout := time.Duration(c.h.cfg.Limits.WriteTimeoutMs) * time.Millisecond
	quickAckFailed := false // said once per connection
	for {
		select {
		case <-c.done:
			return
		case job := <-c.writeQ:
			if err := c.d.conn.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
				c.h.reply(&job.id, nil, protoErr(CodeConnClosed, "connection %d: %v", c.id, describeNetErr(err)))
				continue
			}
			n, err := c.d.conn.Write(job.bytes)
			t := c.h.now()
			if err == nil && !quickAckFailed {
				if qerr := leaveInteractiveAckMode(c.d.tcp); qerr != nil {
					quickAckFailed = true
					c.h.logger.Printf("conn %d: cannot leave interactive ACK mode, left as it is: %v", c.id, qerr)
				}
			}
			c.mu.Lock()
			c.written += int64(n)
			closing, reason := c.closing, c.reason
			c.mu.Unlock()
			if err != nil {
				if closing {
					c.h.reply(&job.id, nil, protoErr(CodeConnClosed, "connection %d closed (%s) during the write", c.id, reason))
					continue
				}
				msg := fmt.Sprintf("writing %d bytes to connection %d: %s", len(job.bytes), c.id, describeNetErr(err))
				c.h.reply(&job.id, nil, protoErr(CodeWriteFailed, "%s", msg))
				c.beginClose("write_failed", msg)
				continue
			}
			c.h.reply(&job.id, WrittenResult{Conn: c.id, Requests: job.requests, Bytes: n, T: t}, nil)
		}
	}
}

// sampleLoop sends a tcpInfo event every sampleMs until the connection closes.
func (c *Conn) sampleLoop() {
	defer c.workers.Done()
	ticker := time.NewTicker(time.Duration(c.sampleMs) * time.Millisecond)
	defer ticker.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-ticker.C:
			info, err := ReadTCPInfo(c.d.tcp)
			if err != nil {
				c.mu.Lock()
				closing := c.closing
				c.mu.Unlock()
				if !closing {
					c.h.logger.Printf("conn %d: stopping tcpInfo samples: %v", c.id, err)
				}
				return
			}
			c.h.out.Send(TCPInfoEvent{Event: "tcpInfo", TCPInfoResult: TCPInfoResult{Conn: c.id, T: c.h.now(), Info: info}})
		}
	}
}

// tcpInfo answers a tcpInfo command.
func (c *Conn) tcpInfo() (TCPInfoResult, *ProtoError) {
	info, err := ReadTCPInfo(c.d.tcp)
	if err != nil {
		c.mu.Lock()
		closing := c.closing
		c.mu.Unlock()
		if closing {
			return TCPInfoResult{}, protoErr(CodeConnClosed, "connection %d is closing", c.id)
		}
		return TCPInfoResult{}, protoErr(CodeTCPInfoUnavailable, "connection %d: %v", c.id, err)
	}
	return TCPInfoResult{Conn: c.id, T: c.h.now(), Info: info}, nil
}

// authority is what the Host header of a request on this connection must name.
func (c *Conn) authority() Authority {
	def := 80
	if c.open.TLS {
		def = 443
	}
	return Authority{Host: c.open.Target.Authority, Port: c.open.Port, DefaultPort: def}
}
