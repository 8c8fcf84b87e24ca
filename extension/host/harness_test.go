// harness_test.go: drives a Host in-process through its stdin/stdout (io.Pipe), as the browser would, and
// provides small loopback servers for the tests. Every wait is bounded; every server and session is closed
// by t.Cleanup.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log"
	"net"
	"sync"
	"testing"
	"time"
)

// waitLimit bounds every wait in the tests.
const waitLimit = 15 * time.Second

// hostMsg is any host→extension message, decoded loosely for assertions.
type hostMsg struct {
	ID     *int64          `json:"id"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *ErrorBody      `json:"error"`

	Event        string      `json:"event"`
	Conn         uint64      `json:"conn"`
	Offset       int64       `json:"offset"`
	N            int         `json:"n"`
	T            float64     `json:"t"`
	Data         string      `json:"data"`
	Reason       string      `json:"reason"`
	Message      string      `json:"message"`
	BytesRead    int64       `json:"bytesRead"`
	BytesWritten int64       `json:"bytesWritten"`
	Info         *TCPInfoMsg `json:"info"`

	size int // JSON bytes of the frame
}

type harness struct {
	t        *testing.T
	host     *Host // for tests that look at a connection's socket
	toHost   *io.PipeWriter
	msgs     chan hostMsg
	pending  []hostMsg // messages read while waiting for something else
	runErr   chan error
	nextID   int64
	closeOne sync.Once
}

// testLimits are the defaults with nothing changed unless a test says so.
func testLimits() Limits { return DefaultLimits() }

func newHarness(t *testing.T, cfg Config, resolve Resolver) *harness {
	t.Helper()
	if cfg.Limits == (Limits{}) {
		cfg.Limits = testLimits()
	}
	if cfg.Logger == nil {
		cfg.Logger = log.New(testWriter{t}, "host: ", log.Lmicroseconds)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := NewHost(cfg, resolve)
	hs := &harness{t: t, host: h, toHost: inW, msgs: make(chan hostMsg, 1024), runErr: make(chan error, 1)}
	go func() {
		err := h.Run(inR, outW)
		outW.Close()
		hs.runErr <- err
	}()
	go func() {
		defer close(hs.msgs)
		for {
			payload, err := ReadFrame(outR, 1<<20)
			if err != nil {
				return
			}
			var m hostMsg
			if err := json.Unmarshal(payload, &m); err != nil {
				t.Errorf("host sent invalid JSON: %v: %.200s", err, payload)
				return
			}
			m.size = len(payload)
			hs.msgs <- m
		}
	}()
	t.Cleanup(func() { hs.close() })
	return hs
}

// testWriter sends host logs to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}

// close ends the session like a browser closing the port and waits for Run to return.
func (hs *harness) close() error {
	var err error
	hs.closeOne.Do(func() {
		hs.toHost.Close()
		go func() {
			for range hs.msgs { // drain so the host can finish
			}
		}()
		select {
		case err = <-hs.runErr:
		case <-time.After(waitLimit):
			hs.t.Errorf("host did not end its session within %v of stdin closing", waitLimit)
		}
	})
	return err
}

func (hs *harness) sendRaw(payload []byte) {
	hs.t.Helper()
	frame, err := AppendFrame(nil, payload, 1<<30)
	if err != nil {
		hs.t.Fatal(err)
	}
	if _, err := hs.toHost.Write(frame); err != nil {
		hs.t.Fatalf("writing to host: %v", err)
	}
}

func (hs *harness) send(fields map[string]any) int64 {
	hs.t.Helper()
	hs.nextID++
	m := map[string]any{"id": hs.nextID}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		hs.t.Fatal(err)
	}
	hs.sendRaw(b)
	return hs.nextID
}

// next returns the next message (pending first), failing the test after waitLimit.
func (hs *harness) next() hostMsg {
	hs.t.Helper()
	if len(hs.pending) > 0 {
		m := hs.pending[0]
		hs.pending = hs.pending[1:]
		return m
	}
	return hs.recv(waitLimit)
}

func (hs *harness) recv(limit time.Duration) hostMsg {
	hs.t.Helper()
	select {
	case m, ok := <-hs.msgs:
		if !ok {
			hs.t.Fatalf("host closed stdout")
		}
		return m
	case <-time.After(limit):
		hs.t.Fatalf("no message from the host within %v", limit)
	}
	return hostMsg{}
}

// tryRecv returns a message if one arrives within limit.
func (hs *harness) tryRecv(limit time.Duration) (hostMsg, bool) {
	if len(hs.pending) > 0 {
		m := hs.pending[0]
		hs.pending = hs.pending[1:]
		return m, true
	}
	select {
	case m, ok := <-hs.msgs:
		return m, ok
	case <-time.After(limit):
		return hostMsg{}, false
	}
}

// waitFor returns the first message matching pred; others are kept for later next() calls, in order.
func (hs *harness) waitFor(what string, pred func(hostMsg) bool) hostMsg {
	hs.t.Helper()
	for i, m := range hs.pending {
		if pred(m) {
			hs.pending = append(hs.pending[:i:i], hs.pending[i+1:]...)
			return m
		}
	}
	deadline := time.Now().Add(waitLimit)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			hs.t.Fatalf("waiting for %s: nothing matching within %v", what, waitLimit)
		}
		m := hs.recv(left)
		if pred(m) {
			return m
		}
		hs.pending = append(hs.pending, m)
	}
}

// call sends a command and returns its reply.
func (hs *harness) call(fields map[string]any) hostMsg {
	hs.t.Helper()
	id := hs.send(fields)
	return hs.waitFor("reply to "+fields["op"].(string), func(m hostMsg) bool { return m.ID != nil && *m.ID == id })
}

// mustOK calls and decodes a successful result into out (may be nil).
func (hs *harness) mustOK(fields map[string]any, out any) {
	hs.t.Helper()
	r := hs.call(fields)
	if !r.OK {
		hs.t.Fatalf("%v failed: %+v", fields["op"], r.Error)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			hs.t.Fatalf("decoding %v result: %v", fields["op"], err)
		}
	}
}

// mustFail calls and checks the error code.
func (hs *harness) mustFail(fields map[string]any, code ErrorCode) *ErrorBody {
	hs.t.Helper()
	r := hs.call(fields)
	if r.OK || r.Error == nil {
		hs.t.Fatalf("%v: expected error %s, got success %s", fields["op"], code, r.Result)
	}
	if r.Error.Code != code {
		hs.t.Fatalf("%v: expected error %s, got %s: %s", fields["op"], code, r.Error.Code, r.Error.Message)
	}
	return r.Error
}

func (hs *harness) hello() {
	hs.t.Helper()
	hs.mustOK(map[string]any{"op": "hello", "protocol": 1}, nil)
}

// openLoopback opens a connection to 127.0.0.1:port with allowPrivate and returns the result.
func (hs *harness) openLoopback(port int, extra map[string]any) OpenedResult {
	hs.t.Helper()
	fields := map[string]any{"op": "open", "host": "127.0.0.1", "port": port, "tls": false, "allowPrivate": true}
	for k, v := range extra {
		fields[k] = v
	}
	var res OpenedResult
	hs.mustOK(fields, &res)
	return res
}

// readStream collects data events of conn until its closed event (acking everything as it arrives), checking
// that offsets are contiguous. It returns the bytes and the closed event.
func (hs *harness) readStream(conn uint64) ([]byte, hostMsg) {
	hs.t.Helper()
	var got []byte
	for {
		m := hs.waitFor("data or closed", func(m hostMsg) bool {
			return m.Conn == conn && (m.Event == "data" || m.Event == "closed")
		})
		if m.Event == "closed" {
			return got, m
		}
		got = append(got, hs.decodeData(m, int64(len(got)))...)
		hs.send(map[string]any{"op": "ack", "conn": conn, "offset": m.Offset + int64(m.N)})
	}
}

// decodeData checks a data event's offset and length and returns its bytes.
func (hs *harness) decodeData(m hostMsg, wantOffset int64) []byte {
	hs.t.Helper()
	b, err := base64.StdEncoding.DecodeString(m.Data)
	if err != nil {
		hs.t.Fatalf("data event with bad base64: %v", err)
	}
	if len(b) != m.N {
		hs.t.Fatalf("data event says n=%d but carries %d bytes", m.N, len(b))
	}
	if m.Offset != wantOffset {
		hs.t.Fatalf("data event at offset %d, expected %d (gap or overlap)", m.Offset, wantOffset)
	}
	return b
}

// rawServer is a loopback TCP server that records what each connection sent and runs serve on it.
type rawServer struct {
	ln    net.Listener
	port  int
	mu    sync.Mutex
	recvd [][]byte // bytes received, per accepted connection
	conns []net.Conn
	wg    sync.WaitGroup
}

func startRawServer(t *testing.T, serve func(c net.Conn, idx int)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, port: ln.Addr().(*net.TCPAddr).Port}
	if err := CheckPort(s.port); err != nil {
		t.Skipf("kernel gave a port the host refuses: %v", err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			idx := len(s.recvd)
			s.recvd = append(s.recvd, nil)
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				serve(&recordingConn{Conn: c, s: s, idx: idx}, idx)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

// received returns a copy of what connection idx has sent so far.
func (s *rawServer) received(idx int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if idx >= len(s.recvd) {
		return nil
	}
	return append([]byte(nil), s.recvd[idx]...)
}

func (s *rawServer) accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.recvd)
}

// waitAccepted polls until the server has accepted at least n connections or the deadline passes, and
// returns the count then: a client's connect completes before the server's Accept returns.
func (s *rawServer) waitAccepted(n int, within time.Duration) int {
	deadline := time.Now().Add(within)
	for {
		got := s.accepted()
		if got >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(2 * time.Millisecond)
	}
}

type recordingConn struct {
	net.Conn
	s   *rawServer
	idx int
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.s.mu.Lock()
	c.s.recvd[c.idx] = append(c.s.recvd[c.idx], p[:n]...)
	c.s.mu.Unlock()
	return n, err
}

func timeAfter(d time.Duration) <-chan time.Time { return time.After(d) }
