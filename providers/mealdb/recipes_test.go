package mealdb

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const wantUA = "capgate/test (+tests@example.com)"

// fake is an httptest stand-in for TheMealDB that records every request it gets. Handlers are
// keyed by the endpoint file name (search.php, filter.php, lookup.php); the key segment in front
// of it is recorded and checked by the tests.
type fake struct {
	providertest.Upstream
	t      *testing.T
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
	parts := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	h := f.routes[parts[len(parts)-1]]
	f.mu.Unlock()
	if got := r.Header.Get("Authorization"); got != "" {
		f.t.Errorf("the key travels in the path, but Authorization %q was sent", got)
	}
	if r.Method != http.MethodGet {
		f.t.Errorf("method = %s, want GET", r.Method)
	}
	if h == nil || len(parts) != 2 {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<html><body>404 Not Found</body></html>"))
		return
	}
	h(w, r)
}

// serve answers an endpoint with a testdata fixture.
func (f *fake) serve(endpoint, fixture string) {
	f.t.Helper()
	body := providertest.Fixture(f.t, fixture)
	f.raw(endpoint, http.StatusOK, "application/json", string(body), nil)
}

func (f *fake) raw(endpoint string, status int, ctype, body string, header http.Header) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[endpoint] = func(w http.ResponseWriter, _ *http.Request) {
		for k, vs := range header {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// client points the provider at the fake with the key; "" means a development deployment that
// set PROVIDER_MEALDB_KEY to the public test key.
func (f *fake) client(t *testing.T, key string) *providers.Client {
	t.Helper()
	if key == "" {
		key = publicTestKey
	}
	return providertest.Client(t, Providers(), map[string]http.Handler{ProviderID: f}, map[string]string{ProviderID: key})
}

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, RecipesSearch, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

func sandboxClient(t *testing.T) *providers.Client {
	t.Helper()
	return providertest.Client(t, Providers(), nil, nil)
}

func TestCapabilityDeclaration(t *testing.T) {
	c := RecipesSearch
	if c.ID != "recipes.search" || c.Topic != "Food and fitness" || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("id/topic/texts = %q/%q/%q", c.ID, c.Topic, c.Title)
	}
	if c.Paging != providers.PagingLocal || c.Deadline != 15*time.Second || c.Cost.Typical != 0 || c.Cost.Basis == "" {
		t.Errorf("paging %v deadline %v cost %+v", c.Paging, c.Deadline, c.Cost)
	}
	if c.NoUpdate || c.Merge == nil || c.Rules == nil || c.Execute == nil {
		t.Errorf("update/merge/rules/execute not declared")
	}
	if !reflect.DeepEqual(c.Providers, []string{"mealdb"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	if len(c.Actions) != 1 || c.Actions[0].Name != "details" || c.Actions[0].Kind != providers.ActionLookup ||
		c.Actions[0].Credits != 0 || c.Actions[0].Run == nil || c.Actions[0].Description == "" {
		t.Errorf("actions = %+v", c.Actions)
	}
	if got := c.SearchActions(); !reflect.DeepEqual(got, []string{"more", "update"}) {
		t.Errorf("search actions = %v", got)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples, want at least 2", len(c.Examples))
	}
	if got := Capabilities(); len(got) != 1 || got[0] != RecipesSearch {
		t.Errorf("Capabilities() = %v", got)
	}
	p := Providers()
	if len(p) != 1 || p[0].ID != ProviderID || p[0].BaseURL != "https://www.themealdb.com/api/json/v1" || !p[0].KeyRequired ||
		p[0].Authorize != nil || p[0].Sandbox == nil {
		t.Errorf("provider = %+v", p[0])
	}

	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["type"] != "object" || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("schema top level: %v", doc)
	}
	props := doc["properties"].(map[string]any)
	for _, name := range selectors {
		p := props[name].(map[string]any)
		if p["type"] != "string" || p["minLength"] != 1.0 || p["maxLength"] != 120.0 || p["pattern"] != `\S` {
			t.Errorf("%s schema = %v", name, p)
		}
	}
	num := props["num"].(map[string]any)
	if num["type"] != "integer" || num["minimum"] != 1.0 || num["maximum"] != 20.0 || num["default"] != 10.0 {
		t.Errorf("num schema = %v", num)
	}
	for name, raw := range props {
		if d, _ := raw.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	if len(props) != 5 {
		t.Errorf("properties = %v", props)
	}
}

func TestValidation(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name  string
		body  string
		paths []string // nil: valid
	}{
		{"query", `{"query":"stew"}`, nil},
		{"ingredient", `{"ingredient":"chicken breast"}`, nil},
		{"category", `{"category":"Seafood","num":20}`, nil},
		{"cuisine", `{"cuisine":"Italian","num":1}`, nil},
		{"query at 120", `{"query":"` + long(120) + `"}`, nil},
		{"nothing", `{}`, []string{""}},
		{"num only", `{"num":5}`, []string{""}},
		{"query and ingredient", `{"query":"stew","ingredient":"beef"}`, []string{"/ingredient"}},
		{"category and cuisine", `{"category":"Seafood","cuisine":"Italian"}`, []string{"/cuisine"}},
		{"all four", `{"cuisine":"Italian","category":"Pasta","ingredient":"garlic","query":"penne"}`, []string{"/category", "/cuisine", "/ingredient"}},
		{"empty query", `{"query":""}`, []string{"/query"}},
		{"blank query", `{"query":"   "}`, []string{"/query"}},
		{"blank ingredient", `{"ingredient":"\t\n"}`, []string{"/ingredient"}},
		{"blank category", `{"category":" "}`, []string{"/category"}},
		{"blank cuisine", `{"cuisine":""}`, []string{"/cuisine"}},
		{"query too long", `{"query":"` + long(121) + `"}`, []string{"/query"}},
		{"ingredient too long", `{"ingredient":"` + long(121) + `"}`, []string{"/ingredient"}},
		{"category too long", `{"category":"` + long(121) + `"}`, []string{"/category"}},
		{"cuisine too long", `{"cuisine":"` + long(121) + `"}`, []string{"/cuisine"}},
		{"num zero", `{"query":"stew","num":0}`, []string{"/num"}},
		{"num 21", `{"query":"stew","num":21}`, []string{"/num"}},
		{"num fraction", `{"query":"stew","num":2.5}`, []string{"/num"}},
		{"num string", `{"query":"stew","num":"5"}`, []string{"/num"}},
		{"query not a string", `{"query":42}`, []string{"/query"}},
		{"query null", `{"query":null}`, []string{"/query"}},
		{"unknown key", `{"query":"stew","area":"Italian"}`, []string{"/area"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, RecipesSearch, tc.body)
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
			got := uniquePaths(err)
			if !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %q, want %q", got, tc.paths)
			}
		})
	}

	t.Run("default num is 10", func(t *testing.T) {
		req := prepare(t, `{"cuisine":"Italian"}`)
		if n, _ := req.Int("num"); n != 10 {
			t.Errorf("num = %d, want 10", n)
		}
		if RecipesSearch.PageSize(req) != 10 {
			t.Errorf("page size = %d", RecipesSearch.PageSize(req))
		}
	})
	t.Run("combination message names both fields", func(t *testing.T) {
		_, err := providertest.Prepare(t, RecipesSearch, `{"query":"stew","category":"Beef"}`)
		e, _ := providers.AsError(err)
		if e == nil || len(e.Violations) != 1 || !strings.Contains(e.Violations[0].Message, "category cannot be combined with query") {
			t.Errorf("violation = %+v", e)
		}
	})
	t.Run("missing selector message", func(t *testing.T) {
		_, err := providertest.Prepare(t, RecipesSearch, `{}`)
		e, _ := providers.AsError(err)
		if e == nil || !strings.Contains(e.Message, "exactly one of query, ingredient, category or cuisine") {
			t.Errorf("error = %+v", e)
		}
	})
}

