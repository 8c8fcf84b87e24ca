//go:build linux

// sockopt_linux.go: runs a socket-option call on a connection's file descriptor (TCP_INFO, TCP_QUICKACK).
package main

import (
	"fmt"
	"net"
)

// onFD runs f with c's file descriptor and returns f's error; a socket already gone is "socket unavailable".
func onFD(c *net.TCPConn, f func(fd int) error) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return fmt.Errorf("socket unavailable: %w", err)
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return fmt.Errorf("socket unavailable: %w", err)
	}
	return ferr
}
