// tls_test.go: TLS connections (dial.go, tlsroots.go) against a local httptest TLS origin: verified with
// the origin's CA supplied as an extra root (directly and through SPRINT_HOST_EXTRA_CA), refused without
// it, and refused when the name does not match the certificate.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeServerCA saves the test origin's certificate (its own CA) as PEM and returns the path.
func writeServerCA(t *testing.T, der []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "origin-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTLSVerifiedWithExtraCA(t *testing.T) {
	srv, accessLog := startHTTPServer(t, true)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	roots, err := LoadRootCAs(writeServerCA(t, srv.Certificate().Raw), log.New(io.Discard, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	// httptest's certificate names 127.0.0.1 and example.com; a resolver maps the names to loopback.
	resolver := func(_ context.Context, name string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	hs := newHarness(t, Config{RootCAs: roots}, resolver)
	hs.hello()

	for _, host := range []string{"127.0.0.1", "example.com"} {
		var open OpenedResult
		hs.mustOK(map[string]any{"op": "open", "host": host, "port": port, "tls": true, "allowPrivate": true}, &open)
		if !open.TLS || open.TLSVersion != "TLS 1.3" || open.ALPN != "http/1.1" || open.CipherSuite == "" || open.TLSMs <= 0 {
			t.Fatalf("%s: opened %+v", host, open)
		}
		hostHeader := fmt.Sprintf("%s:%d", host, port)
		hs.mustOK(map[string]any{"op": "write", "conn": open.Conn,
			"requests": "GET /secure.m4s HTTP/1.1\r\nHost: " + hostHeader + "\r\nConnection: close\r\n\r\n"}, nil)
		raw, closed := hs.readStream(open.Conn)
		bodies := parseResponses(t, raw, 1)
		if !strings.HasPrefix(bodies[0], "response for /secure.m4s") || closed.Reason != "eof" {
			t.Fatalf("%s: body %.30q, closed %+v", host, bodies[0], closed)
		}
	}
	if n := len(accessLog.list()); n != 2 {
		t.Fatalf("origin logged %d requests, want 2", n)
	}

	// A name the certificate does not carry fails verification even though the CA is trusted.
	e := hs.mustFail(map[string]any{"op": "open", "host": "wrong-name.test", "port": port, "tls": true, "allowPrivate": true}, CodeTLSFailed)
	if !strings.Contains(e.Message, "wrong-name.test") {
		t.Fatalf("message %q", e.Message)
	}
}

func TestTLSRefusedWithoutTheCA(t *testing.T) {
	srv, accessLog := startHTTPServer(t, true)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	roots, err := LoadRootCAs("", log.New(io.Discard, "", 0)) // system roots only
	if err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, Config{RootCAs: roots}, nil)
	hs.hello()
	e := hs.mustFail(map[string]any{"op": "open", "host": "127.0.0.1", "port": port, "tls": true, "allowPrivate": true}, CodeTLSFailed)
	if !strings.Contains(e.Message, "certificate") {
		t.Fatalf("message %q does not mention the certificate", e.Message)
	}
	if n := len(accessLog.list()); n != 0 {
		t.Fatalf("origin served %d requests", n)
	}
}

// The environment variable path, through the program's own start-up (run), over pipes.
func TestRunUsesExtraCAFromEnv(t *testing.T) {
	srv, _ := startHTTPServer(t, true)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	env := envOf(map[string]string{EnvAllowedOrigins: testOrigin, EnvExtraCA: writeServerCA(t, srv.Certificate().Raw)})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		code := run([]string{"sprint-host", testOrigin}, env, inR, outW, &stderr)
		outW.Close()
		exit <- code
	}()
	send := func(s string) {
		f, _ := AppendFrame(nil, []byte(s), 1<<20)
		if _, err := inW.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]any {
		p, err := ReadFrame(outR, 1<<20)
		if err != nil {
			t.Fatalf("reading host output: %v", err)
		}
		var m map[string]any
		json.Unmarshal(p, &m)
		return m
	}
	send(`{"id":1,"op":"hello","protocol":1}`)
	if m := recv(); m["ok"] != true {
		t.Fatalf("hello: %v", m)
	}
	send(fmt.Sprintf(`{"id":2,"op":"open","host":"127.0.0.1","port":%d,"tls":true,"allowPrivate":true}`, port))
	if m := recv(); m["ok"] != true {
		t.Fatalf("open with %s: %v", EnvExtraCA, m)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(waitLimit):
		t.Fatal("host did not exit after stdin closed")
	}
	if !strings.Contains(stderr.String(), EnvExtraCA) {
		t.Fatalf("stderr does not log the extra CA: %q", stderr.String())
	}
}
