package providers_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/capgate/capgate/providers"
)

const fakeID = "fake"

// upstream is an httptest server standing in for one provider; it counts the requests that reach it.
type upstream struct {
	*httptest.Server
	hits atomic.Int64
}

func newUpstream(tb testing.TB, h http.HandlerFunc) *upstream {
	tb.Helper()
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		h(w, r)
	}))
	tb.Cleanup(u.Close)
	return u
}

// status answers every request with a status, headers (name, value pairs) and a body.
func status(code int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

// newClient builds a client for one provider and points it at baseURL ("" keeps the default).
func newClient(tb testing.TB, p *providers.Provider, baseURL, key string, opts providers.ClientOptions) *providers.Client {
	tb.Helper()
	c := providers.NewClient([]*providers.Provider{p}, opts)
	if baseURL != "" || key != "" {
		if err := c.Configure(p.ID, providers.Setting{URL: baseURL, Key: key}); err != nil {
			tb.Fatal(err)
		}
	}
	return c
}

// fakeProvider is a keyless provider without a default base URL.
func fakeProvider() *providers.Provider { return &providers.Provider{ID: fakeID, Title: "Fake"} }

// call makes one live GET /thing through the client under a 5 s deadline.
func call(tb testing.TB, c *providers.Client) (*providers.Response, error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Upstream(fakeID, providers.ModeLive).Get(ctx, "/thing", nil, nil)
}

// wantError checks that err is a vocabulary error with the code and retryability.
func wantError(tb testing.TB, err error, code providers.Code, retryable bool) *providers.Error {
	tb.Helper()
	e, ok := providers.AsError(err)
	if !ok {
		tb.Fatalf("error %v (%T) is not a *providers.Error", err, err)
	}
	if e.Code != code {
		tb.Fatalf("code %s, want %s (%v)", e.Code, code, err)
	}
	if e.IsRetryable() != retryable {
		tb.Fatalf("%s retryable %v, want %v (%v)", code, e.IsRetryable(), retryable, err)
	}
	return e
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// refusingTransport fails every live call and counts the attempts: proof a path never dials.
func refusingTransport(dials *atomic.Int64) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		dials.Add(1)
		return nil, errors.New("this test must not reach the network")
	})
}

func TestClientSuccess(t *testing.T) {
	up := newUpstream(t, status(200, `{"ok":true}`, "X-Upstream", "yes"))
	c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{})
	res, err := call(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 200 || string(res.Body) != `{"ok":true}` || res.Header.Get("X-Upstream") != "yes" {
		t.Fatalf("response %d %q %v", res.Status, res.Body, res.Header)
	}
	var out struct{ OK bool }
	if err := c.Upstream(fakeID, providers.ModeLive).GetJSON(context.Background(), "/thing", nil, &out); err != nil || !out.OK {
		t.Fatalf("GetJSON: %v %+v", err, out)
	}
}

func TestClientTimeout(t *testing.T) {
	t.Run("no answer before the deadline", func(t *testing.T) {
		up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		})
		c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.Upstream(fakeID, providers.ModeLive).Get(ctx, "/slow", nil, nil)
		wantError(t, err, providers.CodeProviderTimeout, true)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("the call took %s; the deadline was 100ms", d)
		}
		if e, _ := providers.AsError(err); e.HTTPStatus() != 504 {
			t.Fatalf("HTTP status %d, want 504", e.HTTPStatus())
		}
	})
	t.Run("body stalls after the headers", func(t *testing.T) {
		up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(200)
			_, _ = w.Write([]byte(`{"partial":`))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		})
		c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := c.Upstream(fakeID, providers.ModeLive).Get(ctx, "/slow-body", nil, nil)
		wantError(t, err, providers.CodeProviderTimeout, true)
	})
	t.Run("queued behind the provider's request rate", func(t *testing.T) {
		up := newUpstream(t, status(200, `{}`))
		p := fakeProvider()
		p.RequestsPerSecond = 1
		c := newClient(t, p, up.URL, "", providers.ClientOptions{})
		if _, err := call(t, c); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := c.Upstream(fakeID, providers.ModeLive).Get(ctx, "/thing", nil, nil)
		wantError(t, err, providers.CodeProviderTimeout, true)
		if n := up.hits.Load(); n != 1 {
			t.Fatalf("upstream hits %d, want 1 (the queued call must not be sent)", n)
		}
	})
}

