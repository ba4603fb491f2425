// Package gatewaytest boots a real gateway (real database, real session store, the real
// registry or chosen capabilities, upstreams pointed at httptest fakes) for tests, and checks
// every response it receives against the gateway's own /v1/openapi.json (the contract test).
package gatewaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/sharedcache"
	"github.com/capgate/capgate/internal/apicontract"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/providers/upstream/reviewers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// Options configure an Env.
type Options struct {
	DB           *tenants.DB // default: a fresh SQLite database
	Capabilities []*providers.Capability
	Providers    []*providers.Provider
	// Fakes point providers at httptest servers (live keys reach them).
	Fakes      map[string]http.Handler
	Keys       map[string]string
	Limiter    gateway.RateLimiter
	SessionTTL time.Duration
	// Plan of the default tenant (default "pro").
	Plan           string
	BreakerTimeout time.Duration
	// Logger receives the gateway's log (default: warnings and errors to the test log).
	Logger *slog.Logger
	// MCPAllowedHosts: the hosts /mcp accepts besides loopback (default: capgate.test, the MCP
	// tests' endpoint, and example.com, httptest's request host).
	MCPAllowedHosts []string
	// UpstreamCache is the shared upstream cache (default none: every page reaches the upstream).
	UpstreamCache *sharedcache.Cache
	// RequestLogNow is the request log's clock (default time.Now).
	RequestLogNow func() time.Time
	// AdminToken enables the admin API (default off).
	AdminToken string
	// Sealer seals provider keys given over the admin API (default none).
	Sealer *tenants.Sealer
}

// Env is a running gateway with one tenant and its keys.
type Env struct {
	tb       testing.TB
	DB       *tenants.DB
	Store    *tenants.Store
	Meter    *tenants.Meter
	Server   *gateway.Server
	Client   *providers.Client
	Sessions *searches.Store
	// RequestLog is the gateway's request log; Flush it before reading the log back.
	RequestLog *tenants.RequestLog
	// Reviewers is sharpen's panel (the default models; its Retired list is the admin's warning).
	Reviewers *reviewers.Panel
	Tenant    *tenants.Tenant
	LiveKey   string
	TestKey   string
	contract  *apicontract.Checker
}

// New starts a gateway for a test.
func New(tb testing.TB, o Options) *Env {
	tb.Helper()
	if o.DB == nil {
		o.DB = tenantstest.SQLite(tb)
	}
	store := tenants.NewStore(o.DB)
	if o.Capabilities == nil {
		o.Capabilities = registry.CapabilitiesWith(registry.TenantWorkouts(store))
	}
	if o.Providers == nil {
		o.Providers = registry.Providers()
	}
	if o.SessionTTL == 0 {
		o.SessionTTL = time.Hour
	}
	if o.Plan == "" {
		o.Plan = "pro"
	}
	if o.MCPAllowedHosts == nil {
		o.MCPAllowedHosts = []string{"capgate.test", "example.com"}
	}
	if o.BreakerTimeout == 0 {
		o.BreakerTimeout = 300 * time.Millisecond
	}
	client := providers.NewClient(o.Providers, providers.ClientOptions{Version: "test", Contact: "tests@example.com", BreakerTimeout: o.BreakerTimeout, BreakerFailures: 3})
	for id, h := range o.Fakes {
		srv := httptest.NewServer(h)
		tb.Cleanup(srv.Close)
		if err := client.Configure(id, providers.Setting{URL: srv.URL, Key: o.Keys[id]}); err != nil {
			tb.Fatal(err)
		}
	}
	for id, k := range o.Keys {
		if _, ok := o.Fakes[id]; !ok {
			s := client.Setting(id)
			s.Key = k
			_ = client.Configure(id, s)
		}
	}
	sessions, err := searches.NewStore(o.DB, o.SessionTTL, 16)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sessions.Close() })
	meter := tenants.NewMeter(o.DB, tenants.MeterOptions{Logger: quietLogger(tb)})
	logger := o.Logger
	if logger == nil {
		logger = quietLogger(tb)
	}
	tb.Cleanup(meter.Close)
	reqlog := tenants.NewRequestLog(o.DB, tenants.RequestLogOptions{Logger: quietLogger(tb), Now: o.RequestLogNow})
	tb.Cleanup(reqlog.Close)
	panel := reviewers.NewPanel(nil)
	srv := gateway.New(gateway.Options{RequestLog: reqlog, AdminToken: o.AdminToken, Sealer: o.Sealer, DB: o.DB, Accounts: store, Meter: meter, Sessions: sessions, Client: client, Reviewers: panel,
		Capabilities: o.Capabilities, Limiter: o.Limiter, SessionTTL: o.SessionTTL, Version: "test", Logger: logger,
		MCPAllowedHosts: o.MCPAllowedHosts,
		UpstreamCache:   o.UpstreamCache})
	e := &Env{tb: tb, DB: o.DB, Store: store, Meter: meter, Server: srv, Client: client, Sessions: sessions, RequestLog: reqlog, Reviewers: panel}
	e.Tenant, e.LiveKey, e.TestKey = e.NewTenant(o.Plan)
	e.contract = loadContract(tb, e)
	return e
}

