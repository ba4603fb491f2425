package pageread

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const wantUA = "capgate/test (+tests@example.com)"

// fixedNow pins fetched_at.
var fixedNow = time.Date(2025, 5, 5, 10, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	now = func() time.Time { return fixedNow }
	os.Exit(m.Run())
}

// withGuard makes g the guard of every call until the test ends. Tests that use it must not run
// in parallel.
func withGuard(t *testing.T, g *guard) {
	t.Helper()
	prev := defaultGuard
	defaultGuard = g
	t.Cleanup(func() { defaultGuard = prev })
}

// mapResolver resolves from a table; a host may have successive answers (the last one repeats),
// which is how a DNS rebinding attack looks from the client.
type mapResolver struct {
	t     *testing.T
	mu    sync.Mutex
	hosts map[string][][]netip.Addr
	calls map[string]int
}

func newResolver(t *testing.T, hosts map[string]string) *mapResolver {
	r := &mapResolver{t: t, hosts: map[string][][]netip.Addr{}, calls: map[string]int{}}
	for h, a := range hosts {
		r.add(h, a)
	}
	return r
}

// add appends one answer (comma-separated addresses) for host.
func (r *mapResolver) add(host string, addrs ...string) *mapResolver {
	var answer []netip.Addr
	for _, a := range addrs {
		answer = append(answer, netip.MustParseAddr(a))
	}
	r.mu.Lock()
	r.hosts[host] = append(r.hosts[host], answer)
	r.mu.Unlock()
	return r
}

func (r *mapResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	answers, ok := r.hosts[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := r.calls[host]
	r.calls[host]++
	if i >= len(answers) {
		i = len(answers) - 1
	}
	return slices.Clone(answers[i]), nil
}

func (r *mapResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// noNetwork is a guard that fails the test on any resolution or connection.
func noNetwork(t *testing.T) *guard {
	return &guard{
		resolver: failResolver{t},
		dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			t.Errorf("unexpected connection to %s", address)
			return nil, &net.OpError{Op: "dial", Err: os.ErrPermission}
		},
	}
}

type failResolver struct{ t *testing.T }

func (f failResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	f.t.Errorf("unexpected DNS lookup of %s", host)
	return nil, &net.DNSError{Err: "no lookups in this test", Name: host, IsNotFound: true}
}

// internet is a fake public web: host names resolve through a table to public addresses, and
// every connection the guard lets through lands on a local test server (TLS for port 443, plain
// otherwise), whatever address it was for. The guard's checks run on the resolved addresses.
type internet struct {
	resolver *mapResolver
	guard    *guard
	mu       sync.Mutex
	dialed   []string
}

func newInternet(t *testing.T, site http.Handler, hosts map[string]string) *internet {
	t.Helper()
	plain := httptest.NewServer(site)
	t.Cleanup(plain.Close)
	secure := httptest.NewUnstartedServer(site)
	secure.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes the tests abort on purpose
	secure.StartTLS()
	t.Cleanup(secure.Close)
	in := &internet{resolver: newResolver(t, hosts)}
	in.guard = &guard{
		resolver:  in.resolver,
		tlsConfig: &tls.Config{InsecureSkipVerify: true}, // the test server's certificate is for example.com only
		dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			in.mu.Lock()
			in.dialed = append(in.dialed, address)
			in.mu.Unlock()
			_, port, _ := net.SplitHostPort(address)
			to := plain.Listener.Addr().String()
			if port == "443" {
				to = secure.Listener.Addr().String()
			}
			var d net.Dialer
			return d.DialContext(ctx, network, to)
		},
	}
	return in
}

func (in *internet) dials() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.dialed)
}

// okSite answers every page with 200 and records what it was asked.
func okSite() *providertest.Upstream { return providertest.ServeBody(http.StatusOK, "", "text/html") }

// reader is the shared recording stand-in for the reader, which checks the User-Agent.
type reader = providertest.Upstream