func TestClientStatuses(t *testing.T) {
	cases := []struct {
		status    int
		retryable bool
	}{
		{500, true}, {502, true}, {503, true}, {504, true},
		{400, false}, {401, false}, {403, false}, {404, false}, {422, false},
	}
	for _, tc := range cases {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			body := `{"error":"upstream says ` + http.StatusText(tc.status) + `"}`
			up := newUpstream(t, status(tc.status, body))
			c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{})
			res, err := call(t, c)
			if res != nil {
				t.Fatalf("a %d must not be returned as a response", tc.status)
			}
			e := wantError(t, err, providers.CodeProviderError, tc.retryable)
			if e.UpstreamStatus != tc.status {
				t.Fatalf("UpstreamStatus %d, want %d", e.UpstreamStatus, tc.status)
			}
			if string(e.Body) != body {
				t.Fatalf("Body %q, want the upstream's error body %q", e.Body, body)
			}
			if e.HTTPStatus() != 502 {
				t.Fatalf("HTTP status %d, want 502", e.HTTPStatus())
			}
			if _, ok := c.LastError(fakeID); !ok {
				t.Fatal("the failure was not recorded as the provider's last error")
			}
		})
	}
}

func TestClientTooManyRequests(t *testing.T) {
	cases := []struct {
		name       string
		retryAfter string // "" sends no header
		code       providers.Code
		retryable  bool
		min, max   time.Duration // bounds of RetryAfter
	}{
		{"short Retry-After in seconds", "5", providers.CodeRateLimited, true, 5 * time.Second, 5 * time.Second},
		{"Retry-After of one minute", "60", providers.CodeRateLimited, true, time.Minute, time.Minute},
		{"no Retry-After", "", providers.CodeProviderAllowance, false, 0, 0},
		{"long Retry-After", "3600", providers.CodeProviderAllowance, false, time.Hour, time.Hour},
		{"unreadable Retry-After", "soon", providers.CodeProviderAllowance, false, 0, 0},
		{"Retry-After as a near HTTP date", time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat),
			providers.CodeRateLimited, true, 8 * time.Second, 10 * time.Second},
		{"Retry-After as a far HTTP date", time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat),
			providers.CodeProviderAllowance, false, 2*time.Hour - 3*time.Second, 2 * time.Hour},
		{"Retry-After as a past HTTP date (retry now)", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat),
			providers.CodeRateLimited, true, 0, 0},
		{"Retry-After zero (retry now)", "0", providers.CodeRateLimited, true, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var header []string
			if tc.retryAfter != "" {
				header = []string{"Retry-After", tc.retryAfter}
			}
			up := newUpstream(t, status(429, `{"error":"slow down"}`, header...))
			c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{})
			_, err := call(t, c)
			e := wantError(t, err, tc.code, tc.retryable)
			if e.RetryAfter < tc.min || e.RetryAfter > tc.max {
				t.Fatalf("RetryAfter %s, want %s..%s", e.RetryAfter, tc.min, tc.max)
			}
			if e.UpstreamStatus != 429 || string(e.Body) != `{"error":"slow down"}` {
				t.Fatalf("UpstreamStatus %d, Body %q", e.UpstreamStatus, e.Body)
			}
		})
	}
}

func TestClientMalformedJSON(t *testing.T) {
	for name, body := range map[string]string{
		"truncated":    `{"docs": [`,
		"html":         `<html><body>Service temporarily unavailable</body></html>`,
		"wrong shape":  `["a", "list"]`,
		"empty answer": ``,
	} {
		t.Run(name, func(t *testing.T) {
			up := newUpstream(t, status(200, body))
			c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{})
			var out struct{ Docs []any }
			err := c.Upstream(fakeID, providers.ModeLive).GetJSON(context.Background(), "/search.json", nil, &out)
			e, ok := providers.AsError(err)
			if !ok || e.Code != providers.CodeProviderError {
				t.Fatalf("error %v, want provider_error", err)
			}
			if !strings.Contains(e.Message, fakeID) {
				t.Fatalf("message %q does not name the provider", e.Message)
			}
			if _, ok := c.LastError(fakeID); !ok {
				t.Fatal("the malformed answer was not recorded as the provider's last error")
			}
		})
	}
}

