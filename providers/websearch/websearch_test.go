package websearch

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/pageread"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

const (
	wantUA  = "capgate/test (+tests@example.com)"
	testKey = "test-key"
)

// fake is an httptest stand-in for SerpApi's search.json that records every request and checks
// the path, the key and the User-Agent the adapter sends.
type fake struct {
	providertest.Upstream
	t      *testing.T
	mu     sync.Mutex
	answer func(w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t}
	f.Upstream = providertest.Upstream{TB: t, UserAgent: wantUA, Answer: f.route}
	return f
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	answer := f.answer
	f.mu.Unlock()
	if r.Method != http.MethodGet || r.URL.Path != "/search.json" {
		f.t.Errorf("request %s %s, want GET /search.json", r.Method, r.URL.Path)
	}
	if got := r.URL.Query().Get("api_key"); got != testKey {
		f.t.Errorf("api_key = %q, want %q", got, testKey)
	}
	if r.Header.Get("Authorization") != "" {
		f.t.Errorf("the SerpApi key must travel as api_key only, got Authorization %q", r.Header.Get("Authorization"))
	}
	w.Header().Set("Content-Type", "application/json")
	if answer == nil {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"Not Found"}`))
		return
	}
	answer(w, r)
}

// serve answers every request with a testdata fixture.
func (f *fake) serve(fixture string) {
	f.t.Helper()
	body := providertest.Fixture(f.t, fixture)
	f.answer = func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }
}

func (f *fake) client(t *testing.T) *providers.Client {
	t.Helper()
	return providertest.Client(t, Providers(), map[string]http.Handler{serpapi.ProviderID: f}, map[string]string{serpapi.ProviderID: testKey})
}

func sandboxClient(t *testing.T) *providers.Client {
	t.Helper()
	return providertest.Client(t, Providers(), nil, nil)
}

func prepare(t *testing.T, c *providers.Capability, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, c, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

// uniquePaths lists the distinct violation paths in order (one field may break two keywords).
func uniquePaths(err error) []string {
	var out []string
	for _, p := range providertest.ViolationPaths(err) {
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

func TestDeclarations(t *testing.T) {
	cases := []struct {
		c      *providers.Capability
		id     string
		paging providers.Paging
	}{
		{WebSearch, "web.search", providers.PagingPage},
		{NewsSearch, "news.search", providers.PagingLocal},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			c := tc.c
			if c.ID != tc.id || c.Topic != "Web and news" || c.Title == "" || c.Summary == "" || c.Description == "" {
				t.Errorf("id/topic/texts = %q/%q/%q/%q", c.ID, c.Topic, c.Title, c.Summary)
			}
			if c.Paging != tc.paging || c.Deadline != 15*time.Second || c.Cost.Typical != 1 || c.Cost.Basis == "" || c.Cost.NoMultiplier {
				t.Errorf("paging %v deadline %v cost %+v", c.Paging, c.Deadline, c.Cost)
			}
			if !reflect.DeepEqual(c.Providers, []string{"serpapi"}) {
				t.Errorf("providers = %v", c.Providers)
			}
			if len(c.Actions) != 1 || c.Actions[0].Name != "read" || c.Actions[0].Kind != providers.ActionLookup ||
				c.Actions[0].Credits != 5 || c.Actions[0].Run == nil || c.Actions[0].Description == "" {
				t.Errorf("actions = %+v", c.Actions)
			}
			if c.NoUpdate || !reflect.DeepEqual(c.SearchActions(), []string{"more", "update"}) {
				t.Errorf("search actions = %v", c.SearchActions())
			}
			if len(c.Examples) < 2 {
				t.Errorf("%d examples, want at least 2", len(c.Examples))
			}
			doc := c.Schema().Doc
			if doc["additionalProperties"] != false || doc["type"] != "object" || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" ||
				!reflect.DeepEqual(doc["required"], []any{"query"}) {
				t.Errorf("schema top level: %v", doc)
			}
			props := doc["properties"].(map[string]any)
			if len(props) != 5 {
				t.Errorf("properties = %v", props)
			}
			for name, raw := range props {
				if d, _ := raw.(map[string]any)["description"].(string); d == "" {
					t.Errorf("property %s has no description", name)
				}
			}
			q := props["query"].(map[string]any)
			if q["type"] != "string" || q["minLength"] != 1.0 || q["maxLength"] != 500.0 || q["pattern"] != `\S` {
				t.Errorf("query schema = %v", q)
			}
			num := props["num"].(map[string]any)
			if num["type"] != "integer" || num["minimum"] != 1.0 || num["maximum"] != 20.0 || num["default"] != 10.0 {
				t.Errorf("num schema = %v", num)
			}
			country := props["country"].(map[string]any)
			if country["minLength"] != 2.0 || country["maxLength"] != 2.0 || country["pattern"] != "^[A-Za-z]{2}$" {
				t.Errorf("country schema = %v", country)
			}
			lang := props["language"].(map[string]any)
			if lang["minLength"] != 2.0 || lang["maxLength"] != 5.0 {
				t.Errorf("language schema = %v", lang)
			}
			tr := props["time_range"].(map[string]any)
			if !reflect.DeepEqual(tr["enum"], []any{"day", "week", "month", "year"}) || tr["default"] != nil {
				t.Errorf("time_range schema = %v", tr)
			}
			for _, ex := range c.Examples {
				b, _ := json.Marshal(ex.Body)
				if _, err := providertest.Prepare(t, c, string(b)); err != nil || ex.Title == "" {
					t.Errorf("example %q does not validate: %v", ex.Title, err)
				}
			}
		})
	}
	if got := Capabilities(); len(got) != 2 || got[0] != WebSearch || got[1] != NewsSearch {
		t.Errorf("Capabilities() = %v", got)
	}
	if p := Providers(); len(p) != 1 || p[0] != serpapi.Provider() {
		t.Errorf("Providers() = %v, want the shared SerpApi provider", p)
	}
	if NewsSearch.PageSize(providers.Request{"num": json.Number("7")}) != 7 {
		t.Error("news.search local pages are not sized by num")
	}
	for _, want := range []string{"`query`", "`num`", "`country`", "`language`", "`time_range`", "`source`", "`published_at`", "`thumbnail`", "local"} {
		if !strings.Contains(NewsSearch.Description, want) {
			t.Errorf("news.search description does not describe %s", want)
		}
	}
}

func TestValidation(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name  string
		body  string
		paths []string // nil: valid
	}{
		{"query only", `{"query":"eiffel tower"}`, nil},
		{"everything", `{"query":"x","num":20,"country":"us","language":"pt-br","time_range":"year"}`, nil},
		{"query at 500", `{"query":"` + long(500) + `"}`, nil},
		{"num 1", `{"query":"x","num":1}`, nil},
		{"three-letter language", `{"query":"x","language":"haw"}`, nil},
		{"missing query", `{"num":5}`, []string{"/query"}},
		{"empty query", `{"query":""}`, []string{"/query"}},
		{"blank query", `{"query":" \t "}`, []string{"/query"}},
		{"query too long", `{"query":"` + long(501) + `"}`, []string{"/query"}},
		{"query not a string", `{"query":7}`, []string{"/query"}},
		{"num zero", `{"query":"x","num":0}`, []string{"/num"}},
		{"num 21", `{"query":"x","num":21}`, []string{"/num"}},
		{"num fraction", `{"query":"x","num":2.5}`, []string{"/num"}},
		{"country of three letters", `{"query":"x","country":"USA"}`, []string{"/country"}},
		{"country of one letter", `{"query":"x","country":"U"}`, []string{"/country"}},
		{"country with a digit", `{"query":"x","country":"U1"}`, []string{"/country"}},
		{"language too short", `{"query":"x","language":"e"}`, []string{"/language"}},
		{"language too long", `{"query":"x","language":"en-GBR"}`, []string{"/language"}},
		{"language not a code", `{"query":"x","language":"e n"}`, []string{"/language"}},
		{"time_range unknown", `{"query":"x","time_range":"hour"}`, []string{"/time_range"}},
		{"unknown key", `{"query":"x","page":2}`, []string{"/page"}},
		{"several problems", `{"query":"","num":0,"country":"usa"}`, []string{"/country", "/num", "/query"}},
	}
	for _, c := range []*providers.Capability{WebSearch, NewsSearch} {
		for _, tc := range cases {
			t.Run(c.ID+": "+tc.name, func(t *testing.T) {
				req, err := providertest.Prepare(t, c, tc.body)
				if tc.paths == nil {
					if err != nil {
						t.Fatalf("unexpected error: %v", err)
					}
					if _, ok := req.Int("num"); !ok {
						t.Errorf("num default not applied: %v", req)
					}
					return
				}
				if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
					t.Fatalf("error = %v, want invalid_request", err)
				}
				if got := uniquePaths(err); !reflect.DeepEqual(got, tc.paths) {
					t.Errorf("violation paths = %q, want %q", got, tc.paths)
				}
			})
		}
		t.Run(c.ID+": default num is 10", func(t *testing.T) {
			if n, _ := prepare(t, c, `{"query":"x"}`).Int("num"); n != 10 {
				t.Errorf("num = %d, want 10", n)
			}
		})
	}
}

func TestNewsRules(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		paths []string
	}{
		{"when: without time_range", `{"query":"storm when:2d"}`, nil},
		{"time_range without when:", `{"query":"storm","time_range":"day"}`, nil},
		{"a word ending in when", `{"query":"somewhen: storm","time_range":"day"}`, nil},
		{"both", `{"query":"storm when:2d","time_range":"day"}`, []string{"/time_range"}},
		{"both, operator first and upper case", `{"query":"WHEN:1h storm","time_range":"week"}`, []string{"/time_range"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, NewsSearch, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest || !reflect.DeepEqual(providertest.ViolationPaths(err), tc.paths) {
				t.Errorf("error = %v (paths %q), want invalid_request at %q", err, providertest.ViolationPaths(err), tc.paths)
			}
		})
	}
	t.Run("on update, the merged request is checked", func(t *testing.T) {
		merged := providers.Request{"query": "storm when:1d", "time_range": "week", "num": json.Number("10")}
		vs := NewsSearch.Rules(merged, &providers.Update{Params: providers.Request{"time_range": "week"}})
		if len(vs) != 1 || vs[0].Path != "/time_range" {
			t.Errorf("violations = %+v", vs)
		}
	})
	if WebSearch.Rules != nil {
		t.Error("web.search has no rules beyond the schema in the spec")
	}
}

// TestUpstreamErrors maps SerpApi's documented failures for both capabilities.
func TestUpstreamErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		header map[string]string
		code   providers.Code
		retry  bool
	}{
		{"invalid key", 401, `{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`, nil, providers.CodeProviderError, false},
		{"searches used up", 429, `{"error":"Your account has run out of searches."}`, nil, providers.CodeProviderAllowance, false},
		{"throughput throttled briefly", 429, `{"error":"You have exceeded your hourly throughput limit."}`, map[string]string{"Retry-After": "3"}, providers.CodeRateLimited, true},
		{"bad request", 400, `{"error":"Unsupported ` + "`uk`" + ` country for the engine."}`, nil, providers.CodeProviderError, false},
		{"search failed in a 200", 200, `{"search_metadata":{"id":"x","status":"Error"},"error":"Google hasn't returned a valid response; please try again."}`, nil, providers.CodeProviderError, true},
		{"error in a successful search", 200, `{"search_metadata":{"id":"x","status":"Success"},"error":"Something unexpected."}`, nil, providers.CodeProviderError, true},
		{"server error", 503, `<html>Service Unavailable</html>`, nil, providers.CodeProviderError, true},
		{"malformed JSON", 200, `{"search_metadata": {"status": "Success"}, "organic_results": [`, nil, providers.CodeProviderError, true},
		{"not an object", 200, `["organic_results"]`, nil, providers.CodeProviderError, true},
	}
	for _, c := range []*providers.Capability{WebSearch, NewsSearch} {
		for _, tc := range cases {
			t.Run(c.ID+": "+tc.name, func(t *testing.T) {
				f := newFake(t)
				f.answer = func(w http.ResponseWriter, _ *http.Request) {
					for k, v := range tc.header {
						w.Header().Set(k, v)
					}
					w.WriteHeader(tc.status)
					_, _ = w.Write([]byte(tc.body))
				}
				_, err := providertest.Execute(t, f.client(t), c, providers.ModeLive, `{"query":"apple"}`)
				if got := providertest.ErrorCode(err); got != tc.code {
					t.Fatalf("code = %q (%v), want %q", got, err, tc.code)
				}
				e, _ := providers.AsError(err)
				if e.IsRetryable() != tc.retry {
					t.Errorf("retryable = %v, want %v (%v)", e.IsRetryable(), tc.retry, err)
				}
				if strings.Contains(e.Message, testKey) || strings.Contains(e.Error(), testKey) {
					t.Errorf("the error quotes the key: %v", err)
				}
				if tc.status == 401 && e.Hint == "" {
					t.Errorf("an invalid key carries no hint: %+v", e)
				}
			})
		}
	}
}

func TestNotConfigured(t *testing.T) {
	client := providers.NewClient(Providers(), providers.ClientOptions{Version: "test"}) // no key set
	for _, c := range []*providers.Capability{WebSearch, NewsSearch} {
		_, err := providertest.ExecuteState(t, client, c, providers.ModeLive, prepare(t, c, `{"query":"x"}`), nil)
		if providertest.ErrorCode(err) != providers.CodeCapabilityUnavailable {
			t.Errorf("%s without a key: %v, want capability_unavailable", c.ID, err)
		}
	}
}

// TestExamples runs the shared conformance run over both capabilities' examples in test mode
// (every page has titled records), then each example live against a fake.
func TestExamples(t *testing.T) {
	for _, c := range []*providers.Capability{WebSearch, NewsSearch} {
		t.Run(c.ID, func(t *testing.T) {
			// The read action goes through the page reader, which the registry registers beside.
			providertest.Conformance{Providers: append(Providers(), pageread.Providers()...),
				Page: func(t *testing.T, _ providers.Example, _ int, p *providers.Page) {
					for _, rec := range p.Records {
						if rec.Title == "" {
							t.Errorf("record without a title: %+v", rec)
						}
					}
				}}.Run(t, c)
		})
	}
	for _, c := range []*providers.Capability{WebSearch, NewsSearch} {
		fixture := map[*providers.Capability]string{WebSearch: "google.json", NewsSearch: "google_news.json"}[c]
		for _, ex := range c.Examples {
			body, err := json.Marshal(ex.Body)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(c.ID+" live: "+ex.Title, func(t *testing.T) {
				f := newFake(t)
				f.serve(fixture)
				page, err := providertest.Execute(t, f.client(t), c, providers.ModeLive, string(body))
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Records) == 0 {
					t.Fatal("no records")
				}
				q := f.Requests()[0].URL.Query()
				if !strings.HasPrefix(q.Get("q"), ex.Body.Request()["query"].(string)) {
					t.Errorf("q = %q, want the example's query %q", q.Get("q"), ex.Body.Request()["query"])
				}
				if country, _ := ex.Body.Request()["country"].(string); q.Get("gl") != strings.ToLower(country) {
					t.Errorf("gl = %q for country %q", q.Get("gl"), country)
				}
				if lang, _ := ex.Body.Request()["language"].(string); q.Get("hl") != strings.ToLower(lang) {
					t.Errorf("hl = %q for language %q", q.Get("hl"), lang)
				}
			})
		}
	}
}

func TestSandboxNoResults(t *testing.T) {
	client := sandboxClient(t)
	for _, c := range []*providers.Capability{WebSearch, NewsSearch} {
		page, err := providertest.Execute(t, client, c, providers.ModeTest, `{"query":"noresults here","time_range":"week"}`)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if len(page.Records) != 0 || page.HasMore || page.Next != nil {
			t.Errorf("%s: empty search = %+v", c.ID, page)
		}
	}
}
