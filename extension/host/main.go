// main.go: entry point of sprint-host, the Sprint extension's native-messaging socket host.
//
// The browser starts this program when the Sprint extension calls chrome.runtime.connectNative; argv[1] is
// the caller's origin. The program checks the caller (allowlist.go), loads the TLS roots (tlsroots.go) and
// serves the protocol of PROTOCOL.md on stdin/stdout until the browser closes the port. Logs go to stderr,
// which Chrome shows in its own log; stdout carries protocol frames only.
//
// Build: CGO_ENABLED=0 go build -o <out>/sprint-host ./
package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
)

func main() {
	// One P is plenty for a few connections' I/O; with more, idle Ps spin looking for work at every wake-up
	// (a data event, an ack), which on a busy 2-core machine costs more than the host's own work.
	// GOMAXPROCS in the environment still wins.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	stopProfile := startCPUProfile(os.Getenv, os.Stderr)
	code := run(os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stopProfile()
	os.Exit(code)
}

// run is main with its environment passed in, so tests can drive it. It returns the exit code.
func run(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	logger := log.New(stderr, fmt.Sprintf("sprint-host[%d]: ", os.Getpid()), log.LstdFlags|log.Lmicroseconds)
	caller, err := CheckCaller(args, AllowedExtensionOrigins, getenv(EnvAllowedOrigins))
	if err != nil {
		logger.Printf("refusing to start: %v", err)
		return 2
	}
	roots, err := LoadRootCAs(getenv(EnvExtraCA), logger)
	if err != nil {
		logger.Printf("refusing to start: %v", err)
		return 2
	}
	if extra := getenv(EnvExtraCA); extra != "" {
		logger.Printf("trusting extra CA certificates from %s=%s (in addition to the system roots)", EnvExtraCA, extra)
	}
	logger.Printf("serving %s (protocol %d, host %s)", caller, ProtocolVersion, HostVersion)
	h := NewHost(Config{Limits: DefaultLimits(), RootCAs: roots, Logger: logger}, nil)
	if err := h.Run(stdin, stdout); err != nil {
		logger.Printf("session ended with an error: %v", err)
		return 1
	}
	logger.Printf("browser closed the port; exiting")
	return 0
}