func TestClientBodyLimit(t *testing.T) {
	cases := []struct {
		name    string
		maxBody int64 // 0: the default 8 MiB
		size    int
		ok      bool
	}{
		{"small limit, body at the limit", 1024, 1024, true},
		{"small limit, one byte over", 1024, 1025, false},
		{"small limit, far over", 1024, 64 << 10, false},
		{"default limit, 8 MiB body", 0, providers.DefaultMaxBody, true},
		{"default limit, 9 MiB body", 0, 9 << 20, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := bytes.Repeat([]byte("a"), tc.size)
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) })
			p := fakeProvider()
			p.MaxBody = tc.maxBody
			c := newClient(t, p, up.URL, "", providers.ClientOptions{})
			res, err := call(t, c)
			if tc.ok {
				if err != nil || len(res.Body) != tc.size {
					t.Fatalf("a body of %d bytes within the limit: %v", tc.size, err)
				}
				return
			}
			wantError(t, err, providers.CodeProviderError, false)
		})
	}
}

func TestClientConnectionFailures(t *testing.T) {
	t.Run("connection reset", func(t *testing.T) {
		up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // close with RST, not FIN
			}
			_ = conn.Close()
		})
		c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{})
		_, err := call(t, c)
		e := wantError(t, err, providers.CodeProviderError, true)
		if e.UpstreamStatus != 0 {
			t.Fatalf("UpstreamStatus %d, want 0 (no answer)", e.UpstreamStatus)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		c := newClient(t, fakeProvider(), "http://"+addr, "", providers.ClientOptions{})
		_, err = call(t, c)
		wantError(t, err, providers.CodeProviderError, false)
	})
}

