// outbox.go: the one goroutine that writes to stdout.
//
// Replies and events are produced by many goroutines (the dispatcher, one reader per connection, samplers).
// Native messaging needs every frame written whole and in order, so all of them go through one channel to
// one writer. Producers marshal JSON themselves (in parallel); the writer only frames and writes. The channel
// is bounded, so a browser that reads slowly slows the producers instead of growing memory.
package main

import (
	"encoding/json"
	"io"
	"log"
	"sync"
)

// outboxDepth is how many marshalled messages may wait for the stdout writer.
const outboxDepth = 64

// Outbox serialises messages onto the browser-bound stream.
type Outbox struct {
	ch       chan []byte
	maxBytes int
	logger   *log.Logger
	done     chan struct{}
	closeMu  sync.RWMutex // senders hold it shared; Close holds it exclusively
	closed   bool
	failOnce sync.Once
}

// NewOutbox starts the writer goroutine on w. maxBytes bounds each message's JSON payload.
func NewOutbox(w io.Writer, maxBytes int, logger *log.Logger) *Outbox {
	o := &Outbox{ch: make(chan []byte, outboxDepth), maxBytes: maxBytes, logger: logger, done: make(chan struct{})}
	go o.run(w)
	return o
}

func (o *Outbox) run(w io.Writer) {
	defer close(o.done)
	broken := false
	frame := make([]byte, 0, 4096)
	for payload := range o.ch {
		if broken {
			continue // keep draining so producers never block on a dead browser
		}
		var err error
		frame, err = AppendFrame(frame[:0], payload, o.maxBytes)
		if err != nil {
			o.logger.Printf("dropping outgoing message: %v", err)
			continue
		}
		if _, err := w.Write(frame); err != nil {
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
	o.ch <- payload
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
	o.ch <- payload
}
