package gateway_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/gatewaytest"
)

// TestShutdownClosesUnusedConnections: a connection a client opened and never used (HTTP clients
// dial ahead) does not hold a graceful shutdown until the read timeout; a kept-alive connection
// that served a request is closed too. Without the listener's tracking, Listen returned only
// after 30 s.
func TestShutdownClosesUnusedConnections(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	addr, stop := serveLoopback(t, e)

	unused, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer unused.Close()
	kept, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	if _, err := kept.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if status, err := bufio.NewReader(kept).ReadString('\n'); err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("kept-alive request: %q, %v", status, err)
	}
	time.Sleep(100 * time.Millisecond) // both connections are now waiting for a request

	errc := make(chan error, 1)
	go func() { errc <- stop() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Listen: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the shutdown waited on a connection that never sent a request")
	}
	_ = unused.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := unused.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("the unused connection is still open: %d, %v", n, err)
	}
}

// TestOversizedBodyAnswerSurvivesTheClose: a client that sends a body over the limit in full
// (after fasthttp's 100 Continue, or without asking) finishes its write and reads the 413. The
// server answers before reading the body; closing the socket with the body unread made the
// kernel reset the connection, and the client's write failed ("connection reset by peer",
// "broken pipe": an e2e test saw it under load), which Go's HTTP client reports instead of the
// answer.
func TestOversizedBodyAnswerSurvivesTheClose(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	addr, _ := serveLoopback(t, e)
	body := strings.Repeat("x", 3<<19) // over the 1 MiB limit
	for _, expect := range []bool{true, false} {
		for i := range 5 {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			head := "POST /v1/capabilities/books.search/execute HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + e.TestKey +
				"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
			if expect {
				head += "Expect: 100-continue\r\n"
			}
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			// A small send buffer keeps the write going when the server answers: what a client on
			// a real network sees (loopback's buffers would take the whole body at once).
			_ = c.(*net.TCPConn).SetWriteBuffer(16 << 10)
			_, werr := c.Write([]byte(head + "\r\n" + body))
			br := bufio.NewReader(c)
			res, rerr := http.ReadResponse(br, nil)
			for rerr == nil && res.StatusCode == http.StatusContinue {
				res, rerr = http.ReadResponse(br, nil)
			}
			c.Close()
			// Go's HTTP client gives up on a failed write before it reads the answer.
			if werr != nil || rerr != nil {
				t.Fatalf("expect %v, try %d: write: %v; read: %v", expect, i, werr, rerr)
			}
			if res.StatusCode != http.StatusRequestEntityTooLarge {
				t.Fatalf("expect %v, try %d: status %d, want 413", expect, i, res.StatusCode)
			}
		}
	}
}

// serveLoopback serves e through the product's own listener (Server.Listen: the unused-connection
// tracking, the per-address cap, the lingering close) on a free loopback port, once it answers
// /healthz. stop cancels it and returns what Listen returned; the test's cleanup stops it too.
func serveLoopback(t *testing.T, e *gatewaytest.Env) (addr string, stop func() error) {
	t.Helper()
	probe, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = probe.Addr().String()
	probe.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- e.Server.Listen(ctx, addr) }()
	var once sync.Once
	var listenErr error
	stop = func() error {
		once.Do(func() { cancel(); listenErr = <-errc })
		return listenErr
	}
	t.Cleanup(func() { _ = stop() })
	for i := 0; ; i++ {
		res, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			res.Body.Close()
			return addr, stop
		}
		if i > 100 {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
