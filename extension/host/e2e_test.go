// e2e_test.go: the host end to end over its stdin/stdout against loopback servers: pipelined GETs and their
// responses in order, what reaches the wire (canonical bytes only, nothing from refused writes), the
// address and port policy as seen by a server that must never be contacted, connection limits and closes.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// accessLog records requests as an origin's access log would.
type accessLog struct {
	mu      sync.Mutex
	entries []string // "remoteAddr path"
}

func (l *accessLog) add(r *http.Request) {
	l.mu.Lock()
	l.entries = append(l.entries, r.RemoteAddr+" "+r.URL.Path)
	l.mu.Unlock()
}

func (l *accessLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.entries...)
}

func startHTTPServer(t *testing.T, tlsOn bool) (*httptest.Server, *accessLog) {
	t.Helper()
	log := &accessLog{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		body := "response for " + r.URL.Path + strings.Repeat(".", 3000)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write([]byte(body))
	}))
	srv.Config.ErrorLog = stdlog.New(io.Discard, "", 0) // refused handshakes are expected in the TLS tests
	if tlsOn {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	if CheckPort(port) != nil {
		t.Skipf("kernel gave bad port %d", port)
	}
	return srv, log
}

// parseResponses reads HTTP/1.1 responses back to back from raw bytes (test-side check only).
func parseResponses(t *testing.T, raw []byte, n int) []string {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(raw))
	var bodies []string
	for i := 0; i < n; i++ {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i+1, err)
		}
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("response %d: status %d", i+1, resp.StatusCode)
		}
		bodies = append(bodies, b.String())
	}
	if rest, _ := br.Peek(1); len(rest) != 0 {
		t.Fatalf("bytes after %d responses", n)
	}
	return bodies
}

func TestPipelinedGetsEndToEnd(t *testing.T) {
	srv, log := startHTTPServer(t, false)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	open := hs.openLoopback(port, nil)
	if open.RemoteAddr != fmt.Sprintf("127.0.0.1:%d", port) || open.TLS || open.ConnectMs <= 0 {
		t.Fatalf("opened %+v", open)
	}
	host := fmt.Sprintf("127.0.0.1:%d", port)
	reqs := "GET /seg/first.m4s HTTP/1.1\r\nHost: " + host + "\r\nRange: bytes=0-\r\nAccept-Encoding: identity\r\n\r\n" +
		"GET /seg/second.m4s HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n"
	var written WrittenResult
	hs.mustOK(map[string]any{"op": "write", "conn": open.Conn, "requests": reqs}, &written)
	if written.Requests != 2 || written.Bytes != len(reqs) {
		t.Fatalf("written %+v, want 2 requests of %d bytes", written, len(reqs))
	}
	raw, closed := hs.readStream(open.Conn)
	bodies := parseResponses(t, raw, 2)
	if !strings.HasPrefix(bodies[0], "response for /seg/first.m4s") || !strings.HasPrefix(bodies[1], "response for /seg/second.m4s") {
		t.Fatalf("responses out of order or wrong: %.40q, %.40q", bodies[0], bodies[1])
	}
	if closed.Reason != "eof" || closed.BytesRead != int64(len(raw)) || closed.BytesWritten != int64(len(reqs)) {
		t.Fatalf("closed event %+v (read %d)", closed, len(raw))
	}
	// The origin saw both requests on the one connection the host opened.
	entries := log.list()
	want := []string{open.LocalAddr + " /seg/first.m4s", open.LocalAddr + " /seg/second.m4s"}
	if fmt.Sprint(entries) != fmt.Sprint(want) {
		t.Fatalf("access log %q, want %q", entries, want)
	}
	// After closed, the connection is gone.
	hs.mustFail(map[string]any{"op": "write", "conn": open.Conn, "requests": reqs}, CodeUnknownConn)
}

// Two separate writes, both sent before any response is read, are answered in order on one connection.
func TestPipelinedWritesBeforeResponses(t *testing.T) {
	srv, log := startHTTPServer(t, false)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	open := hs.openLoopback(port, nil)
	host := fmt.Sprintf("127.0.0.1:%d", port)
	id1 := hs.send(map[string]any{"op": "write", "conn": open.Conn, "requests": "GET /a HTTP/1.1\r\nHost: " + host + "\r\n\r\n"})
	id2 := hs.send(map[string]any{"op": "write", "conn": open.Conn, "requests": "GET /b HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n"})
	for _, id := range []int64{id1, id2} {
		r := hs.waitFor("written", func(m hostMsg) bool { return m.ID != nil && *m.ID == id })
		if !r.OK {
			t.Fatalf("write %d: %+v", id, r.Error)
		}
	}
	raw, closed := hs.readStream(open.Conn)
	bodies := parseResponses(t, raw, 2)
	if !strings.HasPrefix(bodies[0], "response for /a") || !strings.HasPrefix(bodies[1], "response for /b") || closed.Reason != "eof" {
		t.Fatalf("bodies %.20q %.20q, closed %+v", bodies[0], bodies[1], closed)
	}
	if n := len(log.list()); n != 2 {
		t.Fatalf("access log has %d entries", n)
	}
}

