package gateway

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestConnectionsCappedPerAddress: past the per-address cap a new connection is closed before a
// byte is read; closing one makes room again; a trusted proxy's address is exempt.
func TestConnectionsCappedPerAddress(t *testing.T) {
	for _, c := range []struct {
		name    string
		trusted []string
		capped  bool
	}{
		{"client address", nil, true},
		{"trusted proxy by IP", []string{"127.0.0.1"}, false},
		{"trusted proxy by CIDR", []string{"127.0.0.0/8"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ln := newUnusedConns(raw)
			ln.limitPerIP(3, c.trusted)
			defer ln.Close()
			accepted := make(chan net.Conn, 16)
			go func() {
				for {
					conn, err := ln.Accept()
					if err != nil {
						return
					}
					accepted <- conn
				}
			}()
			dial := func() net.Conn {
				t.Helper()
				conn, err := net.Dial("tcp4", raw.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { conn.Close() })
				return conn
			}
			// closedByServer reports whether the server closed conn without waiting for it.
			closedByServer := func(conn net.Conn) bool {
				_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
				_, err := conn.Read(make([]byte, 1))
				return err == io.EOF
			}
			var kept []net.Conn
			for range 3 {
				dial()
				kept = append(kept, <-accepted)
			}
			fourth := dial()
			if got := closedByServer(fourth); got != c.capped {
				t.Fatalf("fourth connection closed by the server: %v, want %v", got, c.capped)
			}
			if !c.capped {
				return
			}
			if ln.refused.Load() != 1 {
				t.Fatalf("refused %d, want 1", ln.refused.Load())
			}
			kept[0].Close()
			kept[0].Close() // a second Close must not free a second slot
			dial()
			select {
			case <-accepted:
			case <-time.After(5 * time.Second):
				t.Fatal("no room after one connection closed")
			}
			if sixth := dial(); !closedByServer(sixth) {
				t.Fatal("a double Close freed two slots")
			}
		})
	}
}
