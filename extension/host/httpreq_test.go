// httpreq_test.go: accept/reject tables and a fuzz target for the strict GET validator (httpreq.go).
package main

import (
	"bytes"
	"strings"
	"testing"
)

var testAuth = Authority{Host: "media.example", Port: 8080, DefaultPort: 80}

func testReqLimits() RequestLimits {
	l := DefaultLimits()
	return RequestLimits{MaxWriteBytes: l.MaxWriteBytes, MaxRequests: l.MaxRequestsPerWrite,
		MaxRequestBytes: l.MaxRequestBytes, MaxHeadersPerReq: l.MaxHeadersPerReq}
}

// crlf turns "|" into CRLF so the tables stay readable.
func crlf(s string) string { return strings.ReplaceAll(s, "|", "\r\n") }

func TestParseRequestsAccepts(t *testing.T) {
	cases := []struct {
		name      string
		auth      Authority
		in        string
		canonical string // "" = same as in
		count     int
	}{
		{"minimal", testAuth, "GET / HTTP/1.1|Host: media.example:8080||", "", 1},
		{"head", testAuth, "HEAD /a HTTP/1.1|Host: media.example:8080||", "", 1},
		{"segment with range and all allowed headers", testAuth,
			"GET /video/720p/seg-00042.m4s?x=1&y=%2F HTTP/1.1|Host: media.example:8080|Range: bytes=0-1048575|" +
				"Accept: */*|Accept-Encoding: identity|User-Agent: Sprint/0.1 (dash.js 5.2.1)|Connection: keep-alive|" +
				"Cache-Control: no-cache|Pragma: no-cache|Origin: https://player.example||", "", 1},
		{"two pipelined", testAuth,
			"GET /1 HTTP/1.1|Host: media.example:8080||GET /2 HTTP/1.1|Host: media.example:8080|Connection: close||", "", 2},
		{"header names any case, OWS trimmed, values canonicalised", testAuth,
			"GET / HTTP/1.1|hOsT:   MEDIA.example:8080 \t|accept-encoding:IDENTITY|CONNECTION: Close||",
			"GET / HTTP/1.1|Host: media.example:8080|Accept-Encoding: identity|Connection: close||", 1},
		{"host without default port", Authority{Host: "media.example", Port: 80, DefaultPort: 80},
			"GET / HTTP/1.1|Host: media.example||", "", 1},
		{"host with explicit default port", Authority{Host: "media.example", Port: 443, DefaultPort: 443},
			"GET / HTTP/1.1|Host: media.example:443||", "", 1},
		{"ipv6 authority", Authority{Host: "[2001:db8::1]", Port: 8443, DefaultPort: 443},
			"GET / HTTP/1.1|Host: [2001:DB8::1]:8443||", "GET / HTTP/1.1|Host: [2001:db8::1]:8443||", 1},
		{"open-ended and suffix ranges", testAuth,
			"GET / HTTP/1.1|Host: media.example:8080|Range: bytes=100-||GET / HTTP/1.1|Host: media.example:8080|Range: bytes=-500||", "", 2},
		{"cache-control list", testAuth, "GET / HTTP/1.1|Host: media.example:8080|Cache-Control: No-Cache,max-age=0||",
			"GET / HTTP/1.1|Host: media.example:8080|Cache-Control: no-cache, max-age=0||", 1},
		{"origin null and with port", testAuth,
			"GET / HTTP/1.1|Host: media.example:8080|Origin: null||GET / HTTP/1.1|Host: media.example:8080|Origin: http://127.0.0.1:3000||", "", 2},
		{"pchar punctuation in target", testAuth, "GET /a/b;c=d/@:!$&'()*+,~._-?q=/? HTTP/1.1|Host: media.example:8080||", "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reqs, err := ParseRequests([]byte(crlf(tc.in)), tc.auth, testReqLimits())
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if len(reqs) != tc.count {
				t.Fatalf("%d requests, want %d", len(reqs), tc.count)
			}
			want := tc.canonical
			if want == "" {
				want = tc.in
			}
			if got := string(CanonicalBytes(reqs)); got != crlf(want) {
				t.Fatalf("canonical form\n%q\nwant\n%q", got, crlf(want))
			}
		})
	}
}

