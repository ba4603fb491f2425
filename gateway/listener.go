package gateway

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// unusedConns is the API's listener with one addition: it knows which connections have not
// sent a byte yet. fasthttp counts a fresh connection as busy from the moment it starts waiting
// for the first request, so a graceful shutdown waited out the whole read timeout (30 s) for a
// connection a client had opened and never used (HTTP clients dial ahead and keep such
// connections in their pools). On shutdown those connections are closed at once; connections
// with a request in flight finish it, and idle keep-alive ones are closed by fasthttp itself.
type unusedConns struct {
	net.Listener
	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

func newUnusedConns(ln net.Listener) *unusedConns {
	return &unusedConns{Listener: ln, conns: map[*trackedConn]struct{}{}}
}

func (l *unusedConns) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, l: l}
	l.mu.Lock()
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
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
	l    *unusedConns
	used atomic.Bool
	shut atomic.Bool // closed by closeUnused
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
	return c.Conn.Close()
}

func (c *trackedConn) forget() {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
}

// NetConn returns the underlying connection (callerGone peeks at its socket).
func (c *trackedConn) NetConn() net.Conn { return c.Conn }
