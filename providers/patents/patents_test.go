package patents

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
	"github.com/capgate/capgate/providers/upstream/serpapi"
	"github.com/capgate/capgate/providers/upstream/serpapi/serpapitest"
)

const testKey = serpapitest.Key

// fake is an httptest stand-in for SerpApi that records every request and answers search.json by
// engine.
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

// serve answers an engine with a status and a body: a testdata fixture name, or literal JSON.
func (f *fake) serve(engine string, status int, body string) {
	f.t.Helper()
	b := providertest.Body(f.t, body)
	f.engines[engine] = func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write(b)
	}
}

func (f *fake) client(t *testing.T) *providers.Client {
	return serpapitest.Client(t, Providers(), f)
}

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, Search, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

// searchQuery is the query every search request carries, plus the given parameters.
func searchQuery(extra url.Values) url.Values {
	q := url.Values{"engine": {"google_patents"}, "output": {"json"}, "api_key": {testKey}}
	for k, v := range extra {
		q[k] = v
	}
	return q
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Search
	if c.ID != "patents.search" || c.Topic != "Research and reading" || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("id/topic/texts = %q/%q", c.ID, c.Topic)
	}
	if c.Paging != providers.PagingPage || c.Deadline != 40*time.Second || c.NoUpdate {
		t.Errorf("paging %v deadline %v noupdate %v", c.Paging, c.Deadline, c.NoUpdate)
	}
	if c.Cost.Typical != 4 || c.Cost.Basis != "$0.004 per SerpApi search page and per fresh details lookup; cached details are free" {
		t.Errorf("cost = %+v", c.Cost)
	}
	if !reflect.DeepEqual(c.Providers, []string{"serpapi"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	if len(c.Actions) != 1 || c.Actions[0].Name != "details" || c.Actions[0].Kind != providers.ActionLookup ||
		c.Actions[0].Credits != 4 || c.Actions[0].Run == nil || c.Actions[0].Description == "" {
		t.Errorf("actions = %+v", c.Actions)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples, want at least 2", len(c.Examples))
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Search {
		t.Errorf("Capabilities() = %v", got)
	}
	if p := Providers(); len(p) != 1 || p[0] != serpapi.Provider() {
		t.Errorf("Providers() = %v", p)
	}

	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["type"] != "object" || !reflect.DeepEqual(doc["required"], []any{"query"}) {
		t.Errorf("schema top level: %v", doc)
	}
	props := doc["properties"].(map[string]any)
	if len(props) != 10 {
		t.Errorf("%d properties: %v", len(props), props)
	}
	for name, raw := range props {
		if d, _ := raw.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	prop := func(name string) map[string]any { return props[name].(map[string]any) }
	for name, lim := range map[string][2]float64{"query": {1, 500}, "inventor": {1, 250}, "assignee": {1, 250}} {
		p := prop(name)
		if p["type"] != "string" || p["minLength"] != lim[0] || p["maxLength"] != lim[1] || p["pattern"] != `\S` {
			t.Errorf("%s schema = %v", name, p)
		}
	}
	if p := prop("num"); p["type"] != "integer" || p["minimum"] != 1.0 || p["maximum"] != 25.0 || p["default"] != 10.0 {
		t.Errorf("num schema = %v", p)
	}
	if p := prop("countries"); p["type"] != "array" || p["minItems"] != 1.0 || p["maxItems"] != 20.0 || p["uniqueItems"] != true {
		t.Errorf("countries schema = %v", p)
	}
	enums := map[string][]any{"status": {"GRANT", "APPLICATION"}, "patent_type": {"PATENT", "DESIGN"}, "sort": {"relevance", "new", "old"}}
	for name, want := range enums {
		if p := prop(name); p["type"] != "string" || !reflect.DeepEqual(p["enum"], want) {
			t.Errorf("%s schema = %v", name, p)
		}
	}
	for _, name := range []string{"before", "after"} {
		if p := prop(name); p["type"] != "string" || p["pattern"] != `^(?:(?:priority|filing|publication):)?[0-9]{8}$` {
			t.Errorf("%s schema = %v", name, p)
		}
	}
}

func TestValidation(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	many := func(n int) string {
		codes := make([]string, n)
		for i := range codes {
			codes[i] = `"` + string(rune('A'+i/26)) + string(rune('A'+i%26)) + `"`
		}
		return "[" + strings.Join(codes, ",") + "]"
	}
	cases := []struct {
		name  string
		body  string
		paths []string // nil: valid
	}{
		{"query only", `{"query":"coffee"}`, nil},
		{"everything", `{"query":"coffee","num":25,"countries":["US","ep"],"status":"GRANT","patent_type":"DESIGN",
			"inventor":"Bary Lyn Zeller","assignee":"Kraft Foods","before":"publication:20231231","after":"filing:20000101","sort":"old"}`, nil},
		{"query at 500", `{"query":"` + long(500) + `"}`, nil},
		{"20 countries", `{"query":"x","countries":` + many(20) + `}`, nil},
		{"inventor at 250", `{"query":"x","inventor":"` + long(250) + `"}`, nil},
		{"bare dates", `{"query":"x","before":"20221231","after":"20200101"}`, nil},
		{"leap day", `{"query":"x","after":"20240229"}`, nil},
		{"same day", `{"query":"x","after":"priority:20200101","before":"20200101"}`, nil},
		{"after later on another date type", `{"query":"x","after":"publication:20220101","before":"priority:20200101"}`, nil},
		{"sort relevance", `{"query":"x","sort":"relevance"}`, nil},

		{"no query", `{"num":5}`, []string{"/query"}},
		{"empty query", `{"query":""}`, []string{"/query"}},
		{"blank query", `{"query":"  \t"}`, []string{"/query"}},
		{"query too long", `{"query":"` + long(501) + `"}`, []string{"/query"}},
		{"query not a string", `{"query":7}`, []string{"/query"}},
		{"num zero", `{"query":"x","num":0}`, []string{"/num"}},
		{"num 26", `{"query":"x","num":26}`, []string{"/num"}},
		{"num fraction", `{"query":"x","num":1.5}`, []string{"/num"}},
		{"countries empty", `{"query":"x","countries":[]}`, []string{"/countries"}},
		{"21 countries", `{"query":"x","countries":` + many(21) + `}`, []string{"/countries"}},
		{"duplicate country", `{"query":"x","countries":["US","US"]}`, []string{"/countries"}},
		{"three-letter country", `{"query":"x","countries":["US","USA"]}`, []string{"/countries/1"}},
		{"countries not an array", `{"query":"x","countries":"US"}`, []string{"/countries"}},
		{"status lower case", `{"query":"x","status":"grant"}`, []string{"/status"}},
		{"patent_type unknown", `{"query":"x","patent_type":"PLANT"}`, []string{"/patent_type"}},
		{"inventor empty", `{"query":"x","inventor":""}`, []string{"/inventor"}},
		{"assignee blank", `{"query":"x","assignee":"   "}`, []string{"/assignee"}},
		{"assignee too long", `{"query":"x","assignee":"` + long(251) + `"}`, []string{"/assignee"}},
		{"before with dashes", `{"query":"x","before":"2022-12-31"}`, []string{"/before"}},
		{"before unknown date type", `{"query":"x","before":"grant:20221231"}`, []string{"/before"}},
		{"after too short", `{"query":"x","after":"2022123"}`, []string{"/after"}},
		{"sort unknown", `{"query":"x","sort":"newest"}`, []string{"/sort"}},
		{"unknown key", `{"query":"x","page":2}`, []string{"/page"}},

		// rules beyond the schema
		{"before not a calendar date", `{"query":"x","before":"20230230"}`, []string{"/before"}},
		{"after month 13", `{"query":"x","after":"filing:20221301"}`, []string{"/after"}},
		{"no leap day", `{"query":"x","after":"20230229"}`, []string{"/after"}},
		{"year zero", `{"query":"x","before":"00000101"}`, []string{"/before"}},
		{"day zero", `{"query":"x","before":"publication:20220100"}`, []string{"/before"}},
		{"both not dates", `{"query":"x","before":"20221232","after":"20220631"}`, []string{"/before", "/after"}},
		{"after later than before", `{"query":"x","after":"20230101","before":"20221231"}`, []string{"/after"}},
		{"after later, default and explicit priority", `{"query":"x","after":"priority:20230101","before":"20221231"}`, []string{"/after"}},
		{"after later on filing dates", `{"query":"x","after":"filing:20230101","before":"filing:20220101"}`, []string{"/after"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, Search, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if n, ok := req.Int("num"); !ok || n < 1 {
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

	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, `{"query":"coffee"}`)
		if n, _ := req.Int("num"); n != 10 {
			t.Errorf("num = %d, want 10", n)
		}
		if len(req) != 2 {
			t.Errorf("request = %v, want query and num only", req)
		}
	})
	t.Run("rule messages", func(t *testing.T) {
		vs := rules(providers.Request{"query": "x", "before": "20230230"}, nil)
		if len(vs) != 1 || !strings.Contains(vs[0].Message, "real calendar date") || !strings.Contains(vs[0].Message, "20230230") {
			t.Errorf("violations = %+v", vs)
		}
		vs = rules(providers.Request{"query": "x", "after": "filing:20230101", "before": "filing:20220101"}, nil)
		if len(vs) != 1 || !strings.Contains(vs[0].Message, "filing:20230101") || !strings.Contains(vs[0].Message, "filing:20220101") {
			t.Errorf("violations = %+v", vs)
		}
	})
	t.Run("rules on update", func(t *testing.T) {
		up := &providers.Update{Params: providers.Request{"after": "20250101"}}
		vs := Search.Rules(providers.Request{"query": "x", "after": "20250101", "before": "20240101"}, up)
		if len(vs) != 1 || vs[0].Path != "/after" {
			t.Errorf("violations = %+v", vs)
		}
		if vs := Search.Rules(providers.Request{"query": "x", "after": "20230101"}, up); vs != nil {
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

func TestUpstreamSize(t *testing.T) {
	want := map[int]int{1: 10, 2: 10, 3: 12, 4: 12, 5: 10, 6: 12, 7: 14, 8: 16, 9: 18, 10: 10, 11: 11, 13: 13, 25: 25, 0: 10}
	for num, size := range want {
		if got := upstreamSize(num); got != size {
			t.Errorf("upstreamSize(%d) = %d, want %d", num, got, size)
		}
	}
	for num := 1; num <= 25; num++ {
		size := upstreamSize(num)
		if size < 10 || size > 100 || size%num != 0 {
			t.Errorf("upstreamSize(%d) = %d: not a multiple of num in 10..100", num, size)
		}
	}
}

func TestSearchMappingGolden(t *testing.T) {
	cases := []struct{ name, fixture, body string }{
		{"search", "search.json", `{"query":"(Coffee)","num":10}`},
		{"search_odd", "search_odd.json", `{"query":"espresso"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_patents", http.StatusOK, tc.fixture)
			page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			for _, rec := range page.Records {
				pr := rec.Data.(*PatentRecord)
				if rec.Title == "" || pr.PublicationNumber == "" || pr.Source != "google_patents" {
					t.Errorf("record misses an always key: %+v", rec)
				}
				for k, v := range providertest.Native(&rec) {
					if v == "" || v == nil {
						t.Errorf("%q: empty %s", rec.Title, k)
					}
				}
			}
			reqs := f.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d upstream requests, want 1", len(reqs))
			}
			want := searchQuery(url.Values{"q": {prepare(t, tc.body).Str("query")}, "num": {"10"}})
			if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

func TestSearchQueryParameters(t *testing.T) {
	cases := []struct {
		name string
		body string
		want url.Values // besides engine, output and api_key
	}{
		{"defaults", `{"query":"  coffee foam "}`, url.Values{"q": {"coffee foam"}, "num": {"10"}}},
		{"num 3 reads 12", `{"query":"x","num":3}`, url.Values{"q": {"x"}, "num": {"12"}}},
		{"num 1 reads 10", `{"query":"x","num":1}`, url.Values{"q": {"x"}, "num": {"10"}}},
		{"num 25", `{"query":"x","num":25}`, url.Values{"q": {"x"}, "num": {"25"}}},
		{"countries", `{"query":"x","countries":["us","EP","Us","wo"]}`, url.Values{"q": {"x"}, "num": {"10"}, "country": {"US,EP,WO"}}},
		{"status and type", `{"query":"x","status":"APPLICATION","patent_type":"PATENT"}`,
			url.Values{"q": {"x"}, "num": {"10"}, "status": {"APPLICATION"}, "type": {"PATENT"}}},
		{"people", `{"query":"x","inventor":" Bary Lyn Zeller ","assignee":"(Kraft Foods, Inc.),Nestec"}`,
			url.Values{"q": {"x"}, "num": {"10"}, "inventor": {"Bary Lyn Zeller"}, "assignee": {"(Kraft Foods, Inc.),Nestec"}}},
		{"bare dates default to priority", `{"query":"x","before":"20221231","after":"20180101"}`,
			url.Values{"q": {"x"}, "num": {"10"}, "before": {"priority:20221231"}, "after": {"priority:20180101"}}},
		{"prefixed dates", `{"query":"x","before":"publication:20230101","after":"filing:20150615"}`,
			url.Values{"q": {"x"}, "num": {"10"}, "before": {"publication:20230101"}, "after": {"filing:20150615"}}},
		{"sort new", `{"query":"x","sort":"new"}`, url.Values{"q": {"x"}, "num": {"10"}, "sort": {"new"}}},
		{"sort old", `{"query":"x","sort":"old"}`, url.Values{"q": {"x"}, "num": {"10"}, "sort": {"old"}}},
		{"sort relevance sends nothing", `{"query":"x","sort":"relevance"}`, url.Values{"q": {"x"}, "num": {"10"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_patents", http.StatusOK, "search.json")
			if _, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			if got, want := f.Requests()[0].URL.Query(), searchQuery(tc.want); !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

// pagedFake serves google_patents pages by the page parameter ("" is the first).
func pagedFake(t *testing.T, pages map[string]string) *fake {
	t.Helper()
	f := newFake(t)
	bodies := map[string][]byte{}
	for p, name := range pages {
		bodies[p] = providertest.Fixture(t, name)
	}
	f.engines["google_patents"] = func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Query().Get("page")]
		if !ok {
			t.Errorf("unexpected page %q", r.URL.Query().Get("page"))
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_, _ = w.Write(b)
	}
	return f
}

func TestPaging(t *testing.T) {
	// search_page1.json holds 10 results and a next page; search_page2.json 4 results and none.
	type step struct {
		records   int
		first     string // publication number of the first record
		next      string
		upstreamP string // page parameter sent
	}
	cases := []struct {
		name  string
		body  string
		num   string
		steps []step
	}{
		{"num 5 reads each page twice", `{"query":"coffee","num":5}`, "10", []step{
			{5, "US8110241B2", `{"page":1,"offset":5}`, ""},
			{5, "DE102015121471B4", `{"page":2,"offset":0}`, ""},
			{4, "EP3313245B1", "", "2"},
		}},
		{"num 10 is one page per page", `{"query":"coffee"}`, "10", []step{
			{10, "US8110241B2", `{"page":2,"offset":0}`, ""},
			{4, "EP3313245B1", "", "2"},
		}},
		{"num 3 over short upstream pages", `{"query":"coffee","num":3}`, "12", []step{
			{3, "US8110241B2", `{"page":1,"offset":3}`, ""},
			{3, "US20210137311A1", `{"page":1,"offset":6}`, ""},
			{3, "US10531761B2", `{"page":1,"offset":9}`, ""},
			{1, "JP6767537B2", `{"page":2,"offset":0}`, ""},
			{3, "EP3313245B1", `{"page":2,"offset":3}`, "2"},
			{1, "KR102138492B1", "", "2"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := pagedFake(t, map[string]string{"": "search_page1.json", "2": "search_page2.json"})
			client := f.client(t)
			req := prepare(t, tc.body)
			var state json.RawMessage
			seen := map[string]bool{}
			for i, s := range tc.steps {
				page, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, state)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if len(page.Records) != s.records || page.Records[0].Data.(*PatentRecord).PublicationNumber != s.first {
					t.Fatalf("step %d: %d records starting %v, want %d starting %s", i, len(page.Records),
						page.Records[0].Data.(*PatentRecord).PublicationNumber, s.records, s.first)
				}
				for _, r := range page.Records {
					n := r.Data.(*PatentRecord).PublicationNumber
					if seen[n] {
						t.Errorf("step %d: %s repeated", i, n)
					}
					seen[n] = true
				}
				if string(page.Next) != s.next || page.HasMore != (s.next != "") {
					t.Fatalf("step %d: has_more %v next %s, want %s", i, page.HasMore, page.Next, s.next)
				}
				q := f.Requests()[i].URL.Query()
				if q.Get("page") != s.upstreamP || q.Get("num") != tc.num || q.Get("q") != "coffee" {
					t.Errorf("step %d: upstream query %v", i, q)
				}
				state = page.Next
			}
			if len(seen) != 14 {
				t.Errorf("%d distinct records over all pages, want 14", len(seen))
			}
		})
	}

	t.Run("bad state", func(t *testing.T) {
		f := pagedFake(t, map[string]string{"": "search_page1.json"})
		client := f.client(t)
		req := prepare(t, `{"query":"coffee","num":5}`)
		for _, st := range []string{`{"page":0}`, `"x"`, `{"page":2,"offset":-1}`, `{"page":2,"offset":10}`, `[]`} {
			_, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, json.RawMessage(st))
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("state %s: error %v, want internal_error", st, err)
			}
		}
		if n := len(f.Requests()); n != 0 {
			t.Errorf("%d upstream requests with a bad state", n)
		}
	})

	ends := []struct {
		name    string
		body    string
		hasMore bool
	}{
		{"no results answer", `{"search_metadata":{"id":"1","status":"Success"},"search_information":{"organic_results_state":"Fully empty","total_results":0},"error":"Google hasn't returned any results for this query."}`, false},
		{"empty page with a next link", `{"search_metadata":{"status":"Success"},"organic_results":[],"pagination":{"current":3,"next":"https://patents.google.com/xhr/query?url=q%3Dx%26page%3D4"}}`, false},
		{"organic_results null", `{"search_metadata":{"status":"Success"},"organic_results":null}`, false},
		{"organic_results not an array", `{"search_metadata":{"status":"Success"},"organic_results":{"0":{}}}`, false},
		{"last of total_pages", `{"search_metadata":{"status":"Success"},"search_information":{"total_results":900,"total_pages":1,"page_number":0},
			"organic_results":[{"patent_id":"patent/US1A/en","title":"t"}],"pagination":{"current":0,"next":"https://patents.google.com/xhr/query?url=q%3Dx%26page%3D1"}}`, false},
		{"no pagination, total beyond the page", `{"search_metadata":{"status":"Success"},"search_information":{"total_results":11},
			"organic_results":[{"patent_id":"patent/US1A/en","title":"t"}]}`, true},
		{"no pagination, total reached", `{"search_metadata":{"status":"Success"},"search_information":{"total_results":10},
			"organic_results":[{"patent_id":"patent/US1A/en","title":"t"}]}`, false},
		{"nothing says more", `{"search_metadata":{"status":"Success"},"organic_results":[{"patent_id":"patent/US1A/en","title":"t"}]}`, false},
		{"serpapi_pagination next", `{"search_metadata":{"status":"Success"},"organic_results":[{"patent_id":"patent/US1A/en","title":"t"}],
			"serpapi_pagination":{"current":0,"next":"https://serpapi.com/search.json?engine=google_patents&page=2&q=x"}}`, true},
	}
	for _, tc := range ends {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_patents", http.StatusOK, tc.body)
			page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, `{"query":"x"}`)
			if err != nil {
				t.Fatal(err)
			}
			if page.HasMore != tc.hasMore || (page.Next != nil) != tc.hasMore || page.Records == nil {
				t.Errorf("has_more %v next %s records %v", page.HasMore, page.Next, page.Records)
			}
			if tc.hasMore && string(page.Next) != `{"page":2,"offset":0}` {
				t.Errorf("next = %s", page.Next)
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		body    string
		header  map[string]string
		code    providers.Code
		retry   bool
		message string
	}{
		{"invalid key", 401, `{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`, nil,
			providers.CodeProviderError, false, "SerpApi refused this deployment's key"},
		{"deleted account", 403, `{"error":"The account associated with this API key doesn't have permission to perform the request."}`, nil,
			providers.CodeProviderError, false, "SerpApi refused this deployment's key"},
		{"out of searches", 429, `{"error":"Your account has run out of searches."}`, nil,
			providers.CodeProviderAllowance, false, "run out of searches"},
		{"hourly throughput, short Retry-After", 429, `{"error":"You have exceeded the hourly throughput limit."}`, map[string]string{"Retry-After": "5"},
			providers.CodeRateLimited, true, "exceeded the hourly throughput"},
		{"bad request", 400, `{"error":"Missing query ` + "`q`" + ` parameter."}`, nil, providers.CodeProviderError, false, "Missing query"},
		{"server error", 500, `{"error":"Internal error."}`, nil, providers.CodeProviderError, true, "SerpApi: Internal error."},
		{"search failed (503)", 503, `{"search_metadata":{"id":"64c32cfeb68f8bc186aaa013","status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, nil,
			providers.CodeProviderError, true, "couldn't get valid results"},
		{"search failed in a 200", 200, `{"search_metadata":{"id":"64c32cfeb68f8bc186aaa013","status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, nil,
			providers.CodeProviderError, true, "couldn't get valid results"},
		{"html error page", 502, `<html><body>Bad Gateway</body></html>`, nil, providers.CodeProviderError, true, "HTTP 502"},
		{"other error without results", 200, `{"search_metadata":{"status":"Success"},"error":"Unsupported country parameter."}`, nil,
			providers.CodeProviderError, true, "Unsupported country parameter."},
		{"malformed JSON", 200, `{"organic_results":[`, nil, providers.CodeProviderError, true, "malformed JSON"},
		{"not an object", 200, `[1,2]`, nil, providers.CodeProviderError, true, "malformed JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.engines["google_patents"] = func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}
			_, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, `{"query":"coffee"}`)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if e.IsRetryable() != tc.retry || !strings.Contains(e.Message, tc.message) {
				t.Errorf("retryable %v message %q; want %v and %q", e.IsRetryable(), e.Message, tc.retry, tc.message)
			}
			if strings.Contains(e.Message, testKey) {
				t.Errorf("message leaks the key: %q", e.Message)
			}
		})
	}
}

// searchRecord is a record as the search maps it, for the details lookup.
func searchRecord(t *testing.T, fixture string, i int) providers.Record {
	t.Helper()
	f := newFake(t)
	f.serve("google_patents", http.StatusOK, fixture)
	page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, `{"query":"coffee"}`)
	if err != nil {
		t.Fatal(err)
	}
	return page.Records[i]
}

func TestDetails(t *testing.T) {
	t.Run("golden", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_patents_details", http.StatusOK, "details.json")
		rec := searchRecord(t, "search.json", 0)
		d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"coffee"}`), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "details", d)
		if d.Credits != nil {
			t.Errorf("credits = %d, want the action's 4", *d.Credits)
		}
		reqs := f.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests, want 1", len(reqs))
		}
		want := url.Values{"engine": {"google_patents_details"}, "patent_id": {"patent/US8110241B2/en"}, "output": {"json"}, "api_key": {testKey}}
		if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, want) {
			t.Errorf("query = %v, want %v", got, want)
		}
		body := d.Body.(*PatentDetail)
		if len(body.Claims) != maxClaims || body.ClaimsTotal != 25 {
			t.Errorf("%d claims, claims_total %v", len(body.Claims), body.ClaimsTotal)
		}
		cited := body.Citations.CitedBy
		if cited.Total != 23 || cited.FamilyToFamilyTotal != 3 || len(cited.Entries) != maxCitations {
			t.Errorf("cited_by = %+v", cited)
		}
		wantLinks := []providers.Link{
			{Label: "Google Patents page", URL: "https://patents.google.com/patent/US8110241B2/en"},
			{Label: "PDF", URL: "https://patentimages.storage.googleapis.com/86/1c/bd/89a41d9faca215/US8110241.pdf"},
		}
		if !reflect.DeepEqual(d.Links, wantLinks) {
			t.Errorf("links = %v", d.Links)
		}
	})

	t.Run("odd types and missing parts", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_patents_details", http.StatusOK, `{"search_metadata":{"status":"Success"},
			"title":"Kaffeemaschine &amp; Milchschaum","publication_number":"DE102015121471B4","type":"patent",
			"inventors":["Thomas Weber",{"name":" Anna Keller "},{"link":"x"},7],"assignees":[{"name":"Melitta"}],
			"claims":"1. not an array","abstract":null,"pdf":"ftp://x/y.pdf",
			"patent_citations":{"original":[],"family_to_family":[{"publication_number":"EP1A1","examiner_cited":"yes","patent_id":"bad id"},"junk",{}]},
			"cited_by":null,"priority_date":20151209}`)
		rec := providers.Record{Title: "Kaffeemaschine", URL: "https://patents.google.com/patent/DE102015121471B4/de",
			Fields: map[string]any{"pdf": "https://patentimages.storage.googleapis.com/aa/bb/cc/dd/DE102015121471B4.pdf"},
			Ref:    json.RawMessage(`{"patent_id":"patent/DE102015121471B4/de"}`)}
		d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		want := &PatentDetail{
			PatentID: "patent/DE102015121471B4/de", PublicationNumber: "DE102015121471B4", Type: "patent",
			Title: "Kaffeemaschine & Milchschaum", Inventors: []string{"Thomas Weber", "Anna Keller"}, Assignees: []string{"Melitta"},
			Citations: &Citations{PatentCitations: &CitationSummary{Total: 0, FamilyToFamilyTotal: 3,
				Entries: []Citation{{PublicationNumber: "EP1A1"}}}},
		}
		if !reflect.DeepEqual(d.Body, want) {
			t.Errorf("detail =\n%#v\nwant\n%#v", d.Body, want)
		}
		if len(d.Links) != 2 || d.Links[1].URL != rec.Fields["pdf"] {
			t.Errorf("links = %v (the record's pdf is the fallback)", d.Links)
		}
	})

	t.Run("patent id without language and no pdf", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_patents_details", http.StatusOK, `{"search_metadata":{"status":"Success"},"title":"Espresso tamper","publication_number":"USD800000S"}`)
		rec := searchRecord(t, "search_odd.json", 2) // USD800000S: no patent_id, no link
		d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Requests()[0].URL.Query().Get("patent_id"); got != "patent/USD800000S" {
			t.Errorf("patent_id = %q", got)
		}
		if len(d.Links) != 1 || d.Links[0].URL != "https://patents.google.com/patent/USD800000S" {
			t.Errorf("links = %v", d.Links)
		}
	})

	notFound := []struct {
		name   string
		status int
		body   string
		code   providers.Code
	}{
		{"no results answer", 200, `{"search_metadata":{"status":"Success"},"error":"Google hasn't returned any results for this query."}`, providers.CodeNotFound},
		{"nothing usable", 200, `{"search_metadata":{"status":"Success"},"search_parameters":{"engine":"google_patents_details"}}`, providers.CodeNotFound},
		{"error with nothing usable", 200, `{"search_metadata":{"status":"Success"},"error":"Unsupported patent_id."}`, providers.CodeProviderError},
		{"search failed", 503, `{"search_metadata":{"status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, providers.CodeProviderError},
		{"out of searches", 429, `{"error":"Your account has run out of searches."}`, providers.CodeProviderAllowance},
		{"malformed", 200, `{"title":`, providers.CodeProviderError},
	}
	for _, tc := range notFound {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_patents_details", tc.status, tc.body)
			rec := searchRecord(t, "search.json", 1)
			_, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", &rec)
			if providertest.ErrorCode(err) != tc.code {
				t.Errorf("error = %v, want %s", err, tc.code)
			}
		})
	}

	for _, ref := range []string{"", `{}`, `{"patent_id":"scholar/6497879044063343659"}`, `{"patent_id":"patent/../x"}`, `not json`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			f := newFake(t)
			rec := providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			_, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", &rec)
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Errorf("error = %v, want invalid_request", err)
			}
			if len(f.Requests()) != 0 {
				t.Error("called the upstream without a patent id")
			}
		})
	}
}

func TestRecordsWithoutPatentIDHaveNoDetails(t *testing.T) {
	f := newFake(t)
	f.serve("google_patents", http.StatusOK, "search_odd.json")
	page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, `{"query":"espresso"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range page.Records {
		if hasRef := len(rec.Ref) > 0; hasRef != (rec.Actions == nil) {
			t.Errorf("%q: ref %s actions %v", rec.Title, rec.Ref, rec.Actions)
		}
	}
}

// TestExamples runs the shared conformance run over the examples in test mode (19 records over
// all sandbox pages, details on the first), then each example live against a fake.
func TestExamples(t *testing.T) {
	providertest.Conformance{Providers: Providers(),
		Detail: func(t *testing.T, _ providers.Example, _ string, _ *providers.Record, d *providers.Detail) {
			if b := d.Body.(*PatentDetail); b.Abstract == "" || b.Claims == nil || len(d.Links) != 2 {
				t.Errorf("details = %v %v", b, d.Links)
			}
		},
		Done: func(t *testing.T, _ providers.Example, pages []*providers.Page) {
			// The sandbox's set about the query pages to its end without repeating a patent.
			seen := map[any]bool{}
			for n, p := range pages {
				for _, r := range p.Records {
					if seen[r.Data.(*PatentRecord).PublicationNumber] {
						t.Errorf("page %d repeats %v", n+1, r.Data.(*PatentRecord).PublicationNumber)
					}
					seen[r.Data.(*PatentRecord).PublicationNumber] = true
				}
			}
			if len(seen) == 0 {
				t.Error("no records over all sandbox pages")
			}
		}}.Run(t, Search)
	for _, ex := range Search.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		req := prepare(t, string(body))
		t.Run("live: "+ex.Title, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_patents", http.StatusOK, "search.json")
			page, err := providertest.ExecuteState(t, f.client(t), Search, providers.ModeLive, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 {
				t.Fatal("no records")
			}
			n, _ := req.Int("num")
			if got, want := f.Requests()[0].URL.Query(), searchQuery(searchParams(req, upstreamSize(n), 1)); !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

func TestSandbox(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	page, err := providertest.Execute(t, client, Search, providers.ModeTest, `{"query":"coffee","num":5}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_coffee", providertest.RecordsJSON(page))
	d, err := providertest.Action(t, client, Search, providers.ModeTest, prepare(t, `{"query":"coffee"}`), "details", &page.Records[0])
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_details", d)

	t.Run("no results", func(t *testing.T) {
		page, err := providertest.Execute(t, client, Search, providers.ModeTest, `{"query":"noresults xyzzy"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 0 || page.HasMore {
			t.Errorf("page = %+v", page)
		}
	})
}
