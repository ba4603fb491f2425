package navigation

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const (
	userAgent = "capgate/test (+tests@example.com)"
	orsKey    = "ors-test-key"
)

// seen is one request as an upstream fake received it.
type seen struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   string
}

// fake is the shared recording stand-in for one upstream.
type fake = providertest.Upstream

// requests is what f received, as seen values.
func requests(f *fake) []seen {
	var out []seen
	for _, r := range f.Requests() {
		var b []byte
		if r.Body != nil {
			b, _ = io.ReadAll(r.Body)
		}
		out = append(out, seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header, Body: string(b)})
	}
	return out
}

// sequence answers the i-th request with the i-th file (the last one repeats).
func sequence(tb testing.TB, answers ...answer) *fake {
	tb.Helper()
	bodies := make([][]byte, len(answers))
	for i, a := range answers {
		b, err := os.ReadFile(a.file)
		if err != nil {
			tb.Fatal(err)
		}
		bodies[i] = b
	}
	var mu sync.Mutex
	n := 0
	return &fake{Answer: func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := min(n, len(answers)-1)
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(answers[i].status)
		_, _ = w.Write(bodies[i])
	}}
}

type answer struct {
	status int
	file   string
}

// sandboxFake serves the provider's own sandbox fixtures from a live fake.
func sandboxFake(id string) *fake { return providertest.SandboxUpstream(Providers(), id) }

// testProviders are Providers() with Nominatim's and OSRM's one-request-a-second bounds lifted, so
// the tests do not wait on them (TestProviders checks the real declaration).
func testProviders() []*providers.Provider {
	provs := Providers()
	for _, p := range provs {
		if p.ID == nominatimID || p.ID == osrmID {
			p.RequestsPerSecond = 0
		}
	}
	return provs
}

// upstreams are the fakes of one test; a nil fake leaves that provider at its default (for ORS:
// unconfigured unless withKey).
type upstreams struct {
	ors, osrm, nominatim *fake
	noORSKey             bool
}

// client builds a live client over the fakes; the geocoding cache starts empty.
func (u upstreams) client(tb testing.TB) *providers.Client {
	tb.Helper()
	geocodeCache = newPlaceCache(2048, geocodeCache.ttl, geocodeCache.missTTL)
	fakes := map[string]http.Handler{}
	keys := map[string]string{}
	if u.ors != nil {
		fakes[orsID] = u.ors
		if !u.noORSKey {
			keys[orsID] = orsKey
		}
	}
	if u.osrm != nil {
		fakes[osrmID] = u.osrm
	}
	if u.nominatim != nil {
		fakes[nominatimID] = u.nominatim
	}
	return providertest.Client(tb, testProviders(), fakes, keys)
}

func prepare(tb testing.TB, c *providers.Capability, body string) providers.Request {
	tb.Helper()
	req, err := providertest.Prepare(tb, c, body)
	if err != nil {
		tb.Fatalf("body %s: %v", body, err)
	}
	return req
}

// run validates the body as the gateway does and executes it live against the fakes.
func run(tb testing.TB, c *providers.Capability, u upstreams, body string) (*providers.Page, error) {
	tb.Helper()
	return providertest.ExecuteState(tb, u.client(tb), c, providers.ModeLive, prepare(tb, c, body), nil)
}

// checkHeaders asserts the User-Agent of every request and the ORS key where it is sent.
func checkHeaders(tb testing.TB, name string, f *fake, wantKey string) {
	tb.Helper()
	if f == nil {
		return
	}
	for _, r := range requests(f) {
		if got := r.Header.Get("User-Agent"); got != userAgent {
			tb.Errorf("%s: User-Agent %q, want %q", name, got, userAgent)
		}
		if got := r.Header.Get("Authorization"); got != wantKey {
			tb.Errorf("%s: Authorization %q, want %q", name, got, wantKey)
		}
	}
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(tb testing.TB, got, want string) bool {
	tb.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		tb.Fatalf("not JSON: %s", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		tb.Fatalf("want is not JSON: %s", want)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}

func td(name string) string { return filepath.Join("testdata", name) }
func sb(name string) string { return filepath.Join("sandbox", name) }

// detail returns the stored details body of a record, as JSON.
func detailJSON(tb testing.TB, c *providers.Capability, rec *providers.Record) map[string]any {
	tb.Helper()
	d, err := providertest.Action(tb, nil, c, providers.ModeLive, nil, "details", rec)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}