func TestClientBreaker(t *testing.T) {
	const failures, timeout = 3, 150 * time.Millisecond
	t.Run("opens, fails fast, half-opens and closes", func(t *testing.T) {
		var healthy atomic.Bool
		up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			if healthy.Load() {
				status(200, `{}`)(w, r)
				return
			}
			status(500, `{"error":"down"}`)(w, r)
		})
		c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{BreakerFailures: failures, BreakerTimeout: timeout})
		for i := 0; i < failures; i++ {
			_, err := call(t, c)
			wantError(t, err, providers.CodeProviderError, true)
		}
		if got := c.BreakerState(fakeID); got != "open" {
			t.Fatalf("breaker %s after %d consecutive failures, want open", got, failures)
		}
		if !c.Upstream(fakeID, providers.ModeLive).BreakerOpen() {
			t.Fatal("BreakerOpen is false while the breaker is open")
		}
		if c.Upstream(fakeID, providers.ModeTest).BreakerOpen() {
			t.Fatal("BreakerOpen is true in the sandbox, which has no breaker")
		}
		for i := 0; i < 3; i++ {
			_, err := call(t, c)
			e := wantError(t, err, providers.CodeServiceUnavailable, true)
			if e.RetryAfter != timeout {
				t.Fatalf("RetryAfter %s, want the breaker timeout %s", e.RetryAfter, timeout)
			}
		}
		if n := up.hits.Load(); n != failures {
			t.Fatalf("upstream hits %d, want %d: an open breaker must not reach the server", n, failures)
		}

		// After the timeout one trial call goes through; a failure opens the breaker again.
		waitHalfOpen(t, c)
		_, err := call(t, c)
		wantError(t, err, providers.CodeProviderError, true)
		if n := up.hits.Load(); n != failures+1 {
			t.Fatalf("upstream hits %d, want %d (one trial call)", n, failures+1)
		}
		if got := c.BreakerState(fakeID); got != "open" {
			t.Fatalf("breaker %s after a failed trial, want open", got)
		}
		_, err = call(t, c)
		wantError(t, err, providers.CodeServiceUnavailable, true)

		// A successful trial closes it.
		healthy.Store(true)
		waitHalfOpen(t, c)
		if _, err := call(t, c); err != nil {
			t.Fatalf("trial call: %v", err)
		}
		if got := c.BreakerState(fakeID); got != "closed" {
			t.Fatalf("breaker %s after a successful trial, want closed", got)
		}
		if _, err := call(t, c); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("transport failures and timeouts count", func(t *testing.T) {
		up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		})
		c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{BreakerFailures: failures, BreakerTimeout: time.Minute})
		for i := 0; i < failures; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			_, err := c.Upstream(fakeID, providers.ModeLive).Get(ctx, "/slow", nil, nil)
			cancel()
			wantError(t, err, providers.CodeProviderTimeout, true)
		}
		if got := c.BreakerState(fakeID); got != "open" {
			t.Fatalf("breaker %s after %d timeouts, want open", got, failures)
		}
	})
	refusals := []struct {
		name    string
		handler http.HandlerFunc
		maxBody int64
		code    providers.Code
	}{
		{"404", status(404, `{}`), 0, providers.CodeProviderError},
		{"400", status(400, `{}`), 0, providers.CodeProviderError},
		{"429 with a short Retry-After", status(429, `{}`, "Retry-After", "1"), 0, providers.CodeRateLimited},
		{"429 without Retry-After", status(429, `{}`), 0, providers.CodeProviderAllowance},
		{"oversize body", status(200, strings.Repeat("x", 100)), 10, providers.CodeProviderError},
	}
	for _, tc := range refusals {
		t.Run(tc.name+" does not open it", func(t *testing.T) {
			up := newUpstream(t, tc.handler)
			p := fakeProvider()
			p.MaxBody = tc.maxBody
			c := newClient(t, p, up.URL, "", providers.ClientOptions{BreakerFailures: failures, BreakerTimeout: time.Minute})
			for i := 0; i < 2*failures; i++ {
				_, err := call(t, c)
				if e, ok := providers.AsError(err); !ok || e.Code != tc.code {
					t.Fatalf("call %d: %v, want %s", i, err, tc.code)
				}
			}
			if got := c.BreakerState(fakeID); got != "closed" {
				t.Fatalf("breaker %s, want closed", got)
			}
			if n := up.hits.Load(); n != 2*failures {
				t.Fatalf("upstream hits %d, want %d", n, 2*failures)
			}
		})
	}
	t.Run("a refusal between failures resets the count", func(t *testing.T) {
		codes := []int{500, 500, 404, 500, 500}
		var n atomic.Int64
		up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			status(codes[n.Add(1)-1], `{}`)(w, r)
		})
		c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{BreakerFailures: failures, BreakerTimeout: time.Minute})
		for range codes {
			_, _ = call(t, c)
		}
		if got := c.BreakerState(fakeID); got != "closed" {
			t.Fatalf("breaker %s after 500 500 404 500 500, want closed (never %d consecutive failures)", got, failures)
		}
	})
	t.Run("each provider has its own breaker", func(t *testing.T) {
		down := newUpstream(t, status(500, `{}`))
		up := newUpstream(t, status(200, `{}`))
		a, b := &providers.Provider{ID: "a"}, &providers.Provider{ID: "b"}
		c := providers.NewClient([]*providers.Provider{a, b}, providers.ClientOptions{BreakerFailures: failures, BreakerTimeout: time.Minute})
		if c.Configure("a", providers.Setting{URL: down.URL}) != nil || c.Configure("b", providers.Setting{URL: up.URL}) != nil {
			t.Fatal("configure failed")
		}
		for i := 0; i < failures; i++ {
			_, _ = c.Upstream("a", providers.ModeLive).Get(context.Background(), "/", nil, nil)
		}
		if c.BreakerState("a") != "open" || c.BreakerState("b") != "closed" {
			t.Fatalf("breakers a=%s b=%s, want open and closed", c.BreakerState("a"), c.BreakerState("b"))
		}
		if _, err := c.Upstream("b", providers.ModeLive).Get(context.Background(), "/", nil, nil); err != nil {
			t.Fatalf("provider b failed with a's breaker open: %v", err)
		}
	})
}

func TestClientUserAgent(t *testing.T) {
	cases := []struct {
		version, contact, want string
	}{
		{"1.2.3", "ops@example.com", "capgate/1.2.3 (+ops@example.com)"},
		{"1.2.3", "https://example.com/bot", "capgate/1.2.3 (+https://example.com/bot)"},
		{"1.2.3", "", "capgate/1.2.3"},
		{"", "", "capgate/dev"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			var got atomic.Value
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				got.Store(r.Header.Get("User-Agent"))
				status(200, `{}`)(w, r)
			})
			c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{Version: tc.version, Contact: tc.contact})
			// An adapter's own User-Agent header is replaced: the gateway always identifies itself.
			_, err := c.Upstream(fakeID, providers.ModeLive).Get(context.Background(), "/", nil, http.Header{"User-Agent": {"adapter/9"}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Load() != tc.want {
				t.Fatalf("User-Agent %q, want %q", got.Load(), tc.want)
			}
		})
	}
}