// What reaches the server is exactly the canonical form of accepted requests; refused writes put nothing on
// the wire.
func TestOnlyCanonicalAcceptedBytesReachTheWire(t *testing.T) {
	srv := startRawServer(t, func(c net.Conn, _ int) {
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	})
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	open := hs.openLoopback(srv.port, nil)
	host := fmt.Sprintf("127.0.0.1:%d", srv.port)
	refused := []string{
		"GET / HTTP/1.1\r\nHost: " + host + "\r\nCookie: session=1\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\nSMTP HELO",
		"GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\nGET / HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: x\r\n\r\n",
		"\x16\x03\x01\x00\xa5", // a TLS ClientHello prefix
	}
	for _, r := range refused {
		hs.mustFail(map[string]any{"op": "write", "conn": open.Conn, "requests": r}, CodeBadRequestBytes)
	}
	sent := "get / HTTP/1.1\r\n" // lower-case method: refused as well
	hs.mustFail(map[string]any{"op": "write", "conn": open.Conn, "requests": sent + "Host: " + host + "\r\n\r\n"}, CodeBadRequestBytes)

	loose := "GET /x HTTP/1.1\r\nhost:" + host + "\r\nCONNECTION:   Keep-Alive  \r\n\r\n"
	canonical := "GET /x HTTP/1.1\r\nHost: " + host + "\r\nConnection: keep-alive\r\n\r\n"
	var w WrittenResult
	hs.mustOK(map[string]any{"op": "write", "conn": open.Conn, "requests": loose}, &w)
	if w.Bytes != len(canonical) {
		t.Fatalf("written %d bytes, canonical form is %d", w.Bytes, len(canonical))
	}
	hs.mustOK(map[string]any{"op": "close", "conn": open.Conn}, nil)
	hs.waitFor("closed", func(m hostMsg) bool { return m.Event == "closed" && m.Conn == open.Conn })
	// The server reads until the host's close reaches it; then the record is complete. The connection may
	// still sit in the accept queue, so wait for it to be accepted before closing the listener.
	if got := srv.waitAccepted(1, 5*time.Second); got != 1 {
		t.Fatalf("server accepted %d connections, want 1", got)
	}
	srv.ln.Close()
	srv.wg.Wait()
	if got := string(srv.received(0)); got != canonical {
		t.Fatalf("server received %q, want exactly %q", got, canonical)
	}
}

func TestOpenPolicyRefusalsNeverConnect(t *testing.T) {
	var accepted atomic.Int32
	srv := startRawServer(t, func(c net.Conn, _ int) { accepted.Add(1) })
	resolves := map[string][]netip.Addr{
		"rebind.test":  {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("127.0.0.1")},
		"mapped.test":  {netip.MustParseAddr("::ffff:127.0.0.1")},
		"private.test": {netip.MustParseAddr("10.1.2.3")},
		"zero.test":    {netip.MustParseAddr("0.0.0.0")},
	}
	resolver := func(_ context.Context, name string) ([]netip.Addr, error) {
		if a, ok := resolves[name]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	hs := newHarness(t, Config{}, resolver)
	hs.hello()
	open := func(host string, allowPrivate bool) map[string]any {
		return map[string]any{"op": "open", "host": host, "port": srv.port, "tls": false, "allowPrivate": allowPrivate}
	}
	for _, host := range []string{"127.0.0.1", "[::1]", "rebind.test", "mapped.test", "private.test"} {
		e := hs.mustFail(open(host, false), CodeForbiddenAddress)
		if !strings.Contains(e.Message, "allowPrivate") {
			t.Errorf("%s: message %q does not say why", host, e.Message)
		}
	}
	hs.mustFail(open("zero.test", true), CodeForbiddenAddress) // never, even with allowPrivate
	hs.mustFail(open("nowhere.test", true), CodeDNSFailed)
	hs.mustFail(map[string]any{"op": "open", "host": "127.0.0.1", "port": 25, "tls": false, "allowPrivate": true}, CodeForbiddenPort)
	hs.mustFail(map[string]any{"op": "open", "host": "127.0.0.1", "port": 6667, "tls": false, "allowPrivate": true}, CodeForbiddenPort)
	hs.mustFail(map[string]any{"op": "open", "host": "127.0.0.1", "port": 70000, "tls": false, "allowPrivate": true}, CodeForbiddenPort)
	if n := accepted.Load(); n != 0 || srv.accepted() != 0 {
		t.Fatalf("server accepted %d connections during refused opens", srv.accepted())
	}
	// The same server is reachable when the policy allows it, proving the refusals were the policy's.
	hs.openLoopback(srv.port, nil)
}

// A name is resolved exactly once per open and the connection goes to the checked address.
func TestOpenResolvesOnceAndUsesHostName(t *testing.T) {
	srv := startRawServer(t, func(c net.Conn, _ int) {
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\r\n" {
				c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
			}
		}
	})
	var lookups atomic.Int32
	resolver := func(_ context.Context, name string) ([]netip.Addr, error) {
		lookups.Add(1)
		if name != "media.test" {
			return nil, errors.New("unexpected name " + name)
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	hs := newHarness(t, Config{}, resolver)
	hs.hello()
	var open OpenedResult
	hs.mustOK(map[string]any{"op": "open", "host": "media.test", "port": srv.port, "tls": false, "allowPrivate": true}, &open)
	if lookups.Load() != 1 || fmt.Sprint(open.Addresses) != "[127.0.0.1]" || open.Host != "media.test" {
		t.Fatalf("lookups %d, opened %+v", lookups.Load(), open)
	}
	hs.mustFail(map[string]any{"op": "write", "conn": open.Conn, "requests": fmt.Sprintf("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", srv.port)}, CodeBadRequestBytes)
	hs.mustOK(map[string]any{"op": "write", "conn": open.Conn, "requests": fmt.Sprintf("GET / HTTP/1.1\r\nHost: media.test:%d\r\n\r\n", srv.port)}, nil)
	ev := hs.waitFor("data", func(m hostMsg) bool { return m.Event == "data" })
	if got := string(hs.decodeData(ev, 0)); got != "HTTP/1.1 204 No Content\r\n\r\n" {
		t.Fatalf("data %q", got)
	}
	if lookups.Load() != 1 {
		t.Fatalf("%d lookups", lookups.Load())
	}
}

func TestConnectFailed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	if CheckPort(port) != nil {
		t.Skip("bad port")
	}
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	e := hs.mustFail(map[string]any{"op": "open", "host": "127.0.0.1", "port": port, "tls": false, "allowPrivate": true}, CodeConnectFailed)
	if !strings.Contains(e.Message, "refused") {
		t.Fatalf("message %q", e.Message)
	}
}

