package gateway_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
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
	probe, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- e.Server.Listen(ctx, addr) }()
	for i := 0; ; i++ {
		res, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			res.Body.Close()
			break
		}
		if i > 100 {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}

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

	cancel()
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
