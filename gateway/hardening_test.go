package gateway_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestIdempotencyReplayScopedByKeyMode: the same Idempotency-Key on a test key and then a live
// key of one tenant runs twice; neither replays the other's answer (search id, sandbox data,
// balance).
func TestIdempotencyReplayScopedByKeyMode(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := newCapEnv(t, b.Open(t))
			body := map[string]any{"query": "same"}
			h := map[string]string{"Idempotency-Key": "shared-key-1"}
			test := e.DoHeaders(http.MethodPost, "/v1/capabilities/test.offset/execute", e.TestKey, body, h)
			if test.Status != 200 {
				t.Fatalf("test key: %d %s", test.Status, test.Body)
			}
			live := e.DoHeaders(http.MethodPost, "/v1/capabilities/test.offset/execute", e.LiveKey, body, h)
			if live.Status != 200 {
				t.Fatalf("live key: %d %s", live.Status, live.Body)
			}
			if live.Header.Get("Idempotent-Replayed") == "true" || live.JSON["search_id"] == test.JSON["search_id"] {
				t.Fatalf("the live call replayed the test call's answer:\n%s", live.Body)
			}
			if e.live.Calls() != 1 {
				t.Fatalf("live upstream calls %d, want 1", e.live.Calls())
			}
			// Each mode still replays its own answer.
			again := e.DoHeaders(http.MethodPost, "/v1/capabilities/test.offset/execute", e.TestKey, body, h)
			if again.Header.Get("Idempotent-Replayed") != "true" || again.JSON["search_id"] != test.JSON["search_id"] {
				t.Fatalf("the test call did not replay: %s", again.Body)
			}
		})
	}
}

// TestProjectRequestIDsOwnKeySpace: an Idempotency-Key on execute that spells a projects request
// id ("projects:zz1") does not block the project write with request id zz1, nor the reverse.
func TestProjectRequestIDsOwnKeySpace(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := newCapEnv(t, b.Open(t))
			for _, k := range []string{"projects:zz1", "projects/test/zz1", "api/test/zz1"} {
				if r := e.DoHeaders(http.MethodPost, "/v1/capabilities/test.offset/execute", e.TestKey, map[string]any{"query": "q"}, idem(k)); r.Status != 200 {
					t.Fatalf("execute with %s: %d %s", k, r.Status, r.Body)
				}
			}
			r := e.Do(http.MethodPost, "/v1/projects", e.TestKey, map[string]any{"name": "research", "request_id": "zz1"})
			if r.Status != 201 || r.JSON["commit_status"] != "committed" {
				t.Fatalf("project write blocked by an execute key: %d %s", r.Status, r.Body)
			}
			// And a project id does not replay on execute.
			x := e.DoHeaders(http.MethodPost, "/v1/capabilities/test.offset/execute", e.TestKey, map[string]any{"query": "q"}, idem("zz1"))
			if x.Status != 200 || x.Header.Get("Idempotent-Replayed") == "true" {
				t.Fatalf("execute with a project's request id: %d %s", x.Status, x.Body)
			}
		})
	}
}

// TestStoredStringsRefuseNUL: a NUL byte in a project name or note is the client's mistake
// (400 invalid_request naming the field, not retryable), never a 503 a client would retry.
func TestStoredStringsRefuseNUL(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := gatewaytest.New(t, gatewaytest.Options{DB: b.Open(t)})
			ok := e.Do(http.MethodPost, "/v1/projects", e.TestKey, map[string]any{"name": "ok", "request_id": "p-ok"})
			pid, _ := data(t, ok)["project_id"].(string)
			cases := []struct {
				name, path, body, field string
			}{
				{"project name", "/v1/projects", `{"name":"a\u0000b","request_id":"n1"}`, "/name"},
				{"project name of only NUL", "/v1/projects", `{"name":"x\u0000","request_id":"n2"}`, "/name"},
				{"note", "/v1/projects/" + pid + "/items", `{"kind":"note","note":"boils\u0000","request_id":"n3"}`, "/note"},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					r := e.Do(http.MethodPost, tc.path, e.TestKey, tc.body)
					eb, _ := r.JSON["error"].(map[string]any)
					if r.Status != 400 || eb["code"] != "invalid_request" || eb["retryable"] != false || r.JSON["commit_status"] != "not_committed" {
						t.Fatalf("%d %s", r.Status, r.Body)
					}
					if v := r.Violations(); len(v) != 1 || v[0] != tc.field {
						t.Fatalf("violations %v, want %s", v, tc.field)
					}
					if strings.Contains(string(r.Body), "SQL") || strings.Contains(string(r.Body), "syntax") {
						t.Fatalf("a database error leaked: %s", r.Body)
					}
				})
			}
			// The request id was released: the same id with a good body commits.
			if r := e.Do(http.MethodPost, "/v1/projects", e.TestKey, map[string]any{"name": "fixed", "request_id": "n1"}); r.Status != 201 {
				t.Fatalf("retry with a fixed body: %d %s", r.Status, r.Body)
			}
		})
	}
}

