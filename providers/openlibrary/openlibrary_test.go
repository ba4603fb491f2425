package openlibrary

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const wantUA = "capgate/test (+tests@example.com)"

const wantFields = "key,title,author_name,first_publish_year,edition_count,ratings_average,subject,isbn,cover_i"

// fake is an httptest stand-in for Open Library that records every request it gets.
type fake struct {
	providertest.Upstream
	t      *testing.T
	mu     sync.Mutex
	routes map[string]func(w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t, routes: map[string]func(http.ResponseWriter, *http.Request){}}
	f.Upstream = providertest.Upstream{TB: t, UserAgent: wantUA, Answer: f.route}
	return f
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	h, ok := f.routes[r.URL.Path]
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "" {
		f.t.Errorf("keyless provider sent Authorization %q", r.Header.Get("Authorization"))
	}
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{}`))
		return
	}
	h(w, r)
}

// serve answers path with a testdata fixture and a status.
func (f *fake) serve(path string, status int, fixture string) {
	f.t.Helper()
	body := providertest.Fixture(f.t, fixture)
	f.routes[path] = func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
}

func (f *fake) client(t *testing.T) *providers.Client {
	t.Helper()
	return providertest.Client(t, Providers(), map[string]http.Handler{ProviderID: f}, nil)
}

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, BooksSearch, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

func TestCapabilityDeclaration(t *testing.T) {
	c := BooksSearch
	if c.ID != "books.search" || c.Topic != "Research and reading" {
		t.Errorf("id/topic = %q/%q", c.ID, c.Topic)
	}
	if c.Paging != providers.PagingPage || c.Deadline != 15*time.Second || c.Cost.Typical != 0 || c.Cost.Basis == "" {
		t.Errorf("paging %v deadline %v cost %+v", c.Paging, c.Deadline, c.Cost)
	}
	if !reflect.DeepEqual(c.Providers, []string{"openlibrary"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	if len(c.Actions) != 1 || c.Actions[0].Name != "details" || c.Actions[0].Kind != providers.ActionLookup ||
		c.Actions[0].Credits != 0 || c.Actions[0].Run == nil {
		t.Errorf("actions = %+v", c.Actions)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples, want at least 2", len(c.Examples))
	}
	if got := Capabilities(); len(got) != 1 || got[0] != BooksSearch {
		t.Errorf("Capabilities() = %v", got)
	}
	p := Providers()
	if len(p) != 1 || p[0].ID != ProviderID || p[0].BaseURL != "https://openlibrary.org" || p[0].KeyRequired ||
		p[0].Authorize != nil || p[0].Sandbox == nil {
		t.Errorf("provider = %+v", p[0])
	}

	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["type"] != "object" {
		t.Errorf("schema top level: %v", doc)
	}
	props := doc["properties"].(map[string]any)
	want := map[string][2]float64{"query": {1, 300}, "author": {1, 200}, "subject": {1, 200}}
	for name, lim := range want {
		p := props[name].(map[string]any)
		if p["type"] != "string" || p["minLength"] != lim[0] || p["maxLength"] != lim[1] || p["pattern"] != `\S` {
			t.Errorf("%s schema = %v", name, p)
		}
	}
	num := props["num"].(map[string]any)
	if num["type"] != "integer" || num["minimum"] != 1.0 || num["maximum"] != 25.0 || num["default"] != 10.0 {
		t.Errorf("num schema = %v", num)
	}
	for name, raw := range props {
		if d, _ := raw.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	if len(props) != 4 {
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
		{"query only", `{"query":"dune"}`, nil},
		{"author only", `{"author":"Frank Herbert"}`, nil},
		{"subject only", `{"subject":"Science fiction","num":25}`, nil},
		{"all three", `{"query":"dune","author":"Herbert","subject":"Fiction","num":1}`, nil},
		{"query at 300", `{"query":"` + long(300) + `"}`, nil},
		{"nothing", `{}`, []string{""}},
		{"num only", `{"num":5}`, []string{""}},
		{"empty query", `{"query":""}`, []string{"/query"}},
		{"blank query", `{"query":"   "}`, []string{"/query"}},
		{"blank author", `{"author":"\t"}`, []string{"/author"}},
		{"query too long", `{"query":"` + long(301) + `"}`, []string{"/query"}},
		{"author too long", `{"author":"` + long(201) + `"}`, []string{"/author"}},
		{"subject too long", `{"subject":"` + long(201) + `"}`, []string{"/subject"}},
		{"subject empty", `{"subject":""}`, []string{"/subject"}},
		{"num zero", `{"query":"dune","num":0}`, []string{"/num"}},
		{"num 26", `{"query":"dune","num":26}`, []string{"/num"}},
		{"num fraction", `{"query":"dune","num":2.5}`, []string{"/num"}},
		{"num string", `{"query":"dune","num":"5"}`, []string{"/num"}},
		{"query not a string", `{"query":42}`, []string{"/query"}},
		{"unknown key", `{"query":"dune","page":2}`, []string{"/page"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, BooksSearch, tc.body)
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

	t.Run("default num is 10", func(t *testing.T) {
		req := prepare(t, `{"author":"Tolkien"}`)
		if n, _ := req.Int("num"); n != 10 {
			t.Errorf("num = %d, want 10", n)
		}
	})
	t.Run("rule message names the fields", func(t *testing.T) {
		_, err := providertest.Prepare(t, BooksSearch, `{}`)
		e, _ := providers.AsError(err)
		if e == nil || !strings.Contains(e.Violations[0].Message, "query, author or subject") {
			t.Errorf("violation = %+v", e)
		}
	})
	t.Run("rule on update", func(t *testing.T) {
		vs := BooksSearch.Rules(providers.Request{"num": json.Number("5")}, &providers.Update{Params: providers.Request{"query": nil}})
		if len(vs) != 1 || vs[0].Path != "" {
			t.Errorf("violations = %+v", vs)
		}
		if vs := BooksSearch.Rules(providers.Request{"subject": "Fantasy"}, &providers.Update{}); vs != nil {
			t.Errorf("violations = %+v", vs)
		}
	})
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

func TestSearchMappingGolden(t *testing.T) {
	f := newFake(t)
	f.serve("/search.json", http.StatusOK, "search.json")
	page, err := providertest.Execute(t, f.client(t), BooksSearch, providers.ModeLive, `{"query":"dune","num":5}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "search", providertest.RecordsJSON(page))

	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d upstream requests, want 1", len(reqs))
	}
	r := reqs[0]
	want := url.Values{"q": {"dune"}, "page": {"1"}, "limit": {"5"}, "fields": {wantFields}}
	if r.Method != http.MethodGet || r.URL.Path != "/search.json" || !reflect.DeepEqual(r.URL.Query(), want) {
		t.Errorf("request %s %s, query %v; want GET /search.json %v", r.Method, r.URL.Path, r.URL.Query(), want)
	}
	for _, rec := range page.Records {
		if rec.Title == "" {
			t.Errorf("record without title: %+v", rec)
		}
		if rec.Snippet != "" {
			t.Errorf("record %q has a snippet", rec.Title)
		}
	}
	if !page.HasMore || string(page.Next) != `{"page":2}` {
		t.Errorf("has_more %v next %s", page.HasMore, page.Next)
	}
}