func TestParseRequestsRejects(t *testing.T) {
	host := "Host: media.example:8080|"
	cases := []struct{ name, in, wantInErr string }{
		{"empty", "", "no request bytes"},
		{"POST", "POST / HTTP/1.1|" + host + "|", "method"},
		{"lower-case method", "get / HTTP/1.1|" + host + "|", "method"},
		{"CONNECT", "CONNECT media.example:443 HTTP/1.1|" + host + "|", "method"},
		{"HTTP/1.0", "GET / HTTP/1.0|" + host + "|", "version"},
		{"HTTP/2", "GET / HTTP/2.0|" + host + "|", "version"},
		{"absolute-form target", "GET http://evil.example/ HTTP/1.1|" + host + "|", "does not start with '/'"},
		{"asterisk target", "GET * HTTP/1.1|" + host + "|", "does not start with '/'"},
		{"space in target", "GET /a b HTTP/1.1|" + host + "|", "single spaces"},
		{"double space", "GET  / HTTP/1.1|" + host + "|", "single spaces"},
		{"fragment", "GET /a#b HTTP/1.1|" + host + "|", "not allowed"},
		{"bad percent escape", "GET /a%2 HTTP/1.1|" + host + "|", "percent"},
		{"non-hex percent escape", "GET /a%zz HTTP/1.1|" + host + "|", "percent"},
		{"utf-8 in target", "GET /caf\xc3\xa9 HTTP/1.1|" + host + "|", "not allowed"},
		{"no Host", "GET / HTTP/1.1|Accept: */*||", "no Host"},
		{"wrong Host", "GET / HTTP/1.1|Host: evil.example:8080||", "not this connection's host"},
		{"Host without non-default port", "GET / HTTP/1.1|Host: media.example||", "not this connection's host"},
		{"Host with wrong port", "GET / HTTP/1.1|Host: media.example:80||", "not this connection's host"},
		{"two Host headers", "GET / HTTP/1.1|" + host + host + "|", "more than once"},
		{"duplicate differing case", "GET / HTTP/1.1|" + host + "accept: a|Accept: b||", "more than once"},
		{"Cookie", "GET / HTTP/1.1|" + host + "Cookie: a=b||", "allowlist"},
		{"Authorization", "GET / HTTP/1.1|" + host + "Authorization: Basic eDp5||", "allowlist"},
		{"Proxy-Authorization", "GET / HTTP/1.1|" + host + "Proxy-Authorization: x||", "allowlist"},
		{"Transfer-Encoding", "GET / HTTP/1.1|" + host + "Transfer-Encoding: chunked||", "allowlist"},
		{"Content-Length", "GET / HTTP/1.1|" + host + "Content-Length: 5||", "allowlist"},
		{"Upgrade", "GET / HTTP/1.1|" + host + "Upgrade: websocket||", "allowlist"},
		{"Expect", "GET / HTTP/1.1|" + host + "Expect: 100-continue||", "allowlist"},
		{"X-Forwarded-For", "GET / HTTP/1.1|" + host + "X-Forwarded-For: 1.2.3.4||", "allowlist"},
		{"body after request", "GET / HTTP/1.1|" + host + "|hello", "incomplete"},
		{"smuggled second request without Host", "GET / HTTP/1.1|" + host + "|GET /admin HTTP/1.1||", "request 2"},
		{"incomplete second request", "GET / HTTP/1.1|" + host + "|GET / HTTP/1.1|" + host, "request 2"},
		{"bare LF line ending", "GET / HTTP/1.1\nHost: media.example:8080\n\n", "incomplete"},
		{"bare LF inside", "GET / HTTP/1.1|Host: media.example:8080\nCookie: a||", "0x0a"},
		{"bare CR inside header", "GET / HTTP/1.1|Host: media.example:8080\rX: y||", "0x0d"},
		{"NUL in header", "GET / HTTP/1.1|" + host + "Accept: a\x00b||", "0x00"},
		{"obs-text in header", "GET / HTTP/1.1|" + host + "User-Agent: caf\xc3\xa9||", "0xc3"},
		{"obs-fold", "GET / HTTP/1.1|" + host + "Accept: a| b||", "obs-fold"},
		{"space before colon", "GET / HTTP/1.1|Host : media.example:8080||", "not a token"},
		{"no colon", "GET / HTTP/1.1|" + host + "Accept||", "no ':'"},
		{"empty value", "GET / HTTP/1.1|" + host + "Accept: ||", "empty value"},
		{"gzip encoding", "GET / HTTP/1.1|" + host + "Accept-Encoding: gzip||", "not one of"},
		{"Connection: upgrade", "GET / HTTP/1.1|" + host + "Connection: upgrade||", "not one of"},
		{"multi-range", "GET / HTTP/1.1|" + host + "Range: bytes=0-1,5-6||", "not a decimal"},
		{"range inverted", "GET / HTTP/1.1|" + host + "Range: bytes=10-5||", "after last"},
		{"range other unit", "GET / HTTP/1.1|" + host + "Range: items=0-5||", "bytes="},
		{"range leading zero", "GET / HTTP/1.1|" + host + "Range: bytes=01-5||", "leading zero"},
		{"range empty", "GET / HTTP/1.1|" + host + "Range: bytes=-||", "neither"},
		{"range zero suffix", "GET / HTTP/1.1|" + host + "Range: bytes=-0||", "unsatisfiable"},
		{"range too many digits", "GET / HTTP/1.1|" + host + "Range: bytes=1234567890123456789-||", "decimal number"},
		{"cache-control other directive", "GET / HTTP/1.1|" + host + "Cache-Control: private||", "not allowed"},
		{"origin with path", "GET / HTTP/1.1|" + host + "Origin: https://a.example/x||", "not allowed"},
		{"origin other scheme", "GET / HTTP/1.1|" + host + "Origin: file://x||", "not an http"},
		{"user-agent with quote", "GET / HTTP/1.1|" + host + "User-Agent: a\"b||", "not allowed"},
		{"no final empty line", "GET / HTTP/1.1|" + host, "incomplete"},
		{"leading empty line", "|GET / HTTP/1.1|" + host + "|", "single spaces"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reqs, err := ParseRequests([]byte(crlf(tc.in)), testAuth, testReqLimits())
			if err == nil {
				t.Fatalf("accepted %d requests: %q", len(reqs), CanonicalBytes(reqs))
			}
			if !strings.Contains(err.Error(), tc.wantInErr) {
				t.Fatalf("error %q does not mention %q", err, tc.wantInErr)
			}
		})
	}
}

