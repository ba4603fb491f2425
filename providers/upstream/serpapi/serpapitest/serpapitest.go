// Package serpapitest holds what the tests of every SerpApi-backed capability share: the key a
// fake SerpApi expects, the checks every search.json call must pass, and a client pointed at the
// fake.
package serpapitest

import (
	"net/http"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// Key is the SerpApi key of the test client.
const Key = "serp-test-key"

// CheckRequest reports on tb what every SerpApi call must carry: GET /search.json, the test
// User-Agent, the key as api_key (never a header), output=json, Accept application/json and, when
// engine is not "", that engine.
func CheckRequest(tb testing.TB, r *http.Request, engine string) {
	tb.Helper()
	q := r.URL.Query()
	if r.Method != http.MethodGet || r.URL.Path != "/search.json" {
		tb.Errorf("request %s %s, want GET /search.json", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("User-Agent"); got != providertest.UserAgent {
		tb.Errorf("User-Agent = %q, want %q", got, providertest.UserAgent)
	}
	if q.Get("api_key") != Key || r.Header.Get("Authorization") != "" {
		tb.Errorf("api_key %q, Authorization %q: the key travels as api_key only", q.Get("api_key"), r.Header.Get("Authorization"))
	}
	if q.Get("output") != "json" || r.Header.Get("Accept") != "application/json" {
		tb.Errorf("output %q Accept %q", q.Get("output"), r.Header.Get("Accept"))
	}
	if engine != "" && q.Get("engine") != engine {
		tb.Errorf("engine %q, want %q", q.Get("engine"), engine)
	}
}

// Client builds a client of the providers whose SerpApi is the fake h, with Key.
func Client(tb testing.TB, provs []*providers.Provider, h http.Handler) *providers.Client {
	tb.Helper()
	return providertest.Client(tb, provs, map[string]http.Handler{serpapi.ProviderID: h},
		map[string]string{serpapi.ProviderID: Key})
}
