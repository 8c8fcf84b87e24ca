// host.go: the session: reads commands from the browser, dispatches them, owns the connection table.
//
// One Host serves one native-messaging port (one browser connection to the host process). The dispatcher
// runs on one goroutine and never blocks on the network: opens run on their own goroutine, writes are queued
// to the connection's writer, acks/close/tcpInfo are immediate. The session ends when the browser closes
// stdin; every connection is then closed.
package main

import (
	"context"
	"errors"
	"io"
	"log"
	"runtime"
	"sync"
	"time"
)

// Host is one native-messaging session.
type Host struct {
	cfg     Config
	logger  *log.Logger
	resolve Resolver
	out     *Outbox

	ctx    context.Context // cancelled when the session ends: aborts opens in progress
	cancel context.CancelFunc

	helloDone bool // dispatcher goroutine only

	mu           sync.Mutex
	conns        map[uint64]*Conn
	slots        int // connections open or opening
	nextConn     uint64
	shuttingDown bool

	goroutines sync.WaitGroup // open and reader goroutines
}

// NewHost creates a session with cfg. A nil resolver means the system resolver.
func NewHost(cfg Config, resolve Resolver) *Host {
	if cfg.Logger == nil {
		cfg.Logger = log.New(io.Discard, "", 0)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if resolve == nil {
		resolve = defaultResolver
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Host{cfg: cfg, logger: cfg.Logger, resolve: resolve, ctx: ctx, cancel: cancel, conns: map[uint64]*Conn{}}
}

// now is the event timestamp: unix milliseconds with sub-millisecond precision.
func (h *Host) now() float64 { return float64(h.cfg.Now().UnixNano()) / 1e6 }

// Run serves commands from in and writes replies and events to out until in ends. It returns nil when the
// browser closed the port cleanly, or the framing error that ended the session.
func (h *Host) Run(in io.Reader, out io.Writer) error {
	h.out = NewOutbox(out, h.cfg.Limits.MaxOutboundBytes, h.logger)
	var runErr error
	for {
		payload, err := ReadFrame(in, h.cfg.Limits.MaxInboundBytes)
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrFrameTooLarge) {
			h.reply(nil, nil, protoErr(CodeLimit, "%v", err))
			continue
		}
		if err != nil {
			runErr = err
			h.logger.Printf("ending session: %v", err)
			break
		}
		h.handle(payload)
	}
	h.shutdown()
	return runErr
}

// shutdown closes every connection, waits for all goroutines and flushes the outbox.
func (h *Host) shutdown() {
	h.cancel()
	h.mu.Lock()
	h.shuttingDown = true
	conns := make([]*Conn, 0, len(h.conns))
	for _, c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.beginClose("local", "host session ended")
	}
	h.goroutines.Wait()
	h.out.Close()
}

// reply sends the reply to a command: result when perr is nil, else the error.
func (h *Host) reply(id *int64, result any, perr *ProtoError) {
	if perr != nil {
		h.out.Send(errReply(id, perr))
		return
	}
	h.out.Send(okReply(*id, result))
}

// handle validates and executes one command.
func (h *Host) handle(payload []byte) {
	cmd, hasID, perr := ParseCommand(payload, h.cfg.Limits)
	if perr != nil {
		var id *int64
		if hasID {
			id = &cmd.ID
		}
		h.reply(id, nil, perr)
		return
	}
	id := &cmd.ID
	if cmd.Op != "hello" && !h.helloDone {
		h.reply(id, nil, protoErr(CodeHelloRequired, "send hello before %q", cmd.Op))
		return
	}
	switch cmd.Op {
	case "hello":
		if cmd.Protocol != ProtocolVersion {
			h.reply(id, nil, protoErr(CodeUnsupportedProtocol, "protocol %d requested; this host (version %s) speaks protocol %d only", cmd.Protocol, HostVersion, ProtocolVersion))
			return
		}
		h.helloDone = true
		h.reply(id, HelloResult{Name: "sprint-host", Protocol: ProtocolVersion, HostVersion: HostVersion,
			OS: runtime.GOOS, Arch: runtime.GOARCH, TCPInfo: tcpInfoSupported, Limits: h.cfg.Limits}, nil)
	case "open":
		h.open(cmd)
	case "write":
		c, perr := h.lookup(cmd.Conn)
		if perr == nil {
			perr = h.write(c, cmd)
		}
		if perr != nil {
			h.reply(id, nil, perr)
		}
	case "ack":
		c, perr := h.lookup(cmd.Conn)
		if perr == nil {
			perr = c.ack(cmd.Offset)
		}
		if perr != nil {
			h.reply(id, nil, perr)
		}
	case "close":
		c, perr := h.lookup(cmd.Conn)
		if perr != nil {
			h.reply(id, nil, perr)
			return
		}
		c.beginClose("local", "")
		h.reply(id, ConnResult{Conn: c.id}, nil)
	case "tcpInfo":
		c, perr := h.lookup(cmd.Conn)
		if perr != nil {
			h.reply(id, nil, perr)
			return
		}
		res, perr := c.tcpInfo()
		h.reply(id, res, perr)
	default:
		h.reply(id, nil, protoErr(CodeInternal, "op %q validated but not dispatched", cmd.Op))
	}
}

