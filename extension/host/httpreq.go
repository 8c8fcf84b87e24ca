// httpreq.go: the strict validator for the bytes an extension asks the host to write to a socket.
//
// The host writes only complete, well-formed HTTP/1.1 GET or HEAD requests for the connection's own host,
// with a short allowlist of headers and no body ("can never be told to write arbitrary
// bytes to an arbitrary port"). A `write` carries one or more such requests back to back (pipelining, paper
// §IV-B1); ParseRequests accepts all of them or none. What goes on the wire is not the extension's text but
// the canonical serialisation of what was parsed (Request.AppendCanonical), so only bytes this file
// produces ever reach a server.
//
// Accepted grammar (stricter than RFC 9112, on purpose):
//
//	request      = request-line *( header-line ) CRLF
//	request-line = ( "GET" / "HEAD" ) SP origin-form SP "HTTP/1.1" CRLF
//	origin-form  = "/" *( pchar / "/" / "?" )          ; pchar per RFC 3986, "%" must start "%" HEXDIG HEXDIG
//	header-line  = field-name ":" OWS field-value OWS CRLF
//
// field-name is matched case-insensitively against the allowlist (allowedHeaders); every header may appear
// at most once; Host is required. Bare LF, NUL and other control characters, obs-fold and bytes >= 0x80 are
// refused everywhere.
package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Request is one validated request in canonical form.
type Request struct {
	Method  string   // "GET" or "HEAD"
	Target  string   // origin-form request target (path and optional query)
	Headers []Header // in the order received; names in canonical case; Host is always present
}

// Header is one request header with its canonical name and canonical value.
type Header struct {
	Name  string
	Value string
}

// Authority is what the Host header must name: the connection's host and port.
type Authority struct {
	Host        string // as in Target.Authority: DNS name, IPv4 literal or "[IPv6]"
	Port        int
	DefaultPort int // 80 for plain connections, 443 for TLS: Host may then omit the port
}

// RequestLimits bound one write.
type RequestLimits struct {
	MaxWriteBytes    int
	MaxRequests      int
	MaxRequestBytes  int
	MaxHeadersPerReq int
}

// headerRule validates one header value and returns its canonical form.
type headerRule func(value string, auth Authority) (string, error)

// allowedHeaders maps the lower-case header name to its canonical name and value rule. Nothing else is
// accepted: in particular no Cookie, Authorization, Proxy-*, Transfer-Encoding, Content-Length, Upgrade,
// Expect, TE, Via, Forwarded or X-Forwarded-*.
var allowedHeaders = map[string]struct {
	canonical string
	rule      headerRule
}{
	"host":            {"Host", hostRule},
	"range":           {"Range", rangeRule},
	"accept":          {"Accept", textRule(256)},
	"accept-encoding": {"Accept-Encoding", enumRule("identity")},
	"user-agent":      {"User-Agent", textRule(256)},
	"connection":      {"Connection", enumRule("keep-alive", "close")},
	"cache-control":   {"Cache-Control", cacheControlRule},
	"pragma":          {"Pragma", enumRule("no-cache")},
	"origin":          {"Origin", originRule},
}

