// messages_test.go: tables and a fuzz target for command validation (messages.go).
package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseCommandAccepts(t *testing.T) {
	lim := DefaultLimits()
	cases := []struct {
		in    string
		check func(Command) bool
	}{
		{`{"id":1,"op":"hello","protocol":1}`, func(c Command) bool { return c.Op == "hello" && c.Protocol == 1 }},
		{`{"op":"hello","protocol":1,"id":0}`, func(c Command) bool { return c.ID == 0 }},
		{`{"id":9007199254740991,"op":"close","conn":3}`, func(c Command) bool { return c.ID == maxSafeInteger && c.Conn == 3 }},
		{`{"id":2,"op":"open","host":"media.example","port":443,"tls":true,"allowPrivate":false}`, func(c Command) bool {
			return c.Target.Name == "media.example" && c.Port == 443 && c.TLS && !c.AllowPrivate && c.WindowBytes == 0
		}},
		{`{"id":3,"op":"open","host":"[::1]","port":8080,"tls":false,"allowPrivate":true,"sampleIntervalMs":250,"windowBytes":1048576,"chunkBytes":65536,"connectTimeoutMs":5000}`, func(c Command) bool {
			return c.Target.IP.String() == "::1" && c.SampleIntervalMs == 250 && c.WindowBytes == 1<<20 && c.ChunkBytes == 1<<16 && c.ConnectTimeoutMs == 5000
		}},
		{`{"id":4,"op":"open","host":"a.example","port":80,"tls":false,"allowPrivate":false,"sampleIntervalMs":0}`, func(c Command) bool { return c.SampleIntervalMs == 0 }},
		{`{"id":5,"op":"write","conn":1,"requests":"GET / HTTP/1.1\r\nHost: a\r\n\r\n"}`, func(c Command) bool { return strings.HasPrefix(c.Requests, "GET / HTTP/1.1\r\n") }},
		{`{"id":6,"op":"ack","conn":1,"offset":0}`, func(c Command) bool { return c.Offset == 0 }},
		{`{"id":7,"op":"tcpInfo","conn":2}`, func(c Command) bool { return c.Conn == 2 }},
		{" \n{\"id\":8,\"op\":\"close\",\"conn\":1}\n ", func(c Command) bool { return c.Conn == 1 }},
	}
	for _, tc := range cases {
		cmd, _, perr := ParseCommand([]byte(tc.in), lim)
		if perr != nil {
			t.Errorf("%s refused: %v", tc.in, perr)
			continue
		}
		if !tc.check(cmd) {
			t.Errorf("%s parsed as %+v", tc.in, cmd)
		}
	}
}

func TestParseCommandRejects(t *testing.T) {
	lim := DefaultLimits()
	cases := []struct {
		in     string
		code   ErrorCode
		hasID  bool
		inText string
	}{
		{``, CodeBadMessage, false, "not valid JSON"},
		{`{"id":1,"op":"hello","protocol":1`, CodeBadMessage, false, "not valid JSON"},
		{`[1,2]`, CodeBadMessage, false, "not a JSON object"},
		{`{"id":1,"op":"hello","protocol":1} {}`, CodeBadMessage, false, "not valid JSON"},
		{"{\"id\":1,\"op\":\"hel\xfflo\"}", CodeBadMessage, false, "UTF-8"},
		{`{"op":"hello","protocol":1}`, CodeBadMessage, false, "missing \"id\""},
		{`{"id":-1,"op":"hello","protocol":1}`, CodeBadMessage, false, "id"},
		{`{"id":1.5,"op":"hello","protocol":1}`, CodeBadMessage, false, "integer"},
		{`{"id":1e3,"op":"hello","protocol":1}`, CodeBadMessage, false, "integer"},
		{`{"id":"1","op":"hello","protocol":1}`, CodeBadMessage, false, "integer"},
		{`{"id":9007199254740992,"op":"hello","protocol":1}`, CodeBadMessage, false, "id"},
		{`{"id":1,"id":2,"op":"hello","protocol":1}`, CodeBadMessage, false, "more than once"},
		{`{"id":1,"protocol":1}`, CodeBadMessage, true, "missing \"op\""},
		{`{"id":1,"op":"connect"}`, CodeBadMessage, true, "unknown op"},
		{`{"id":1,"OP":"hello","protocol":1}`, CodeBadMessage, true, "missing \"op\""},
		{`{"id":1,"op":"hello","protocol":1,"extra":true}`, CodeBadMessage, true, "does not take"},
		{`{"id":1,"op":"hello"}`, CodeBadMessage, true, "requires field \"protocol\""},
		{`{"id":1,"op":"open","host":"a.example","port":80,"tls":false}`, CodeBadMessage, true, "allowPrivate"},
		{`{"id":1,"op":"open","host":"a.example","port":80,"tls":"yes","allowPrivate":false}`, CodeBadMessage, true, "true or false"},
		{`{"id":1,"op":"open","host":"A.example","port":80,"tls":false,"allowPrivate":false}`, CodeBadMessage, true, "not allowed"},
		{`{"id":1,"op":"open","host":"a.example","port":25,"tls":false,"allowPrivate":false}`, CodeForbiddenPort, true, "bad-port"},
		{`{"id":1,"op":"open","host":"a.example","port":0,"tls":false,"allowPrivate":false}`, CodeForbiddenPort, true, "outside"},
		{`{"id":1,"op":"open","host":"a.example","port":65536,"tls":false,"allowPrivate":false}`, CodeForbiddenPort, true, "outside"},
		{`{"id":1,"op":"open","host":"a.example","port":"80","tls":false,"allowPrivate":false}`, CodeBadMessage, true, "integer"},
		{`{"id":1,"op":"open","host":"a.example","port":80,"tls":false,"allowPrivate":false,"sampleIntervalMs":50}`, CodeBadMessage, true, "sampleIntervalMs"},
		{`{"id":1,"op":"open","host":"a.example","port":80,"tls":false,"allowPrivate":false,"windowBytes":1}`, CodeBadMessage, true, "windowBytes"},
		{`{"id":1,"op":"open","host":"a.example","port":80,"tls":false,"allowPrivate":false,"chunkBytes":1048576}`, CodeBadMessage, true, "chunkBytes"},
		{`{"id":1,"op":"open","host":"a.example","port":80,"tls":false,"allowPrivate":false,"connectTimeoutMs":0}`, CodeBadMessage, true, "connectTimeoutMs"},
		{`{"id":1,"op":"write","conn":0,"requests":"x"}`, CodeBadMessage, true, "conn"},
		{`{"id":1,"op":"write","conn":1,"requests":42}`, CodeBadMessage, true, "string"},
		{`{"id":1,"op":"write","conn":1,"requests":"` + strings.Repeat("a", lim.MaxWriteBytes+1) + `"}`, CodeLimit, true, "limit"},
		{`{"id":1,"op":"ack","conn":1,"offset":-5}`, CodeBadMessage, true, "offset"},
		{`{"id":1,"op":"close","conn":1,"offset":5}`, CodeBadMessage, true, "does not take"},
	}
	for _, tc := range cases {
		cmd, hasID, perr := ParseCommand([]byte(tc.in), lim)
		if perr == nil {
			t.Errorf("%.80s accepted as %+v", tc.in, cmd)
			continue
		}
		if perr.Code != tc.code || hasID != tc.hasID || !strings.Contains(perr.Message, tc.inText) {
			t.Errorf("%.80s: got %s %q hasID=%v; want %s containing %q hasID=%v", tc.in, perr.Code, perr.Message, hasID, tc.code, tc.inText, tc.hasID)
		}
	}
}

