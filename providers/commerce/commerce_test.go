package commerce

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/serpapi"
	"github.com/capgate/capgate/providers/upstream/serpapi/serpapitest"
)

const testKey = serpapitest.Key

// fake is an httptest stand-in for SerpApi that records every request and answers search.json by
// engine (and, optionally, by a selector on the query).
type fake struct {
	providertest.Upstream
	t       *testing.T
	mu      sync.Mutex
	engines map[string]func(w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t, engines: map[string]func(http.ResponseWriter, *http.Request){}}
	f.Upstream = providertest.Upstream{TB: t, Answer: f.route}
	return f
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	h, ok := f.engines[r.URL.Query().Get("engine")]
	f.mu.Unlock()
	serpapitest.CheckRequest(f.t, r, "")
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"Unsupported engine."}`))
		return
	}
	h(w, r)
}

// body is a testdata fixture name or literal JSON.
func (f *fake) body(body string) []byte {
	f.t.Helper()
	if strings.HasPrefix(body, "{") || strings.HasPrefix(body, "[") || body == "" {
		return []byte(body)
	}
	return providertest.Fixture(f.t, body)
}

// serve answers an engine with a status and a body.
func (f *fake) serve(engine string, status int, body string) {
	f.t.Helper()
	b := f.body(body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.engines[engine] = func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write(b)
	}
}

// serveBy answers an engine with the body picked by pick(query) (a fixture name or JSON).
func (f *fake) serveBy(engine string, pick func(q url.Values) string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.engines[engine] = func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(f.body(pick(r.URL.Query())))
	}
}

func (f *fake) client(t *testing.T) *providers.Client {
	return serpapitest.Client(t, Providers(), f)
}

func sandboxClient(t *testing.T) *providers.Client {
	t.Helper()
	return providertest.Client(t, Providers(), nil, nil)
}

// query returns a request's query without the parameters every SerpApi call carries.
func query(r *http.Request) url.Values {
	q := r.URL.Query()
	for _, k := range []string{"api_key", "output"} {
		q.Del(k)
	}
	return q
}

func wantQuery(t *testing.T, r *http.Request, want url.Values) {
	t.Helper()
	if got := query(r); !reflect.DeepEqual(got, want) {
		t.Errorf("query = %v\nwant    %v", got, want)
	}
}

func prepare(t *testing.T, c *providers.Capability, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, c, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

func sortedPaths(err error) []string {
	var p []string
	seen := map[string]bool{}
	for _, v := range providertest.ViolationPaths(err) {
		if !seen[v] {
			seen[v] = true
			p = append(p, v)
		}
	}
	sort.Strings(p)
	return p
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCatalogEntries(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range Capabilities() {
		ids[c.ID] = true
		if c.Topic != "Commerce and markets" || c.Title == "" || c.Summary == "" || c.Description == "" || c.Execute == nil {
			t.Errorf("%s: incomplete declaration", c.ID)
		}
		if !reflect.DeepEqual(c.Providers, []string{serpapi.ProviderID}) {
			t.Errorf("%s: providers %v", c.ID, c.Providers)
		}
		if len(c.Examples) < 2 {
			t.Errorf("%s: %d examples", c.ID, len(c.Examples))
		}
		for _, ex := range c.Examples {
			b, _ := json.Marshal(ex.Body)
			if _, err := providertest.Prepare(t, c, string(b)); err != nil {
				t.Errorf("%s example %q: %v", c.ID, ex.Title, err)
			}
		}
		checkSchema(t, c)
	}
	if !reflect.DeepEqual(ids, map[string]bool{"shopping.search": true, "jobs.search": true, "markets.quote": true}) {
		t.Errorf("capabilities = %v", ids)
	}
	if p := Providers(); len(p) != 1 || p[0] != serpapi.Provider() {
		t.Errorf("providers = %v", p)
	}
	want := []struct {
		id       string
		typical  int
		deadline int
		paging   providers.Paging
		noUpdate bool
		kind     providers.ActionKind
		credits  int
	}{
		{"shopping.search", 4, 40, providers.PagingPage, false, providers.ActionLookup, 4},
		{"jobs.search", 4, 40, providers.PagingToken, false, providers.ActionStored, 0},
		{"markets.quote", 1, 15, providers.PagingSingle, true, providers.ActionStored, 0},
	}
	for i, c := range Capabilities() {
		w := want[i]
		a, ok := c.Action("details")
		if c.ID != w.id || c.Cost.Typical != w.typical || int(c.Deadline.Seconds()) != w.deadline || c.Paging != w.paging ||
			c.NoUpdate != w.noUpdate || !ok || a.Kind != w.kind || a.Credits != w.credits || c.Cost.Basis == "" || len(c.Actions) != 1 {
			t.Errorf("%s: typical %d deadline %v paging %s noUpdate %v actions %+v", c.ID, c.Cost.Typical, c.Deadline, c.Paging, c.NoUpdate, c.Actions)
		}
	}
}

// checkSchema: draft 2020-12, additionalProperties false and a description on every property.
func checkSchema(t *testing.T, c *providers.Capability) {
	t.Helper()
	doc := c.Schema().Doc
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["additionalProperties"] != false {
		t.Errorf("%s: schema header %v %v", c.ID, doc["$schema"], doc["additionalProperties"])
	}
	props, _ := doc["properties"].(map[string]any)
	for name, p := range props {
		if d, _ := p.(map[string]any)["description"].(string); d == "" {
			t.Errorf("%s: property %s has no description", c.ID, name)
		}
	}
}