func TestConnectionLimitAndClose(t *testing.T) {
	srv := startRawServer(t, func(c net.Conn, _ int) { c.Read(make([]byte, 1)) })
	lim := testLimits()
	lim.MaxConnections = 2
	hs := newHarness(t, Config{Limits: lim}, nil)
	hs.hello()
	a := hs.openLoopback(srv.port, nil)
	b := hs.openLoopback(srv.port, nil)
	if a.Conn == b.Conn {
		t.Fatal("two connections share an id")
	}
	hs.mustFail(map[string]any{"op": "open", "host": "127.0.0.1", "port": srv.port, "tls": false, "allowPrivate": true}, CodeTooManyConnections)
	hs.mustOK(map[string]any{"op": "close", "conn": a.Conn}, nil)
	ev := hs.waitFor("closed", func(m hostMsg) bool { return m.Event == "closed" && m.Conn == a.Conn })
	if ev.Reason != "local" {
		t.Fatalf("closed %+v", ev)
	}
	c := hs.openLoopback(srv.port, nil)
	if c.Conn == a.Conn || c.Conn == b.Conn {
		t.Fatalf("connection id %d reused", c.Conn)
	}
	// `open` returns when the host's connect completed; the server's Accept may still be running.
	if got := srv.waitAccepted(3, 5*time.Second); got != 3 {
		t.Fatalf("server accepted %d connections, want 3", got)
	}
}

// A server reset is reported as such, after the data that preceded it.
func TestServerResetIsReported(t *testing.T) {
	srv := startRawServer(t, func(c net.Conn, _ int) {
		c.Write([]byte("partial"))
		// Wait for the request so the reset follows our data, then abort with RST.
		c.Read(make([]byte, 1024))
		tc := c.(*recordingConn).Conn.(*net.TCPConn)
		tc.SetLinger(0)
	})
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	open := hs.openLoopback(srv.port, nil)
	hs.mustOK(map[string]any{"op": "write", "conn": open.Conn, "requests": fmt.Sprintf("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", srv.port)}, nil)
	raw, closed := hs.readStream(open.Conn)
	if string(raw) != "partial" || closed.Reason != "reset" || closed.BytesRead != 7 {
		t.Fatalf("data %q, closed %+v", raw, closed)
	}
}

// Ending the session (browser closes the port) closes every connection: the server sees EOF.
func TestSessionEndClosesConnections(t *testing.T) {
	gotEOF := make(chan struct{}, 1)
	srv := startRawServer(t, func(c net.Conn, _ int) {
		buf := make([]byte, 64)
		for {
			if _, err := c.Read(buf); err != nil {
				gotEOF <- struct{}{}
				return
			}
		}
	})
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	hs.openLoopback(srv.port, nil)
	if err := hs.close(); err != nil {
		t.Fatalf("session end: %v", err)
	}
	select {
	case <-gotEOF:
	case <-timeAfter(waitLimit):
		t.Fatal("server connection still open after the session ended")
	}
}
