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
	return onFD(c, func(fd int) error {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1); err != nil {
			return fmt.Errorf("setsockopt(TCP_QUICKACK): %w", err)
		}
		return nil
	})
}