func TestSearchQueryParameters(t *testing.T) {
	cases := []struct {
		name string
		body string
		want url.Values
	}{
		{"author", `{"author":"  Frank Herbert "}`, url.Values{"author": {"Frank Herbert"}}},
		{"subject", `{"subject":"Science fiction","num":25}`, url.Values{"subject": {"Science fiction"}}},
		{"all", `{"query":"dune messiah","author":"OL79034A","subject":"Fiction","num":1}`,
			url.Values{"q": {"dune messiah"}, "author": {"OL79034A"}, "subject": {"Fiction"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("/search.json", http.StatusOK, "search_empty.json")
			if _, err := providertest.Execute(t, f.client(t), BooksSearch, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			req := prepare(t, tc.body)
			n, _ := req.Int("num")
			want := url.Values{"page": {"1"}, "limit": {jsonInt(n)}, "fields": {wantFields}}
			for k, v := range tc.want {
				want[k] = v
			}
			got := f.Requests()[0].URL.Query()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestPaging(t *testing.T) {
	f := newFake(t)
	p1 := providertest.Fixture(t, "search_page1.json")
	p2 := providertest.Fixture(t, "search_page2.json")
	f.routes["/search.json"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Query().Get("page") {
		case "1":
			_, _ = w.Write(p1)
		case "2":
			_, _ = w.Write(p2)
		default:
			t.Errorf("unexpected page %q", r.URL.Query().Get("page"))
			w.WriteHeader(http.StatusBadRequest)
		}
	}
	client := f.client(t)
	req := prepare(t, `{"author":"Ursula K. Le Guin","subject":"Fantasy","num":2}`)

	first, err := providertest.ExecuteState(t, client, BooksSearch, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Records) != 2 || !first.HasMore || string(first.Next) != `{"page":2}` {
		t.Fatalf("page 1: %d records, has_more %v, next %s", len(first.Records), first.HasMore, first.Next)
	}
	second, err := providertest.ExecuteState(t, client, BooksSearch, providers.ModeLive, req, first.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Records) != 2 || second.HasMore || second.Next != nil {
		t.Fatalf("page 2: %d records, has_more %v, next %s", len(second.Records), second.HasMore, second.Next)
	}
	if second.Records[0].Title != "The Farthest Shore" {
		t.Errorf("page 2 first record = %q", second.Records[0].Title)
	}
	reqs := f.Requests()
	for i, wantPage := range []string{"1", "2"} {
		q := reqs[i].URL.Query()
		if q.Get("page") != wantPage || q.Get("limit") != "2" || q.Get("author") != "Ursula K. Le Guin" || q.Get("subject") != "Fantasy" {
			t.Errorf("request %d query = %v", i, q)
		}
	}

	t.Run("bad state", func(t *testing.T) {
		for _, st := range []string{`{"page":0}`, `"x"`, `{"page":-3}`} {
			_, err := providertest.ExecuteState(t, client, BooksSearch, providers.ModeLive, req, json.RawMessage(st))
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("state %s: error %v, want internal_error", st, err)
			}
		}
	})
	t.Run("empty result", func(t *testing.T) {
		f := newFake(t)
		f.serve("/search.json", http.StatusOK, "search_empty.json")
		page, err := providertest.Execute(t, f.client(t), BooksSearch, providers.ModeLive, `{"query":"zzqqxxnonexistent"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 0 || page.HasMore || page.Next != nil {
			t.Errorf("empty page = %+v", page)
		}
	})
	t.Run("empty tail stops", func(t *testing.T) {
		f := newFake(t)
		f.routes["/search.json"] = func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"numFound": 500, "start": 40, "docs": []}`))
		}
		page, err := providertest.Execute(t, f.client(t), BooksSearch, providers.ModeLive, `{"query":"dune"}`)
		if err != nil {
			t.Fatal(err)
		}
		if page.HasMore {
			t.Error("has_more true on a page without docs")
		}
	})
	t.Run("legacy num_found", func(t *testing.T) {
		f := newFake(t)
		f.routes["/search.json"] = func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"start": 0, "num_found": 629, "docs": [{"key": "OL27448W", "title": "The Lord of the Rings"}]}`))
		}
		page, err := providertest.Execute(t, f.client(t), BooksSearch, providers.ModeLive, `{"query":"lord of the rings","num":1}`)
		if err != nil {
			t.Fatal(err)
		}
		if !page.HasMore || string(page.Next) != `{"page":2}` || page.Records[0].URL != "https://openlibrary.org/works/OL27448W" {
			t.Errorf("page = %+v", page)
		}
	})
}

func TestSearchErrors(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		fixture string // testdata file, or a literal body when it starts with "{" or "<"
		header  map[string]string
		code    providers.Code
		paths   []string
		retry   bool
	}{
		{"query too short (FastAPI)", 422, "error_422_fastapi.json", nil, providers.CodeInvalidRequest, []string{"/query"}, false},
		{"query too short (web.py)", 422, "error_422_legacy.json", nil, providers.CodeInvalidRequest, []string{"/query"}, false},
		{"blocked query", 422, "error_422_blocked.json", nil, providers.CodeInvalidRequest, []string{"/query"}, false},
		{"other 422", 422, "error_422_other.json", nil, providers.CodeProviderError, nil, false},
		{"422 without a body we know", 422, `{"message":"nope"}`, nil, providers.CodeProviderError, nil, false},
		{"400", 400, `{"detail":"Solr internals parameters are not allowed"}`, nil, providers.CodeProviderError, nil, false},
		{"error in a 200 body", 200, "error_200.json", nil, providers.CodeProviderError, nil, true},
		{"server error", 500, `<html><body>Internal Server Error</body></html>`, nil, providers.CodeProviderError, nil, true},
		{"bad gateway", 503, `<html>Service Unavailable</html>`, nil, providers.CodeProviderError, nil, true},
		{"throttled briefly", 429, `{"error":"Too Many Requests"}`, map[string]string{"Retry-After": "5"}, providers.CodeRateLimited, nil, true},
		{"throttled for long", 429, `{"error":"Too Many Requests"}`, nil, providers.CodeProviderAllowance, nil, false},
		{"malformed JSON", 200, `{"numFound": 3, "docs": [`, nil, providers.CodeProviderError, nil, true},
		{"not an object", 200, `[1,2,3]`, nil, providers.CodeProviderError, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			var body []byte
			if strings.HasPrefix(tc.fixture, "{") || strings.HasPrefix(tc.fixture, "<") || strings.HasPrefix(tc.fixture, "[") {
				body = []byte(tc.fixture)
			} else {
				body = providertest.Fixture(t, tc.fixture)
			}
			f.routes["/search.json"] = func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write(body)
			}
			_, err := providertest.Execute(t, f.client(t), BooksSearch, providers.ModeLive, `{"query":"ab"}`)
			if got := providertest.ErrorCode(err); got != tc.code {
				t.Fatalf("code = %q (%v), want %q", got, err, tc.code)
			}
			e, _ := providers.AsError(err)
			if got := providertest.ViolationPaths(err); len(tc.paths) > 0 && !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %q, want %q", got, tc.paths)
			}
			if e.IsRetryable() != tc.retry {
				t.Errorf("retryable = %v, want %v (%v)", e.IsRetryable(), tc.retry, err)
			}
			if tc.code == providers.CodeInvalidRequest && (!strings.Contains(e.Message, "Open Library refused the query") || e.Hint == "") {
				t.Errorf("message %q hint %q", e.Message, e.Hint)
			}
			if tc.name == "query too short (FastAPI)" && strings.Contains(e.Message, "Value error") {
				t.Errorf("message keeps the validator prefix: %q", e.Message)
			}
		})
	}
}

func searchRecord(t *testing.T, key string) providers.Record {
	t.Helper()
	ref, _ := json.Marshal(workRef{Key: key})
	return providers.Record{Title: "Dune", URL: "https://openlibrary.org/works/" + key, Ref: ref}
}

func TestDetails(t *testing.T) {
	t.Run("golden", func(t *testing.T) {
		f := newFake(t)
		f.serve("/works/OL893415W.json", http.StatusOK, "work.json")
		f.serve("/works/OL893415W/editions.json", http.StatusOK, "editions.json")
		client := f.client(t)
		req := prepare(t, `{"query":"dune"}`)
		rec := searchRecord(t, "OL893415W")
		d, err := providertest.Action(t, client, BooksSearch, providers.ModeLive, req, "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "details", d)
		if d.Credits != nil {
			t.Errorf("credits = %d, want the action's 0", *d.Credits)
		}
		reqs := f.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		if reqs[0].URL.Path != "/works/OL893415W.json" || reqs[0].URL.RawQuery != "" {
			t.Errorf("work request %s?%s", reqs[0].URL.Path, reqs[0].URL.RawQuery)
		}
		if reqs[1].URL.Path != "/works/OL893415W/editions.json" || !reflect.DeepEqual(reqs[1].URL.Query(), url.Values{"limit": {"50"}}) {
			t.Errorf("editions request %s?%s", reqs[1].URL.Path, reqs[1].URL.RawQuery)
		}
		body := d.Body.(*WorkDetail)
		if eds := body.Editions; len(eds) != maxDetailEditions {
			t.Errorf("%d editions, want %d", len(eds), maxDetailEditions)
		}
		if subj := body.Subjects; len(subj) != maxDetailSubjects {
			t.Errorf("%d subjects, want %d", len(subj), maxDetailSubjects)
		}
	})

	t.Run("redirected work", func(t *testing.T) {
		f := newFake(t)
		f.serve("/works/OL1168083W.json", http.StatusOK, "work_redirect.json")
		f.serve("/works/OL893415W.json", http.StatusOK, "work.json")
		f.serve("/works/OL893415W/editions.json", http.StatusOK, "editions.json")
		rec := searchRecord(t, "OL1168083W")
		d, err := providertest.Action(t, f.client(t), BooksSearch, providers.ModeLive, prepare(t, `{"query":"dune"}`), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*WorkDetail)
		if body.Key != "OL893415W" || body.Title != "Dune" || d.Links[0].URL != "https://openlibrary.org/works/OL893415W" {
			t.Errorf("detail = %v links %v", body, d.Links)
		}
	})

	t.Run("redirect loop", func(t *testing.T) {
		f := newFake(t)
		f.routes["/works/OL1W.json"] = func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"key":"/works/OL1W","type":{"key":"/type/redirect"},"location":"/works/OL1W"}`))
		}
		rec := searchRecord(t, "OL1W")
		_, err := providertest.Action(t, f.client(t), BooksSearch, providers.ModeLive, prepare(t, `{"query":"dune"}`), "details", &rec)
		if providertest.ErrorCode(err) != providers.CodeProviderError {
			t.Errorf("error = %v, want provider_error", err)
		}
		if n := len(f.Requests()); n != maxRedirects+1 {
			t.Errorf("%d requests, want %d", n, maxRedirects+1)
		}
	})

	notFound := []struct {
		name   string
		status int
		body   string
	}{
		{"404", 404, `{"error": "notfound", "key": "/works/OL99999999W"}`},
		{"notfound in 200", 200, `{"error": "notfound", "key": "/works/OL99999999W"}`},
		{"deleted", 200, `{"key": "/works/OL99999999W", "type": {"key": "/type/delete"}}`},
	}
	for _, tc := range notFound {
		t.Run("gone: "+tc.name, func(t *testing.T) {
			f := newFake(t)
			f.routes["/works/OL99999999W.json"] = func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}
			rec := searchRecord(t, "OL99999999W")
			_, err := providertest.Action(t, f.client(t), BooksSearch, providers.ModeLive, prepare(t, `{"query":"dune"}`), "details", &rec)
			if providertest.ErrorCode(err) != providers.CodeNotFound {
				t.Errorf("error = %v, want not_found", err)
			}
		})
	}

	t.Run("editions missing", func(t *testing.T) {
		f := newFake(t)
		f.serve("/works/OL893415W.json", http.StatusOK, "work.json") // editions.json: the fake's 404 {}
		rec := searchRecord(t, "OL893415W")
		d, err := providertest.Action(t, f.client(t), BooksSearch, providers.ModeLive, prepare(t, `{"query":"dune"}`), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*WorkDetail)
		if eds := body.Editions; eds == nil || len(eds) != 0 {
			t.Errorf("editions = %v", body.Editions)
		}
		if body.EditionCount != nil {
			t.Errorf("edition_count present without an editions answer")
		}
	})

	t.Run("editions failing", func(t *testing.T) {
		f := newFake(t)
		f.serve("/works/OL893415W.json", http.StatusOK, "work.json")
		f.routes["/works/OL893415W/editions.json"] = func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
		}
		rec := searchRecord(t, "OL893415W")
		_, err := providertest.Action(t, f.client(t), BooksSearch, providers.ModeLive, prepare(t, `{"query":"dune"}`), "details", &rec)
		e, ok := providers.AsError(err)
		if !ok || e.Code != providers.CodeProviderError || !e.IsRetryable() {
			t.Errorf("error = %v, want retryable provider_error", err)
		}
	})

	t.Run("plain string description and odd types", func(t *testing.T) {
		f := newFake(t)
		f.routes["/works/OL45883W.json"] = func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"key":"/works/OL45883W","type":{"key":"/type/work"},"title":"Matilda",
				"description":"  A girl who loves books.  ","subjects":"Schools","covers":null,"links":{"bad":true}}`))
		}
		f.routes["/works/OL45883W/editions.json"] = func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"links":{},"size":"many","entries":[{"key":"/books/OL1M","isbn_13":"9780142410370"},"junk",null]}`))
		}
		rec := searchRecord(t, "OL45883W")
		d, err := providertest.Action(t, f.client(t), BooksSearch, providers.ModeLive, prepare(t, `{"query":"matilda"}`), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*WorkDetail)
		want := &WorkDetail{
			Key: "OL45883W", URL: "https://openlibrary.org/works/OL45883W", Title: "Matilda",
			Description: "A girl who loves books.", Subjects: []string{"Schools"},
			Editions: []Edition{{Key: "OL1M", URL: "https://openlibrary.org/books/OL1M", ISBN13: []string{"9780142410370"}}},
		}
		if !reflect.DeepEqual(body, want) {
			t.Errorf("detail =\n%#v\nwant\n%#v", body, want)
		}
		if len(d.Links) != 1 {
			t.Errorf("links = %v", d.Links)
		}
	})

	for _, ref := range []string{"", `{}`, `{"key":"/authors/OL1A"}`, `not json`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			f := newFake(t)
			rec := providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			_, err := providertest.Action(t, f.client(t), BooksSearch, providers.ModeLive, prepare(t, `{"query":"dune"}`), "details", &rec)
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Errorf("error = %v, want invalid_request", err)
			}
			if len(f.Requests()) != 0 {
				t.Error("called the upstream without a work id")
			}
		})
	}
}

