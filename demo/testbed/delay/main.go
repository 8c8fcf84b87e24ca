// sprint-delay: a user-space fixed propagation delay for the emulated
// bottleneck testbed (docs/testbed.md: the kernel here has no netem).
//
// It runs in the router namespace and owns a TUN interface; policy routing
// (set up by demo/testbed/delay-element.ts) sends every packet arriving on the
// router's veths into the TUN. This program reads each packet, holds it for a
// fixed time per direction (-down-ms for packets to the -downstream subnet,
// -up-ms for the rest) and writes it back into the TUN, from where the router
// forwards it by its main routing table.
//
// Prints "ready <dev>" on stdout once the TUN is attached; on SIGTERM/SIGINT
// prints one JSON line per direction with lateness statistics and exits 0.

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	dev := flag.String("dev", "", "TUN interface name to create or attach to")
	downMs := flag.Float64("down-ms", 0, "delay for packets to the downstream subnet, milliseconds")
	upMs := flag.Float64("up-ms", 0, "delay for all other packets, milliseconds")
	downstream := flag.String("downstream", "", "downstream (client) IPv4 subnet, CIDR")
	queue := flag.Int("queue", 65536, "packets held per direction before dropping")
	flag.Parse()
	if err := run(*dev, *downMs, *upMs, *downstream, *queue); err != nil {
		fmt.Fprintf(os.Stderr, "sprint-delay: %v\n", err)
		os.Exit(1)
	}
}

func run(dev string, downMs, upMs float64, downstream string, queue int) error {
	if downMs < 0 || upMs < 0 || downMs > 10000 || upMs > 10000 {
		return fmt.Errorf("delays must be 0-10000 ms, got -down-ms %v -up-ms %v", downMs, upMs)
	}
	if queue <= 0 {
		return fmt.Errorf("-queue must be positive, got %d", queue)
	}
	_, subnet, err := net.ParseCIDR(downstream)
	if err != nil || subnet.IP.To4() == nil {
		return fmt.Errorf("-downstream must be an IPv4 CIDR, got %q", downstream)
	}
	fd, err := openTun(dev)
	if err != nil {
		return err
	}
	cls := classifier{downstream: subnet}
	down := newDirection("down", time.Duration(downMs*float64(time.Millisecond)), queue)
	up := newDirection("up", time.Duration(upMs*float64(time.Millisecond)), queue)
	write := func(p []byte) error {
		_, err := syscall.Write(fd, p)
		return err
	}
	writeErrors := make(chan error, 1)
	onError := func(err error) {
		select {
		case writeErrors <- err:
		default:
		}
	}
	go down.run(write, onError)
	go up.run(write, onError)

	readErr := make(chan error, 1)
	go func() {
		buf := make([]byte, 65536)
		for {
			n, err := syscall.Read(fd, buf)
			if err != nil {
				if err == syscall.EINTR {
					continue
				}
				readErr <- fmt.Errorf("read %s: %w", dev, err)
				return
			}
			now := time.Now()
			pkt := make([]byte, n)
			copy(pkt, buf[:n])
			if cls.isDownstream(pkt) {
				down.enqueue(pkt, now)
			} else {
				up.enqueue(pkt, now)
			}
		}
	}()
	fmt.Printf("ready %s\n", dev)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	var failure error
	select {
	case <-sigs:
	case failure = <-readErr:
	}
	enc := json.NewEncoder(os.Stdout)
	for _, d := range []*direction{down, up} {
		_ = enc.Encode(d.stats())
	}
	select {
	case err := <-writeErrors:
		fmt.Fprintf(os.Stderr, "sprint-delay: first write error: %v\n", err)
	default:
	}
	return failure
}
