// host_test.go: session-level protocol behaviour (host.go): the hello handshake, error replies for bad
// input with the session continuing, and commands on unknown connections.
package main

import (
	"bytes"
	"encoding/json"
	"net"
	"testing"
)

func TestHelloRequiredFirst(t *testing.T) {
	hs := newHarness(t, Config{}, nil)
	hs.mustFail(map[string]any{"op": "open", "host": "127.0.0.1", "port": 8080, "tls": false, "allowPrivate": true}, CodeHelloRequired)
	hs.mustFail(map[string]any{"op": "tcpInfo", "conn": 1}, CodeHelloRequired)
	hs.mustFail(map[string]any{"op": "hello", "protocol": 2}, CodeUnsupportedProtocol)
	hs.mustFail(map[string]any{"op": "close", "conn": 1}, CodeHelloRequired)
	var res HelloResult
	hs.mustOK(map[string]any{"op": "hello", "protocol": 1}, &res)
	if res.Name != "sprint-host" || res.Protocol != 1 || res.HostVersion != HostVersion || res.Limits != testLimits() {
		t.Fatalf("hello result %+v", res)
	}
	if res.TCPInfo != tcpInfoSupported {
		t.Fatalf("tcpInfo flag %v", res.TCPInfo)
	}
	hs.mustFail(map[string]any{"op": "close", "conn": 1}, CodeUnknownConn)
	if err := hs.close(); err != nil {
		t.Fatalf("clean end of session returned %v", err)
	}
}

// Undecodable input gets an error reply with a null id, and the session goes on.
func TestBadMessagesAreAnsweredAndSessionContinues(t *testing.T) {
	lim := testLimits()
	lim.MaxInboundBytes = 1024
	hs := newHarness(t, Config{Limits: lim}, nil)

	hs.sendRaw([]byte(`{"op":"hello",`))
	m := hs.next()
	if m.ID != nil || m.OK || m.Error == nil || m.Error.Code != CodeBadMessage {
		t.Fatalf("reply to broken JSON: %+v", m)
	}

	hs.sendRaw(bytes.Repeat([]byte("x"), 2000))
	m = hs.next()
	if m.ID != nil || m.OK || m.Error == nil || m.Error.Code != CodeLimit {
		t.Fatalf("reply to oversized frame: %+v", m)
	}

	hs.sendRaw([]byte(`{"id":55,"op":"hello","protocol":1,"bogus":1}`))
	m = hs.next()
	if m.ID == nil || *m.ID != 55 || m.Error == nil || m.Error.Code != CodeBadMessage {
		t.Fatalf("reply to unknown field: %+v", m)
	}
	hs.hello()
}

func TestCommandsOnUnknownConnections(t *testing.T) {
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	for _, op := range []map[string]any{
		{"op": "write", "conn": 42, "requests": "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"op": "ack", "conn": 42, "offset": 0},
		{"op": "close", "conn": 42},
		{"op": "tcpInfo", "conn": 42},
	} {
		hs.mustFail(op, CodeUnknownConn)
	}
}

// An ack is silent when accepted and refused when it claims bytes never sent.
func TestAckValidation(t *testing.T) {
	srv := startRawServer(t, func(c net.Conn, _ int) {
		c.Write([]byte("hello"))
		c.Read(make([]byte, 1))
	})
	hs := newHarness(t, Config{}, nil)
	hs.hello()
	open := hs.openLoopback(srv.port, nil)
	ev := hs.waitFor("data", func(m hostMsg) bool { return m.Event == "data" && m.Conn == open.Conn })
	if got := string(hs.decodeData(ev, 0)); got != "hello" {
		t.Fatalf("data %q", got)
	}
	hs.mustFail(map[string]any{"op": "ack", "conn": open.Conn, "offset": 6}, CodeBadMessage)
	ackID := hs.send(map[string]any{"op": "ack", "conn": open.Conn, "offset": 5})
	// The next reply must be the close's, not one for the ack.
	var closed ConnResult
	hs.mustOK(map[string]any{"op": "close", "conn": open.Conn}, &closed)
	for _, m := range hs.pending {
		if m.ID != nil && *m.ID == ackID {
			t.Fatalf("accepted ack got a reply: %+v", m)
		}
	}
	ev = hs.waitFor("closed", func(m hostMsg) bool { return m.Event == "closed" })
	if ev.Reason != "local" || ev.BytesRead != 5 {
		t.Fatalf("closed event %+v", ev)
	}
}

// Replies are JSON objects with exactly the documented members.
func TestReplyShape(t *testing.T) {
	id := int64(3)
	b, _ := json.Marshal(errReply(&id, protoErr(CodeLimit, "too big")))
	if string(b) != `{"id":3,"ok":false,"error":{"code":"limit","message":"too big"}}` {
		t.Fatalf("error reply %s", b)
	}
	b, _ = json.Marshal(errReply(nil, protoErr(CodeBadMessage, "x")))
	if string(b) != `{"id":null,"ok":false,"error":{"code":"bad_message","message":"x"}}` {
		t.Fatalf("error reply without id %s", b)
	}
	b, _ = json.Marshal(okReply(4, ConnResult{Conn: 2}))
	if string(b) != `{"id":4,"ok":true,"result":{"conn":2}}` {
		t.Fatalf("ok reply %s", b)
	}
}
