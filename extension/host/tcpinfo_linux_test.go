//go:build linux

// tcpinfo_linux_test.go: TCP_INFO through the protocol (tcpinfo_linux.go): a non-zero RTT and a byte counter
// covering the transfer after a download, and periodic samples when asked for.
package main

import (
	"net"
	"sync/atomic"
	"testing"
	"time"
)

func TestTCPInfoAfterTransfer(t *testing.T) {
	const total = 2 << 20
	var written atomic.Int64
	srv := startRawServer(t, func(c net.Conn, _ int) {
		buf := make([]byte, total)
		n, _ := c.Write(buf)
		written.Store(int64(n))
		c.Read(make([]byte, 1)) // keep the connection open until the host closes it
	})
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	open := hs.openLoopback(srv.port, nil)
	var got int64
	for got < total {
		m := hs.waitFor("data", func(m hostMsg) bool { return m.Event == "data" })
		got += int64(len(hs.decodeData(m, got)))
		hs.send(map[string]any{"op": "ack", "conn": open.Conn, "offset": got})
	}
	var res TCPInfoResult
	hs.mustOK(map[string]any{"op": "tcpInfo", "conn": open.Conn}, &res)
	info := res.Info
	t.Logf("after %d bytes on loopback: rtt %d us (var %d, min %d), rcv_rtt %d us, rcv_space %d, segs_in %d, snd_cwnd %d, delivery_rate %d B/s",
		got, info.RTTUs, info.RTTVarUs, info.MinRTTUs, info.RcvRTTUs, info.RcvSpace, info.SegsIn, info.SndCwnd, info.DeliveryRate)
	if res.Conn != open.Conn || res.T <= 0 {
		t.Fatalf("result %+v", res)
	}
	if info.State != 1 { // ESTABLISHED
		t.Fatalf("state %d", info.State)
	}
	if info.RTTUs == 0 || info.MinRTTUs == 0 {
		t.Fatalf("rtt %d us, min rtt %d us: want non-zero after a transfer", info.RTTUs, info.MinRTTUs)
	}
	if info.BytesReceived < total || info.SegsIn == 0 || info.DataSegsIn == 0 {
		t.Fatalf("bytes_received %d (want >= %d), segs_in %d, data_segs_in %d", info.BytesReceived, total, info.SegsIn, info.DataSegsIn)
	}
}

func TestTCPInfoSamples(t *testing.T) {
	srv := startRawServer(t, func(c net.Conn, _ int) {
		c.Write([]byte("x"))
		c.Read(make([]byte, 1))
	})
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	open := hs.openLoopback(srv.port, map[string]any{"sampleIntervalMs": 100})
	var last float64
	for i := 0; i < 3; i++ {
		m := hs.waitFor("tcpInfo sample", func(m hostMsg) bool { return m.Event == "tcpInfo" })
		if m.Conn != open.Conn || m.Info == nil || m.Info.State != 1 || m.T <= last {
			t.Fatalf("sample %d: %+v", i, m)
		}
		last = m.T
	}
	hs.mustOK(map[string]any{"op": "close", "conn": open.Conn}, nil)
	hs.waitFor("closed", func(m hostMsg) bool { return m.Event == "closed" })
	// Everything stashed so far arrived before the closed event. Nothing about the connection may follow it:
	// a round trip after it collects whatever came in between.
	hs.pending = nil
	hs.mustOK(map[string]any{"op": "hello", "protocol": 1}, nil)
	time.Sleep(250 * time.Millisecond) // longer than two sample intervals
	hs.mustOK(map[string]any{"op": "hello", "protocol": 1}, nil)
	for _, m := range hs.pending {
		if m.Event != "" {
			t.Fatalf("event after closed: %+v", m)
		}
	}
}