func TestClientAuthorize(t *testing.T) {
	header := func(r *http.Request, key string) { r.Header.Set("X-Api-Key", key) }
	query := func(r *http.Request, key string) {
		q := r.URL.Query()
		q.Set("api_key", key)
		r.URL.RawQuery = q.Encode()
	}
	cases := []struct {
		name      string
		authorize func(*http.Request, string)
		key       string
		wantHdr   string
		wantQuery string
	}{
		{"header", header, "k-123", "k-123", ""},
		{"query parameter", query, "k-456", "", "k-456"},
		{"no key configured", header, "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hdr, q atomic.Value
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				hdr.Store(r.Header.Get("X-Api-Key"))
				q.Store(r.URL.Query().Get("api_key"))
				status(200, `{}`)(w, r)
			})
			p := fakeProvider()
			p.Authorize = tc.authorize
			c := newClient(t, p, up.URL, tc.key, providers.ClientOptions{})
			u := c.Upstream(fakeID, providers.ModeLive)
			if _, err := u.Get(context.Background(), "/search", map[string][]string{"q": {"dune"}}, nil); err != nil {
				t.Fatal(err)
			}
			if hdr.Load() != tc.wantHdr || q.Load() != tc.wantQuery {
				t.Fatalf("key header %q, query %q; want %q, %q", hdr.Load(), q.Load(), tc.wantHdr, tc.wantQuery)
			}
		})
	}
}

func TestIsPublicAddr(t *testing.T) {
	cases := []struct {
		addr   string
		public bool
	}{
		{"127.0.0.1", false},
		{"127.1.2.3", false},
		{"::1", false},
		{"10.0.0.1", false},
		{"172.16.0.1", false},
		{"172.31.255.254", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false},
		{"169.254.1.1", false},
		{"fe80::1", false},
		{"fd00:ec2::254", false},
		{"fc00::1", false},
		{"100.64.0.1", false},
		{"100.127.255.254", false},
		{"100.100.100.200", false},
		{"0.0.0.0", false},
		{"::", false},
		{"224.0.0.1", false},
		{"ff02::1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"172.32.0.1", true},
		{"100.128.0.1", true},
		{"2001:4860:4860::8888", true},
		{"::ffff:8.8.8.8", true},
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			if got := providers.IsPublicAddr(netip.MustParseAddr(tc.addr)); got != tc.public {
				t.Fatalf("IsPublicAddr(%s) = %v, want %v", tc.addr, got, tc.public)
			}
		})
	}
	t.Run("zero address", func(t *testing.T) {
		if providers.IsPublicAddr(netip.Addr{}) {
			t.Fatal("the zero netip.Addr is public")
		}
	})
}

func TestHostIsPublic(t *testing.T) {
	// No DNS in tests: names come from /etc/hosts or fail at once.
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		return nil, errors.New("no DNS in tests")
	}}
	cases := []struct {
		host    string
		public  bool
		wantErr bool
	}{
		{"127.0.0.1", false, false},
		{"::1", false, false},
		{"10.0.0.1", false, false},
		{"172.16.0.1", false, false},
		{"192.168.1.1", false, false},
		{"169.254.169.254", false, false},
		{"fd00:ec2::254", false, false},
		{"100.64.0.1", false, false},
		{"0.0.0.0", false, false},
		{"8.8.8.8", true, false},
		{"2001:4860:4860::8888", true, false},
		{"localhost", false, false},
		{"no-such-host.invalid", false, true},
	}
	for _, tc := range cases {
		t.Run(tc.host, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			got, err := providers.HostIsPublic(ctx, resolver, tc.host)
			if got != tc.public || (err != nil) != tc.wantErr {
				t.Fatalf("HostIsPublic(%s) = %v, %v; want %v, error %v", tc.host, got, err, tc.public, tc.wantErr)
			}
		})
	}
}

