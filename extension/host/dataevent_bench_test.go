// dataevent_bench_test.go: the host's per-megabyte cost of delivering socket bytes to the browser: a data
// event's JSON (base64 straight into the message buffer), its frame and its write, through the Outbox as
// readLoop does it, for read sizes from a small read up to the largest chunk.
package main

import (
	"io"
	"log"
	"strconv"
	"testing"
)

func BenchmarkDataEventPath(b *testing.B) {
	for _, size := range []int{16 << 10, 64 << 10, 256 << 10} {
		b.Run(strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			raw := make([]byte, size)
			for i := range raw {
				raw[i] = byte(i * 7)
			}
			out := NewOutbox(io.Discard, DefaultLimits().MaxOutboundBytes, log.New(io.Discard, "", 0))
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out.SendData(1, int64(i)*int64(size), 1763780000250.75, raw)
			}
			out.Close()
		})
	}
}
