// addrpolicy_test.go: tables for the connect policy (addrpolicy.go): address classes including IPv6 and
// IPv4-mapped forms, the bad-port list, and host-name syntax.
package main

import (
	"net/netip"
	"strings"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	const (
		pub   = "public" // allowed always
		local = "local"  // allowed only with allowPrivate
		never = "never"  // refused always
	)
	cases := []struct{ ip, want string }{
		{"93.184.216.34", pub},
		{"8.8.8.8", pub},
		{"1.1.1.1", pub},
		{"172.15.255.255", pub},
		{"172.32.0.0", pub},
		{"100.63.255.255", pub},
		{"100.128.0.0", pub},
		{"127.0.0.1", local},
		{"127.255.255.254", local},
		{"10.201.1.2", local},
		{"172.16.0.1", local},
		{"172.31.255.255", local},
		{"192.168.1.1", local},
		{"100.64.0.1", local},
		{"100.127.255.255", local},
		{"169.254.169.254", local},
		{"198.18.0.1", local},
		{"192.0.2.1", local},
		{"192.0.0.8", local},
		{"0.0.0.0", never},
		{"0.1.2.3", never},
		{"224.0.0.1", never},
		{"239.255.255.250", never},
		{"255.255.255.255", never},
		{"240.0.0.1", never},
		{"2606:2800:220:1:248:1893:25c8:1946", pub},
		{"2a00:1450:4001:80b::200e", pub},
		{"::1", local},
		{"fc00::1", local},
		{"fd12:3456::1", local},
		{"fe80::1", local},
		{"fec0::1", local},
		{"2001:db8::1", local},
		{"2001::1", local},
		{"::", never},
		{"ff02::1", never},
		{"ff05::1:3", never},
		{"100::1", never},
		{"::7f00:1", never}, // IPv4-compatible ::127.0.0.1
		{"4000::1", never},  // outside 2000::/3
		{"::ffff:8.8.8.8", pub},
		{"::ffff:127.0.0.1", local},
		{"::ffff:10.0.0.1", local},
		{"::ffff:169.254.169.254", local},
		{"::ffff:0.0.0.0", never},
		{"::ffff:224.0.0.1", never},
		{"::ffff:255.255.255.255", never},
		{"64:ff9b::8.8.8.8", pub},
		{"64:ff9b::127.0.0.1", local},
		{"64:ff9b::10.1.2.3", local},
		{"64:ff9b::e000:1", never}, // NAT64 of 224.0.0.1
		{"64:ff9b:1::1", local},
		{"2002:0808:0808::1", pub},   // 6to4 of 8.8.8.8
		{"2002:7f00:0001::1", local}, // 6to4 of 127.0.0.1
		{"2002:c0a8:0101::1", local}, // 6to4 of 192.168.1.1
		{"2002:0000:0000::1", never}, // 6to4 of 0.0.0.0
	}
	for _, tc := range cases {
		ip := netip.MustParseAddr(tc.ip)
		errStrict := CheckAddr(ip, false)
		errPrivate := CheckAddr(ip, true)
		var got string
		switch {
		case errStrict == nil && errPrivate == nil:
			got = pub
		case errStrict != nil && errPrivate == nil:
			got = local
		case errStrict != nil && errPrivate != nil:
			got = never
		default:
			got = "inconsistent"
		}
		if got != tc.want {
			_, name := ClassifyAddr(ip)
			t.Errorf("%s: %s (%s), want %s", tc.ip, got, name, tc.want)
		}
		if errStrict != nil && !strings.Contains(errStrict.Error(), ip.String()) {
			t.Errorf("%s: error %q does not name the address", tc.ip, errStrict)
		}
	}
}

func TestCheckAddrRefusesZones(t *testing.T) {
	ip := netip.MustParseAddr("fe80::1%eth0")
	if err := CheckAddr(ip, true); err == nil {
		t.Fatal("scoped address accepted")
	}
}

func TestCheckPort(t *testing.T) {
	for _, p := range []int{80, 443, 8080, 8443, 3000, 1024, 65535, 10081, 6670} {
		if err := CheckPort(p); err != nil {
			t.Errorf("port %d refused: %v", p, err)
		}
	}
	// The complete Fetch bad-port list, as numbers, independently of the map in addrpolicy.go.
	fetchBadPorts := []int{1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95,
		101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
		512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995,
		1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679,
		6697, 10080}
	if len(fetchBadPorts) != len(badPorts) {
		t.Errorf("badPorts has %d entries, the Fetch list %d", len(badPorts), len(fetchBadPorts))
	}
	for _, p := range append(fetchBadPorts, 0, -1, 65536, 1<<20) {
		if err := CheckPort(p); err == nil {
			t.Errorf("port %d accepted", p)
		}
	}
}

func TestParseTarget(t *testing.T) {
	good := []struct{ in, name, ip string }{
		{"media.example", "media.example", ""},
		{"localhost", "localhost", ""},
		{"a-b.c_d.example", "a-b.c_d.example", ""},
		{"xn--bcher-kva.example", "xn--bcher-kva.example", ""},
		{"1a.example", "1a.example", ""},
		{"127.0.0.1", "", "127.0.0.1"},
		{"10.201.1.2", "", "10.201.1.2"},
		{"[::1]", "", "::1"},
		{"[2001:db8::1]", "", "2001:db8::1"},
		{"[::ffff:7f00:1]", "", "::ffff:127.0.0.1"},
	}
	for _, tc := range good {
		got, err := ParseTarget(tc.in)
		if err != nil {
			t.Errorf("%q refused: %v", tc.in, err)
			continue
		}
		if got.Name != tc.name || (tc.ip != "" && got.IP != netip.MustParseAddr(tc.ip)) || got.Authority != tc.in {
			t.Errorf("%q parsed as %+v", tc.in, got)
		}
	}
	bad := []string{
		"", "Media.Example", "media.example.", ".example", "a..b", "-a.example", "a-.example",
		"a b", "a/b", "a:80", "user@host", "[::1", "::1", "[::1%eth0]", "[127.0.0.1]", "[fe80::1%25eth0]",
		"127.1", "0x7f.1", "1.2.3.4.5", "0127.0.0.1", "host.123", "example.0x10",
		strings.Repeat("a", 64) + ".example", strings.Repeat("a.", 127) + "ab",
		"caf\u00e9.example", "a\x00b",
	}
	for _, in := range bad {
		if got, err := ParseTarget(in); err == nil {
			t.Errorf("%q accepted as %+v", in, got)
		}
	}
}
