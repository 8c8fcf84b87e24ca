// addrpolicy.go: where the host may connect. Host-name syntax, the port blocklist and the address classes.
//
// The host must never become an open proxy into the user's network. An `open` names a
// host and a port; this file decides whether that is acceptable:
//   - the host is a DNS name, an IPv4 literal or a bracketed IPv6 literal, as in a URL's hostname
//     (DNS names in lower case, no zone, no trailing dot);
//   - the port is 1..65535 and not on the Fetch standard's "bad port" list, which browsers refuse for fetch();
//   - every address the name resolves to is a public unicast address, unless the extension says the page
//     itself is served from that host (allowPrivate), which additionally admits loopback, private, CGNAT,
//     link-local, unique-local and the special-purpose ranges; unspecified, "this network", multicast,
//     broadcast and reserved addresses are refused always.
//
// IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses are judged by the IPv4
// address they carry.
package main

import (
	"fmt"
	"net/netip"
	"strings"
)

// badPorts is the Fetch standard's port blocklist ("bad port", https://fetch.spec.whatwg.org/#port-blocking).
var badPorts = map[int]string{
	1: "tcpmux", 7: "echo", 9: "discard", 11: "systat", 13: "daytime", 15: "netstat", 17: "qotd",
	19: "chargen", 20: "ftp-data", 21: "ftp", 22: "ssh", 23: "telnet", 25: "smtp", 37: "time", 42: "name",
	43: "nicname", 53: "domain", 69: "tftp", 77: "priv-rjs", 79: "finger", 87: "ttylink", 95: "supdup",
	101: "hostname", 102: "iso-tsap", 103: "gppitnp", 104: "acr-nema", 109: "pop2", 110: "pop3",
	111: "sunrpc", 113: "auth", 115: "sftp", 117: "uucp-path", 119: "nntp", 123: "ntp", 135: "epmap",
	137: "netbios-ns", 139: "netbios-ssn", 143: "imap", 161: "snmp", 179: "bgp", 389: "ldap", 427: "svrloc",
	465: "submissions", 512: "exec", 513: "login", 514: "shell", 515: "printer", 526: "tempo",
	530: "courier", 531: "chat", 532: "netnews", 540: "uucp", 548: "afp", 554: "rtsp", 556: "remotefs",
	563: "nntps", 587: "submission", 601: "syslog-conn", 636: "ldaps", 989: "ftps-data", 990: "ftps",
	993: "imaps", 995: "pop3s", 1719: "h323gatestat", 1720: "h323hostcall", 1723: "pptp", 2049: "nfs",
	3659: "apple-sasl", 4045: "npp", 4190: "sieve", 5060: "sip", 5061: "sips", 6000: "x11",
	6566: "sane-port", 6665: "ircu", 6666: "ircu", 6667: "ircu", 6668: "ircu", 6669: "ircu",
	6679: "osaut", 6697: "ircs-u", 10080: "amanda",
}

// CheckPort returns nil if the host may connect to port, or an error saying why not.
func CheckPort(port int) error {
	if port < 1 || port > 65535 {
		return fmt.Errorf("port %d is outside 1..65535", port)
	}
	if name, bad := badPorts[port]; bad {
		return fmt.Errorf("port %d (%s) is on the Fetch standard's bad-port list", port, name)
	}
	return nil
}

// Target is a validated `open` destination host: either a DNS name or an IP literal.
type Target struct {
	Name string     // DNS name (lower case), empty for IP literals
	IP   netip.Addr // IP literal, invalid for DNS names
	// Authority is how the host appears in a URL and in the Host header: the name, the IPv4 literal,
	// or the IPv6 literal in brackets.
	Authority string
}

// ParseTarget validates the `host` field of an open request.
func ParseTarget(host string) (Target, error) {
	if host == "" {
		return Target{}, fmt.Errorf("host is empty")
	}
	if len(host) > 253 {
		return Target{}, fmt.Errorf("host is %d characters long, the limit is 253", len(host))
	}
	if strings.HasPrefix(host, "[") {
		if !strings.HasSuffix(host, "]") {
			return Target{}, fmt.Errorf("host %q: IPv6 literal without closing bracket", host)
		}
		inner := host[1 : len(host)-1]
		ip, err := netip.ParseAddr(inner)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return Target{}, fmt.Errorf("host %q is not a bracketed IPv6 literal without zone", host)
		}
		return Target{IP: ip, Authority: host}, nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !ip.Is4() {
			return Target{}, fmt.Errorf("host %q: IPv6 literals must be in brackets", host)
		}
		return Target{IP: ip, Authority: host}, nil
	}
	if err := checkDNSName(host); err != nil {
		return Target{}, fmt.Errorf("host %q: %v", host, err)
	}
	return Target{Name: host, Authority: host}, nil
}

// checkDNSName accepts lower-case LDH names (plus '_', which URLs allow and some real hosts use).
// A name whose last label is numeric is refused: the URL standard would read it as an IPv4 address.
func checkDNSName(name string) error {
	labels := strings.Split(name, ".")
	for i, label := range labels {
		if label == "" {
			if i == len(labels)-1 {
				return fmt.Errorf("trailing dot is not accepted")
			}
			return fmt.Errorf("empty label")
		}
		if len(label) > 63 {
			return fmt.Errorf("label %q is longer than 63 characters", label)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("label %q starts or ends with '-'", label)
		}
		for j := 0; j < len(label); j++ {
			c := label[j]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("character %q is not allowed (lower-case letters, digits, '-' and '_' only)", c)
			}
		}
	}
	last := labels[len(labels)-1]
	if isAllDigits(last) || strings.HasPrefix(last, "0x") && isHex(last[2:]) {
		return fmt.Errorf("last label %q is numeric (the URL standard reads such a name as IPv4)", last)
	}
	return nil
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// AddrClass says what kind of address an IP is, for the connect policy.
type AddrClass int