func TestRecordsWithoutWorkKeyHaveNoDetails(t *testing.T) {
	f := newFake(t)
	f.serve("/search.json", http.StatusOK, "search.json")
	page, err := providertest.Execute(t, f.client(t), BooksSearch, providers.ModeLive, `{"query":"dune","num":5}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range page.Records {
		hasKey := len(rec.Ref) > 0
		if hasKey && rec.Actions != nil {
			t.Errorf("%q: actions %v, want all", rec.Title, rec.Actions)
		}
		if !hasKey && (rec.Actions == nil || len(rec.Actions) != 0) {
			t.Errorf("%q: no work key but actions %v", rec.Title, rec.Actions)
		}
	}
}

// TestExamples runs the shared conformance run over the examples in test mode (every page, every
// record's details), then each example live against a fake.
func TestExamples(t *testing.T) {
	providertest.Conformance{Providers: Providers(), EveryRecord: true,
		Detail: func(t *testing.T, _ providers.Example, _ string, rec *providers.Record, d *providers.Detail) {
			if b := d.Body.(*WorkDetail); b.Title == "" || len(d.Links) == 0 {
				t.Errorf("details of %q: %v %v", rec.Title, b, d.Links)
			}
		}}.Run(t, BooksSearch)
	for _, ex := range BooksSearch.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("live: "+ex.Title, func(t *testing.T) {
			f := newFake(t)
			f.serve("/search.json", http.StatusOK, "search.json")
			page, err := providertest.Execute(t, f.client(t), BooksSearch, providers.ModeLive, string(body))
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 {
				t.Fatal("no records")
			}
			q := f.Requests()[0].URL.Query()
			for _, k := range []string{"query", "author", "subject"} {
				param := map[string]string{"query": "q"}[k]
				if param == "" {
					param = k
				}
				if v, _ := ex.Body.Request()[k].(string); q.Get(param) != v {
					t.Errorf("%s = %q, want %q", param, q.Get(param), v)
				}
			}
		})
	}
}

func TestSandboxGolden(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	page, err := providertest.Execute(t, client, BooksSearch, providers.ModeTest, `{"query":"the lord of the rings","num":3}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_lotr", providertest.RecordsJSON(page))

	t.Run("unknown work answers not_found", func(t *testing.T) {
		rec := searchRecord(t, "OL1W")
		_, err := providertest.Action(t, client, BooksSearch, providers.ModeTest, prepare(t, `{"query":"dune"}`), "details", &rec)
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("error = %v, want not_found", err)
		}
	})
}

