// Tests of the delay line without a TUN: direction classification and the
// fixed hold time with in-order release.

package main

import (
	"net"
	"sync"
	"testing"
	"time"
)

func ipv4Packet(dst string) []byte {
	p := make([]byte, 20)
	p[0] = 0x45
	copy(p[16:20], net.ParseIP(dst).To4())
	return p
}

func TestClassifier(t *testing.T) {
	_, subnet, _ := net.ParseCIDR("10.201.2.0/24")
	c := classifier{downstream: subnet}
	cases := []struct {
		pkt  []byte
		down bool
	}{
		{ipv4Packet("10.201.2.2"), true},
		{ipv4Packet("10.201.1.2"), false},
		{[]byte{0x60, 0, 0}, false},
		{nil, false},
	}
	for i, tc := range cases {
		if got := c.isDownstream(tc.pkt); got != tc.down {
			t.Errorf("case %d: isDownstream = %v, want %v", i, got, tc.down)
		}
	}
}

func TestDirectionHoldsAndKeepsOrder(t *testing.T) {
	d := newDirection("down", 30*time.Millisecond, 16)
	var mu sync.Mutex
	var got []byte
	var at []time.Duration
	start := time.Now()
	done := make(chan struct{})
	go func() {
		d.run(func(p []byte) error {
			mu.Lock()
			got = append(got, p[0])
			at = append(at, time.Since(start))
			mu.Unlock()
			return nil
		}, func(error) {})
		close(done)
	}()
	for i := 0; i < 5; i++ {
		d.enqueue([]byte{byte(i)}, time.Now())
	}
	close(d.queue)
	<-done
	for i, b := range got {
		if int(b) != i {
			t.Fatalf("released out of order: %v", got)
		}
		if at[i] < 30*time.Millisecond {
			t.Fatalf("packet %d released after %v, before its 30 ms delay", i, at[i])
		}
	}
	if s := d.stats(); s.Sent != 5 || s.Dropped != 0 {
		t.Fatalf("stats = %+v, want 5 sent 0 dropped", s)
	}
}

func TestDirectionDropsWhenFull(t *testing.T) {
	d := newDirection("up", time.Second, 2)
	for i := 0; i < 5; i++ {
		d.enqueue([]byte{0}, time.Now())
	}
	if s := d.stats(); s.Dropped != 3 {
		t.Fatalf("dropped = %d, want 3", s.Dropped)
	}
}