const (
	ClassPublic    AddrClass = iota // global unicast: always allowed
	ClassLocal                      // needs allowPrivate: loopback, private, CGNAT, link-local, ULA, special-purpose
	ClassForbidden                  // never: unspecified, this-network, multicast, broadcast, reserved
)

type classifiedPrefix struct {
	prefix netip.Prefix
	class  AddrClass
	name   string
}

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// v4Table lists the IPv4 ranges that are not public. First match wins; order from specific to general
// where prefixes nest (255.255.255.255/32 inside 240.0.0.0/4 only changes the name).
var v4Table = []classifiedPrefix{
	{mustPrefix("0.0.0.0/8"), ClassForbidden, "this network / unspecified"},
	{mustPrefix("10.0.0.0/8"), ClassLocal, "private (RFC 1918)"},
	{mustPrefix("100.64.0.0/10"), ClassLocal, "shared address space (CGNAT)"},
	{mustPrefix("127.0.0.0/8"), ClassLocal, "loopback"},
	{mustPrefix("169.254.0.0/16"), ClassLocal, "link-local"},
	{mustPrefix("172.16.0.0/12"), ClassLocal, "private (RFC 1918)"},
	{mustPrefix("192.0.0.0/24"), ClassLocal, "IETF protocol assignments"},
	{mustPrefix("192.0.2.0/24"), ClassLocal, "documentation (TEST-NET-1)"},
	{mustPrefix("192.88.99.0/24"), ClassLocal, "6to4 relay anycast"},
	{mustPrefix("192.168.0.0/16"), ClassLocal, "private (RFC 1918)"},
	{mustPrefix("198.18.0.0/15"), ClassLocal, "benchmarking"},
	{mustPrefix("198.51.100.0/24"), ClassLocal, "documentation (TEST-NET-2)"},
	{mustPrefix("203.0.113.0/24"), ClassLocal, "documentation (TEST-NET-3)"},
	{mustPrefix("224.0.0.0/4"), ClassForbidden, "multicast"},
	{mustPrefix("255.255.255.255/32"), ClassForbidden, "broadcast"},
	{mustPrefix("240.0.0.0/4"), ClassForbidden, "reserved"},
}

// v6Table lists the IPv6 ranges that are not public; anything outside 2000::/3 that is not listed is
// reserved (forbidden). IPv4-mapped, NAT64 and 6to4 are handled before this table.
var v6Table = []classifiedPrefix{
	{mustPrefix("::/128"), ClassForbidden, "unspecified"},
	{mustPrefix("::1/128"), ClassLocal, "loopback"},
	{mustPrefix("::/96"), ClassForbidden, "IPv4-compatible (deprecated)"},
	{mustPrefix("64:ff9b:1::/48"), ClassLocal, "local-use NAT64"},
	{mustPrefix("100::/64"), ClassForbidden, "discard-only"},
	{mustPrefix("2001:db8::/32"), ClassLocal, "documentation"},
	{mustPrefix("2001::/23"), ClassLocal, "IETF protocol assignments (incl. Teredo)"},
	{mustPrefix("3fff::/20"), ClassLocal, "documentation"},
	{mustPrefix("fc00::/7"), ClassLocal, "unique-local"},
	{mustPrefix("fe80::/10"), ClassLocal, "link-local"},
	{mustPrefix("fec0::/10"), ClassLocal, "site-local (deprecated)"},
	{mustPrefix("ff00::/8"), ClassForbidden, "multicast"},
}

var (
	nat64Prefix    = mustPrefix("64:ff9b::/96")
	sixToFourRange = mustPrefix("2002::/16")
	globalUnicast6 = mustPrefix("2000::/3")
)

// ClassifyAddr returns the class of ip and a short human name for that class.
func ClassifyAddr(ip netip.Addr) (AddrClass, string) {
	if !ip.IsValid() {
		return ClassForbidden, "invalid address"
	}
	if ip.Zone() != "" {
		return ClassForbidden, "scoped address (zone)"
	}
	if ip.Is4In6() {
		class, name := ClassifyAddr(ip.Unmap())
		return class, "IPv4-mapped " + name
	}
	if ip.Is4() {
		for _, e := range v4Table {
			if e.prefix.Contains(ip) {
				return e.class, e.name
			}
		}
		return ClassPublic, "public"
	}
	b := ip.As16()
	if nat64Prefix.Contains(ip) {
		class, name := ClassifyAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		return class, "NAT64 " + name
	}
	if sixToFourRange.Contains(ip) {
		class, name := ClassifyAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		return class, "6to4 " + name
	}
	for _, e := range v6Table {
		if e.prefix.Contains(ip) {
			return e.class, e.name
		}
	}
	if globalUnicast6.Contains(ip) {
		return ClassPublic, "public"
	}
	return ClassForbidden, "reserved"
}

// CheckAddr returns nil if the host may connect to ip, or an error naming the address and its class.
func CheckAddr(ip netip.Addr, allowPrivate bool) error {
	class, name := ClassifyAddr(ip)
	switch class {
	case ClassPublic:
		return nil
	case ClassLocal:
		if allowPrivate {
			return nil
		}
		return fmt.Errorf("address %s is %s; allowed only with allowPrivate (page served from this host)", ip, name)
	default:
		return fmt.Errorf("address %s is %s; never allowed", ip, name)
	}
}
