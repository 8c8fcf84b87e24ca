// framing_test.go: table tests and a fuzz target for the native-messaging framing (framing.go).
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

func frameOf(payload string) []byte {
	b, _ := AppendFrame(nil, []byte(payload), 1<<20)
	return b
}

func header(n uint32) []byte { return binary.LittleEndian.AppendUint32(nil, n) }

func TestReadFrame(t *testing.T) {
	cases := []struct {
		name    string
		stream  []byte
		max     int
		want    []string // frames read successfully before the final result
		wantErr error    // final error (io.EOF for a clean end)
	}{
		{"one frame then clean end", frameOf(`{"a":1}`), 100, []string{`{"a":1}`}, io.EOF},
		{"two frames", append(frameOf("x"), frameOf("yz")...), 100, []string{"x", "yz"}, io.EOF},
		{"empty payload", frameOf(""), 100, []string{""}, io.EOF},
		{"empty stream", nil, 100, nil, io.EOF},
		{"length prefix cut after 1 byte", []byte{5}, 100, nil, ErrTruncatedFrame},
		{"length prefix cut after 3 bytes", []byte{5, 0, 0}, 100, nil, ErrTruncatedFrame},
		{"payload cut short", append(header(10), "abc"...), 100, nil, ErrTruncatedFrame},
		{"frame after a good one cut short", append(frameOf("ok"), header(4)...), 100, []string{"ok"}, ErrTruncatedFrame},
		{"exactly the limit", frameOf("12345"), 5, []string{"12345"}, io.EOF},
		{"one over the limit", frameOf("123456"), 5, nil, ErrFrameTooLarge},
		{"oversized and cut short", append(header(1000), "abc"...), 5, nil, ErrTruncatedFrame},
		{"huge declared length, nothing behind it", header(0xffffffff), 1 << 20, nil, ErrTruncatedFrame},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := bytes.NewReader(tc.stream)
			var got []string
			var err error
			for {
				var p []byte
				p, err = ReadFrame(r, tc.max)
				if err != nil {
					break
				}
				got = append(got, string(p))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("frames %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("frame %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
			if tc.wantErr == io.EOF {
				if err != io.EOF {
					t.Fatalf("final error %v, want a bare io.EOF", err)
				}
			} else if !errors.Is(err, tc.wantErr) {
				t.Fatalf("final error %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// An oversized frame is skipped whole: the frame after it is read intact.
func TestReadFrameSkipsOversized(t *testing.T) {
	stream := append(frameOf("this one is far too long"), frameOf("next")...)
	r := bytes.NewReader(stream)
	if _, err := ReadFrame(r, 8); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("first frame: %v, want ErrFrameTooLarge", err)
	}
	p, err := ReadFrame(r, 8)
	if err != nil || string(p) != "next" {
		t.Fatalf("second frame %q, %v; want \"next\"", p, err)
	}
}

func TestAppendFrame(t *testing.T) {
	b, err := AppendFrame([]byte("prefix"), []byte("hi"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]byte("prefix"), 2, 0, 0, 0, 'h', 'i'); !bytes.Equal(b, want) {
		t.Fatalf("got % x, want % x", b, want)
	}
	if _, err := AppendFrame(nil, []byte("abc"), 2); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("oversized payload: %v, want ErrFrameTooLarge", err)
	}
}

// FuzzFraming: whatever the stream, ReadFrame never panics, never returns a frame over the limit, and the
// frames it returns, re-framed, reproduce the stream up to where reading stopped (no byte lost or invented).
func FuzzFraming(f *testing.F) {
	f.Add(frameOf(`{"id":1,"op":"hello","protocol":1}`), uint16(64))
	f.Add(append(frameOf("a"), frameOf("bb")...), uint16(1))
	f.Add([]byte{1, 0}, uint16(10))
	f.Add(append(header(3), "abc"...), uint16(2))
	f.Add(header(0xffffffff), uint16(100))
	f.Fuzz(func(t *testing.T, stream []byte, max uint16) {
		limit := int(max)
		r := bytes.NewReader(stream)
		var rebuilt []byte
		for i := 0; i < len(stream)+1; i++ {
			before := len(stream) - r.Len()
			p, err := ReadFrame(r, limit)
			consumed := stream[before : len(stream)-r.Len()]
			if err == io.EOF {
				if len(consumed) != 0 || r.Len() != 0 {
					t.Fatalf("clean EOF after consuming %d bytes with %d left", len(consumed), r.Len())
				}
				break
			}
			if errors.Is(err, ErrFrameTooLarge) {
				declared := binary.LittleEndian.Uint32(consumed)
				if int(declared) <= limit || len(consumed) != 4+int(declared) {
					t.Fatalf("oversized: declared %d, limit %d, consumed %d", declared, limit, len(consumed))
				}
				rebuilt = append(rebuilt, consumed...)
				continue
			}
			if err != nil {
				if !errors.Is(err, ErrTruncatedFrame) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				if r.Len() != 0 {
					t.Fatalf("truncated frame reported with %d bytes unread", r.Len())
				}
				break
			}
			if len(p) > limit {
				t.Fatalf("frame of %d bytes over the limit %d", len(p), limit)
			}
			rebuilt, err = AppendFrame(rebuilt, p, limit)
			if err != nil {
				t.Fatalf("re-framing an accepted frame: %v", err)
			}
			if !bytes.Equal(rebuilt, stream[:len(stream)-r.Len()]) {
				t.Fatalf("re-framed frames differ from the stream read so far")
			}
		}
	})
}