func TestClientRedirectGuard(t *testing.T) {
	// Every connection goes to the fake whatever the URL's host, so a public origin (a literal
	// public address, never really dialled) can redirect to a private one.
	var privateHits atomic.Int64
	fake := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/start":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		case "/private":
			privateHits.Add(1)
			status(200, `{"secret":true}`)(w, r)
		default:
			status(200, `{"public":true}`)(w, r)
		}
	})
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, fake.Listener.Addr().String())
		},
	}
	t.Cleanup(transport.CloseIdleConnections)
	port := fake.Listener.Addr().(*net.TCPAddr).Port
	cases := []struct {
		name     string
		origin   string
		to       string
		followed bool
	}{
		{"public to loopback", "http://8.8.8.8", "http://127.0.0.1/private", false},
		{"public to loopback with a port", "http://8.8.8.8", "http://127.0.0.1:" + strconv.Itoa(port) + "/private", false},
		{"public to a private network", "http://8.8.8.8", "http://10.0.0.1/private", false},
		{"public to the metadata address", "http://8.8.8.8", "http://169.254.169.254/private", false},
		{"public to IPv6 loopback", "http://8.8.8.8", "http://[::1]/private", false},
		{"public to localhost by name", "http://8.8.8.8", "http://localhost/private", false},
		{"public to public", "http://8.8.8.8", "http://1.1.1.1/elsewhere", true},
		{"private base URL to private", fake.URL, fake.URL + "/private", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			privateHits.Store(0)
			c := newClient(t, fakeProvider(), tc.origin, "", providers.ClientOptions{Transport: transport})
			res, err := c.Upstream(fakeID, providers.ModeLive).Get(context.Background(), "/start", map[string][]string{"to": {tc.to}}, nil)
			if tc.followed {
				if err != nil || res.Status != 200 {
					t.Fatalf("redirect to %s not followed: %v", tc.to, err)
				}
				return
			}
			e := wantError(t, err, providers.CodeProviderError, false)
			if !strings.Contains(e.Message, "private address") {
				t.Fatalf("message %q does not say the redirect went to a private address", e.Message)
			}
			if n := privateHits.Load(); n != 0 {
				t.Fatalf("the private target was reached %d times", n)
			}
		})
	}
}

func TestClientSandbox(t *testing.T) {
	var sandboxHits atomic.Int64
	var gotKey, gotUA, gotHost, gotPath atomic.Value
	p := &providers.Provider{
		ID:        fakeID,
		BaseURL:   "https://api.example.com/v2",
		Authorize: func(r *http.Request, key string) { r.Header.Set("X-Api-Key", key) },
		Sandbox: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sandboxHits.Add(1)
			gotKey.Store(r.Header.Get("X-Api-Key"))
			gotUA.Store(r.Header.Get("User-Agent"))
			gotHost.Store(r.Host)
			gotPath.Store(r.URL.Path)
			status(200, `{"from":"sandbox"}`)(w, r)
		}),
	}
	var dials atomic.Int64
	c := newClient(t, p, "", "", providers.ClientOptions{Version: "t", Transport: refusingTransport(&dials)})
	u := c.Upstream(fakeID, providers.ModeTest)
	if !u.Available() {
		t.Fatal("a provider with a sandbox handler is not available in test mode")
	}
	var out struct{ From string }
	if err := u.GetJSON(context.Background(), "/items", nil, &out); err != nil {
		t.Fatal(err)
	}
	if out.From != "sandbox" || sandboxHits.Load() != 1 {
		t.Fatalf("answer %+v, sandbox hits %d", out, sandboxHits.Load())
	}
	if dials.Load() != 0 {
		t.Fatalf("the sandbox dialled the live transport %d times", dials.Load())
	}
	if gotPath.Load() != "/v2/items" || gotHost.Load() != "fake.sandbox.invalid" {
		t.Fatalf("sandbox saw host %v path %v; want the provider's real path under fake.sandbox.invalid", gotHost.Load(), gotPath.Load())
	}
	if gotKey.Load() != "sandbox" || gotUA.Load() != "capgate/t" {
		t.Fatalf("sandbox saw key %v, User-Agent %v", gotKey.Load(), gotUA.Load())
	}

	t.Run("sandbox errors map like live ones", func(t *testing.T) {
		p := &providers.Provider{ID: fakeID, Sandbox: status(404, `{"error":"not found in the sandbox"}`)}
		c := newClient(t, p, "", "", providers.ClientOptions{Transport: refusingTransport(&dials)})
		_, err := c.Upstream(fakeID, providers.ModeTest).Get(context.Background(), "/missing", nil, nil)
		e := wantError(t, err, providers.CodeProviderError, false)
		if e.UpstreamStatus != 404 {
			t.Fatalf("UpstreamStatus %d", e.UpstreamStatus)
		}
	})
	t.Run("a provider without a sandbox is unavailable to test keys", func(t *testing.T) {
		up := newUpstream(t, status(200, `{}`))
		c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{})
		u := c.Upstream(fakeID, providers.ModeTest)
		if u.Available() {
			t.Fatal("available in test mode without a sandbox")
		}
		_, err := u.Get(context.Background(), "/", nil, nil)
		wantError(t, err, providers.CodeCapabilityUnavailable, false)
		if up.hits.Load() != 0 {
			t.Fatal("a test-mode call reached the live upstream")
		}
	})
}