// TestAccountWithCorruptStoredPlan: a plan whose multiplier is NaN in the database (written
// before validation refused it; only PostgreSQL can hold one) still answers /v1/account with
// multiplier 1, and calls are billed at list price.
func TestAccountWithCorruptStoredPlan(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			db := b.Open(t)
			e := newCapEnv(t, db)
			_, live, test := newPlanTenant(t, e.Env, 1000, "all")
			var planID string
			if err := db.NewSelect().Table("tenants").Column("plan_id").Where("id = (SELECT tenant_id FROM api_keys WHERE hash = ?)", tenants.HashKey(test)).Scan(context.Background(), &planID); err != nil {
				t.Fatal(err)
			}
			if _, err := db.NewUpdate().Table("plans").Set("credit_multiplier = ?", math.NaN()).Where("id = ?", planID).Exec(context.Background()); err != nil {
				if b.Name == "postgres" {
					t.Fatalf("PostgreSQL refused the NaN: %v", err)
				}
				t.Skipf("SQLite cannot hold a NaN multiplier: %v", err)
			}
			for _, key := range []string{live, test} {
				r := e.Do(http.MethodGet, "/v1/account", key, nil)
				if r.Status != 200 {
					t.Fatalf("account: %d %s", r.Status, r.Body)
				}
				if m := r.JSON["credits"].(map[string]any)["credit_multiplier"]; m != float64(1) {
					t.Fatalf("multiplier %v, want 1", m)
				}
			}
			x := e.exec(test, "test.page", map[string]any{"query": "q"})
			if x.Status != 200 {
				t.Fatalf("execute: %d %s", x.Status, x.Body)
			}
			if charged := x.JSON["charged_credits"]; charged != float64(2) {
				t.Fatalf("charged %v, want list price 2", charged)
			}
		})
	}
}

// newServer builds a gateway with options beyond what gatewaytest sets.
func newServer(t *testing.T, opts gateway.Options) *gateway.Server {
	t.Helper()
	db := tenantstest.SQLite(t)
	sessions, err := searches.NewStore(db, time.Hour, 16)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sessions.Close() })
	opts.DB, opts.Sessions = db, sessions
	opts.Client = providers.NewClient(nil, providers.ClientOptions{Version: "test"})
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	return gateway.New(opts)
}

// listen serves the app on a loopback port, as the binary does, and returns its address.
func listen(t *testing.T, srv *gateway.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.App().Listener(ln) }()
	t.Cleanup(func() { _ = srv.App().ShutdownWithTimeout(5 * time.Second) })
	return ln.Addr().String()
}

// rawExchange writes raw bytes on one TCP connection and reads every response the server sends
// until it closes the connection or goes quiet.
func rawExchange(t *testing.T, addr, raw string) []*http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	var out []*http.Response
	for {
		_ = conn.SetReadDeadline(time.Now().Add(1500 * time.Millisecond))
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			return out
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		out = append(out, res)
	}
}

