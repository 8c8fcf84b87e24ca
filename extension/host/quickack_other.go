//go:build !linux

// quickack_other.go: other operating systems have no interactive ACK mode to leave (see quickack_linux.go).
package main

import "net"

// leaveInteractiveAckMode does nothing off Linux.
func leaveInteractiveAckMode(*net.TCPConn) error { return nil }
