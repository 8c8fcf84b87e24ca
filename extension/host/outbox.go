// outbox.go: the one goroutine that writes to stdout.
//
// Replies and events are produced by many goroutines (the dispatcher, one reader per connection, samplers).
// Native messaging needs every frame written whole and in order, so all of them go through one channel to
// one writer. Producers marshal JSON themselves (in parallel); the writer only frames and writes. The channel
// is bounded, so a browser that reads slowly slows the producers instead of growing memory.
package main

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"log"
	"sync"
)

// outboxDepth is how many marshalled messages may wait for the stdout writer.
const outboxDepth = 64

// outMsg is one queued message: a JSON payload the writer frames, or (framed) a whole frame from a
// pooled buffer (SendData) that the writer writes as it is and gives back to the pool.
type outMsg struct {
	b      []byte
	framed bool
}

// framePool holds data-event frame buffers: each is up to 350 KB, and allocating one per read (then copying
// it into the frame) cost about as much as the base64 encoding itself (BenchmarkDataEventPath).
var framePool = sync.Pool{New: func() any { return new([]byte) }}

// Outbox serialises messages onto the browser-bound stream.
type Outbox struct {
	ch       chan outMsg
	maxBytes int
	logger   *log.Logger
	done     chan struct{}
	closeMu  sync.RWMutex // senders hold it shared; Close holds it exclusively
	closed   bool
	failOnce sync.Once
}

// NewOutbox starts the writer goroutine on w. maxBytes bounds each message's JSON payload.
func NewOutbox(w io.Writer, maxBytes int, logger *log.Logger) *Outbox {
	o := &Outbox{ch: make(chan outMsg, outboxDepth), maxBytes: maxBytes, logger: logger, done: make(chan struct{})}
	go o.run(w)
	return o
}

func (o *Outbox) run(w io.Writer) {
	defer close(o.done)
	broken := false
	frame := make([]byte, 0, 4096)
	for m := range o.ch {
		if broken {
			o.recycle(m)
			continue // keep draining so producers never block on a dead browser
		}
		out := m.b
		if !m.framed {
			var err error
			frame, err = AppendFrame(frame[:0], m.b, o.maxBytes)
			if err != nil {
				o.logger.Printf("dropping outgoing message: %v", err)
				continue
			}
			out = frame
		}
		_, err := w.Write(out)
		o.recycle(m)
		if err != nil {
			o.failOnce.Do(func() { o.logger.Printf("writing to the browser failed, discarding further messages: %v", err) })
			broken = true
		}
	}
}

// Send marshals v to JSON and queues it. It blocks while the queue is full. Messages sent after Close are
// dropped (the session is over).
func (o *Outbox) Send(v any) {
	payload, err := json.Marshal(v)
	if err != nil {
		// Only our own message types are sent; a marshal failure is a programming error worth seeing.
		o.logger.Printf("internal error: cannot marshal %T: %v", v, err)
		return
	}
	o.closeMu.RLock()
	defer o.closeMu.RUnlock()
	if o.closed {
		return
	}
	o.ch <- outMsg{b: payload}
}

// Close stops accepting messages, lets the writer flush what is queued and waits for it.
func (o *Outbox) Close() {
	o.closeMu.Lock()
	if !o.closed {
		o.closed = true
		close(o.ch)
	}
	o.closeMu.Unlock()
	<-o.done
}

// SendRaw queues payload, which must already be one JSON object (dataevent.go), as Send does a marshalled one.
func (o *Outbox) SendRaw(payload []byte) {
	o.closeMu.RLock()
	defer o.closeMu.RUnlock()
	if o.closed {
		return
	}
	o.ch <- outMsg{b: payload}
}

// SendData queues a data event carrying raw (appendDataEvent), framed in place in a pooled buffer: the
// writer neither copies nor allocates it.
func (o *Outbox) SendData(conn uint64, offset int64, t float64, raw []byte) {
	p := framePool.Get().(*[]byte)
	b := appendDataEvent(append((*p)[:0], 0, 0, 0, 0), conn, offset, t, raw)
	*p = b
	if len(b)-frameHeaderBytes > o.maxBytes {
		o.logger.Printf("dropping outgoing message: %v: data event of %d bytes exceeds the %d-byte limit", ErrFrameTooLarge, len(b)-frameHeaderBytes, o.maxBytes)
		framePool.Put(p)
		return
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)-frameHeaderBytes))
	o.closeMu.RLock()
	defer o.closeMu.RUnlock()
	if o.closed {
		framePool.Put(p)
		return
	}
	o.ch <- outMsg{b: b, framed: true}
}

// recycle gives a SendData frame's buffer back to the pool once it was written (or dropped).
func (o *Outbox) recycle(m outMsg) {
	if m.framed {
		b := m.b[:0]
		framePool.Put(&b)
	}
}
