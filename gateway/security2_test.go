package gateway_test

// Regression tests of the second attack on the running gateway (docs/SECURITY.md lists each
// threat with its test).

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if _, err := io.WriteString(z, s); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCompressedBodiesRefused: a body with a Content-Encoding other than identity is refused
// with 415 before anything reads it, authenticated or not (fiber's Ctx.Body decompressed it with
// no bound: 1 MB of gzip was 1 GB in memory before the 401).
func TestCompressedBodiesRefused(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("a", 200_000) + `"}}`
	exec := `{"query":"` + strings.Repeat("a", 200_000) + `"}`
	mcpHeaders := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	for _, c := range []struct {
		name, path, key, encoding string
		body                      []byte
		status                    int
	}{
		{"gzip to /mcp without a key", "/mcp", "", "gzip", gzipped(t, ping), 415},
		{"gzip to /mcp with a key", "/mcp", e.TestKey, "gzip", gzipped(t, ping), 415},
		{"gzip to execute with a key", "/v1/capabilities/books.search/execute", e.TestKey, "gzip", gzipped(t, exec), 415},
		{"deflate", "/v1/follow-up", e.TestKey, "deflate", []byte("x"), 415},
		{"br", "/v1/follow-up", e.TestKey, "br", []byte("x"), 415},
		{"identity then gzip", "/v1/follow-up", e.TestKey, "identity, gzip", gzipped(t, "{}"), 415},
		{"unknown coding", "/v1/follow-up", "", "x-made-up", []byte("{}"), 415},
		{"identity is plain", "/v1/follow-up", "", "identity", []byte("{}"), 401},
		{"IDENTITY twice is plain", "/v1/follow-up", "", "IDENTITY, identity", []byte("{}"), 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{"Content-Encoding": c.encoding}
			for k, v := range mcpHeaders {
				h[k] = v
			}
			r := e.DoHeaders(http.MethodPost, c.path, c.key, string(c.body), h)
			if r.Status != c.status {
				t.Fatalf("%d %s, want %d", r.Status, r.Body, c.status)
			}
			if c.status == 415 && r.ErrorCode() != "invalid_request" {
				t.Fatalf("415 outside the envelope: %s", r.Body)
			}
		})
	}
}

// TestBodyReadLimitIsTheAcceptedLimit: the server reads no more than the 1 MiB it accepts; a
// larger body is refused with 413 (it read 8 MiB before, and allocates a body's declared length
// up front, so 100 slow connections held 871 MB).
func TestBodyReadLimitIsTheAcceptedLimit(t *testing.T) {
	srv := gatewaytest.New(t, gatewaytest.Options{}).Server
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.App().Listener(ln) }()
	t.Cleanup(func() { _ = srv.App().Shutdown() })
	// A client that announces 4 MiB and sends 16 bytes is answered 413 at once, not waited for:
	// the declared length is over the read limit.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"pad\":\"aaaa\"}", 4<<20)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a 4 MiB declared body: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 413 {
		t.Fatalf("4 MiB declared: %d, want 413", res.StatusCode)
	}
}