func uniquePaths(err error) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range providertest.ViolationPaths(err) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// TestUpdate checks the spec's update semantics through Merge and the rules, as the gateway runs
// them: merge, then Prepare with the Update.
func TestUpdate(t *testing.T) {
	prev := prepare(t, `{"query":"stew","num":5}`)
	cases := []struct {
		name   string
		params string
		want   map[string]any // nil: refused
		paths  []string
	}{
		{"empty params refresh", `{}`, map[string]any{"query": "stew", "num": "5"}, nil},
		{"new query replaces", `{"query":"pie"}`, map[string]any{"query": "pie", "num": "5"}, nil},
		{"cuisine replaces query", `{"cuisine":"Italian"}`, map[string]any{"cuisine": "Italian", "num": "5"}, nil},
		{"ingredient replaces query, num changed", `{"ingredient":"garlic","num":20}`, map[string]any{"ingredient": "garlic", "num": "20"}, nil},
		{"num only keeps the selector", `{"num":3}`, map[string]any{"query": "stew", "num": "3"}, nil},
		{"null num falls back to the default", `{"num":null}`, map[string]any{"query": "stew", "num": "10"}, nil},
		{"two selectors in params", `{"category":"Beef","cuisine":"Irish"}`, nil, []string{"/cuisine"}},
		{"null selector leaves none", `{"query":null}`, nil, []string{""}},
		{"blank selector", `{"category":"  "}`, nil, []string{"/category"}},
		{"null with a new selector", `{"query":null,"category":"Dessert"}`, map[string]any{"category": "Dessert", "num": "5"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params, err := providers.DecodeBody([]byte(tc.params))
			if err != nil {
				t.Fatal(err)
			}
			merged := RecipesSearch.Merge(prev.Clone(), params)
			req, err := RecipesSearch.Prepare(merged, &providers.Update{Previous: prev, Params: params})
			if tc.want == nil {
				if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
					t.Fatalf("error = %v, want invalid_request", err)
				}
				if got := uniquePaths(err); !reflect.DeepEqual(got, tc.paths) {
					t.Errorf("paths = %q, want %q", got, tc.paths)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			got := map[string]any{}
			for k, v := range req {
				got[k] = toString(v)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("merged = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("merge does not modify prev", func(t *testing.T) {
		p := prev.Clone()
		_ = RecipesSearch.Merge(p, providers.Request{"cuisine": "Thai"})
		if p.Str("query") != "stew" || p.Has("cuisine") {
			t.Errorf("prev changed: %v", p)
		}
	})
}

// asJSON renders v as generic JSON, so that a struct and the map it becomes after a session
// round trip compare equal.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func toString(v any) any {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	}
	return v
}

func TestGoldenMapping(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		fixture string
		golden  string
	}{
		{"search.php full meals", `{"query":"arrabiata"}`, "search.json", "search"},
		{"search.php odd values", `{"query":"pie"}`, "search_odd.json", "search_odd"},
		{"filter.php summaries", `{"category":"Seafood"}`, "filter.json", "filter"},
		{"no result", `{"cuisine":"Atlantean"}`, "meals_null.json", "empty_filter"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("search.php", tc.fixture)
			f.serve("filter.php", tc.fixture)
			page, err := providertest.Execute(t, f.client(t, ""), RecipesSearch, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.golden, providertest.RecordsJSON(page))
		})
	}
}

func TestRecordMapping(t *testing.T) {
	f := newFake(t)
	f.serve("search.php", "search_odd.json")
	page, err := providertest.Execute(t, f.client(t, ""), RecipesSearch, providers.ModeLive, `{"query":"pie"}`)
	if err != nil {
		t.Fatal(err)
	}
	titles := []string{}
	for _, r := range page.Records {
		titles = append(titles, r.Title)
		if providertest.Native(&r)["attribution"] != attribution {
			t.Errorf("%s: attribution = %v", r.Title, providertest.Native(&r)["attribution"])
		}
		for k, v := range providertest.Native(&r) {
			if s, ok := v.(string); ok && s == "" {
				t.Errorf("%s: empty %s", r.Title, k)
			}
		}
	}
	want := []string{"Pumpkin Pie", "Meal 53101", "Mystery Dish"}
	if !reflect.DeepEqual(titles, want) {
		t.Fatalf("titles = %q, want %q", titles, want)
	}
	pie, meal, mystery := page.Records[0], page.Records[1], page.Records[2]
	if pie.URL != "https://www.themealdb.com/meal/53100" || string(pie.Ref) != `{"id":"53100"}` {
		t.Errorf("numeric idMeal: url %q ref %s", pie.URL, pie.Ref)
	}
	if _, ok := providertest.Native(&pie)["cuisine"]; ok {
		t.Errorf("cuisine Unknown should be left out: %v", providertest.Native(&pie))
	}
	if _, ok := providertest.Native(&meal)["category"]; ok {
		t.Errorf("a non-string category should be left out: %v", providertest.Native(&meal))
	}
	if meal.Snippet != "Mix everything. Bake it." {
		t.Errorf("snippet = %q", meal.Snippet)
	}
	if mystery.URL != "" || mystery.Ref != nil || mystery.Stored["details"] == nil || mystery.Actions != nil {
		t.Errorf("a meal without a numeric id keeps its stored details and has no url: %+v", mystery)
	}
}

func TestSnippetClip(t *testing.T) {
	long := strings.Repeat("word ", 100)
	s := snippet(long)
	if n := len([]rune(s)); n > maxSnippet+1 || !strings.HasSuffix(s, "…") || strings.Contains(s, "  ") {
		t.Errorf("snippet (%d runes) = %q", n, s)
	}
	if got := snippet("Short\r\ntext."); got != "Short text." {
		t.Errorf("snippet = %q", got)
	}
}

func TestUpstreamRequests(t *testing.T) {
	cases := []struct {
		name      string
		body      string
		key       string
		wantPath  string
		wantQuery url.Values
	}{
		{"query with the public test key set for development", `{"query":"  beef stew "}`, "1", "/1/search.php", url.Values{"s": {"beef stew"}}},
		{"query with a supporter key", `{"query":"stew"}`, "9973533", "/9973533/search.php", url.Values{"s": {"stew"}}},
		{"ingredient spaces become underscores", `{"ingredient":" chicken  breast "}`, "", "/1/filter.php", url.Values{"i": {"chicken_breast"}}},
		{"category", `{"category":"Seafood"}`, "", "/1/filter.php", url.Values{"c": {"Seafood"}}},
		{"cuisine", `{"cuisine":" Italian"}`, "", "/1/filter.php", url.Values{"a": {"Italian"}}},
		{"key is path-escaped", `{"cuisine":"Thai"}`, "a/b c", "/a%2Fb%20c/filter.php", url.Values{"a": {"Thai"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("search.php", "search.json")
			f.serve("filter.php", "filter.json")
			if _, err := providertest.Execute(t, f.client(t, tc.key), RecipesSearch, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			reqs := f.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d upstream requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.URL.EscapedPath() != tc.wantPath {
				t.Errorf("path = %q, want %q", r.URL.EscapedPath(), tc.wantPath)
			}
			if !reflect.DeepEqual(r.URL.Query(), tc.wantQuery) {
				t.Errorf("query = %v, want %v", r.URL.Query(), tc.wantQuery)
			}
			if r.Header.Get("Accept") != "application/json" {
				t.Errorf("Accept = %q", r.Header.Get("Accept"))
			}
		})
	}
}

func TestLocalPaging(t *testing.T) {
	f := newFake(t)
	f.serve("search.php", "search.json")
	f.serve("filter.php", "filter.json")
	client := f.client(t, "")
	for _, body := range []string{`{"query":"a","num":1}`, `{"category":"Seafood","num":2}`} {
		t.Run(body, func(t *testing.T) {
			req := prepare(t, body)
			page, err := providertest.ExecuteState(t, client, RecipesSearch, providers.ModeLive, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if page.HasMore || page.Next != nil {
				t.Errorf("local paging returns one page: has_more %v next %s", page.HasMore, page.Next)
			}
			n, _ := req.Int("num")
			if len(page.Records) <= n {
				t.Errorf("%d records with num %d: the whole result set is expected (the gateway slices it)", len(page.Records), n)
			}
			// The gateway's local page 1 → more → page 2 over the held set.
			size := RecipesSearch.PageSize(req)
			first, second := page.Records[:size], page.Records[size:min(2*size, len(page.Records))]
			if len(first) != n || len(second) == 0 || first[0].Title == second[0].Title {
				t.Errorf("slicing: first %d second %d", len(first), len(second))
			}
		})
	}
}

func TestEmptyResults(t *testing.T) {
	cases := []struct {
		name, body, fixture string
		note                bool
	}{
		{"search null", `{"query":"zzzz"}`, "meals_null.json", false},
		{"search no data found", `{"query":"zzzz"}`, "meals_nodata.json", false},
		{"filter null", `{"ingredient":"unobtainium"}`, "meals_null.json", true},
		{"filter no data found", `{"category":"Nothing"}`, "meals_nodata.json", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("search.php", tc.fixture)
			f.serve("filter.php", tc.fixture)
			page, err := providertest.Execute(t, f.client(t, ""), RecipesSearch, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) != 0 || page.HasMore {
				t.Errorf("records %d has_more %v", len(page.Records), page.HasMore)
			}
			if got := len(page.Notes) == 1 && page.Notes[0] == emptyFilterNote; got != tc.note {
				t.Errorf("notes = %q", page.Notes)
			}
		})
	}
}

func TestUpstreamErrors(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		ctype     string
		body      string
		header    http.Header
		code      providers.Code
		retryable bool
	}{
		{"server error", 500, "text/html", "<html>Internal Server Error</html>", nil, providers.CodeProviderError, true},
		{"bad gateway", 502, "text/html", "<html>Bad Gateway</html>", nil, providers.CodeProviderError, true},
		{"throttled briefly", 429, "text/html", "Too Many Requests", http.Header{"Retry-After": {"5"}}, providers.CodeRateLimited, true},
		{"throttled without retry-after", 429, "text/html", "Too Many Requests", nil, providers.CodeProviderAllowance, false},
		{"forbidden (bad key)", 403, "text/html", "<html>Forbidden</html>", nil, providers.CodeProviderError, false},
		{"not found page", 404, "text/html", "<html>404</html>", nil, providers.CodeProviderError, false},
		{"html with 200", 200, "text/html", "<!DOCTYPE html><html></html>", nil, providers.CodeProviderError, true},
		{"truncated json", 200, "application/json", `{"meals":[{"idMeal":"1"`, nil, providers.CodeProviderError, true},
		{"json array", 200, "application/json", `[]`, nil, providers.CodeProviderError, true},
		{"no meals member", 200, "application/json", `{}`, nil, providers.CodeProviderError, true},
		{"meals is an object", 200, "application/json", `{"meals":{"idMeal":"1"}}`, nil, providers.CodeProviderError, true},
		{"meals is another message", 200, "application/json", `{"meals":"Invalid API key"}`, nil, providers.CodeProviderError, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.raw("filter.php", tc.status, tc.ctype, tc.body, tc.header)
			_, err := providertest.Execute(t, f.client(t, ""), RecipesSearch, providers.ModeLive, `{"cuisine":"Italian"}`)
			if got := providertest.ErrorCode(err); got != tc.code {
				t.Fatalf("code = %q (%v), want %q", got, err, tc.code)
			}
			e, _ := providers.AsError(err)
			if e.IsRetryable() != tc.retryable {
				t.Errorf("retryable = %v, want %v", e.IsRetryable(), tc.retryable)
			}
		})
	}
	t.Run("the upstream message is carried", func(t *testing.T) {
		f := newFake(t)
		f.raw("search.php", 200, "application/json", `{"meals":"Invalid API key"}`, nil)
		_, err := providertest.Execute(t, f.client(t, ""), RecipesSearch, providers.ModeLive, `{"query":"stew"}`)
		if e, _ := providers.AsError(err); e == nil || !strings.Contains(e.Message, "Invalid API key") {
			t.Errorf("error = %v", err)
		}
	})
}

func TestExamples(t *testing.T) {
	sandbox := sandboxClient(t)
	f := newFake(t)
	f.serve("search.php", "search.json")
	f.serve("filter.php", "filter.json")
	f.serve("lookup.php", "lookup.json")
	live := f.client(t, "")
	for _, ex := range RecipesSearch.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			b, err := json.Marshal(ex.Body)
			if err != nil {
				t.Fatal(err)
			}
			for _, run := range []struct {
				mode   providers.Mode
				client *providers.Client
			}{{providers.ModeTest, sandbox}, {providers.ModeLive, live}} {
				page, err := providertest.Execute(t, run.client, RecipesSearch, run.mode, string(b))
				if err != nil {
					t.Fatalf("%s: %v", run.mode, err)
				}
				if len(page.Records) == 0 {
					t.Errorf("%s: %d records", run.mode, len(page.Records))
				}
				for _, r := range page.Records {
					if r.Title == "" || r.URL == "" || providertest.Native(&r)["attribution"] == nil {
						t.Errorf("%s: record %+v", run.mode, r)
					}
				}
			}
		})
	}
}