func (h *Host) lookup(conn uint64) (*Conn, *ProtoError) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.conns[conn]
	if !ok {
		return nil, protoErr(CodeUnknownConn, "no open connection %d", conn)
	}
	return c, nil
}

// write validates the request text against the connection's authority and queues the canonical bytes.
func (h *Host) write(c *Conn, cmd Command) *ProtoError {
	lim := h.cfg.Limits
	reqs, err := ParseRequests([]byte(cmd.Requests), c.authority(), RequestLimits{
		MaxWriteBytes: lim.MaxWriteBytes, MaxRequests: lim.MaxRequestsPerWrite,
		MaxRequestBytes: lim.MaxRequestBytes, MaxHeadersPerReq: lim.MaxHeadersPerReq,
	})
	if err != nil {
		return protoErr(CodeBadRequestBytes, "%v; nothing was written", err)
	}
	return c.enqueueWrite(writeJob{id: cmd.ID, bytes: CanonicalBytes(reqs), requests: len(reqs)})
}

// open reserves a connection slot and dials on its own goroutine; the reply comes from there.
func (h *Host) open(cmd Command) {
	id := cmd.ID
	if cmd.SampleIntervalMs > 0 && !tcpInfoSupported {
		h.reply(&id, nil, protoErr(CodeTCPInfoUnavailable, "sampleIntervalMs needs TCP_INFO, which this OS lacks"))
		return
	}
	h.mu.Lock()
	if h.slots >= h.cfg.Limits.MaxConnections {
		h.mu.Unlock()
		h.reply(&id, nil, protoErr(CodeTooManyConnections, "%d connections are already open or opening", h.cfg.Limits.MaxConnections))
		return
	}
	h.slots++
	h.mu.Unlock()

	h.goroutines.Add(1)
	go func() {
		defer h.goroutines.Done()
		lim := h.cfg.Limits
		timeoutMs := lim.DefaultConnectMs
		if cmd.ConnectTimeoutMs > 0 {
			timeoutMs = cmd.ConnectTimeoutMs
		}
		ctx, cancel := context.WithTimeout(h.ctx, time.Duration(timeoutMs)*time.Millisecond)
		defer cancel()
		d, perr := dialTarget(ctx, cmd, h.cfg.RootCAs, h.resolve)
		if perr != nil {
			h.releaseSlot()
			h.logger.Printf("open %s port %d refused: %s", cmd.Target.Authority, cmd.Port, perr.Message)
			h.reply(&id, nil, perr)
			return
		}
		window, chunk := lim.DefaultWindowBytes, lim.DefaultChunkBytes
		if cmd.WindowBytes > 0 {
			window = cmd.WindowBytes
		}
		if cmd.ChunkBytes > 0 {
			chunk = cmd.ChunkBytes
		}
		h.mu.Lock()
		if h.shuttingDown {
			h.mu.Unlock()
			d.tcp.Close()
			h.releaseSlot()
			h.reply(&id, nil, protoErr(CodeConnClosed, "host session ended during open"))
			return
		}
		h.nextConn++
		c := newConn(h, h.nextConn, cmd, d, window, chunk)
		h.conns[c.id] = c
		h.mu.Unlock()

		res := OpenedResult{Conn: c.id, Host: cmd.Target.Authority, Port: cmd.Port, TLS: cmd.TLS,
			RemoteAddr: d.remote.String(), LocalAddr: d.tcp.LocalAddr().String(),
			WindowBytes: window, ChunkBytes: chunk, DNSMs: d.dnsMs, ConnectMs: d.connectMs, TLSMs: d.tlsMs, T: h.now()}
		for _, a := range d.addresses {
			res.Addresses = append(res.Addresses, a.String())
		}
		if d.tlsState != nil {
			res.TLSVersion = tlsVersionName(d.tlsState.Version)
			res.ALPN = d.tlsState.NegotiatedProtocol
			res.CipherSuite = tlsCipherName(d.tlsState.CipherSuite)
		}
		h.logger.Printf("conn %d open to %s (%s) tls=%v", c.id, cmd.Target.Authority, res.RemoteAddr, cmd.TLS)
		h.reply(&id, res, nil)
		c.start()
	}()
}

func (h *Host) releaseSlot() {
	h.mu.Lock()
	h.slots--
	h.mu.Unlock()
}

// removeConn forgets a connection and frees its slot (called by its teardown).
func (h *Host) removeConn(id uint64) {
	h.mu.Lock()
	if _, ok := h.conns[id]; ok {
		delete(h.conns, id)
		h.slots--
	}
	h.mu.Unlock()
}
