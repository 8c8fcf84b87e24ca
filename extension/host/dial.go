// dial.go: opening a connection: resolve once, check every address, connect to a checked address, TLS.
//
// DNS-rebinding safety: the name is resolved exactly once, every returned address must pass the address
// policy (addrpolicy.go) or the open is refused, and the TCP connect goes to one of those checked IP
// addresses: there is no second lookup. A socket Control hook re-checks the address actually connected to.
// TLS uses crypto/tls with the configured roots, SNI and hostname verification against the requested host,
// and offers only ALPN "http/1.1" (the pipelining in src/http/ speaks HTTP/1.1 only).
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Resolver looks a DNS name up; the default is net.DefaultResolver.LookupNetIP(ctx, "ip", name).
type Resolver func(ctx context.Context, name string) ([]netip.Addr, error)

func defaultResolver(ctx context.Context, name string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", name)
}

// dialed is an established connection and how it was established.
type dialed struct {
	tcp       *net.TCPConn // the TCP socket (TCP_INFO, close)
	conn      net.Conn     // what requests are written to and responses read from: tcp or a *tls.Conn over it
	addresses []netip.Addr
	remote    netip.AddrPort
	tlsState  *tls.ConnectionState
	dnsMs     float64
	connectMs float64
	tlsMs     float64
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

// dialTarget performs an open command within ctx (which carries the connect timeout).
func dialTarget(ctx context.Context, cmd Command, roots *x509.CertPool, resolve Resolver) (*dialed, *ProtoError) {
	d := &dialed{}
	authority := cmd.Target.Authority
	if cmd.Target.IP.IsValid() {
		d.addresses = []netip.Addr{cmd.Target.IP}
	} else {
		start := time.Now()
		addrs, err := resolve(ctx, cmd.Target.Name)
		d.dnsMs = msSince(start)
		if err != nil {
			return nil, protoErr(CodeDNSFailed, "resolving %s: %v", cmd.Target.Name, err)
		}
		if len(addrs) == 0 {
			return nil, protoErr(CodeDNSFailed, "resolving %s: no addresses", cmd.Target.Name)
		}
		d.addresses = addrs
	}
	for _, ip := range d.addresses {
		if err := CheckAddr(ip, cmd.AllowPrivate); err != nil {
			if len(d.addresses) > 1 || cmd.Target.Name != "" {
				return nil, protoErr(CodeForbiddenAddress, "%s: %v (every address of a host must be allowed)", authority, err)
			}
			return nil, protoErr(CodeForbiddenAddress, "%v", err)
		}
	}

	var lastErr error
	for i, ip := range d.addresses {
		dest := netip.AddrPortFrom(ip.Unmap(), uint16(cmd.Port))
		deadline, _ := ctx.Deadline()
		perAttempt := time.Until(deadline) / time.Duration(len(d.addresses)-i)
		dialer := net.Dialer{
			Timeout: perAttempt,
			ControlContext: func(_ context.Context, network, address string, _ syscall.RawConn) error {
				got, err := netip.ParseAddrPort(address)
				if err != nil || got.Addr().Unmap() != dest.Addr() || got.Port() != dest.Port() {
					return fmt.Errorf("refusing to connect to %s: expected the checked address %s", address, dest)
				}
				return nil
			},
		}
		start := time.Now()
		c, err := dialer.DialContext(ctx, "tcp", dest.String())
		if err != nil {
			lastErr = err
			if ctx.Err() != nil {
				break
			}
			continue
		}
		d.connectMs = msSince(start)
		d.tcp = c.(*net.TCPConn)
		d.conn = c
		d.remote = dest
		break
	}
	if d.tcp == nil {
		return nil, protoErr(CodeConnectFailed, "connecting to %s port %d: %v", authority, cmd.Port, describeNetErr(lastErr))
	}
	if !cmd.TLS {
		return d, nil
	}

	serverName := cmd.Target.Name
	if serverName == "" {
		serverName = cmd.Target.IP.String() // verified against the certificate's IP SANs; no SNI is sent
	}
	tc := tls.Client(d.tcp, &tls.Config{
		ServerName: serverName,
		RootCAs:    roots,
		NextProtos: []string{"http/1.1"},
		MinVersion: tls.VersionTLS12,
	})
	start := time.Now()
	if err := tc.HandshakeContext(ctx); err != nil {
		d.tcp.Close()
		return nil, protoErr(CodeTLSFailed, "TLS handshake with %s port %d: %v", authority, cmd.Port, describeNetErr(err))
	}
	d.tlsMs = msSince(start)
	state := tc.ConnectionState()
	d.tlsState = &state
	d.conn = tc
	return d, nil
}

// describeNetErr shortens Go's nested network errors to what a person needs.
func describeNetErr(err error) string {
	if err == nil {
		return "no address to try"
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return "timed out"
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		return strings.TrimPrefix(opErr.Err.Error(), "connect: ")
	}
	return err.Error()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func tlsVersionName(v uint16) string {
	switch v {
	case tls.VersionTLS12:
		return "TLS 1.2"
	case tls.VersionTLS13:
		return "TLS 1.3"
	}
	return fmt.Sprintf("0x%04x", v)
}

func tlsCipherName(id uint16) string { return tls.CipherSuiteName(id) }
