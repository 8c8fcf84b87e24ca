//go:build linux

// quickack_linux.go: takes a connection out of Linux's interactive ("pingpong") ACK mode after a request
// is written. A receiver that sends data within its delayed-ACK timeout of receiving some enters that
// mode (net.ipv4.tcp_pingpong_thresh, 1 by default) and stays in it while data keeps arriving; a pipelined
// train does exactly that at every response boundary. On the testbed a pipelined client in that mode read
// 49-61 % of its fair share against a bulk flow at a full drop-tail queue, and 70-108 % out of it
// (docs/design/10-drop-asymmetry.md).
// TCP_QUICKACK=1 leaves the mode (tcp(7)); it is not sticky, so it is set after every write.
package main

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// leaveInteractiveAckMode sets TCP_QUICKACK on c.
func leaveInteractiveAckMode(c *net.TCPConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return fmt.Errorf("socket unavailable: %w", err)
	}
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		sockErr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1)
	}); err != nil {
		return fmt.Errorf("socket unavailable: %w", err)
	}
	if sockErr != nil {
		return fmt.Errorf("setsockopt(TCP_QUICKACK): %w", sockErr)
	}
	return nil
}

// interactiveAckMode reports whether the kernel holds c in interactive ACK mode (getsockopt(TCP_QUICKACK)
// answers 0 then).
func interactiveAckMode(c *net.TCPConn) (bool, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return false, fmt.Errorf("socket unavailable: %w", err)
	}
	var v int
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		v, sockErr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK)
	}); err != nil {
		return false, fmt.Errorf("socket unavailable: %w", err)
	}
	if sockErr != nil {
		return false, fmt.Errorf("getsockopt(TCP_QUICKACK): %w", sockErr)
	}
	return v == 0, nil
}
