// cpuprofile.go: an optional CPU profile of the host for benchmarks (test/bench/cpu.bench.ts). When the
// environment variable SPRINT_HOST_CPUPROFILE_DIR names a directory, the host writes a pprof CPU profile of
// its whole run to <dir>/sprint-host-<pid>.pprof (read it with `go tool pprof -top <binary> <file>`). Off by
// default; the protocol is the same either way.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"syscall"
)

// EnvCPUProfileDir names the directory for the optional CPU profile.
const EnvCPUProfileDir = "SPRINT_HOST_CPUPROFILE_DIR"

// startCPUProfile starts the profile if EnvCPUProfileDir is set and returns the function that ends it
// (safe to call more than once). SIGTERM and SIGINT end the profile too, then exit with status 1.
func startCPUProfile(getenv func(string) string, stderr io.Writer) func() {
	dir := getenv(EnvCPUProfileDir)
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("sprint-host-%d.pprof", os.Getpid())))
	if err != nil {
		fmt.Fprintf(stderr, "sprint-host: no CPU profile: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(stderr, "sprint-host: no CPU profile: %v\n", err)
		f.Close()
		return func() {}
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			f.Close()
		})
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		stop()
		os.Exit(1)
	}()
	return stop
}
