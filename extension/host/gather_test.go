// gather_test.go: while a connection streams, bytes that arrive in quick succession are gathered into fewer,
// larger data events (conn.go gather), with every byte delivered once and in order.
package main

import (
	"bytes"
	"net"
	"testing"
	"time"
)

func TestStreamingBytesAreGatheredIntoFewerEvents(t *testing.T) {
	const pieces, size = 200, 1000
	want := make([]byte, 0, pieces*size)
	for i := 0; i < pieces*size; i++ {
		want = append(want, byte(i%251))
	}
	srv := startRawServer(t, func(c net.Conn, _ int) {
		for i := 0; i < pieces; i++ {
			if _, err := c.Write(want[i*size : (i+1)*size]); err != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	open := hs.openLoopback(srv.port, nil)
	var got []byte
	events := 0
	for {
		m := hs.waitFor("data or closed", func(m hostMsg) bool {
			return m.Conn == open.Conn && (m.Event == "data" || m.Event == "closed")
		})
		if m.Event == "closed" {
			break
		}
		events++
		got = append(got, hs.decodeData(m, int64(len(got)))...)
		hs.send(map[string]any{"op": "ack", "conn": open.Conn, "offset": m.Offset + int64(m.N)})
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, want the %d the server sent, in order", len(got), len(want))
	}
	// Without gathering each 1 ms write would be its own event; gathered they are far fewer.
	if events > pieces/2 {
		t.Fatalf("%d data events for %d writes: bytes were not gathered", events, pieces)
	}
}