// ParseRequests validates data as one or more complete requests for auth and returns them.
// Any defect anywhere rejects the whole write; the error says which request and what is wrong.
func ParseRequests(data []byte, auth Authority, lim RequestLimits) ([]Request, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("no request bytes")
	}
	if len(data) > lim.MaxWriteBytes {
		return nil, fmt.Errorf("write is %d bytes, the limit is %d", len(data), lim.MaxWriteBytes)
	}
	var reqs []Request
	total := 0
	rest := data
	for len(rest) > 0 {
		if len(reqs) == lim.MaxRequests {
			return nil, fmt.Errorf("more than %d requests in one write", lim.MaxRequests)
		}
		end := bytes.Index(rest, []byte("\r\n\r\n"))
		if end < 0 {
			return nil, fmt.Errorf("request %d: incomplete (no empty line ending the header section)", len(reqs)+1)
		}
		end += 4
		if end > lim.MaxRequestBytes {
			return nil, fmt.Errorf("request %d is %d bytes, the limit is %d", len(reqs)+1, end, lim.MaxRequestBytes)
		}
		req, err := parseOneRequest(rest[:end-2], auth, lim) // keep the CRLF of the last header line
		if err != nil {
			return nil, fmt.Errorf("request %d: %v", len(reqs)+1, err)
		}
		// The canonical form is what gets written; it may be a few bytes longer than the input
		// ("Name:value" becomes "Name: value"), so the limits are checked on it as well.
		canonical := len(req.AppendCanonical(nil))
		if canonical > lim.MaxRequestBytes {
			return nil, fmt.Errorf("request %d is %d bytes in canonical form, the limit is %d", len(reqs)+1, canonical, lim.MaxRequestBytes)
		}
		total += canonical
		if total > lim.MaxWriteBytes {
			return nil, fmt.Errorf("write is %d bytes or more in canonical form, the limit is %d", total, lim.MaxWriteBytes)
		}
		reqs = append(reqs, req)
		rest = rest[end:]
	}
	return reqs, nil
}

// parseOneRequest parses lines each ending in CRLF (the final empty line already removed).
func parseOneRequest(block []byte, auth Authority, lim RequestLimits) (Request, error) {
	var req Request
	lineNo := 0
	seen := map[string]bool{}
	for len(block) > 0 {
		crlf := bytes.Index(block, []byte("\r\n"))
		if crlf < 0 {
			return Request{}, fmt.Errorf("line %d does not end in CRLF", lineNo+1)
		}
		line := string(block[:crlf])
		block = block[crlf+2:]
		lineNo++
		if err := checkLineBytes(line); err != nil {
			return Request{}, fmt.Errorf("line %d: %v", lineNo, err)
		}
		if lineNo == 1 {
			method, target, err := parseRequestLine(line)
			if err != nil {
				return Request{}, fmt.Errorf("request line: %v", err)
			}
			req.Method, req.Target = method, target
			continue
		}
		if len(req.Headers) == lim.MaxHeadersPerReq {
			return Request{}, fmt.Errorf("more than %d headers", lim.MaxHeadersPerReq)
		}
		h, err := parseHeaderLine(line, auth)
		if err != nil {
			return Request{}, fmt.Errorf("line %d: %v", lineNo, err)
		}
		key := strings.ToLower(h.Name)
		if seen[key] {
			return Request{}, fmt.Errorf("line %d: header %s appears more than once", lineNo, h.Name)
		}
		seen[key] = true
		req.Headers = append(req.Headers, h)
	}
	if lineNo == 0 {
		return Request{}, fmt.Errorf("empty request")
	}
	if !seen["host"] {
		return Request{}, fmt.Errorf("no Host header")
	}
	return req, nil
}

// checkLineBytes refuses control characters (except HTAB), DEL and bytes >= 0x80. CR and LF cannot occur
// inside a line because lines are split at CRLF; a lone CR or LF is caught here.
func checkLineBytes(line string) error {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\t' {
			continue
		}
		if c < 0x20 || c >= 0x7f {
			return fmt.Errorf("byte 0x%02x at column %d is not allowed", c, i+1)
		}
	}
	return nil
}

func parseRequestLine(line string) (method, target string, err error) {
	parts := strings.Split(line, " ")
	if len(parts) != 3 {
		return "", "", fmt.Errorf("%q is not METHOD SP TARGET SP VERSION with single spaces", line)
	}
	method, target, version := parts[0], parts[1], parts[2]
	if method != "GET" && method != "HEAD" {
		return "", "", fmt.Errorf("method %q is not allowed (GET or HEAD only)", method)
	}
	if version != "HTTP/1.1" {
		return "", "", fmt.Errorf("version %q is not HTTP/1.1", version)
	}
	if err := checkOriginForm(target); err != nil {
		return "", "", err
	}
	return method, target, nil
}

