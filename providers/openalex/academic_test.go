package openalex

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

const wantSearchSelect = "id,doi,display_name,title,publication_year,type,primary_location,authorships,cited_by_count,open_access,abstract_inverted_index"

const wantDetailSelect = "id,doi,display_name,title,publication_year,publication_date,type,primary_location,best_oa_location,open_access,cited_by_count,counts_by_year,abstract_inverted_index"

// fake is an httptest stand-in for the OpenAlex API that records every request it gets.
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
	if r.Method != http.MethodGet {
		f.t.Errorf("method %s, want GET", r.Method)
	}
	if r.Header.Get("Authorization") != "" {
		f.t.Errorf("sent Authorization %q; OpenAlex takes the key as api_key", r.Header.Get("Authorization"))
	}
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"Not Found","message":"no route in the test fake"}`))
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

// fakeKey is the API key of a test client that names none: live calls need one.
const fakeKey = "fake-key"

// client is a client with the fake as OpenAlex and the API key (fakeKey when key is "").
func (f *fake) client(t *testing.T, key string) *providers.Client {
	t.Helper()
	if key == "" {
		key = fakeKey
	}
	return providertest.Client(t, Providers(), map[string]http.Handler{ProviderID: f}, map[string]string{ProviderID: key})
}

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, AcademicSearch, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

func TestCapabilityDeclaration(t *testing.T) {
	c := AcademicSearch
	if c.ID != "academic.search" || c.Topic != "Research and reading" || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("id/topic/texts = %q/%q/%q/%q", c.ID, c.Topic, c.Title, c.Summary)
	}
	if c.Paging != providers.PagingPage || c.Deadline != 15*time.Second || c.Cost.Typical != 0 || c.Cost.Basis == "" || c.NoUpdate {
		t.Errorf("paging %v deadline %v cost %+v noUpdate %v", c.Paging, c.Deadline, c.Cost, c.NoUpdate)
	}
	if !reflect.DeepEqual(c.Providers, []string{"openalex"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	if len(c.Actions) != 1 || c.Actions[0].Name != "details" || c.Actions[0].Kind != providers.ActionLookup ||
		c.Actions[0].Credits != 0 || c.Actions[0].Run == nil || c.Actions[0].Description == "" {
		t.Errorf("actions = %+v", c.Actions)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples, want at least 2", len(c.Examples))
	}
	if got := Capabilities(); len(got) != 1 || got[0] != AcademicSearch {
		t.Errorf("Capabilities() = %v", got)
	}
	p := Providers()
	if len(p) != 1 || p[0].ID != ProviderID || p[0].BaseURL != "https://api.openalex.org" || !p[0].KeyRequired ||
		p[0].Authorize == nil || p[0].Sandbox == nil {
		t.Errorf("provider = %+v", p[0])
	}

	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["type"] != "object" || !reflect.DeepEqual(doc["required"], []any{"query"}) {
		t.Errorf("schema top level: %v", doc)
	}
	props := doc["properties"].(map[string]any)
	q := props["query"].(map[string]any)
	if q["type"] != "string" || q["minLength"] != 1.0 || q["maxLength"] != 500.0 || q["pattern"] != `\S` {
		t.Errorf("query schema = %v", q)
	}
	for _, name := range []string{"from_year", "to_year"} {
		y := props[name].(map[string]any)
		if y["type"] != "integer" || y["minimum"] != 1000.0 || y["maximum"] != 2100.0 || y["default"] != nil {
			t.Errorf("%s schema = %v", name, y)
		}
	}
	oa := props["open_access_only"].(map[string]any)
	if oa["type"] != "boolean" || oa["default"] != false {
		t.Errorf("open_access_only schema = %v", oa)
	}
	sort := props["sort"].(map[string]any)
	if sort["type"] != "string" || sort["default"] != "relevance" || !reflect.DeepEqual(sort["enum"], []any{"relevance", "cited", "recent"}) {
		t.Errorf("sort schema = %v", sort)
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
	if len(props) != 6 {
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
		{"query only", `{"query":"graphene"}`, nil},
		{"everything", `{"query":"graphene","from_year":2004,"to_year":2010,"open_access_only":true,"sort":"cited","num":25}`, nil},
		{"same year", `{"query":"graphene","from_year":2010,"to_year":2010}`, nil},
		{"only from", `{"query":"graphene","from_year":1000}`, nil},
		{"only to", `{"query":"graphene","to_year":2100}`, nil},
		{"query at 500", `{"query":"` + long(500) + `"}`, nil},
		{"missing query", `{"num":5}`, []string{"/query"}},
		{"empty query", `{"query":""}`, []string{"/query"}},
		{"blank query", `{"query":"  \t "}`, []string{"/query"}},
		{"query too long", `{"query":"` + long(501) + `"}`, []string{"/query"}},
		{"query not a string", `{"query":7}`, []string{"/query"}},
		{"from_year too early", `{"query":"x","from_year":999}`, []string{"/from_year"}},
		{"to_year too late", `{"query":"x","to_year":2101}`, []string{"/to_year"}},
		{"year fraction", `{"query":"x","from_year":2001.5}`, []string{"/from_year"}},
		{"year string", `{"query":"x","to_year":"2001"}`, []string{"/to_year"}},
		{"reversed range", `{"query":"x","from_year":2021,"to_year":2019}`, []string{"/from_year"}},
		{"open_access_only not boolean", `{"query":"x","open_access_only":"yes"}`, []string{"/open_access_only"}},
		{"unknown sort", `{"query":"x","sort":"newest"}`, []string{"/sort"}},
		{"num zero", `{"query":"x","num":0}`, []string{"/num"}},
		{"num 26", `{"query":"x","num":26}`, []string{"/num"}},
		{"unknown key", `{"query":"x","page":2}`, []string{"/page"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, AcademicSearch, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
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

	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, `{"query":"graphene"}`)
		n, _ := req.Int("num")
		oa, okOA := req.Bool("open_access_only")
		if n != 10 || req.Str("sort") != "relevance" || !okOA || oa || req.Has("from_year") || req.Has("to_year") {
			t.Errorf("defaults = %v", req)
		}
	})
	t.Run("rule message names both years", func(t *testing.T) {
		_, err := providertest.Prepare(t, AcademicSearch, `{"query":"x","from_year":2021,"to_year":2019}`)
		e, _ := providers.AsError(err)
		if e == nil || !strings.Contains(e.Violations[0].Message, "2021") || !strings.Contains(e.Violations[0].Message, "2019") {
			t.Errorf("violation = %+v", e)
		}
	})
	t.Run("rule on update", func(t *testing.T) {
		merged := providers.Request{"query": "x", "from_year": json.Number("2020"), "to_year": json.Number("2010")}
		vs := AcademicSearch.Rules(merged, &providers.Update{Params: providers.Request{"to_year": json.Number("2010")}})
		if len(vs) != 1 || vs[0].Path != "/from_year" {
			t.Errorf("violations = %+v", vs)
		}
		if vs := AcademicSearch.Rules(providers.Request{"query": "x", "to_year": json.Number("2010")}, &providers.Update{}); vs != nil {
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
	f.serve("/works", http.StatusOK, "search.json")
	page, err := providertest.Execute(t, f.client(t, ""), AcademicSearch, providers.ModeLive, `{"query":"  open access citation  ","num":5}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "search", providertest.RecordsJSON(page))

	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d upstream requests, want 1", len(reqs))
	}
	want := url.Values{"search": {"open access citation"}, "sort": {"relevance_score:desc"}, "page": {"1"},
		"per_page": {"5"}, "select": {wantSearchSelect}, "api_key": {fakeKey}}
	if r := reqs[0]; r.URL.Path != "/works" || !reflect.DeepEqual(r.URL.Query(), want) {
		t.Errorf("request %s, query %v; want /works %v", r.URL.Path, r.URL.Query(), want)
	}
	if !page.HasMore || string(page.Next) != `{"page":2}` || len(page.Notes) != 0 {
		t.Errorf("has_more %v next %s notes %v", page.HasMore, page.Next, page.Notes)
	}
	if len(page.Records) != 5 {
		t.Fatalf("%d records, want 5 (null, junk and a work without title or id dropped)", len(page.Records))
	}
	for _, rec := range page.Records {
		if rec.Title == "" {
			t.Errorf("record without title: %+v", rec)
		}
		if authors, _ := providertest.Native(&rec)["authors"].([]string); len(authors) > maxAuthors {
			t.Errorf("%q has %d authors", rec.Title, len(authors))
		}
		for k, v := range providertest.Native(&rec) {
			if v == "" || v == nil {
				t.Errorf("%q: field %s is an empty placeholder", rec.Title, k)
			}
		}
		if providertest.Native(&rec)["openalex_id"] == nil && len(rec.Ref) > 0 {
			t.Errorf("%q: a Ref without openalex_id", rec.Title)
		}
	}
}

