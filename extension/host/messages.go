// messages.go: the JSON messages of the host protocol (PROTOCOL.md) and their strict validation.
//
// Extension→host messages are commands: {"id": N, "op": "...", ...}. Every command except `ack` gets exactly
// one reply {"id": N, "ok": true, "result": {...}} or {"id": N, "ok": false, "error": {"code", "message"}};
// `ack` is answered only when it is refused. Host-initiated messages are events {"event": "...", ...} and never
// carry an id. Validation is strict: the payload must be valid UTF-8 holding exactly one JSON object, keys
// are case-sensitive and may not repeat, unknown keys are refused, numbers used as integers must be written
// as integers, and every value is range-checked here before any other file sees it.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrorCode is a stable machine-readable error identifier (see PROTOCOL.md, "Error codes").
type ErrorCode string

const (
	CodeBadMessage          ErrorCode = "bad_message"          // not a valid command (syntax, field, type, range)
	CodeHelloRequired       ErrorCode = "hello_required"       // a command other than hello before hello succeeded
	CodeUnsupportedProtocol ErrorCode = "unsupported_protocol" // hello asked for a protocol version the host lacks
	CodeLimit               ErrorCode = "limit"                // a size or count bound was exceeded
	CodeTooManyConnections  ErrorCode = "too_many_connections" // maxConnections are open or opening
	CodeForbiddenAddress    ErrorCode = "forbidden_address"    // the host resolved to an address the policy refuses
	CodeForbiddenPort       ErrorCode = "forbidden_port"       // port 0, >65535 or on the Fetch bad-port list
	CodeBadRequestBytes     ErrorCode = "bad_request_bytes"    // write: not only well-formed allowed GET/HEAD requests
	CodeDNSFailed           ErrorCode = "dns_failed"           // name resolution failed or found nothing
	CodeConnectFailed       ErrorCode = "connect_failed"       // TCP connect failed or timed out
	CodeTLSFailed           ErrorCode = "tls_failed"           // TLS handshake or certificate verification failed
	CodeUnknownConn         ErrorCode = "unknown_conn"         // no open connection has this id
	CodeConnClosed          ErrorCode = "conn_closed"          // the connection closed before the command took effect
	CodeWriteFailed         ErrorCode = "write_failed"         // the socket write failed (the connection is then closed)
	CodeTCPInfoUnavailable  ErrorCode = "tcp_info_unavailable" // TCP_INFO is not available on this OS or socket
	CodeInternal            ErrorCode = "internal"             // a host bug; the message says what
)

// ProtoError is a refused command: a code for programs and a message for people.
type ProtoError struct {
	Code    ErrorCode
	Message string
}

func (e *ProtoError) Error() string { return string(e.Code) + ": " + e.Message }