// checked makes u check the User-Agent of every request.
func checked(t *testing.T, u *reader) *reader {
	u.TB, u.UserAgent = t, wantUA
	return u
}

// serveFile answers with a testdata or sandbox file.
func serveFile(t *testing.T, status int, file, contentType string) *reader {
	t.Helper()
	return checked(t, providertest.ServeFile(t, status, file, contentType))
}

func serveBody(t *testing.T, status int, body, contentType string) *reader {
	return checked(t, providertest.ServeBody(status, body, contentType))
}

// echoReader answers a page for whatever URL it is asked, reporting that URL (or report, when set).
func echoReader(t *testing.T, report string) *reader {
	return &reader{TB: t, UserAgent: wantUA, Answer: func(w http.ResponseWriter, r *http.Request) {
		u := report
		if u == "" {
			u = targetOf(r)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(map[string]any{"code": 200, "status": 20000, "data": map[string]any{
			"title": "Echo", "description": "", "url": u, "content": "# Echo\n\nThe page.", "usage": map[string]any{"tokens": 5}}})
	}}
}

// refuseReader fails the test when the reader is called at all.
func refuseReader(t *testing.T) *reader {
	return &reader{TB: t, UserAgent: wantUA, Answer: func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the reader must not be called (got %s)", r.URL)
		w.WriteHeader(http.StatusTeapot)
	}}
}

// targetOf is the page URL a reader request asks for: the path after the first slash, plus the query.
func targetOf(r *http.Request) string {
	s := r.URL.EscapedPath()[1:]
	if r.URL.RawQuery != "" {
		s += "?" + r.URL.RawQuery
	}
	return s
}

// readCap reads one page as web.read does (web.read lives in providers/webread, which imports
// this package): Execute, with a request of url and max_chars.
var readCap = &providers.Capability{
	ID: "test.read", Title: "Read a page", Summary: "test only", Description: "test only", Topic: "Web and news",
	Request: `{"type":"object","additionalProperties":false,"required":["url"],"properties":{` +
		`"url":{"type":"string","minLength":1},"max_chars":{"type":"integer","minimum":1,"default":50000}}}`,
	Paging: providers.PagingSingle, NoUpdate: true, Cost: providers.Cost{Typical: 5, Basis: "test"},
	Deadline: 15 * time.Second, Providers: []string{ProviderID}, Execute: Execute,
}

func readerClient(t *testing.T, h http.Handler, key string) *providers.Client {
	t.Helper()
	return providertest.Client(t, Providers(), map[string]http.Handler{ProviderID: h}, map[string]string{ProviderID: key})
}

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, readCap, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

func execLive(t *testing.T, c *providers.Client, body string) (*providers.Page, error) {
	t.Helper()
	return providertest.ExecuteState(t, c, readCap, providers.ModeLive, prepare(t, body), nil)
}

// readLive runs the guarded read without the request rules, as another capability's action does.
func readLive(t *testing.T, c *providers.Client, rawURL string) (*providers.Detail, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readCap.Deadline)
	defer cancel()
	return Read(ctx, providers.NewCall(readCap, providers.Request{}, nil, providers.ModeLive, "tnt_test", c), rawURL, 0)
}

func sandboxFile(name string) string { return filepath.Join("sandbox", name) }

func wantError(t *testing.T, err error, code providers.Code, retryable *bool, paths ...string) *providers.Error {
	t.Helper()
	e, ok := providers.AsError(err)
	if !ok {
		t.Fatalf("error = %v, want %s", err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %s (%v), want %s", e.Code, err, code)
	}
	if retryable != nil && e.IsRetryable() != *retryable {
		t.Errorf("retryable = %v, want %v (%v)", e.IsRetryable(), *retryable, err)
	}
	if got := providertest.ViolationPaths(err); len(paths) > 0 && !slices.Equal(got, paths) {
		t.Errorf("violation paths = %v, want %v", got, paths)
	}
	return e
}

var (
	yes = boolPtr(true)
	no  = boolPtr(false)
)
