package github

import (
	"net/http"
	"sync"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const wantUA = "capgate/test (+tests@example.com)"

// fake is an httptest stand-in for the GitHub REST API that records every request and checks
// the headers every call must carry.
type fake struct {
	providertest.Upstream
	t      *testing.T
	token  string // the configured key; "" means no Authorization header may be sent
	mu     sync.Mutex
	routes map[string]http.HandlerFunc
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t, routes: map[string]http.HandlerFunc{}}
	f.Upstream = providertest.Upstream{TB: t, UserAgent: wantUA, Answer: f.route}
	return f
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	h, ok := f.routes[r.URL.Path]
	f.mu.Unlock()
	if got := r.Header.Get("X-GitHub-Api-Version"); got != "2022-11-28" {
		f.t.Errorf("X-GitHub-Api-Version = %q", got)
	}
	wantAuth := ""
	if f.token != "" {
		wantAuth = "Bearer " + f.token
	}
	if got := r.Header.Get("Authorization"); got != wantAuth {
		f.t.Errorf("Authorization = %q, want %q", got, wantAuth)
	}
	if !ok {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write(providertest.Fixture(f.t, "error_404.json"))
		return
	}
	h(w, r)
}

// serve answers path with a testdata fixture and a status.
func (f *fake) serve(path string, status int, fixture string) {
	f.t.Helper()
	body := providertest.Fixture(f.t, fixture)
	f.routes[path] = func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
}

// answer serves a literal body with a status and headers.
func (f *fake) answer(path string, status int, body string, header map[string]string) {
	f.routes[path] = func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func (f *fake) client(t *testing.T) *providers.Client {
	t.Helper()
	return providertest.Client(t, Providers(), map[string]http.Handler{ProviderID: f}, map[string]string{ProviderID: f.token})
}

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, RepoSearch, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

// uniquePaths lists the distinct violation paths in order (an empty string breaks both minLength
// and pattern, so one field may carry two violations).
func uniquePaths(err error) []string {
	var out []string
	for _, p := range providertest.ViolationPaths(err) {
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}
