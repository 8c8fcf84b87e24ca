// config.go: the host's limits and settings, with the defaults PROTOCOL.md documents.
//
// Every bound the host enforces lives here so PROTOCOL.md, the hello reply and the code cannot disagree.
// Tests build a Config with smaller values; main.go uses DefaultConfig plus the environment (tlsroots.go).
package main

import (
	"crypto/x509"
	"log"
	"time"
)

// ProtocolVersion is the one protocol version this host speaks (see the hello exchange in PROTOCOL.md).
const ProtocolVersion = 1

// HostVersion is the host program's own version, reported in the hello reply.
const HostVersion = "0.1.0"

// Limits are the bounds reported to the extension in the hello reply.
type Limits struct {
	MaxConnections      int `json:"maxConnections"`      // open or opening connections at once
	MaxInboundBytes     int `json:"maxInboundBytes"`     // largest extension→host message (JSON bytes)
	MaxOutboundBytes    int `json:"maxOutboundBytes"`    // largest host→extension message (JSON bytes)
	MaxWriteBytes       int `json:"maxWriteBytes"`       // largest `requests` string in one write
	MaxRequestsPerWrite int `json:"maxRequestsPerWrite"` // requests in one write
	MaxRequestBytes     int `json:"maxRequestBytes"`     // one request, request line to final CRLF
	MaxHeadersPerReq    int `json:"maxHeadersPerRequest"`
	MaxPendingWrites    int `json:"maxPendingWrites"` // writes accepted but not yet on the socket, per connection
	DefaultWindowBytes  int `json:"defaultWindowBytes"`
	MinWindowBytes      int `json:"minWindowBytes"`
	MaxWindowBytes      int `json:"maxWindowBytes"`
	DefaultChunkBytes   int `json:"defaultChunkBytes"`
	MinChunkBytes       int `json:"minChunkBytes"`
	MaxChunkBytes       int `json:"maxChunkBytes"`
	MinSampleIntervalMs int `json:"minSampleIntervalMs"`
	MaxSampleIntervalMs int `json:"maxSampleIntervalMs"`
	DefaultConnectMs    int `json:"defaultConnectTimeoutMs"` // DNS + TCP connect + TLS handshake, all together
	MaxConnectMs        int `json:"maxConnectTimeoutMs"`
	WriteTimeoutMs      int `json:"writeTimeoutMs"` // one write to the socket
}

// DefaultLimits are the production bounds.
func DefaultLimits() Limits {
	return Limits{
		MaxConnections:      64, // the worker's maxSessions (16) × maxOriginsPerSession (4), one connection each
		MaxInboundBytes:     1 << 20,
		MaxOutboundBytes:    1000 * 1000, // Chrome's host→browser limit is 1 MB; data events stay far below it
		MaxWriteBytes:       16 << 10,
		MaxRequestsPerWrite: 64,
		MaxRequestBytes:     8 << 10,
		MaxHeadersPerReq:    16,
		MaxPendingWrites:    16,
		DefaultWindowBytes:  4 << 20,
		MinWindowBytes:      64 << 10,
		MaxWindowBytes:      16 << 20,
		DefaultChunkBytes:   256 << 10,
		MinChunkBytes:       4 << 10,
		MaxChunkBytes:       256 << 10,
		MinSampleIntervalMs: 100,
		MaxSampleIntervalMs: 60000,
		DefaultConnectMs:    10000,
		MaxConnectMs:        30000,
		WriteTimeoutMs:      10000,
	}
}

// Config is everything a Host needs besides its stdin and stdout.
type Config struct {
	Limits Limits
	// RootCAs verifies TLS servers: the system pool, plus the PEM file named by SPRINT_HOST_EXTRA_CA if set.
	// Never nil in production (see LoadRootCAs).
	RootCAs *x509.CertPool
	Logger  *log.Logger
	// Now is the clock for timestamps in events (wall clock, reported as unix milliseconds).
	Now func() time.Time
}