func TestSearchQueryParameters(t *testing.T) {
	cases := []struct {
		name string
		body string
		key  string
		want url.Values // merged over search/page/per_page/select
	}{
		{"defaults", `{"query":"graphene"}`, "", url.Values{"sort": {"relevance_score:desc"}, "per_page": {"10"}}},
		{"closed range", `{"query":"graphene","from_year":2004,"to_year":2010}`, "",
			url.Values{"filter": {"publication_year:2004-2010"}, "sort": {"relevance_score:desc"}, "per_page": {"10"}}},
		{"one year", `{"query":"graphene","from_year":2010,"to_year":2010}`, "",
			url.Values{"filter": {"publication_year:2010"}, "sort": {"relevance_score:desc"}, "per_page": {"10"}}},
		{"from only", `{"query":"graphene","from_year":2004}`, "",
			url.Values{"filter": {"publication_year:>2003"}, "sort": {"relevance_score:desc"}, "per_page": {"10"}}},
		{"to only", `{"query":"graphene","to_year":2010}`, "",
			url.Values{"filter": {"publication_year:<2011"}, "sort": {"relevance_score:desc"}, "per_page": {"10"}}},
		{"open access", `{"query":"graphene","open_access_only":true,"sort":"cited","num":25}`, "",
			url.Values{"filter": {"is_oa:true"}, "sort": {"cited_by_count:desc"}, "per_page": {"25"}}},
		{"open access explicitly off", `{"query":"graphene","open_access_only":false,"sort":"recent","num":1}`, "",
			url.Values{"sort": {"publication_date:desc"}, "per_page": {"1"}}},
		{"everything", `{"query":"graphene","from_year":2004,"to_year":2010,"open_access_only":true,"sort":"recent"}`, "",
			url.Values{"filter": {"publication_year:2004-2010,is_oa:true"}, "sort": {"publication_date:desc"}, "per_page": {"10"}}},
		{"api key", `{"query":"graphene"}`, "k3y/with+chars",
			url.Values{"api_key": {"k3y/with+chars"}, "sort": {"relevance_score:desc"}, "per_page": {"10"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("/works", http.StatusOK, "search_empty.json")
			if _, err := providertest.Execute(t, f.client(t, tc.key), AcademicSearch, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			want := url.Values{"search": {"graphene"}, "page": {"1"}, "select": {wantSearchSelect}, "api_key": {fakeKey}}
			for k, v := range tc.want {
				want[k] = v
			}
			if got := f.Requests()[0].URL.Query(); !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

func TestPaging(t *testing.T) {
	f := newFake(t)
	p1 := providertest.Fixture(t, "search_page1.json")
	p2 := providertest.Fixture(t, "search_page2.json")
	f.routes["/works"] = func(w http.ResponseWriter, r *http.Request) {
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
	client := f.client(t, "")
	req := prepare(t, `{"query":"crispr","from_year":2015,"to_year":2020,"sort":"cited","num":2}`)

	first, err := providertest.ExecuteState(t, client, AcademicSearch, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Records) != 2 || !first.HasMore || string(first.Next) != `{"page":2}` {
		t.Fatalf("page 1: %d records, has_more %v, next %s", len(first.Records), first.HasMore, first.Next)
	}
	second, err := providertest.ExecuteState(t, client, AcademicSearch, providers.ModeLive, req, first.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Records) != 1 || second.HasMore || second.Next != nil {
		t.Fatalf("page 2: %d records, has_more %v, next %s", len(second.Records), second.HasMore, second.Next)
	}
	if providertest.Native(&second.Records[0])["openalex_id"] != "W2981728710" {
		t.Errorf("page 2 record = %v", providertest.Native(&second.Records[0]))
	}
	for i, wantPage := range []string{"1", "2"} {
		q := f.Requests()[i].URL.Query()
		if q.Get("page") != wantPage || q.Get("per_page") != "2" || q.Get("search") != "crispr" ||
			q.Get("filter") != "publication_year:2015-2020" || q.Get("sort") != "cited_by_count:desc" {
			t.Errorf("request %d query = %v", i, q)
		}
	}

	t.Run("bad state", func(t *testing.T) {
		for _, st := range []string{`{"page":0}`, `"x"`, `{"page":-3}`, `{"page":"2"}`} {
			_, err := providertest.ExecuteState(t, client, AcademicSearch, providers.ModeLive, req, json.RawMessage(st))
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("state %s: error %v, want internal_error", st, err)
			}
		}
	})

	answer := func(t *testing.T, body string) *fake {
		t.Helper()
		f := newFake(t)
		f.routes["/works"] = func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }
		return f
	}
	const oneWork = `{"id":"https://openalex.org/W1","display_name":"A work"}`
	results := func(n int) string { return strings.TrimSuffix(strings.Repeat(oneWork+",", n), ",") }
	limits := []struct {
		name     string
		body     string
		state    string
		num      int
		wantMore bool
		wantNote bool
	}{
		{"empty result", `{"meta":{"count":0},"results":[]}`, "", 10, false, false},
		{"empty tail stops", `{"meta":{"count":500},"results":[]}`, `{"page":3}`, 10, false, false},
		{"last full page", `{"meta":{"count":20},"results":[` + results(10) + `]}`, `{"page":2}`, 10, false, false},
		{"page 399 of 25 may go on", `{"meta":{"count":50000},"results":[` + results(25) + `]}`, `{"page":399}`, 25, true, false},
		{"page 400 of 25 is the 10,000th result", `{"meta":{"count":50000},"results":[` + results(25) + `]}`, `{"page":400}`, 25, false, true},
		{"page 500 of 10 is OpenAlex's last page", `{"meta":{"count":50000},"results":[` + results(10) + `]}`, `{"page":500}`, 10, false, true},
		{"no count, full page", `{"results":[` + results(3) + `]}`, "", 3, true, false},
		{"no count, short page", `{"meta":null,"results":[` + results(2) + `]}`, "", 3, false, false},
		{"results null", `{"meta":{"count":9},"results":null}`, "", 3, false, false},
		{"results not a list", `{"meta":{"count":9},"results":{"id":"W1"}}`, "", 3, false, false},
	}
	for _, tc := range limits {
		t.Run(tc.name, func(t *testing.T) {
			f := answer(t, tc.body)
			req := prepare(t, `{"query":"graphene","num":`+jsonInt(tc.num)+`}`)
			var state json.RawMessage
			if tc.state != "" {
				state = json.RawMessage(tc.state)
			}
			page, err := providertest.ExecuteState(t, f.client(t, ""), AcademicSearch, providers.ModeLive, req, state)
			if err != nil {
				t.Fatal(err)
			}
			if page.HasMore != tc.wantMore || (page.Next != nil) != tc.wantMore {
				t.Errorf("has_more %v next %s, want has_more %v", page.HasMore, page.Next, tc.wantMore)
			}
			if hasNote := reflect.DeepEqual(page.Notes, []string{noteUnreachable}); hasNote != tc.wantNote {
				t.Errorf("notes = %q, want the 10,000-result note: %v", page.Notes, tc.wantNote)
			}
		})
	}
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestSearchErrors(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		fixture string // testdata file, or a literal body when it starts with "{", "[" or "<"
		header  map[string]string
		code    providers.Code
		paths   []string
		retry   bool
	}{
		{"search syntax refused", 400, "error_400_search.json", nil, providers.CodeInvalidRequest, []string{"/query"}, false},
		{"bad filter", 400, "error_400_filter.json", nil, providers.CodeProviderError, nil, false},
		{"beyond 10,000 results", 400, "error_400_paging.json", nil, providers.CodeProviderError, nil, false},
		{"400 without a body we know", 400, `<html>Bad Request</html>`, nil, providers.CodeProviderError, nil, false},
		{"bad API key", 401, "error_401.json", nil, providers.CodeProviderError, nil, false},
		{"403 rate limit", 403, "error_403_rate.json", nil, providers.CodeRateLimited, nil, true},
		{"403 without a body", 403, ``, nil, providers.CodeRateLimited, nil, true},
		{"403 parameter needs a key", 403, "error_403_forbidden.json", nil, providers.CodeProviderError, nil, false},
		{"throttled briefly", 429, "error_429.json", map[string]string{"Retry-After": "1"}, providers.CodeRateLimited, nil, true},
		{"daily allowance used up", 429, "error_429_daily.json", map[string]string{"Retry-After": "1"}, providers.CodeProviderAllowance, nil, false},
		{"throttled without Retry-After", 429, "error_429.json", nil, providers.CodeRateLimited, nil, true},
		{"plan upgrade required", 429, "error_429_plan.json", map[string]string{"Retry-After": "1"}, providers.CodeProviderError, nil, false},
		{"server error", 500, `<html><body>Internal Server Error</body></html>`, nil, providers.CodeProviderError, nil, true},
		{"unavailable", 503, `{"error":"Service Unavailable"}`, nil, providers.CodeProviderError, nil, true},
		{"malformed JSON", 200, `{"meta":{"count":3},"results":[`, nil, providers.CodeProviderError, nil, true},
		{"not an object", 200, `[1,2,3]`, nil, providers.CodeProviderError, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			body := []byte(tc.fixture)
			if tc.fixture != "" && !strings.ContainsAny(tc.fixture[:1], "{[<") {
				body = providertest.Fixture(t, tc.fixture)
			}
			f.routes["/works"] = func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write(body)
			}
			_, err := providertest.Execute(t, f.client(t, ""), AcademicSearch, providers.ModeLive, `{"query":"crispr | cas9"}`)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if e.IsRetryable() != tc.retry {
				t.Errorf("retryable = %v, want %v", e.IsRetryable(), tc.retry)
			}
			if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, tc.paths) && (len(got) > 0 || len(tc.paths) > 0) {
				t.Errorf("violation paths = %v, want %v", got, tc.paths)
			}
			if e.Code == providers.CodeRateLimited && (e.RetryAfter <= 0 || e.RetryAfter > time.Minute) {
				t.Errorf("rate_limited with Retry-After %s", e.RetryAfter)
			}
			if e.Code == providers.CodeProviderAllowance && (e.RetryAfter <= 0 || e.RetryAfter > 24*time.Hour || !strings.Contains(e.Message, "midnight UTC")) {
				t.Errorf("daily allowance: Retry-After %s, message %q; want the wait until midnight UTC", e.RetryAfter, e.Message)
			}
			if tc.fixture == "error_401.json" && (!strings.Contains(e.Message, "API key not found") || e.Hint == "") {
				t.Errorf("401 error = %q hint %q", e.Message, e.Hint)
			}
			if tc.fixture == "error_400_filter.json" && !strings.Contains(e.Message, "publication_year must be a number") {
				t.Errorf("400 error = %q", e.Message)
			}
		})
	}
}

// searchRecord is a record as a search made it, for the details lookup.
func searchRecord(t *testing.T, id string) providers.Record {
	t.Helper()
	ref, _ := json.Marshal(workRef{ID: id})
	return providers.Record{Title: "A work", URL: "https://openalex.org/" + id, Ref: ref}
}

func TestDetails(t *testing.T) {
	req := func(t *testing.T) providers.Request { return prepare(t, `{"query":"cas9 specificity"}`) }

	t.Run("golden", func(t *testing.T) {
		f := newFake(t)
		f.serve("/works/W2284418426", http.StatusOK, "work.json")
		rec := searchRecord(t, "W2284418426")
		d, err := providertest.Action(t, f.client(t, "secret"), AcademicSearch, providers.ModeLive, req(t), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "details", d)
		if d.Credits != nil {
			t.Errorf("credits = %d, want the action's 0", *d.Credits)
		}
		reqs := f.Requests()
		want := url.Values{"select": {wantDetailSelect}, "api_key": {"secret"}}
		if len(reqs) != 1 || reqs[0].URL.Path != "/works/W2284418426" || !reflect.DeepEqual(reqs[0].URL.Query(), want) {
			t.Errorf("requests = %v", reqs)
		}
		body := d.Body.(*WorkDetail)
		if body.OpenAlexID != "W2284418426" || !strings.HasPrefix(body.Abstract, "Structure-guided protein engineering") {
			t.Errorf("detail = %+v", body)
		}
		counts := body.CountsByYear
		if len(counts) != 4 || counts[0].Year != 2025 || counts[3].Year != 2022 {
			t.Errorf("counts_by_year = %v", counts)
		}
	})

	t.Run("sparse work", func(t *testing.T) {
		f := newFake(t)
		f.serve("/works/W2160612345", http.StatusOK, "work_minimal.json")
		rec := searchRecord(t, "W2160612345")
		d, err := providertest.Action(t, f.client(t, ""), AcademicSearch, providers.ModeLive, req(t), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		want := &WorkDetail{
			OpenAlexID: "W2160612345", OpenAlexURL: "https://openalex.org/W2160612345",
			Title:           "The effect of open access and downloads ('hits') on citation impact: a bibliography of studies",
			PublicationYear: ptr(2004), Type: "report", CitedByCount: ptr(118), CountsByYear: []YearCount{},
		}
		if !reflect.DeepEqual(d.Body, want) {
			t.Errorf("detail =\n%#v\nwant\n%#v", d.Body, want)
		}
		if !reflect.DeepEqual(d.Links, []providers.Link{{Label: "OpenAlex record", URL: "https://openalex.org/W2160612345"}}) {
			t.Errorf("links = %v", d.Links)
		}
		if q := f.Requests()[0].URL.Query(); q.Get("api_key") != fakeKey {
			t.Errorf("api_key = %q, want the deployment's key", q.Get("api_key"))
		}
	})

	t.Run("merged work is followed", func(t *testing.T) {
		f := newFake(t)
		f.routes["/works/W1111111111"] = func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/works/W2284418426?"+r.URL.RawQuery, http.StatusMovedPermanently)
		}
		f.serve("/works/W2284418426", http.StatusOK, "work.json")
		rec := searchRecord(t, "W1111111111")
		d, err := providertest.Action(t, f.client(t, ""), AcademicSearch, providers.ModeLive, req(t), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		if id := d.Body.(*WorkDetail).OpenAlexID; id != "W2284418426" {
			t.Errorf("openalex_id = %v, want the work it was merged into", id)
		}
		if reqs := f.Requests(); len(reqs) != 2 || reqs[1].URL.Query().Get("select") != wantDetailSelect {
			t.Errorf("requests = %v", reqs)
		}
	})

	notFound := []struct{ name, ctype, body string }{
		{"documented JSON", "application/json", `{"error":"Not Found","message":"Work W9999999999 not found"}`},
		{"Flask HTML", "text/html; charset=utf-8", "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n" +
			"<p>The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.</p>\n"},
	}
	for _, tc := range notFound {
		t.Run("gone: "+tc.name, func(t *testing.T) {
			f := newFake(t)
			f.routes["/works/W9999999999"] = func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(tc.body))
			}
			rec := searchRecord(t, "W9999999999")
			_, err := providertest.Action(t, f.client(t, ""), AcademicSearch, providers.ModeLive, req(t), "details", &rec)
			if providertest.ErrorCode(err) != providers.CodeNotFound {
				t.Errorf("error = %v, want not_found", err)
			}
		})
	}

	failures := []struct {
		name    string
		status  int
		fixture string
		code    providers.Code
	}{
		{"bad key", 401, "error_401.json", providers.CodeProviderError},
		{"throttled", 403, "error_403_rate.json", providers.CodeRateLimited},
		{"bad request", 400, "error_400_filter.json", providers.CodeProviderError},
		{"server error", 502, "", providers.CodeProviderError},
	}
	for _, tc := range failures {
		t.Run("fails: "+tc.name, func(t *testing.T) {
			f := newFake(t)
			if tc.fixture != "" {
				f.serve("/works/W2284418426", tc.status, tc.fixture)
			} else {
				f.routes["/works/W2284418426"] = func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tc.status) }
			}
			rec := searchRecord(t, "W2284418426")
			_, err := providertest.Action(t, f.client(t, ""), AcademicSearch, providers.ModeLive, req(t), "details", &rec)
			if providertest.ErrorCode(err) != tc.code || len(providertest.ViolationPaths(err)) != 0 {
				t.Errorf("error = %v, want %s without violations", err, tc.code)
			}
		})
	}

	t.Run("odd types", func(t *testing.T) {
		f := newFake(t)
		f.routes["/works/W2284418426"] = func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"id":42,"doi":["x"],"display_name":{"a":1},"title":"  Cas9  variants ",
				"publication_year":"2016","publication_date":20160101,"type":false,"primary_location":"nowhere",
				"best_oa_location":{"pdf_url":"javascript:alert(1)","license":7,"source":[]},
				"open_access":{"is_oa":"yes","oa_status":null,"oa_url":"https://example.org/cas9.pdf"},
				"cited_by_count":-5,"counts_by_year":[{"year":2024,"cited_by_count":3},{"year":"2023","cited_by_count":2},null,7,{"year":2025,"cited_by_count":1}],
				"abstract_inverted_index":["not","an","index"]}`))
		}
		rec := searchRecord(t, "W2284418426")
		d, err := providertest.Action(t, f.client(t, ""), AcademicSearch, providers.ModeLive, req(t), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		want := &WorkDetail{
			OpenAlexID: "W2284418426", OpenAlexURL: "https://openalex.org/W2284418426", Title: "Cas9 variants",
			CountsByYear: []YearCount{{Year: 2025, CitedByCount: 1}, {Year: 2024, CitedByCount: 3}},
			OpenAccess:   &OpenAccessInfo{OAURL: "https://example.org/cas9.pdf"},
		}
		if !reflect.DeepEqual(d.Body, want) {
			t.Errorf("detail =\n%#v\nwant\n%#v", d.Body, want)
		}
		wantLinks := []providers.Link{{Label: "Open-access copy", URL: "https://example.org/cas9.pdf"},
			{Label: "OpenAlex record", URL: "https://openalex.org/W2284418426"}}
		if !reflect.DeepEqual(d.Links, wantLinks) {
			t.Errorf("links = %v", d.Links)
		}
	})

	for _, ref := range []string{"", `{}`, `{"id":""}`, `{"id":"A5048491430"}`, `{"id":"W12x"}`, `{"id":"https://openalex.org/W1"}`, `not json`} {
		t.Run("refused without an id: "+ref, func(t *testing.T) {
			f := newFake(t)
			rec := providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			_, err := providertest.Action(t, f.client(t, ""), AcademicSearch, providers.ModeLive, req(t), "details", &rec)
			e, ok := providers.AsError(err)
			if !ok || e.Code != providers.CodeInvalidRequest || len(e.Violations) != 1 || e.Violations[0].Path != "/record_id" ||
				e.Violations[0].Message != "this record has no OpenAlex id; details need one" {
				t.Errorf("error = %+v, want invalid_request at /record_id", err)
			}
			if len(f.Requests()) != 0 {
				t.Error("called the upstream without an id")
			}
		})
	}
}

func TestRecordsWithoutIDHaveNoDetails(t *testing.T) {
	f := newFake(t)
	f.serve("/works", http.StatusOK, "search.json")
	page, err := providertest.Execute(t, f.client(t, ""), AcademicSearch, providers.ModeLive, `{"query":"open access","num":5}`)
	if err != nil {
		t.Fatal(err)
	}
	withoutID := 0
	for _, rec := range page.Records {
		_, hasID := providertest.Native(&rec)["openalex_id"]
		switch {
		case hasID && (rec.Actions != nil || len(rec.Ref) == 0):
			t.Errorf("%q: actions %v ref %s, want all actions and a ref", rec.Title, rec.Actions, rec.Ref)
		case !hasID && (rec.Actions == nil || len(rec.Actions) != 0 || len(rec.Ref) != 0):
			t.Errorf("%q: no id but actions %v ref %s", rec.Title, rec.Actions, rec.Ref)
		case !hasID:
			withoutID++
		}
	}
	if withoutID != 1 {
		t.Errorf("%d records without an id, want 1", withoutID)
	}
}

// TestExamples runs the shared conformance run over the examples in test mode (every page's
// records match the example's filters, every record's details), then each example live against
// a fake.
func TestExamples(t *testing.T) {
	providertest.Conformance{Providers: Providers(), EveryRecord: true,
		Page: func(t *testing.T, ex providers.Example, _ int, p *providers.Page) {
			body, _ := json.Marshal(ex.Body)
			req := providertest.MustPrepare(t, AcademicSearch, string(body))
			for i := range p.Records {
				checkExampleRecord(t, req, &p.Records[i])
			}
		},
		Detail: func(t *testing.T, _ providers.Example, _ string, rec *providers.Record, d *providers.Detail) {
			if b := d.Body.(*WorkDetail); b.OpenAlexID != rec.Data.(*WorkRecord).OpenAlexID || b.Title != rec.Title || len(d.Links) == 0 {
				t.Errorf("details of %q: %v %v", rec.Title, b, d.Links)
			}
		}}.Run(t, AcademicSearch)
	for _, ex := range AcademicSearch.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("live: "+ex.Title, func(t *testing.T) {
			f := newFake(t)
			f.serve("/works", http.StatusOK, "search.json")
			page, err := providertest.Execute(t, f.client(t, ""), AcademicSearch, providers.ModeLive, string(body))
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 {
				t.Fatal("no records")
			}
			req := prepare(t, string(body))
			n, _ := req.Int("num")
			q := f.Requests()[0].URL.Query()
			if q.Get("search") != ex.Body.Request()["query"] || q.Get("per_page") != jsonInt(n) || q.Get("sort") != sortParam[req.Str("sort")] ||
				q.Get("filter") != filterParam(req) {
				t.Errorf("query = %v for %v", q, ex.Body)
			}
		})
	}
}

// checkExampleRecord checks a sandbox record against the example's filters.
func checkExampleRecord(t *testing.T, req providers.Request, rec *providers.Record) {
	t.Helper()
	if rec.Title == "" || rec.URL == "" || providertest.Native(rec)["openalex_id"] == nil {
		t.Errorf("record %+v lacks title, url or openalex_id", rec)
	}
	year, _ := providertest.Native(rec)["year"].(int)
	if from, ok := req.Int("from_year"); ok && year < from {
		t.Errorf("%q: year %d before %d", rec.Title, year, from)
	}
	if to, ok := req.Int("to_year"); ok && year > to {
		t.Errorf("%q: year %d after %d", rec.Title, year, to)
	}
	if oa, _ := req.Bool("open_access_only"); oa && providertest.Native(rec)["open_access"] != true {
		t.Errorf("%q is not open access", rec.Title)
	}
}

func TestSandboxGolden(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	page, err := providertest.Execute(t, client, AcademicSearch, providers.ModeTest, `{"query":"open access citation advantage","num":5}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_oa", providertest.RecordsJSON(page))

	rec := page.Records[0]
	d, err := providertest.Action(t, client, AcademicSearch, providers.ModeTest, prepare(t, `{"query":"x"}`), "details", &rec)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_details", d)

	t.Run("unknown work answers not_found", func(t *testing.T) {
		rec := searchRecord(t, "W1")
		_, err := providertest.Action(t, client, AcademicSearch, providers.ModeTest, prepare(t, `{"query":"x"}`), "details", &rec)
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("error = %v, want not_found", err)
		}
	})
}

