// TUN device access for the delay element: open /dev/net/tun and attach to (or
// create) a layer-3 TUN interface without packet-information headers, using
// only the standard library (CGO_ENABLED=0 builds).

package main

import (
	"fmt"
	"syscall"
	"unsafe"
)

const (
	tunSetIff = 0x400454ca // TUNSETIFF
	iffTun    = 0x0001
	iffNoPi   = 0x1000
)

// ifreq is the part of struct ifreq that TUNSETIFF reads: name and flags.
type ifreq struct {
	name  [16]byte
	flags uint16
	_     [22]byte
}

// openTun returns a blocking file descriptor for TUN interface name.
func openTun(name string) (int, error) {
	if len(name) == 0 || len(name) > 15 {
		return -1, fmt.Errorf("tun: bad interface name %q (1-15 characters)", name)
	}
	fd, err := syscall.Open("/dev/net/tun", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("tun: open /dev/net/tun: %w", err)
	}
	var req ifreq
	copy(req.name[:], name)
	req.flags = iffTun | iffNoPi
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), tunSetIff, uintptr(unsafe.Pointer(&req))); errno != 0 {
		syscall.Close(fd)
		return -1, fmt.Errorf("tun: TUNSETIFF %s: %w", name, errno)
	}
	return fd, nil
}