func TestClientUnconfigured(t *testing.T) {
	cases := []struct {
		name     string
		provider *providers.Provider
		setting  providers.Setting
		mention  string
	}{
		{"no base URL", &providers.Provider{ID: fakeID}, providers.Setting{}, "PROVIDER_FAKE_URL"},
		{"key required, none set", &providers.Provider{ID: fakeID, BaseURL: "https://api.example.com", KeyRequired: true},
			providers.Setting{}, "PROVIDER_FAKE_KEY"},
		{"key required, URL set but no key", &providers.Provider{ID: fakeID, KeyRequired: true},
			providers.Setting{URL: "https://mirror.example.com"}, "PROVIDER_FAKE_KEY"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var dials atomic.Int64
			c := newClient(t, tc.provider, tc.setting.URL, tc.setting.Key, providers.ClientOptions{Transport: refusingTransport(&dials)})
			ok, why := c.Configured(fakeID)
			if ok || !strings.Contains(why, tc.mention) {
				t.Fatalf("Configured = %v, %q; want false naming %s", ok, why, tc.mention)
			}
			u := c.Upstream(fakeID, providers.ModeLive)
			if u.Available() {
				t.Fatal("Available is true")
			}
			_, err := u.Get(context.Background(), "/", nil, nil)
			e := wantError(t, err, providers.CodeCapabilityUnavailable, false)
			if e.HTTPStatus() != 503 || !strings.Contains(e.Message, tc.mention) {
				t.Fatalf("status %d message %q", e.HTTPStatus(), e.Message)
			}
			if dials.Load() != 0 {
				t.Fatal("an unconfigured provider was dialled")
			}
		})
	}
	t.Run("configuring the key makes it available", func(t *testing.T) {
		up := newUpstream(t, status(200, `{}`))
		p := &providers.Provider{ID: fakeID, KeyRequired: true}
		c := newClient(t, p, up.URL, "", providers.ClientOptions{})
		if ok, _ := c.Configured(fakeID); ok {
			t.Fatal("configured without a key")
		}
		if err := c.Configure(fakeID, providers.Setting{URL: up.URL + "/", Key: "k"}); err != nil {
			t.Fatal(err)
		}
		if s := c.Setting(fakeID); s.URL != up.URL {
			t.Fatalf("base URL %q kept its trailing slash", s.URL)
		}
		if _, err := call(t, c); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("unknown provider", func(t *testing.T) {
		c := newClient(t, fakeProvider(), "", "", providers.ClientOptions{})
		if err := c.Configure("nope", providers.Setting{URL: "https://x.example"}); err == nil {
			t.Fatal("configuring an unknown provider succeeded")
		}
		if ok, _ := c.Configured("nope"); ok {
			t.Fatal("an unknown provider is configured")
		}
	})
}

// metric reads one sample from the registry (a counter or gauge value, a histogram's count); ok
// is false when absent.
func metric(tb testing.TB, reg *prometheus.Registry, name string, labels map[string]string) (float64, bool) {
	tb.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, lp := range m.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue(), true
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount()), true
			}
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