func protoErr(code ErrorCode, format string, args ...any) *ProtoError {
	return &ProtoError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// maxErrorMessage bounds error messages sent to the browser.
const maxErrorMessage = 1024

// maxSafeInteger is the largest integer a JavaScript number holds exactly (2^53 - 1).
const maxSafeInteger = 1<<53 - 1

// Command is one validated extension→host message. Only the fields of its Op are set.
type Command struct {
	ID int64
	Op string

	Protocol int // hello

	Target           Target // open
	Port             int    // open
	TLS              bool   // open
	AllowPrivate     bool   // open
	SampleIntervalMs int    // open; 0 = no periodic tcpInfo events
	WindowBytes      int    // open; 0 = default
	ChunkBytes       int    // open; 0 = default
	ConnectTimeoutMs int    // open; 0 = default

	Conn     uint64 // write, ack, close, tcpInfo
	Requests string // write: the request text (ASCII)
	Offset   int64  // ack: every byte before this stream offset has been consumed
}

// opFields lists, per op, the allowed keys besides "id" and "op", and which are required.
var opFields = map[string]map[string]bool{
	"hello":   {"protocol": true},
	"open":    {"host": true, "port": true, "tls": true, "allowPrivate": true, "sampleIntervalMs": false, "windowBytes": false, "chunkBytes": false, "connectTimeoutMs": false},
	"write":   {"conn": true, "requests": true},
	"ack":     {"conn": true, "offset": true},
	"close":   {"conn": true},
	"tcpInfo": {"conn": true},
}

// ParseCommand validates one message payload. On failure it also returns the message's id when one could be
// read (hasID), so the error reply can echo it.
func ParseCommand(payload []byte, lim Limits) (cmd Command, hasID bool, perr *ProtoError) {
	fields, err := decodeObject(payload)
	if err != nil {
		return Command{}, false, protoErr(CodeBadMessage, "%v", err)
	}
	f := fieldReader{fields: fields}
	id, ok, err := f.int("id", 0, maxSafeInteger)
	if err != nil {
		return Command{}, false, protoErr(CodeBadMessage, "%v", err)
	}
	if !ok {
		return Command{}, false, protoErr(CodeBadMessage, "missing \"id\"")
	}
	cmd.ID = id
	op, ok, err := f.string("op")
	if err != nil {
		return cmd, true, protoErr(CodeBadMessage, "%v", err)
	}
	if !ok {
		return cmd, true, protoErr(CodeBadMessage, "missing \"op\"")
	}
	allowed, known := opFields[op]
	if !known {
		return cmd, true, protoErr(CodeBadMessage, "unknown op %q (expected one of %s)", truncate(op, 40), strings.Join(sortedKeys(opFields), ", "))
	}
	cmd.Op = op
	for key := range fields {
		if key == "id" || key == "op" {
			continue
		}
		if _, ok := allowed[key]; !ok {
			return cmd, true, protoErr(CodeBadMessage, "op %q does not take field %q", op, truncate(key, 40))
		}
	}
	for _, key := range sortedKeys(allowed) {
		if allowed[key] {
			if _, present := fields[key]; !present {
				return cmd, true, protoErr(CodeBadMessage, "op %q requires field %q", op, key)
			}
		}
	}
	if perr := parseOpFields(&cmd, &f, lim); perr != nil {
		return cmd, true, perr
	}
	return cmd, true, nil
}

func parseOpFields(cmd *Command, f *fieldReader, lim Limits) *ProtoError {
	bad := func(err error) *ProtoError { return protoErr(CodeBadMessage, "%v", err) }
	switch cmd.Op {
	case "hello":
		v, _, err := f.int("protocol", 0, 1000000)
		if err != nil {
			return bad(err)
		}
		cmd.Protocol = int(v)
	case "open":
		host, _, err := f.string("host")
		if err != nil {
			return bad(err)
		}
		target, err := ParseTarget(host)
		if err != nil {
			return bad(err)
		}
		cmd.Target = target
		port, _, err := f.int("port", -maxSafeInteger, maxSafeInteger)
		if err != nil {
			return bad(err)
		}
		if err := CheckPort(int(port)); err != nil {
			return protoErr(CodeForbiddenPort, "%v", err)
		}
		cmd.Port = int(port)
		if cmd.TLS, _, err = f.bool("tls"); err != nil {
			return bad(err)
		}
		if cmd.AllowPrivate, _, err = f.bool("allowPrivate"); err != nil {
			return bad(err)
		}
		optional := []struct {
			key      string
			dst      *int
			min, max int
			zeroOK   bool
		}{
			{"sampleIntervalMs", &cmd.SampleIntervalMs, lim.MinSampleIntervalMs, lim.MaxSampleIntervalMs, true},
			{"windowBytes", &cmd.WindowBytes, lim.MinWindowBytes, lim.MaxWindowBytes, false},
			{"chunkBytes", &cmd.ChunkBytes, lim.MinChunkBytes, lim.MaxChunkBytes, false},
			{"connectTimeoutMs", &cmd.ConnectTimeoutMs, 1, lim.MaxConnectMs, false},
		}
		for _, o := range optional {
			v, present, err := f.int(o.key, 0, maxSafeInteger)
			if err != nil {
				return bad(err)
			}
			if !present || (v == 0 && o.zeroOK) {
				continue
			}
			if v < int64(o.min) || v > int64(o.max) {
				if o.zeroOK {
					return bad(fmt.Errorf("%q is %d; it must be 0 (off) or %d..%d", o.key, v, o.min, o.max))
				}
				return bad(fmt.Errorf("%q is %d; it must be %d..%d", o.key, v, o.min, o.max))
			}
			*o.dst = int(v)
		}
	case "write", "ack", "close", "tcpInfo":
		conn, _, err := f.int("conn", 1, maxSafeInteger)
		if err != nil {
			return bad(err)
		}
		cmd.Conn = uint64(conn)
		switch cmd.Op {
		case "write":
			text, _, err := f.string("requests")
			if err != nil {
				return bad(err)
			}
			if len(text) > lim.MaxWriteBytes {
				return protoErr(CodeLimit, "\"requests\" is %d bytes, the limit is %d", len(text), lim.MaxWriteBytes)
			}
			cmd.Requests = text
		case "ack":
			off, _, err := f.int("offset", 0, maxSafeInteger)
			if err != nil {
				return bad(err)
			}
			cmd.Offset = off
		}
	}
	return nil
}

// decodeObject parses payload as exactly one JSON object with unique keys and returns its raw members.
func decodeObject(payload []byte) (map[string]json.RawMessage, error) {
	if !utf8.Valid(payload) {
		return nil, errors.New("message is not valid UTF-8")
	}
	if !json.Valid(payload) {
		return nil, errors.New("message is not valid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("message is not valid JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("message is not a JSON object")
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("message is not valid JSON: %v", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("message has a non-string key")
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("key %q appears more than once", truncate(key, 40))
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("value of %q: %v", truncate(key, 40), err)
		}
		fields[key] = raw
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, fmt.Errorf("message is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("message has data after the JSON object")
	}
	return fields, nil
}

// fieldReader reads typed members from a decoded object.
type fieldReader struct{ fields map[string]json.RawMessage }

// int reads an integer written without fraction or exponent, in [min, max].
func (f *fieldReader) int(key string, min, max int64) (int64, bool, error) {
	raw, ok := f.fields[key]
	if !ok {
		return 0, false, nil
	}
	s := string(raw)
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || !isAllDigits(digits) || (len(digits) > 1 && digits[0] == '0') {
		return 0, true, fmt.Errorf("%q must be an integer, got %s", key, truncate(s, 40))
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < min || v > max {
		return 0, true, fmt.Errorf("%q is %s; it must be %d..%d", key, truncate(s, 40), min, max)
	}
	return v, true, nil
}

func (f *fieldReader) bool(key string) (bool, bool, error) {
	raw, ok := f.fields[key]
	if !ok {
		return false, false, nil
	}
	switch string(raw) {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, true, fmt.Errorf("%q must be true or false, got %s", key, truncate(string(raw), 40))
}

func (f *fieldReader) string(key string) (string, bool, error) {
	raw, ok := f.fields[key]
	if !ok {
		return "", false, nil
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", true, fmt.Errorf("%q must be a string, got %s", key, truncate(string(raw), 40))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, fmt.Errorf("%q: %v", key, err)
	}
	return s, true, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// truncate shortens s for error messages, keeping them bounded whatever the input.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

// ---- host→extension messages ----

// Reply answers one command.
type Reply struct {
	ID     *int64     `json:"id"` // null when the command's id could not be read
	OK     bool       `json:"ok"`
	Result any        `json:"result,omitempty"`
	Error  *ErrorBody `json:"error,omitempty"`
}

// ErrorBody is the error member of a failed reply.
type ErrorBody struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
}

// HelloResult is the result of hello.
type HelloResult struct {
	Name        string `json:"name"` // always "sprint-host"
	Protocol    int    `json:"protocol"`
	HostVersion string `json:"hostVersion"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	TCPInfo     bool   `json:"tcpInfo"` // whether tcpInfo commands and samples can work on this OS
	Limits      Limits `json:"limits"`
}

// OpenedResult is the result of open.
type OpenedResult struct {
	Conn        uint64   `json:"conn"`
	Host        string   `json:"host"`
	Port        int      `json:"port"`
	TLS         bool     `json:"tls"`
	Addresses   []string `json:"addresses"`  // every address the name resolved to, all of them checked
	RemoteAddr  string   `json:"remoteAddr"` // the one connected to, "ip:port" ("[ip6]:port")
	LocalAddr   string   `json:"localAddr"`
	TLSVersion  string   `json:"tlsVersion,omitempty"`  // "TLS 1.2" or "TLS 1.3"
	ALPN        string   `json:"alpn,omitempty"`        // "http/1.1" or "" when the server did not negotiate ALPN
	CipherSuite string   `json:"cipherSuite,omitempty"` // IANA name
	WindowBytes int      `json:"windowBytes"`
	ChunkBytes  int      `json:"chunkBytes"`
	DNSMs       float64  `json:"dnsMs"`     // name resolution time (0 for IP literals)
	ConnectMs   float64  `json:"connectMs"` // TCP three-way handshake of the successful attempt: about one RTT
	TLSMs       float64  `json:"tlsMs"`     // TLS handshake (0 without TLS)
	T           float64  `json:"t"`         // unix ms when the connection became ready
}

// WrittenResult is the result of write.
type WrittenResult struct {
	Conn     uint64  `json:"conn"`
	Requests int     `json:"requests"` // requests written
	Bytes    int     `json:"bytes"`    // canonical bytes written to the socket
	T        float64 `json:"t"`        // unix ms when the socket write returned
}

// ConnResult is the result of close.
type ConnResult struct {
	Conn uint64 `json:"conn"`
}

// TCPInfoResult is the result of tcpInfo and the body of a tcpInfo event.
type TCPInfoResult struct {
	Conn uint64     `json:"conn"`
	T    float64    `json:"t"`
	Info TCPInfoMsg `json:"info"`
}

// DataEvent carries bytes read from a connection's socket.
type DataEvent struct {
	Event  string  `json:"event"` // "data"
	Conn   uint64  `json:"conn"`
	Offset int64   `json:"offset"` // stream offset of the first byte (bytes received before it on this conn)
	N      int     `json:"n"`      // number of raw bytes (decoded length of data)
	T      float64 `json:"t"`      // unix ms when the read returning these bytes completed
	Data   string  `json:"data"`   // standard base64 with padding
}

// ClosedEvent is the last message about a connection.
type ClosedEvent struct {
	Event        string  `json:"event"` // "closed"
	Conn         uint64  `json:"conn"`
	Reason       string  `json:"reason"` // eof, reset, timeout, local, write_failed, error
	Message      string  `json:"message,omitempty"`
	BytesRead    int64   `json:"bytesRead"`    // total raw bytes delivered in data events (= final offset)
	BytesWritten int64   `json:"bytesWritten"` // total request bytes written to the socket
	T            float64 `json:"t"`
}

// TCPInfoEvent is a periodic TCP_INFO sample (open with sampleIntervalMs).
type TCPInfoEvent struct {
	Event string `json:"event"` // "tcpInfo"
	TCPInfoResult
}

// okReply and errReply build replies.
func okReply(id int64, result any) Reply {
	return Reply{ID: &id, OK: true, Result: result}
}

func errReply(id *int64, perr *ProtoError) Reply {
	return Reply{ID: id, OK: false, Error: &ErrorBody{Code: perr.Code, Message: truncate(perr.Message, maxErrorMessage)}}
}