// TestSandboxDetails runs details for every record of every example in the sandbox: stored
// details for name searches, lookup.php fixtures for the filters.
func TestSandboxDetails(t *testing.T) {
	client := sandboxClient(t)
	for _, ex := range RecipesSearch.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			b, _ := json.Marshal(ex.Body)
			req := prepare(t, string(b))
			page, err := providertest.ExecuteState(t, client, RecipesSearch, providers.ModeTest, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range page.Records {
				rec := &page.Records[i]
				d, err := providertest.Action(t, client, RecipesSearch, providers.ModeTest, req, "details", rec)
				if err != nil {
					t.Fatalf("%s: %v", rec.Title, err)
				}
				body := d.Body.(detailBody)
				if body.Name != rec.Title || len(body.Ingredients) == 0 || body.Instructions == "" {
					t.Errorf("%s: detail %+v", rec.Title, body)
				}
				if providertest.Native(rec)["category"] != nil && providertest.Native(rec)["category"] != body.Category {
					t.Errorf("%s: category %v vs %v", rec.Title, providertest.Native(rec)["category"], body.Category)
				}
			}
		})
	}
	t.Run("sandbox search fixture shows optional fields present and absent", func(t *testing.T) {
		page, err := providertest.Execute(t, client, RecipesSearch, providers.ModeTest, `{"query":"stew"}`)
		if err != nil {
			t.Fatal(err)
		}
		var withCuisine, withoutCuisine, withVideo, withoutVideo int
		for _, r := range page.Records {
			if _, ok := providertest.Native(&r)["cuisine"]; ok {
				withCuisine++
			} else {
				withoutCuisine++
			}
			if r.Stored["details"].Body.(detailBody).Links.Video != "" {
				withVideo++
			} else {
				withoutVideo++
			}
		}
		if withCuisine == 0 || withoutCuisine == 0 || withVideo == 0 || withoutVideo == 0 {
			t.Errorf("cuisine %d/%d video %d/%d", withCuisine, withoutCuisine, withVideo, withoutVideo)
		}
	})
	t.Run("unknown meal in the sandbox", func(t *testing.T) {
		rec := &providers.Record{Title: "x", Ref: json.RawMessage(`{"id":"1"}`)}
		_, err := providertest.Action(t, client, RecipesSearch, providers.ModeTest, nil, "details", rec)
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("error = %v", err)
		}
	})
}