// Since February 2026 OpenAlex needs an API key for real use: without PROVIDER_OPENALEX_KEY a
// live call is refused before it is sent, naming the setting; test keys keep the sandbox.
func TestKeyRequired(t *testing.T) {
	f := newFake(t)
	f.serve("/works", http.StatusOK, "search_empty.json")
	c := providertest.Client(t, Providers(), map[string]http.Handler{ProviderID: f}, nil)
	providertest.Unconfigured(t, c, ProviderID, "PROVIDER_OPENALEX_KEY")
	_, err := providertest.Execute(t, c, AcademicSearch, providers.ModeLive, `{"query":"graphene"}`)
	if providertest.ErrorCode(err) != providers.CodeCapabilityUnavailable || len(f.Requests()) != 0 {
		t.Fatalf("live call without a key: %v after %d requests, want capability_unavailable before any", err, len(f.Requests()))
	}
	if _, err := providertest.Execute(t, c, AcademicSearch, providers.ModeTest, `{"query":"graphene"}`); err != nil {
		t.Fatalf("sandbox call: %v", err)
	}
}

func TestUntilMidnightUTC(t *testing.T) {
	at := time.Date(2026, 3, 1, 22, 30, 0, 0, time.FixedZone("CET", 3600))
	if got := untilMidnightUTC(at); got != 2*time.Hour+30*time.Minute {
		t.Fatalf("untilMidnightUTC(21:30 UTC) = %s", got)
	}
}