// TestFramingRefusedOnRawConnection: ambiguous HTTP framing is answered 400 and the connection
// is closed, so nothing left over runs as a second request; clean requests keep working.
func TestFramingRefusedOnRawConnection(t *testing.T) {
	addr := listen(t, newServer(t, gateway.Options{}))
	smuggled := "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
	cases := []struct {
		name, raw string
	}{
		{"two different Content-Length", "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: " +
			strconv.Itoa(2+len(smuggled)) + "\r\n\r\n{}" + smuggled},
		{"two equal Content-Length", "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}"},
		{"Content-Length with chunked", "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled},
		{"Transfer-Encoding not chunked", "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n"},
		{"two Transfer-Encoding", "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
		{"signed Content-Length", "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}"},
		{"obs-fold", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n"},
		{"obs-fold with a tab", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n\tb\r\n\r\n"},
		{"bare LF", "GET /healthz HTTP/1.1\nHost: x\nAccept: */*\n\n"},
		{"bare LF in one header line", "GET /healthz HTTP/1.1\r\nHost: x\nAccept: */*\r\n\r\n"},
		{"space before the colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length : 0\r\n\r\n"},
		{"HTTP/9.9", "GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n"},
		{"HTTP/2.0 over HTTP/1 framing", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n"},
		{"two Host headers", "GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := rawExchange(t, addr, tc.raw)
			if len(rs) != 1 {
				t.Fatalf("%d responses, want exactly one (a 400, then the connection closed)", len(rs))
			}
			if rs[0].StatusCode != 400 {
				t.Fatalf("status %d, want 400", rs[0].StatusCode)
			}
		})
	}
	t.Run("clean requests keep the connection", func(t *testing.T) {
		rs := rawExchange(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		if len(rs) != 2 || rs[0].StatusCode != 200 || rs[1].StatusCode != 200 {
			t.Fatalf("%d responses", len(rs))
		}
		rs = rawExchange(t, addr, "GET /healthz HTTP/1.0\r\n\r\n")
		if len(rs) != 1 || rs[0].StatusCode != 200 {
			t.Fatalf("HTTP/1.0 without Host: %d responses", len(rs))
		}
		rs = rawExchange(t, addr, "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
		if len(rs) != 1 || rs[0].StatusCode != 401 {
			t.Fatalf("chunked body: %d responses", len(rs))
		}
	})
}

// TestStrictRoutingAndMetricsToken: paths match exactly (case and trailing slash), so a proxy
// rule on /metrics cannot be sidestepped; METRICS_TOKEN guards /metrics.
func TestStrictRoutingAndMetricsToken(t *testing.T) {
	srv := newServer(t, gateway.Options{MetricsToken: "s3cret-token"})
	get := func(path, auth string) *http.Response {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := srv.App().Test(req, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	cases := []struct {
		path, auth string
		want       int
	}{
		{"/metrics", "Bearer s3cret-token", 200},
		{"/metrics", "", 401},
		{"/metrics", "Bearer wrong", 401},
		{"/metrics", "Basic s3cret-token", 401},
		{"/METRICS", "Bearer s3cret-token", 404},
		{"/metrics/", "Bearer s3cret-token", 404},
		{"/Metrics", "", 404},
		{"/healthz", "", 200},
		{"/healthz/", "", 404},
		{"/HEALTHZ", "", 404},
		{"/v1/openapi.json", "", 200},
		{"/V1/openapi.json", "", 404},
		{"/v1/openapi.json/", "", 404},
	}
	for _, tc := range cases {
		if res := get(tc.path, tc.auth); res.StatusCode != tc.want {
			t.Errorf("GET %s (%q): %d, want %d", tc.path, tc.auth, res.StatusCode, tc.want)
		}
	}
	// Without a token /metrics is open, as before.
	open := newServer(t, gateway.Options{})
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if res, err := open.App().Test(req, 10_000); err != nil || res.StatusCode != 200 {
		t.Fatalf("metrics without a token: %v %v", res, err)
	}
}

// TestSecurityHeaders: every answer (data, errors, unmatched paths) carries nosniff and the
// framing and referrer rules; API answers also a CSP that loads nothing.
func TestSecurityHeaders(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	for _, r := range []*gatewaytest.Response{
		e.Do(http.MethodGet, "/v1/catalog", e.TestKey, nil),
		e.Do(http.MethodGet, "/v1/catalog", "", nil),
		e.Do(http.MethodGet, "/healthz", "", nil),
		e.Do(http.MethodGet, "/v1/openapi.json", "", nil),
		e.Do(http.MethodPost, "/v1/follow-up", e.TestKey, "{not json"),
	} {
		for h, want := range map[string]string{
			"X-Content-Type-Options":  "nosniff",
			"X-Frame-Options":         "DENY",
			"Referrer-Policy":         "same-origin",
			"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
		} {
			if got := r.Header.Get(h); got != want {
				t.Errorf("status %d: %s = %q, want %q", r.Status, h, got, want)
			}
		}
	}
}