func TestDetails(t *testing.T) {
	t.Run("stored at search time: no upstream call", func(t *testing.T) {
		f := newFake(t)
		f.serve("search.php", "search.json")
		client := f.client(t, "")
		req := prepare(t, `{"query":"arrabiata"}`)
		page, err := providertest.ExecuteState(t, client, RecipesSearch, providers.ModeLive, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := providertest.Action(t, client, RecipesSearch, providers.ModeLive, req, "details", &page.Records[1])
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Requests()) != 1 {
			t.Errorf("%d upstream calls, want only the search", len(f.Requests()))
		}
		if d.Credits != nil {
			t.Errorf("credits = %v, want the action's 0", *d.Credits)
		}
		providertest.Golden(t, "details_stored", d)
	})
	t.Run("stored detail after a session round trip", func(t *testing.T) {
		// The gateway stores Stored as JSON and hands it back decoded into map bodies.
		f := newFake(t)
		f.serve("search.php", "search.json")
		client := f.client(t, "")
		req := prepare(t, `{"query":"arrabiata"}`)
		page, err := providertest.ExecuteState(t, client, RecipesSearch, providers.ModeLive, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(page.Records[0].Stored)
		rec := providers.Record{Title: page.Records[0].Title, Ref: page.Records[0].Ref}
		if err := json.Unmarshal(b, &rec.Stored); err != nil {
			t.Fatal(err)
		}
		d, err := providertest.Action(t, client, RecipesSearch, providers.ModeLive, req, "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := asJSON(t, d), asJSON(t, page.Records[0].Stored["details"]); !reflect.DeepEqual(got, want) {
			t.Errorf("detail = %v, want %v", got, want)
		}
		if len(f.Requests()) != 1 {
			t.Errorf("%d upstream calls", len(f.Requests()))
		}
	})
	t.Run("filter record: lookup.php by id", func(t *testing.T) {
		f := newFake(t)
		f.serve("filter.php", "filter.json")
		f.serve("lookup.php", "lookup.json")
		client := f.client(t, "9973533")
		req := prepare(t, `{"category":"Beef"}`)
		rec := &providers.Record{Title: "Croatian Bean Stew", Ref: json.RawMessage(`{"id":"53058"}`)}
		d, err := providertest.Action(t, client, RecipesSearch, providers.ModeLive, req, "details", rec)
		if err != nil {
			t.Fatal(err)
		}
		reqs := f.Requests()
		if len(reqs) != 1 || reqs[0].URL.Path != "/9973533/lookup.php" || !reflect.DeepEqual(reqs[0].URL.Query(), url.Values{"i": {"53058"}}) {
			t.Fatalf("requests = %v", reqs)
		}
		providertest.Golden(t, "details_lookup", d)
	})
	t.Run("filter records carry a ref and no stored detail", func(t *testing.T) {
		f := newFake(t)
		f.serve("filter.php", "filter.json")
		page, err := providertest.Execute(t, f.client(t, ""), RecipesSearch, providers.ModeLive, `{"cuisine":"British"}`)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Records {
			if r.Stored != nil || len(r.Ref) == 0 || r.Actions != nil {
				t.Errorf("record %+v", r)
			}
		}
	})
	cases := []struct {
		name    string
		ref     string
		status  int
		body    string
		code    providers.Code
		upstrem bool
	}{
		{"meal gone", `{"id":"52771"}`, 200, `{"meals":null}`, providers.CodeNotFound, true},
		{"meal gone (message)", `{"id":"52771"}`, 200, `{"meals":"no data found"}`, providers.CodeNotFound, true},
		{"other meal answered", `{"id":"52771"}`, 200, `{"meals":[{"idMeal":"1","strMeal":"Other"}]}`, providers.CodeNotFound, true},
		{"upstream failure", `{"id":"52771"}`, 503, `<html>busy</html>`, providers.CodeProviderError, true},
		{"malformed", `{"id":"52771"}`, 200, `{"meals":[`, providers.CodeProviderError, true},
		{"no ref", ``, 200, `{}`, providers.CodeNotFound, false},
		{"non-numeric id", `{"id":"../x"}`, 200, `{}`, providers.CodeNotFound, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.raw("lookup.php", tc.status, "application/json", tc.body, nil)
			rec := &providers.Record{Title: "x"}
			if tc.ref != "" {
				rec.Ref = json.RawMessage(tc.ref)
			}
			_, err := providertest.Action(t, f.client(t, ""), RecipesSearch, providers.ModeLive, nil, "details", rec)
			if got := providertest.ErrorCode(err); got != tc.code {
				t.Errorf("code = %q (%v), want %q", got, err, tc.code)
			}
			if called := len(f.Requests()) > 0; called != tc.upstrem {
				t.Errorf("upstream called = %v, want %v", called, tc.upstrem)
			}
		})
	}
}