// mcpPost posts one raw MCP body with key and returns the recorded answer.
func mcpPost(t *testing.T, e *gatewaytest.Env, key, body string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := e.Server.App().Test(req, 60_000)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestMCPBatchesRefused: a JSON-RPC batch is refused under every protocol version (one POST of
// 2,000 resources/read counted as one request and answered 62 MB).
func TestMCPBatchesRefused(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	read := `{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"capgate://guide"}}`
	batch := "[" + fmt.Sprintf(read, 1) + "," + fmt.Sprintf(read, 2) + "]"
	for _, version := range []string{"2025-03-26", "2025-06-18", ""} {
		h := map[string]string{}
		if version != "" {
			h["Mcp-Protocol-Version"] = version
		}
		for _, body := range []string{batch, " \n\t" + batch} {
			res := mcpPost(t, e, e.TestKey, body, h)
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 400 || !bytes.Contains(b, []byte(`"invalid_request"`)) || !bytes.Contains(b, []byte("batch")) {
				t.Errorf("version %q: %d %s, want 400 invalid_request naming batches", version, res.StatusCode, b)
			}
		}
	}
	// One message still works.
	res := mcpPost(t, e, e.TestKey, fmt.Sprintf(read, 3), nil)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("a single resources/read: %d", res.StatusCode)
	}
}

// TestMCPCountsWhatRuns: what the rate limit counts is what the SDK runs. encoding/json matched
// "Method" to method, so {"method":"resources/read","Method":"tools/call"} was counted as a tool
// call (which counts through its /v1 call) and run as resources/read: uncounted reads past a
// 10/min plan.
func TestMCPCountsWhatRuns(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	slow := &tenants.Plan{ID: "mcp-slow2", CreditCap: 1000, RatePerMinute: 10, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock"}
	if err := e.Store.CreatePlan(context.Background(), slow); err != nil {
		t.Fatal(err)
	}
	_, _, key := e.NewTenant(slow.ID)
	limited := 0
	for i := range 14 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","Method":"tools/call","params":{"uri":"capgate://guide","Name":"books.search"}}`, i+1)
		res := mcpPost(t, e, key, body, nil)
		res.Body.Close()
		if res.StatusCode == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited < 4 {
		t.Fatalf("%d of 14 disguised reads were limited on a 10/min plan, want at least 4", limited)
	}
}

// TestTwoAuthorizationHeadersRefused: fasthttp reads the first Authorization header, a proxy in
// front may act on another: two are refused.
func TestTwoAuthorizationHeadersRefused(t *testing.T) {
	addr := listen(t, newServer(t, gateway.Options{}))
	rs := rawExchange(t, addr, "GET /v1/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer cap_test_a\r\nAuthorization: Bearer cap_live_b\r\n\r\n")
	if len(rs) != 1 || rs[0].StatusCode != 400 {
		t.Fatalf("%d responses (first %v), want one 400", len(rs), rs)
	}
}

// TestMalformedRequestEchoesNothing: a request fasthttp itself cannot parse is answered with a
// fixed message, never with its raw bytes (the old 400 quoted the Authorization header and the
// cookies).
func TestMalformedRequestEchoesNothing(t *testing.T) {
	addr := listen(t, newServer(t, gateway.Options{}))
	secret := "cap_live_SECRETSECRETSECRETSECRETSECRET12"
	for _, raw := range []string{
		"POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + secret + "\r\nCookie: s=COOKIEVALUE\r\nTransfer-Encoding : chunked\r\n\r\nzz\r\n",
		"POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + secret + "\r\nCookie: s=COOKIEVALUE\r\nTransfer-Encoding: chunked\r\n\r\nzz-not-hex\r\n\r\n",
		"POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + secret + "\r\nCookie: s=COOKIEVALUE\r\nContent-Length: abc\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(conn, raw)
		_ = conn.(*net.TCPConn).CloseWrite()
		all, _ := io.ReadAll(conn)
		conn.Close()
		if bytes.Contains(all, []byte("SECRET")) || bytes.Contains(all, []byte("COOKIEVALUE")) {
			t.Fatalf("the answer echoes request bytes:\n%s", all)
		}
		if !bytes.Contains(all, []byte(" 400 ")) {
			t.Fatalf("not a 400:\n%s", all)
		}
	}
}

// TestProjectsScopedByKeyMode: a test key never lists, reads, fills or deletes the live key's
// projects, and each mode has its own quota.
func TestProjectsScopedByKeyMode(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := gatewaytest.New(t, gatewaytest.Options{DB: b.Open(t)})
			live := e.DoHeaders(http.MethodPost, "/v1/projects", e.LiveKey, map[string]any{"name": "live research"}, idem("live-1"))
			if live.Status != 201 {
				t.Fatalf("live create: %d %s", live.Status, live.Body)
			}
			data, _ := live.JSON["data"].(map[string]any)
			id, _ := data["project_id"].(string)
			if id == "" {
				t.Fatalf("no project id: %s", live.Body)
			}
			if r := e.Do(http.MethodGet, "/v1/projects", e.TestKey, nil); r.Status != 200 || strings.Contains(string(r.Body), id) {
				t.Fatalf("the test key lists the live project: %d %s", r.Status, r.Body)
			}
			if r := e.Do(http.MethodGet, "/v1/projects/"+id, e.TestKey, nil); r.Status != 404 {
				t.Fatalf("the test key reads the live project: %d %s", r.Status, r.Body)
			}
			if r := e.DoHeaders(http.MethodPost, "/v1/projects/"+id+"/items", e.TestKey, map[string]any{"kind": "note", "note": "x"}, idem("test-2")); r.Status != 404 {
				t.Fatalf("the test key adds to the live project: %d %s", r.Status, r.Body)
			}
			if r := e.DoHeaders(http.MethodDelete, "/v1/projects/"+id, e.TestKey, nil, idem("test-3")); r.Status != 404 {
				t.Fatalf("the test key deletes the live project: %d %s", r.Status, r.Body)
			}
			if r := e.Do(http.MethodGet, "/v1/projects/"+id, e.LiveKey, nil); r.Status != 200 {
				t.Fatalf("the live project is gone: %d %s", r.Status, r.Body)
			}
			st := e.Do(http.MethodGet, "/v1/projects/status", e.TestKey, nil)
			stData, _ := st.JSON["data"].(map[string]any)
			if p, _ := stData["projects"].(map[string]any); st.Status != 200 || p["used"] != float64(0) {
				t.Fatalf("the test key's quota counts live projects: %s", st.Body)
			}
		})
	}
}

// flakyLimiter fails while down is set.
type flakyLimiter struct{ down atomic.Bool }

func (l *flakyLimiter) Allow(context.Context, string, int) (gateway.RateResult, error) {
	if l.down.Load() {
		return gateway.RateResult{}, errors.New("redis: connection refused")
	}
	return gateway.RateResult{Allowed: true, Limit: 100, Remaining: 99}, nil
}

// TestLimiterOutageLoggedOnce: while the rate limiter is down calls pass (fail open) and the
// outage is logged once, not once per call; its end is logged once too.
func TestLimiterOutageLoggedOnce(t *testing.T) {
	var buf syncBuffer
	lim := &flakyLimiter{}
	lim.down.Store(true)
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: lim, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	for range 5 {
		if r := e.Do(http.MethodGet, "/v1/account", e.TestKey, nil); r.Status != 200 {
			t.Fatalf("during the outage: %d %s", r.Status, r.Body)
		}
	}
	lim.down.Store(false)
	for range 3 {
		e.Do(http.MethodGet, "/v1/account", e.TestKey, nil)
	}
	if n := strings.Count(buf.String(), "rate limiter unavailable"); n != 1 {
		t.Fatalf("the outage was logged %d times, want once:\n%s", n, buf.String())
	}
	if n := strings.Count(buf.String(), "rate limiter answers again"); n != 1 {
		t.Fatalf("the recovery was logged %d times, want once", n)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