func TestClientMetrics(t *testing.T) {
	var healthy atomic.Bool
	healthy.Store(true)
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if healthy.Load() {
			status(200, `{}`)(w, r)
			return
		}
		status(502, `{}`)(w, r)
	})
	reg := prometheus.NewRegistry()
	c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{Registerer: reg, BreakerFailures: 2, BreakerTimeout: time.Minute})
	requests := func(outcome string) float64 {
		v, _ := metric(t, reg, "capgate_upstream_requests_total", map[string]string{"provider": fakeID, "outcome": outcome})
		return v
	}
	breaker := func() float64 {
		v, ok := metric(t, reg, "capgate_upstream_breaker_state", map[string]string{"provider": fakeID})
		if !ok {
			t.Fatal("capgate_upstream_breaker_state has no sample for the provider")
		}
		return v
	}
	if breaker() != 0 {
		t.Fatalf("breaker gauge %v at start, want 0 (closed)", breaker())
	}
	for i := 0; i < 3; i++ {
		if _, err := call(t, c); err != nil {
			t.Fatal(err)
		}
	}
	healthy.Store(false)
	for i := 0; i < 2; i++ {
		_, _ = call(t, c)
	}
	_, _ = call(t, c) // fails fast
	if got := requests("ok"); got != 3 {
		t.Fatalf("ok outcomes %v, want 3", got)
	}
	if got := requests("provider_error"); got != 2 {
		t.Fatalf("provider_error outcomes %v, want 2", got)
	}
	if got := requests("breaker_open"); got != 1 {
		t.Fatalf("breaker_open outcomes %v, want 1", got)
	}
	if breaker() != 2 {
		t.Fatalf("breaker gauge %v while open, want 2", breaker())
	}
	// Every call through the breaker is timed, the fail-fast one included.
	if n, ok := metric(t, reg, "capgate_upstream_request_duration_seconds", map[string]string{"provider": fakeID}); !ok || n != 6 {
		t.Fatalf("latency histogram count %v (present %v), want 6", n, ok)
	}
}

// A caller that goes away is not the provider failing: cancelled calls never open the breaker.
func TestClientCancelledCallsDoNotOpenTheBreaker(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 4)
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{BreakerFailures: 2, BreakerTimeout: time.Minute})
	for i := 0; i < 4; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }() // the barrier: the upstream has the call
		_, err := c.Upstream(fakeID, providers.ModeLive).Get(ctx, "/x", nil, nil)
		if err == nil {
			t.Fatal("cancelled call succeeded")
		}
	}
	if st := c.BreakerState(fakeID); st != "closed" {
		t.Fatalf("breaker %s after cancelled calls", st)
	}
}

// TestPublicHostTerms: a contact or key that only the public host's terms require is not
// required of a base URL the deployment set itself (its own mirror or a test double).
func TestPublicHostTerms(t *testing.T) {
	provs := []*providers.Provider{
		{ID: "contacted", Title: "Contacted", BaseURL: "https://public.example/api", ContactRequired: true},
		{ID: "keyed", Title: "Keyed", BaseURL: "https://public.example/v1", KeyRequired: true, OwnHostKey: "1"},
	}
	cases := []struct {
		id, url, key string
		available    bool
		wantKey      string
	}{
		{id: "contacted", available: false},
		{id: "contacted", url: "https://public.example/api", available: false},
		{id: "contacted", url: "http://127.0.0.1:9/mirror", available: true},
		{id: "keyed", available: false},
		{id: "keyed", key: "supporter", available: true, wantKey: "supporter"},
		{id: "keyed", url: "http://127.0.0.1:9/mirror", available: true, wantKey: "1"},
		{id: "keyed", url: "http://127.0.0.1:9/mirror", key: "mine", available: true, wantKey: "mine"},
	}
	for _, tc := range cases {
		c := providers.NewClient(provs, providers.ClientOptions{})
		if tc.url != "" || tc.key != "" {
			s := c.Setting(tc.id)
			if tc.url != "" {
				s.URL = tc.url
			}
			s.Key = tc.key
			if err := c.Configure(tc.id, s); err != nil {
				t.Fatal(err)
			}
		}
		ok, why := c.Configured(tc.id)
		if ok != tc.available {
			t.Errorf("%s url %q key %q: available %v (%s), want %v", tc.id, tc.url, tc.key, ok, why, tc.available)
		}
		if ok && tc.wantKey != "" {
			if got := c.Upstream(tc.id, providers.ModeLive).Key; got != tc.wantKey {
				t.Errorf("%s url %q: key %q, want %q", tc.id, tc.url, got, tc.wantKey)
			}
		}
	}
}

// waitHalfOpen waits for the breaker's open period to end (the state gobreaker reports once its
// timeout has passed), instead of sleeping a guessed margin past it.
func waitHalfOpen(t *testing.T, c *providers.Client) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); c.BreakerState(fakeID) != "half-open"; {
		if time.Now().After(deadline) {
			t.Fatalf("the breaker is %s 10 s on, want half-open", c.BreakerState(fakeID))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