func TestSandboxRoutes(t *testing.T) {
	client := sandboxClient(t)
	u := client.Upstream(ProviderID, providers.ModeTest)
	if !u.Available() {
		t.Fatal("sandbox not available")
	}
	cases := []struct {
		path  string
		q     url.Values
		count int
	}{
		{"/search.php", url.Values{"s": {"stew"}}, 5}, // any other name: a synthetic set (sandbox.go)
		{"/filter.php", url.Values{"i": {"garlic"}}, 5},
		{"/filter.php", url.Values{"c": {"Seafood"}}, 4},
		{"/filter.php", url.Values{"a": {"Italian"}}, 3},
		{"/lookup.php", url.Values{"i": {"52771"}}, 1},
		{"/lookup.php", url.Values{"i": {"99999"}}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.path+"?"+tc.q.Encode(), func(t *testing.T) {
			var body map[string]json.RawMessage
			if err := u.GetJSON(t.Context(), apiPath(u, tc.path), tc.q, &body); err != nil {
				t.Fatal(err)
			}
			meals, err := decodeMeals(body)
			if err != nil || len(meals) != tc.count {
				t.Errorf("%d meals (%v), want %d", len(meals), err, tc.count)
			}
		})
	}
	t.Run("every lookup fixture is its own meal", func(t *testing.T) {
		for _, id := range sandboxMeals {
			var body map[string]json.RawMessage
			if err := u.GetJSON(t.Context(), apiPath(u, "/lookup.php"), url.Values{"i": {id}}, &body); err != nil {
				t.Fatal(err)
			}
			meals, _ := decodeMeals(body)
			if len(meals) != 1 || meals[0].id() != id {
				t.Errorf("lookup %s answered %v", id, meals)
			}
		}
	})
}

