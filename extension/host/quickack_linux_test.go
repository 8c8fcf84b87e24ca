//go:build linux

// quickack_linux_test.go: a request written while a response streams in puts the socket in Linux's
// interactive ACK mode (the kernel's own behaviour, checked first), and the host's writer takes it out.
package main

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// interactiveAckMode reports whether the kernel holds c in interactive ACK mode: getsockopt(TCP_QUICKACK)
// answers 0 then.
func interactiveAckMode(c *net.TCPConn) (bool, error) {
	var v int
	err := onFD(c, func(fd int) error {
		var err error
		v, err = unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK)
		return err
	})
	return v == 0, err
}

// streamingServer answers the first request with `size` bytes and reads whatever else the client sends.
func streamingServer(t *testing.T, size int) *rawServer {
	return startRawServer(t, func(c net.Conn, _ int) {
		buf := make([]byte, 4096)
		if _, err := c.Read(buf); err != nil {
			return
		}
		go func() { _, _ = io.Copy(io.Discard, c) }()
		_, _ = fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", size)
		chunk := make([]byte, 64<<10)
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
}

// enterInteractiveMode reads from c and writes a few bytes at once, up to 5 times, until the kernel puts c
// in interactive ACK mode; false if it never does (a kernel with a higher tcp_pingpong_thresh).
func enterInteractiveMode(t *testing.T, c *net.TCPConn) bool {
	buf := make([]byte, 256<<10)
	for i := 0; i < 5; i++ {
		if _, err := io.ReadFull(c, buf[:64<<10]); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte("GET /next HTTP/1.1\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		on, err := interactiveAckMode(c)
		if err != nil {
			t.Fatal(err)
		}
		if on {
			return true
		}
	}
	return false
}

func TestLeaveInteractiveAckMode(t *testing.T) {
	srv := streamingServer(t, 64<<20)
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", srv.port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := conn.(*net.TCPConn)
	if _, err := c.Write([]byte("GET /first HTTP/1.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if !enterInteractiveMode(t, c) {
		t.Skip("this kernel did not enter interactive ACK mode after five request/response exchanges: nothing to leave")
	}
	if err := leaveInteractiveAckMode(c); err != nil {
		t.Fatal(err)
	}
	if on, err := interactiveAckMode(c); err != nil || on {
		t.Fatalf("after TCP_QUICKACK: interactive=%v err=%v, want out of interactive mode", on, err)
	}
}

func TestWriteLeavesInteractiveAckMode(t *testing.T) {
	srv := streamingServer(t, 64<<20)
	hs := newHarness(t, Config{}, nil)
	defer hs.close()
	hs.hello()
	open := hs.openLoopback(srv.port, nil)
	host := fmt.Sprintf("127.0.0.1:%d", srv.port)
	hs.mustOK(map[string]any{"op": "write", "conn": open.Conn, "requests": "GET /a HTTP/1.1\r\nHost: " + host + "\r\n\r\n"}, nil)
	hs.host.mu.Lock()
	sock := hs.host.conns[open.Conn].d.tcp
	hs.host.mu.Unlock()
	// Mid-response, as in a train: data arriving, acknowledged, and then the next request written at once.
	var got int64
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < 8; i++ {
		for target := got + 256<<10; got < target; {
			if time.Now().After(deadline) {
				t.Fatalf("only %d bytes arrived in 20 s", got)
			}
			m := hs.waitFor("data", func(m hostMsg) bool { return m.Conn == open.Conn && m.Event == "data" })
			got = m.Offset + int64(m.N)
			hs.send(map[string]any{"op": "ack", "conn": open.Conn, "offset": got})
		}
		var written WrittenResult
		hs.mustOK(map[string]any{"op": "write", "conn": open.Conn, "requests": "GET /b HTTP/1.1\r\nHost: " + host + "\r\n\r\n"}, &written)
		if written.Bytes == 0 {
			t.Fatalf("written %+v", written)
		}
		on, err := interactiveAckMode(sock)
		if err != nil {
			t.Fatal(err)
		}
		if on {
			t.Fatalf("write %d: the host left its socket in interactive ACK mode after writing a request mid-response", i+2)
		}
	}
}
