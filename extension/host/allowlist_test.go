// allowlist_test.go: the caller check (allowlist.go) and the program's start-up behaviour (main.go's run):
// refusal with a non-zero exit and a message on stderr, and a served session for an allowed caller.
package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	testOrigin  = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"
	otherOrigin = "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba/"
)

func TestCheckCaller(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		compiled string
		env      string
		ok       bool
		inErr    string
	}{
		{"compiled origin", []string{"host", testOrigin}, testOrigin, "", true, ""},
		{"one of several compiled", []string{"host", testOrigin}, otherOrigin + "," + testOrigin, "", true, ""},
		{"windows parent-window arg ignored", []string{"host", testOrigin, "--parent-window=0"}, testOrigin, "", true, ""},
		{"from env", []string{"host", testOrigin}, AllowedExtensionOrigins, testOrigin, true, ""},
		{"from env list", []string{"host", testOrigin}, AllowedExtensionOrigins, otherOrigin + ", " + testOrigin, true, ""},
		{"placeholder matches nothing", []string{"host", testOrigin}, AllowedExtensionOrigins, "", false, "not the Sprint extension"},
		{"other extension", []string{"host", otherOrigin}, testOrigin, "", false, "not the Sprint extension"},
		{"no argument", []string{"host"}, testOrigin, "", false, "no caller origin"},
		{"not an origin", []string{"host", "--help"}, testOrigin, "", false, "not a chrome-extension"},
		{"no trailing slash", []string{"host", strings.TrimSuffix(testOrigin, "/")}, testOrigin, "", false, "not a chrome-extension"},
		{"upper case id", []string{"host", strings.ToUpper(testOrigin)}, testOrigin, "", false, "not a chrome-extension"},
		{"letters beyond p", []string{"host", "chrome-extension://abcdefghijklmnopqrstuvwxyzabcdef/"}, testOrigin, "", false, "not a chrome-extension"},
		{"firefox style", []string{"host", "/path/manifest.json", "sprint@example"}, testOrigin, "", false, "not a chrome-extension"},
		{"malformed env entry", []string{"host", testOrigin}, testOrigin, "*", false, EnvAllowedOrigins},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckCaller(tc.args, tc.compiled, tc.env)
			if tc.ok {
				if err != nil || got != tc.args[1] {
					t.Fatalf("refused: %q %v", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.inErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.inErr)
			}
		})
	}
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestRunRefusesUnknownCaller(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"sprint-host", otherOrigin}, envOf(nil), strings.NewReader(""), &stdout, &stderr)
	if code == 0 {
		t.Fatal("exit code 0 for an unknown caller")
	}
	if stdout.Len() != 0 {
		t.Fatalf("wrote %d bytes to stdout", stdout.Len())
	}
	if !strings.Contains(stderr.String(), "refusing to start") || !strings.Contains(stderr.String(), otherOrigin) {
		t.Fatalf("stderr does not explain: %q", stderr.String())
	}
}

func TestRunRefusesMissingExtraCA(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := envOf(map[string]string{EnvAllowedOrigins: testOrigin, EnvExtraCA: filepath.Join(t.TempDir(), "missing.pem")})
	if code := run([]string{"sprint-host", testOrigin}, env, strings.NewReader(""), &stdout, &stderr); code == 0 {
		t.Fatal("exit code 0 with an unreadable extra CA")
	}
	if !strings.Contains(stderr.String(), EnvExtraCA) {
		t.Fatalf("stderr does not name %s: %q", EnvExtraCA, stderr.String())
	}
	empty := filepath.Join(t.TempDir(), "empty.pem")
	if err := os.WriteFile(empty, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	env = envOf(map[string]string{EnvAllowedOrigins: testOrigin, EnvExtraCA: empty})
	if code := run([]string{"sprint-host", testOrigin}, env, strings.NewReader(""), &stdout, &stderr); code == 0 {
		t.Fatal("exit code 0 with a certificate-free extra CA file")
	}
	if !strings.Contains(stderr.String(), "no PEM certificate") {
		t.Fatalf("stderr: %q", stderr.String())
	}
}

// An allowed caller gets a served session: a hello frame on stdin is answered on stdout, exit code 0 on EOF.
func TestRunServesAllowedCaller(t *testing.T) {
	in, _ := AppendFrame(nil, []byte(`{"id":7,"op":"hello","protocol":1}`), 1<<20)
	var stdout, stderr bytes.Buffer
	code := run([]string{"sprint-host", testOrigin}, envOf(map[string]string{EnvAllowedOrigins: testOrigin}), bytes.NewReader(in), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d, stderr %q", code, stderr.String())
	}
	payload, err := ReadFrame(&stdout, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		ID     int64       `json:"id"`
		OK     bool        `json:"ok"`
		Result HelloResult `json:"result"`
	}
	if err := json.Unmarshal(payload, &reply); err != nil {
		t.Fatal(err)
	}
	if reply.ID != 7 || !reply.OK || reply.Result.Protocol != ProtocolVersion || reply.Result.Name != "sprint-host" {
		t.Fatalf("hello reply %s", payload)
	}
	if stdout.Len() != 0 {
		t.Fatalf("%d unexpected bytes after the reply", stdout.Len())
	}
}

// A stream that ends inside a frame is an error exit.
func TestRunTruncatedInputExitsNonZero(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"sprint-host", testOrigin}, envOf(map[string]string{EnvAllowedOrigins: testOrigin}), bytes.NewReader([]byte{9, 0}), &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "truncated") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}