// Without PROVIDER_MEALDB_KEY a live call to TheMealDB's public host is refused before it is
// sent, the reason naming the setting and why the public test key is not used; test keys keep
// the sandbox. A base URL of the deployment's own (a mirror, the benchmark's double) is not held
// to the public host's terms and takes the test key's path.
func TestKeyRequired(t *testing.T) {
	public := providers.NewClient(Providers(), providers.ClientOptions{})
	providertest.Unconfigured(t, public, ProviderID, "PROVIDER_MEALDB_KEY")
	if _, why := public.Configured(ProviderID); !strings.Contains(why, "supporter key") || !strings.Contains(why, "development") {
		t.Fatalf("reason %q does not say that a public deployment needs a supporter key", why)
	}
	_, err := providertest.Execute(t, public, RecipesSearch, providers.ModeLive, `{"query":"stew"}`)
	if providertest.ErrorCode(err) != providers.CodeCapabilityUnavailable {
		t.Fatalf("live call without a key: %v, want capability_unavailable", err)
	}
	if _, err := providertest.Execute(t, public, RecipesSearch, providers.ModeTest, `{"query":"stew"}`); err != nil {
		t.Fatalf("sandbox call: %v", err)
	}
	f := newFake(t)
	f.serve("search.php", "search.json")
	own := providertest.Client(t, Providers(), map[string]http.Handler{ProviderID: f}, nil)
	if ok, why := own.Configured(ProviderID); !ok {
		t.Fatalf("own base URL: unavailable (%s)", why)
	}
	if _, err := providertest.Execute(t, own, RecipesSearch, providers.ModeLive, `{"query":"stew"}`); err != nil {
		t.Fatalf("own base URL: %v", err)
	}
	if reqs := f.Requests(); len(reqs) != 1 || !strings.HasPrefix(reqs[0].URL.Path, "/"+publicTestKey+"/") {
		t.Fatalf("own base URL requests: %v", reqs)
	}
}