// FuzzMessage: ParseCommand never panics; an accepted command has a known op, in-range fields, and its
// error messages (when refused) are bounded so replies stay small.
func FuzzMessage(f *testing.F) {
	f.Add([]byte(`{"id":1,"op":"hello","protocol":1}`))
	f.Add([]byte(`{"id":2,"op":"open","host":"[::1]","port":8080,"tls":false,"allowPrivate":true,"sampleIntervalMs":100}`))
	f.Add([]byte(`{"id":3,"op":"write","conn":1,"requests":"GET / HTTP/1.1\r\nHost: a\r\n\r\n"}`))
	f.Add([]byte(`{"id":4,"op":"ack","conn":1,"offset":12345}`))
	f.Add([]byte(`{"id":5,"op":"tcpInfo","conn":1,"conn":2}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		lim := DefaultLimits()
		cmd, hasID, perr := ParseCommand(payload, lim)
		if perr != nil {
			reply := errReply(nil, perr)
			if hasID {
				reply = errReply(&cmd.ID, perr)
			}
			b, err := json.Marshal(reply)
			if err != nil || len(b) > 2*maxErrorMessage+256 {
				t.Fatalf("error reply of %d bytes (%v)", len(b), err)
			}
			return
		}
		if _, ok := opFields[cmd.Op]; !ok {
			t.Fatalf("accepted unknown op %q", cmd.Op)
		}
		if cmd.ID < 0 || cmd.ID > maxSafeInteger {
			t.Fatalf("id %d out of range", cmd.ID)
		}
		switch cmd.Op {
		case "open":
			if CheckPort(cmd.Port) != nil {
				t.Fatalf("accepted port %d", cmd.Port)
			}
			if _, err := ParseTarget(cmd.Target.Authority); err != nil {
				t.Fatalf("accepted host %q: %v", cmd.Target.Authority, err)
			}
			if cmd.WindowBytes != 0 && (cmd.WindowBytes < lim.MinWindowBytes || cmd.WindowBytes > lim.MaxWindowBytes) {
				t.Fatalf("window %d", cmd.WindowBytes)
			}
			if cmd.ChunkBytes != 0 && (cmd.ChunkBytes < lim.MinChunkBytes || cmd.ChunkBytes > lim.MaxChunkBytes) {
				t.Fatalf("chunk %d", cmd.ChunkBytes)
			}
		case "write", "ack", "close", "tcpInfo":
			if cmd.Conn == 0 {
				t.Fatal("conn 0 accepted")
			}
			if len(cmd.Requests) > lim.MaxWriteBytes {
				t.Fatalf("requests of %d bytes accepted", len(cmd.Requests))
			}
		}
	})
}