func TestHelpers(t *testing.T) {
	t.Run("representativeISBN", func(t *testing.T) {
		cases := []struct {
			in   []string
			want string
		}{
			{[]string{"0441013597", "9780441013593"}, "9780441013593"},
			{[]string{"0-425-07160-X"}, "042507160X"},
			{[]string{"055358027x", "garbage"}, "055358027X"},
			{[]string{"978-0-547-92821-0"}, "9780547928210"},
			{[]string{"12345", "X234567890"}, ""},
			{nil, ""},
		}
		for _, tc := range cases {
			if got := representativeISBN(tc.in); got != tc.want {
				t.Errorf("representativeISBN(%q) = %q, want %q", tc.in, got, tc.want)
			}
		}
	})
	t.Run("workID", func(t *testing.T) {
		cases := map[string]string{
			"/works/OL27448W": "OL27448W", "OL27448W": "OL27448W", " /works/OL1W ": "OL1W",
			"/books/OL1M": "", "/authors/OL1A": "", "": "", "/works/OL27448W/x": "",
		}
		for in, want := range cases {
			if got := workID(in); got != want {
				t.Errorf("workID(%q) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("textOf", func(t *testing.T) {
		cases := map[string]string{
			`"plain"`: "plain", `{"type":"/type/text","value":" typed "}`: "typed",
			`null`: "", `42`: "", `{"value":7}`: "", `["a"]`: "",
		}
		for in, want := range cases {
			if got := textOf(json.RawMessage(in)); got != want {
				t.Errorf("textOf(%s) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("intOf", func(t *testing.T) {
		cases := []struct {
			in   string
			want int
			ok   bool
		}{
			{`1954`, 1954, true}, {`1954.0`, 1954, true}, {`19.5`, 0, false}, {`null`, 0, false},
			{`"x"`, 0, false}, {`[1]`, 0, false}, {``, 0, false},
		}
		for _, tc := range cases {
			got, ok := intOf(json.RawMessage(tc.in))
			if got != tc.want || ok != tc.ok {
				t.Errorf("intOf(%s) = %d, %v", tc.in, got, ok)
			}
		}
	})
	t.Run("cleanStrings", func(t *testing.T) {
		got := cleanStrings([]string{" Fiction", "fiction", "", "Fantasy", "  ", "Magic"}, 2)
		if !reflect.DeepEqual(got, []string{"Fiction", "Fantasy"}) {
			t.Errorf("cleanStrings = %q", got)
		}
	})
}
