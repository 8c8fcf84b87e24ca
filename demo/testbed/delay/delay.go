// The fixed-delay line: packets are classified by direction (destination
// inside the downstream subnet or not) and each direction is a FIFO whose
// packets are released a fixed time after they arrived. One delay per
// direction keeps packets of a direction in order.

package main

import (
	"net"
	"sort"
	"sync"
	"time"
)

type packet struct {
	data []byte
	due  time.Time
}

// direction holds the packets of one direction and their lateness statistics.
type direction struct {
	name    string
	delay   time.Duration
	queue   chan packet
	mu      sync.Mutex
	sent    int64
	dropped int64
	late    []time.Duration // release time minus due time, one per packet (capped)
}

const maxLatenessSamples = 1 << 20

func newDirection(name string, delay time.Duration, capacity int) *direction {
	return &direction{name: name, delay: delay, queue: make(chan packet, capacity)}
}

// enqueue stamps the packet's due time; a full queue drops the packet.
func (d *direction) enqueue(data []byte, now time.Time) {
	select {
	case d.queue <- packet{data: data, due: now.Add(d.delay)}:
	default:
		d.mu.Lock()
		d.dropped++
		d.mu.Unlock()
	}
}

// maxSpin bounds the busy-wait that finishes a hold after the timer wakes up
// early (see release): at most this long per packet, so CPU use stays small.
const maxSpin = 300 * time.Microsecond

// run releases packets in order at their due time through write.
func (d *direction) run(write func([]byte) error, onError func(error)) {
	var oversleep time.Duration // EWMA of how late the runtime timer wakes us
	for p := range d.queue {
		oversleep = release(p.due, oversleep)
		late := time.Since(p.due)
		if err := write(p.data); err != nil {
			onError(err)
		}
		d.mu.Lock()
		d.sent++
		if len(d.late) < maxLatenessSamples {
			d.late = append(d.late, late)
		}
		d.mu.Unlock()
	}
}

// release waits until due. The runtime timer tends to wake up late by a
// fairly steady amount, so it sleeps for the wait minus the recent
// oversleep (an EWMA, returned updated) and spins the last stretch when it
// woke early by less than maxSpin.
func release(due time.Time, oversleep time.Duration) time.Duration {
	wait := time.Until(due)
	if wait <= 0 {
		return oversleep
	}
	if sleep := wait - oversleep; sleep > 0 {
		start := time.Now()
		time.Sleep(sleep)
		over := time.Since(start) - sleep
		oversleep += (over - oversleep) / 8
		if oversleep < 0 {
			oversleep = 0
		}
	}
	if rest := time.Until(due); rest > 0 && rest <= maxSpin {
		for time.Now().Before(due) {
		}
	} else if rest > maxSpin {
		time.Sleep(rest)
	}
	return oversleep
}

// stats summarises lateness in milliseconds.
type stats struct {
	Direction string  `json:"direction"`
	DelayMs   float64 `json:"delayMs"`
	Sent      int64   `json:"sent"`
	Dropped   int64   `json:"dropped"`
	LateP50Ms float64 `json:"lateP50Ms"`
	LateP99Ms float64 `json:"lateP99Ms"`
	LateMaxMs float64 `json:"lateMaxMs"`
	Over1Ms   int64   `json:"over1Ms"`
	Over2Ms   int64   `json:"over2Ms"`
}

func (d *direction) stats() stats {
	d.mu.Lock()
	late := append([]time.Duration(nil), d.late...)
	s := stats{Direction: d.name, DelayMs: ms(d.delay), Sent: d.sent, Dropped: d.dropped}
	d.mu.Unlock()
	if len(late) == 0 {
		return s
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	s.LateP50Ms = ms(late[len(late)/2])
	s.LateP99Ms = ms(late[(len(late)*99)/100])
	s.LateMaxMs = ms(late[len(late)-1])
	for _, l := range late {
		if l > time.Millisecond {
			s.Over1Ms++
		}
		if l > 2*time.Millisecond {
			s.Over2Ms++
		}
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// classifier decides a packet's direction from its IPv4 destination.
type classifier struct{ downstream *net.IPNet }

// isDownstream reports whether an IPv4 packet goes to the downstream subnet.
// Anything that is not IPv4 counts as upstream.
func (c classifier) isDownstream(pkt []byte) bool {
	if len(pkt) < 20 || pkt[0]>>4 != 4 {
		return false
	}
	return c.downstream.Contains(net.IP(pkt[16:20]))
}
