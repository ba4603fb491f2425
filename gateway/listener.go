package gateway

import (
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// unusedConns is the API's listener with one addition: it knows which connections have not
// sent a byte yet. fasthttp counts a fresh connection as busy from the moment it starts waiting
// for the first request, so a graceful shutdown waited out the whole read timeout (30 s) for a
// connection a client had opened and never used (HTTP clients dial ahead and keep such
// connections in their pools). On shutdown those connections are closed at once; connections
// with a request in flight finish it, and idle keep-alive ones are closed by fasthttp itself.
//
// It also caps the connections open at once from one client address (perIP; 0 = no cap), so
// one address cannot hold hundreds of connections each buffering a body before authentication.
// The reverse proxies in front (trusted) are exempt: every client arrives through them.
type unusedConns struct {
	net.Listener
	mu      sync.Mutex
	conns   map[*trackedConn]struct{}
	perIP   int
	open    map[netip.Addr]int
	trusted []netip.Prefix
	refused atomic.Int64 // connections closed at accept for the per-address cap
}

func newUnusedConns(ln net.Listener) *unusedConns {
	return &unusedConns{Listener: ln, conns: map[*trackedConn]struct{}{}, open: map[netip.Addr]int{}}
}

// limitPerIP sets the per-address cap and the exempt proxies (IPs or CIDRs, as Options has them).
func (l *unusedConns) limitPerIP(n int, trusted []string) {
	l.perIP = n
	for _, t := range trusted {
		if !strings.Contains(t, "/") {
			if a, err := netip.ParseAddr(t); err == nil {
				l.trusted = append(l.trusted, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			}
			continue
		}
		if p, err := netip.ParsePrefix(t); err == nil {
			l.trusted = append(l.trusted, p.Masked())
		}
	}
}

func (l *unusedConns) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c, l: l}
		if l.perIP > 0 {
			if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil && !l.isTrusted(ap.Addr().Unmap()) {
				tc.addr = ap.Addr().Unmap()
			}
		}
		l.mu.Lock()
		if tc.addr.IsValid() {
			if l.open[tc.addr] >= l.perIP {
				l.mu.Unlock()
				l.refused.Add(1)
				_ = c.Close() // over the cap: closed before a byte is read
				continue
			}
			l.open[tc.addr]++
		}
		l.conns[tc] = struct{}{}
		l.mu.Unlock()
		return tc, nil
	}
}

func (l *unusedConns) isTrusted(a netip.Addr) bool {
	for _, p := range l.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// closeUnused closes the connections that have not sent anything.
func (l *unusedConns) closeUnused() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		if !c.used.Load() {
			c.shut.Store(true)
			_ = c.Conn.Close()
		}
	}
}

// trackedConn marks itself used on its first read of a byte and leaves the set then (or when
// closed), so the set holds only the connections that never sent anything.
type trackedConn struct {
	net.Conn
	l      *unusedConns
	addr   netip.Addr // counted against the per-address cap; zero when not counted
	used   atomic.Bool
	shut   atomic.Bool // closed by closeUnused
	closed atomic.Bool
	linger atomic.Bool // close in stages (lingerClose): an answer went out with the body unread
}

func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil && c.shut.Load() {
		return n, io.EOF // a clean end for the server, not a failed read to report
	}
	if n > 0 && !c.used.Load() {
		c.used.Store(true)
		c.forget()
	}
	return n, err
}

func (c *trackedConn) Close() error {
	c.forget()
	first := c.closed.CompareAndSwap(false, true)
	if first && c.addr.IsValid() {
		c.l.mu.Lock()
		if c.l.open[c.addr]--; c.l.open[c.addr] <= 0 {
			delete(c.l.open, c.addr)
		}
		c.l.mu.Unlock()
	}
	if first && c.linger.Load() && !c.shut.Load() && lingerClose(c.Conn) {
		return nil
	}
	return c.Conn.Close()
}

// Lingering close (RFC 9112 §9.6): a connection the server ends while the client may still be
// sending (a 413 for a body over the limit, answered before the body is read, right after
// fasthttp's "100 Continue"; lingerOnClose marks it) is closed in stages: the write side first, so the answer goes out
// ahead of a FIN, then what the client still sends is read and dropped for a moment, then the
// socket closes. Closed at once instead, the unread bytes make the kernel send a reset, which
// can destroy the answer in the client's receive buffer before the client reads it: the client
// saw "broken pipe" instead of the 413. Bounded: at most lingerMaxConns connections linger, each
// for at most lingerFor and lingerBytes; beyond that a connection closes at once.
const (
	lingerFor      = 2 * time.Second
	lingerBytes    = 2 * maxBody
	lingerMaxConns = 1024
)

var lingering atomic.Int64

// lingerOnClose marks the connection of the request being answered for a staged close. Only a
// connection whose serving has ended may linger: fasthttp also closes idle connections from its
// own shutdown while their serving goroutine still waits on them, and a socket closed later under
// that goroutine made fasthttp panic.
func lingerOnClose(c *fiber.Ctx) {
	if tc, ok := c.Context().Conn().(*trackedConn); ok {
		tc.linger.Store(true)
	}
}

// lingerClose starts the staged close of a TCP connection and reports whether it did.
func lingerClose(conn net.Conn) bool {
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		return false
	}
	if lingering.Add(1) > lingerMaxConns {
		lingering.Add(-1)
		return false
	}
	if tcp.CloseWrite() != nil {
		lingering.Add(-1)
		return false
	}
	go func() {
		defer lingering.Add(-1)
		_ = tcp.SetReadDeadline(time.Now().Add(lingerFor))
		_, _ = io.CopyN(io.Discard, tcp, lingerBytes)
		_ = tcp.Close()
	}()
	return true
}

func (c *trackedConn) forget() {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
}

// NetConn returns the underlying connection (callerGone peeks at its socket).
func (c *trackedConn) NetConn() net.Conn { return c.Conn }