func TestParseRequestsLimits(t *testing.T) {
	one := crlf("GET / HTTP/1.1|Host: media.example:8080||")
	lim := testReqLimits()
	if _, err := ParseRequests([]byte(strings.Repeat(one, lim.MaxRequests)), testAuth, lim); err != nil {
		t.Fatalf("%d requests rejected: %v", lim.MaxRequests, err)
	}
	if _, err := ParseRequests([]byte(strings.Repeat(one, lim.MaxRequests+1)), testAuth, lim); err == nil {
		t.Fatalf("%d requests accepted", lim.MaxRequests+1)
	}
	long := crlf("GET /" + strings.Repeat("a", lim.MaxRequestBytes) + " HTTP/1.1|Host: media.example:8080||")
	if _, err := ParseRequests([]byte(long), testAuth, lim); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("oversized request: %v", err)
	}
	big := strings.Repeat(crlf("GET /"+strings.Repeat("b", 4000)+" HTTP/1.1|Host: media.example:8080||"), 5)
	if _, err := ParseRequests([]byte(big), testAuth, lim); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("oversized write: %v", err)
	}
	few := lim
	few.MaxHeadersPerReq = 2
	three := crlf("GET / HTTP/1.1|Host: media.example:8080|Accept: */*|Pragma: no-cache||")
	if _, err := ParseRequests([]byte(three), testAuth, few); err == nil || !strings.Contains(err.Error(), "more than 2 headers") {
		t.Fatalf("3 headers with a limit of 2: %v", err)
	}
}