// checkOriginForm accepts "/" followed by RFC 3986 pchar, "/" and "?" with well-formed percent escapes.
func checkOriginForm(target string) error {
	if target == "" || target[0] != '/' {
		return fmt.Errorf("request target %q does not start with '/'", target)
	}
	for i := 0; i < len(target); i++ {
		c := target[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=:@/?", c) >= 0:
		case c == '%':
			if i+2 >= len(target) || !isHexDigit(target[i+1]) || !isHexDigit(target[i+2]) {
				return fmt.Errorf("request target has a malformed percent escape at column %d", i+1)
			}
			i += 2
		default:
			return fmt.Errorf("request target has character %q at column %d that is not allowed", c, i+1)
		}
	}
	return nil
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func parseHeaderLine(line string, auth Authority) (Header, error) {
	if line[0] == ' ' || line[0] == '\t' {
		return Header{}, fmt.Errorf("line folding (obs-fold) is not allowed")
	}
	colon := strings.IndexByte(line, ':')
	if colon < 0 {
		return Header{}, fmt.Errorf("header line has no ':'")
	}
	name := line[:colon]
	if !isToken(name) {
		return Header{}, fmt.Errorf("header name %q is not a token", name)
	}
	allowed, ok := allowedHeaders[strings.ToLower(name)]
	if !ok {
		return Header{}, fmt.Errorf("header %q is not on the allowlist", name)
	}
	value := strings.Trim(line[colon+1:], " \t")
	if value == "" {
		return Header{}, fmt.Errorf("header %s has an empty value", allowed.canonical)
	}
	canonical, err := allowed.rule(value, auth)
	if err != nil {
		return Header{}, fmt.Errorf("header %s: %v", allowed.canonical, err)
	}
	return Header{Name: allowed.canonical, Value: canonical}, nil
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// hostRule: the Host header must name the connection's host, with its port, or without it when the port
// is the scheme's default. Compared case-insensitively; canonical form is lower case.
func hostRule(value string, auth Authority) (string, error) {
	got := strings.ToLower(value)
	host := strings.ToLower(auth.Host)
	withPort := host + ":" + strconv.Itoa(auth.Port)
	if got == withPort || (got == host && auth.Port == auth.DefaultPort) {
		return got, nil
	}
	if auth.Port == auth.DefaultPort {
		return "", fmt.Errorf("%q is not this connection's host (%s or %s)", value, host, withPort)
	}
	return "", fmt.Errorf("%q is not this connection's host (%s)", value, withPort)
}

// rangeRule accepts one byte range: "bytes=FIRST-LAST", "bytes=FIRST-" or "bytes=-SUFFIX" with decimal
// numbers of at most 18 digits and FIRST <= LAST.
func rangeRule(value string, _ Authority) (string, error) {
	spec, ok := strings.CutPrefix(value, "bytes=")
	if !ok {
		return "", fmt.Errorf("%q does not start with \"bytes=\"", value)
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok {
		return "", fmt.Errorf("%q has no '-'", value)
	}
	if first == "" && last == "" {
		return "", fmt.Errorf("%q has neither first nor last position", value)
	}
	firstN, err := rangeNumber(first, true)
	if err != nil {
		return "", fmt.Errorf("%q: first position %v", value, err)
	}
	lastN, err := rangeNumber(last, true)
	if err != nil {
		return "", fmt.Errorf("%q: last position %v", value, err)
	}
	if first != "" && last != "" && firstN > lastN {
		return "", fmt.Errorf("%q: first position is after last position", value)
	}
	if first == "" && lastN == 0 {
		return "", fmt.Errorf("%q: a suffix range of 0 bytes is unsatisfiable", value)
	}
	return "bytes=" + first + "-" + last, nil
}

func rangeNumber(s string, emptyOK bool) (int64, error) {
	if s == "" && emptyOK {
		return 0, nil
	}
	if s == "" || len(s) > 18 || !isAllDigits(s) {
		return 0, fmt.Errorf("%q is not a decimal number of 1 to 18 digits", s)
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, fmt.Errorf("%q has a leading zero", s)
	}
	return strconv.ParseInt(s, 10, 64)
}

// textRule accepts visible ASCII and inner spaces, except '"' and '\', up to max characters.
func textRule(max int) headerRule {
	return func(value string, _ Authority) (string, error) {
		if len(value) > max {
			return "", fmt.Errorf("value is %d characters, the limit is %d", len(value), max)
		}
		for i := 0; i < len(value); i++ {
			c := value[i]
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return "", fmt.Errorf("character %q at column %d is not allowed", c, i+1)
			}
		}
		return value, nil
	}
}

// enumRule accepts one of the listed values, case-insensitively; canonical form is the listed spelling.
func enumRule(options ...string) headerRule {
	return func(value string, _ Authority) (string, error) {
		for _, o := range options {
			if strings.EqualFold(value, o) {
				return o, nil
			}
		}
		return "", fmt.Errorf("%q is not one of %s", value, strings.Join(options, ", "))
	}
}

// cacheControlRule accepts comma-separated directives from a small set: no-cache, no-store, max-age=N.
func cacheControlRule(value string, _ Authority) (string, error) {
	var out []string
	for _, d := range strings.Split(value, ",") {
		d = strings.ToLower(strings.Trim(d, " \t"))
		switch {
		case d == "no-cache" || d == "no-store":
		case strings.HasPrefix(d, "max-age="):
			n := d[len("max-age="):]
			if n == "" || len(n) > 9 || !isAllDigits(n) {
				return "", fmt.Errorf("directive %q needs 1 to 9 decimal digits", d)
			}
		default:
			return "", fmt.Errorf("directive %q is not allowed (no-cache, no-store, max-age=N)", d)
		}
		out = append(out, d)
	}
	canonical := strings.Join(out, ", ")
	if len(canonical) > 64 {
		return "", fmt.Errorf("value is %d characters in canonical form, the limit is 64", len(canonical))
	}
	return canonical, nil
}

// originRule accepts "null" or a serialised http(s) origin: scheme "://" host [":" port], lower case.
func originRule(value string, _ Authority) (string, error) {
	if value == "null" {
		return value, nil
	}
	if len(value) > 300 {
		return "", fmt.Errorf("value is %d characters, the limit is 300", len(value))
	}
	rest, ok := strings.CutPrefix(value, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(value, "http://")
	}
	if !ok {
		return "", fmt.Errorf("%q is not an http or https origin", value)
	}
	host, port := rest, ""
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.HasSuffix(rest, "]") {
		host, port = rest[:i], rest[i+1:]
		if port == "" || len(port) > 5 || !isAllDigits(port) || port[0] == '0' {
			return "", fmt.Errorf("%q has a malformed port", value)
		}
		if n, _ := strconv.Atoi(port); n > 65535 {
			return "", fmt.Errorf("%q has a port above 65535", value)
		}
	}
	if _, err := ParseTarget(host); err != nil {
		return "", fmt.Errorf("%q: %v", value, err)
	}
	return value, nil
}

// AppendCanonical appends the canonical wire form of r: request line, headers as "Name: value", CRLFs.
func (r Request) AppendCanonical(dst []byte) []byte {
	dst = append(dst, r.Method...)
	dst = append(dst, ' ')
	dst = append(dst, r.Target...)
	dst = append(dst, " HTTP/1.1\r\n"...)
	for _, h := range r.Headers {
		dst = append(dst, h.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, h.Value...)
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// CanonicalBytes serialises requests back to back, as they are written to the socket.
func CanonicalBytes(reqs []Request) []byte {
	var out []byte
	for _, r := range reqs {
		out = r.AppendCanonical(out)
	}
	return out
}
