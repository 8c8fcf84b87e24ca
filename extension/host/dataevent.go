// dataevent.go: the JSON of a data event (PROTOCOL.md §5), written directly: base64 straight into the
// message buffer, without encoding/json's second pass over a string of up to 349 528 characters (its escape
// scan and copy were the host's largest costs per megabyte after the base64 itself). The output is the same
// JSON object json.Marshal(DataEvent{...}) produces; a test checks the two agree.
package main

import (
	"encoding/base64"
	"strconv"
)

// appendDataEvent appends the JSON of a data event carrying raw to dst.
func appendDataEvent(dst []byte, conn uint64, offset int64, t float64, raw []byte) []byte {
	dst = append(dst, `{"event":"data","conn":`...)
	dst = strconv.AppendUint(dst, conn, 10)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, offset, 10)
	dst = append(dst, `,"n":`...)
	dst = strconv.AppendInt(dst, int64(len(raw)), 10)
	dst = append(dst, `,"t":`...)
	dst = strconv.AppendFloat(dst, t, 'f', -1, 64)
	dst = append(dst, `,"data":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, raw)
	return append(dst, `"}`...)
}