// checkCanonicalInvariants asserts what every accepted write must satisfy: its canonical form parses to the
// same requests and re-serialises identically, and it contains only allowed, well-formed headers.
func checkCanonicalInvariants(t *testing.T, reqs []Request, auth Authority, lim RequestLimits) {
	canonical := CanonicalBytes(reqs)
	again, err := ParseRequests(canonical, auth, lim)
	if err != nil {
		t.Fatalf("canonical form rejected: %v\n%q", err, canonical)
	}
	if !bytes.Equal(CanonicalBytes(again), canonical) {
		t.Fatalf("canonical form not a fixed point:\n%q\n%q", canonical, CanonicalBytes(again))
	}
	if len(again) != len(reqs) {
		t.Fatalf("%d requests became %d", len(reqs), len(again))
	}
	for i, r := range reqs {
		if r.Method != again[i].Method || r.Target != again[i].Target || len(r.Headers) != len(again[i].Headers) {
			t.Fatalf("request %d changed on re-parse", i)
		}
		if r.Method != "GET" && r.Method != "HEAD" {
			t.Fatalf("method %q accepted", r.Method)
		}
		hosts := 0
		for j, h := range r.Headers {
			if h != again[i].Headers[j] {
				t.Fatalf("header %v became %v", h, again[i].Headers[j])
			}
			allowed, ok := allowedHeaders[strings.ToLower(h.Name)]
			if !ok || allowed.canonical != h.Name {
				t.Fatalf("header %q is not an allowed canonical name", h.Name)
			}
			if h.Name == "Host" {
				hosts++
			}
			if strings.ContainsAny(h.Value, "\r\n\x00") || h.Value == "" {
				t.Fatalf("header value %q", h.Value)
			}
		}
		if hosts != 1 {
			t.Fatalf("request %d has %d Host headers", i, hosts)
		}
	}
	if bytes.Count(canonical, []byte("\r\n\r\n")) != len(reqs) || !bytes.HasSuffix(canonical, []byte("\r\n\r\n")) {
		t.Fatalf("canonical form has a body or a stray empty line: %q", canonical)
	}
}

// FuzzGetValidator: anything ParseRequests accepts re-serialises to a canonical form that is accepted again,
// is a fixed point, and holds only GET/HEAD requests with allowed headers and exactly one Host.
func FuzzGetValidator(f *testing.F) {
	f.Add([]byte(crlf("GET / HTTP/1.1|Host: media.example:8080||")))
	f.Add([]byte(crlf("GET /seg-1.m4s HTTP/1.1|Host: media.example:8080|Range: bytes=0-99|Connection: keep-alive||GET /seg-2.m4s HTTP/1.1|host:media.example:8080||")))
	f.Add([]byte(crlf("HEAD /x?y=%41 HTTP/1.1|Host: MEDIA.EXAMPLE:8080|Cache-Control: no-cache ,  max-age=5|Origin: http://[::1]:99||")))
	f.Add([]byte(crlf("GET / HTTP/1.1|Host: media.example:8080|Cookie: a||")))
	f.Add([]byte("GET / HTTP/1.1\nHost: media.example:8080\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := testReqLimits()
		reqs, err := ParseRequests(data, testAuth, lim)
		if err != nil {
			return
		}
		if len(reqs) == 0 {
			t.Fatal("accepted with no requests")
		}
		checkCanonicalInvariants(t, reqs, testAuth, lim)
	})
}
