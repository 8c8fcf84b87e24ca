//go:build !linux

// tcpinfo_other.go: TCP_INFO stub for operating systems other than Linux, so the host still builds there.
// tcpInfo commands answer tcp_info_unavailable and sampling is refused at open (see host.go).
package main

import (
	"errors"
	"net"
	"runtime"
)

// tcpInfoSupported tells the hello reply whether tcpInfo can work here.
const tcpInfoSupported = false

// ReadTCPInfo always fails off Linux.
func ReadTCPInfo(c *net.TCPConn) (TCPInfoMsg, error) {
	return TCPInfoMsg{}, errors.New("TCP_INFO is not implemented on " + runtime.GOOS)
}
