// dataevent_test.go: the hand-written data event JSON (dataevent.go) is the JSON json.Marshal makes of the
// same DataEvent, for several sizes, offsets and timestamps.
package main

import (
	"encoding/base64"
	"encoding/json"
	"testing"
)

func TestAppendDataEventMatchesMarshal(t *testing.T) {
	for _, c := range []struct {
		conn   uint64
		offset int64
		t      float64
		n      int
	}{{1, 0, 1763780000250.75, 1}, {16, 1 << 40, 1763780000123.456, 2}, {3, 12345, 0.5, 3}, {7, 99, 1763780000000, 262144}} {
		raw := make([]byte, c.n)
		for i := range raw {
			raw[i] = byte(i * 7)
		}
		want, err := json.Marshal(DataEvent{Event: "data", Conn: c.conn, Offset: c.offset, N: c.n, T: c.t, Data: base64.StdEncoding.EncodeToString(raw)})
		if err != nil {
			t.Fatal(err)
		}
		if got := appendDataEvent(nil, c.conn, c.offset, c.t, raw); string(got) != string(want) {
			t.Fatalf("n=%d: got %.120s..., want %.120s...", c.n, got, want)
		}
	}
}