// NewTenant creates a tenant on a plan with a live and a test key.
func (e *Env) NewTenant(plan string) (*tenants.Tenant, string, string) {
	e.tb.Helper()
	ctx := context.Background()
	t, err := e.Store.CreateTenant(ctx, "Tenant "+tenants.RandomString(4), plan, "")
	if err != nil {
		e.tb.Fatal(err)
	}
	_, live, err := e.Store.CreateKey(ctx, t.ID, tenants.ModeLive, "live")
	if err != nil {
		e.tb.Fatal(err)
	}
	_, test, err := e.Store.CreateKey(ctx, t.ID, tenants.ModeTest, "test")
	if err != nil {
		e.tb.Fatal(err)
	}
	return t, live, test
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// Unlimited is a rate limiter that allows every call (Options.Limiter), for sweeps that make
// thousands of calls on one key.
type Unlimited struct{}

// Allow allows the call.
func (Unlimited) Allow(context.Context, string, int) (gateway.RateResult, error) {
	return gateway.RateResult{Allowed: true, Limit: 1 << 20, Remaining: 1 << 20}, nil
}

// Titles are the titles of the answer's results, in order.
func (r *Response) Titles() []string {
	var out []string
	for _, rec := range r.Results() {
		s, _ := rec["title"].(string)
		out = append(out, s)
	}
	return out
}

// Results are the answer's results[] as objects (an entry that is not an object is nil).
func (r *Response) Results() []map[string]any {
	arr, _ := r.JSON["results"].([]any)
	out := make([]map[string]any, 0, len(arr))
	for _, v := range arr {
		m, _ := v.(map[string]any)
		out = append(out, m)
	}
	return out
}

// ErrorCode is the envelope's error.code, or "".
func (r *Response) ErrorCode() string {
	if e, ok := r.JSON["error"].(map[string]any); ok {
		s, _ := e["code"].(string)
		return s
	}
	return ""
}

// Violations lists the envelope's violation paths.
func (r *Response) Violations() []string {
	e, _ := r.JSON["error"].(map[string]any)
	vs, _ := e["violations"].([]any)
	var out []string
	for _, v := range vs {
		m, _ := v.(map[string]any)
		p, _ := m["path"].(string)
		out = append(out, p)
	}
	return out
}

// Do sends a request (body: nil, a string or bytes sent as is, or a value encoded as JSON) and
// checks the answer against the OpenAPI document.
func (e *Env) Do(method, path, key string, body any) *Response {
	e.tb.Helper()
	return e.DoHeaders(method, path, key, body, nil)
}

// DoHeaders is Do with extra request headers.
func (e *Env) DoHeaders(method, path, key string, body any, header map[string]string) *Response {
	e.tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			e.tb.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req := httptest.NewRequest(method, path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := e.Server.App().Test(req, 60_000)
	if err != nil {
		e.tb.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	out := &Response{Status: res.StatusCode, Header: res.Header, Body: b}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, &out.JSON); err != nil {
			e.tb.Fatalf("%s %s: response is not JSON: %v\n%s", method, path, err, b)
		}
	}
	if res.Header.Get("X-Request-Id") == "" {
		e.tb.Errorf("%s %s: no X-Request-Id header", method, path)
	}
	if e.contract != nil {
		if err := e.contract.Check(req, out.Status, out.Header, out.Body); err != nil {
			e.tb.Errorf("contract: %v\nbody: %s", err, truncate(out.Body))
		}
	}
	return out
}

// loadContract reads the gateway's own GET /v1/openapi.json and builds the checker every
// answer goes through (libopenapi + libopenapi-validator, internal/apicontract).
func loadContract(tb testing.TB, e *Env) *apicontract.Checker {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, "/v1/openapi.json", nil)
	res, err := e.Server.App().Test(req, 10_000)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	c, err := apicontract.Shared(raw)
	if err != nil {
		tb.Fatalf("openapi.json: %v", err)
	}
	return c
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}
