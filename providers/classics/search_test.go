package classics

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// upstream is the shared recording stand-in for one provider.
type upstream = providertest.Upstream

// sandboxFake serves the provider's own sandbox fixtures from a live fake.
func sandboxFake(id string) *upstream { return providertest.SandboxUpstream(Providers(), id) }

// fakes are the three upstreams of a live test run.
type fakes struct {
	gutendex, wikisource, gutenberg http.Handler
}

// client points the providers at httptest servers. Wikisource's fake keeps the real layout
// (/w/api.php) so the sandbox handler can stand in for it; a nil handler refuses every call.
func client(t *testing.T, f fakes) *providers.Client {
	t.Helper()
	c := providertest.Client(t, Providers(), nil, nil)
	for _, fk := range []struct {
		id, path string
		h        http.Handler
	}{{gutendexID, "", f.gutendex}, {wikisourceID, "/w", f.wikisource}, {gutenbergID, "", f.gutenberg}} {
		h := fk.h
		if h == nil {
			h = providertest.Refuse(t, fk.id)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		if err := c.Configure(fk.id, providers.Setting{URL: srv.URL + fk.path}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func prepare(tb testing.TB, body string) providers.Request {
	tb.Helper()
	req, err := providertest.Prepare(tb, Search, body)
	if err != nil {
		tb.Fatalf("body %s: %v", body, err)
	}
	return req
}

func run(tb testing.TB, c *providers.Client, body, state string) (*providers.Page, error) {
	tb.Helper()
	var st json.RawMessage
	if state != "" {
		st = json.RawMessage(state)
	}
	return providertest.ExecuteState(tb, c, Search, providers.ModeLive, prepare(tb, body), st)
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Search
	if c.ID != "classics.search" || c.Topic != "Research and reading" || c.Paging != providers.PagingPage {
		t.Errorf("id/topic/paging = %q/%q/%q", c.ID, c.Topic, c.Paging)
	}
	if c.Deadline != 15*time.Second || c.Cost.Typical != 0 || c.Cost.Basis == "" {
		t.Errorf("deadline/cost = %v/%d/%q", c.Deadline, c.Cost.Typical, c.Cost.Basis)
	}
	if !reflect.DeepEqual(c.Providers, []string{gutendexID}) {
		t.Errorf("providers = %v", c.Providers)
	}
	a, ok := c.Action("details")
	if !ok || a.Kind != providers.ActionLookup || a.Credits != 0 || a.Run == nil || len(c.Actions) != 1 {
		t.Errorf("details action = %+v", a)
	}
	if got := c.SearchActions(); !reflect.DeepEqual(got, []string{"more", "update"}) {
		t.Errorf("search actions = %v", got)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples, want at least 2", len(c.Examples))
	}
	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Error("the body schema must be draft 2020-12 with additionalProperties false")
	}
	props := doc["properties"].(map[string]any)
	if len(props) != 4 {
		t.Errorf("properties = %v", props)
	}
	for name, p := range props {
		if d, _ := p.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	if num := props["num"].(map[string]any); num["default"] != float64(10) || num["minimum"] != float64(1) || num["maximum"] != float64(25) {
		t.Errorf("num = %v", num)
	}
	if lang := props["language"].(map[string]any); lang["pattern"] != "^[a-z]{2}$" {
		t.Errorf("language = %v", lang)
	}
	ids := map[string]bool{}
	for _, p := range Providers() {
		ids[p.ID] = true
		if p.KeyRequired || p.Sandbox == nil || p.BaseURL == "" {
			t.Errorf("provider %s: keyless with a default URL and a sandbox expected", p.ID)
		}
	}
	if len(ids) != 3 || !ids[gutendexID] || !ids[wikisourceID] || !ids[gutenbergID] {
		t.Errorf("providers = %v", ids)
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Search {
		t.Errorf("Capabilities() = %v", got)
	}
}

func TestRequestSchema(t *testing.T) {
	long := strings.Repeat("é", 300)
	cases := []struct {
		name  string
		body  string
		paths []string
	}{
		{"query only", `{"query":"great expectations"}`, nil},
		{"author only", `{"author":"Dickens"}`, nil},
		{"all fields", `{"query":"voyage","author":"Jules Verne","language":"fr","num":25}`, nil},
		{"300-character query", `{"query":"` + long + `"}`, nil},
		{"200-character author", `{"author":"` + long[:400] + `"}`, nil},
		{"301-character query", `{"query":"` + long + `x"}`, []string{"/query"}},
		{"201-character author", `{"author":"` + long[:400] + `x"}`, []string{"/author"}},
		{"empty query", `{"query":""}`, []string{"/query"}},
		{"blank query", `{"query":" \t "}`, []string{"/query"}},
		{"blank author", `{"author":"  ","query":"x"}`, []string{"/author"}},
		{"query not a string", `{"query":42}`, []string{"/query"}},
		{"upper-case language", `{"query":"x","language":"FR"}`, []string{"/language"}},
		{"three-letter language", `{"query":"x","language":"fra"}`, []string{"/language"}},
		{"one-letter language", `{"query":"x","language":"f"}`, []string{"/language"}},
		{"language with a digit", `{"query":"x","language":"f1"}`, []string{"/language"}},
		{"locale", `{"query":"x","language":"en-GB"}`, []string{"/language"}},
		{"num zero", `{"query":"x","num":0}`, []string{"/num"}},
		{"num 26", `{"query":"x","num":26}`, []string{"/num"}},
		{"num fractional", `{"query":"x","num":2.5}`, []string{"/num"}},
		{"num as string", `{"query":"x","num":"5"}`, []string{"/num"}},
		{"unknown key", `{"query":"x","subject":"fiction"}`, []string{"/subject"}},
		// Rule beyond the schema: query or author.
		{"empty body", `{}`, []string{""}},
		{"language only", `{"language":"fr"}`, []string{""}},
		{"num only", `{"num":5}`, []string{""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, Search, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			got := providertest.ViolationPaths(err)
			slices.Sort(got)
			got = slices.Compact(got) // "" breaks both minLength and the non-blank pattern
			if !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %q, want %q", got, tc.paths)
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, `{"author":"x"}`)
		if n, _ := req.Int("num"); n != 10 {
			t.Errorf("num = %v, want 10", req["num"])
		}
		if req.Has("language") || req.Has("query") {
			t.Errorf("defaults added %v", req)
		}
	})
	t.Run("rule on an update", func(t *testing.T) {
		up := &providers.Update{Previous: providers.Request{"query": "x"}, Params: providers.Request{"query": nil}}
		if vs := rules(providers.Request{"num": json.Number("5")}, up); len(vs) != 1 || vs[0].Path != "" {
			t.Errorf("violations = %v", vs)
		}
	})
}

// TestExamples runs the shared conformance run over the examples in test mode (every page, every
// record's details), then each example live against the recorded fixtures.
func TestExamples(t *testing.T) {
	providertest.Conformance{Providers: Providers(), EveryRecord: true,
		Page: func(t *testing.T, _ providers.Example, n int, p *providers.Page) {
			if n == 1 {
				checkExamplePage(t, p)
			}
		},
		Detail: func(t *testing.T, _ providers.Example, _ string, rec *providers.Record, d *providers.Detail) {
			if b := d.Body.(*BookDetail); b.Excerpt == "" || len(d.Links) < 4 {
				t.Errorf("details of %q: %v %v", rec.Title, b, d.Links)
			}
		}}.Run(t, Search)
	for _, ex := range Search.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("live/"+ex.Title, func(t *testing.T) {
			gx := sandboxFake(gutendexID)
			page, err := providertest.Execute(t, client(t, fakes{gutendex: gx}), Search, providers.ModeLive, string(body))
			if err != nil {
				t.Fatal(err)
			}
			checkExamplePage(t, page)
			r := gx.Requests()[0]
			query, _ := ex.Body.Request()["query"].(string)
			author, _ := ex.Body.Request()["author"].(string)
			language, _ := ex.Body.Request()["language"].(string)
			want := strings.TrimSpace(query + " " + author)
			if q := r.URL.Query(); q.Get("search") != want || q.Get("page") != "1" || q.Get("languages") != language {
				t.Errorf("query = %v, want search %q and languages %q", q, want, language)
			}
			if ua := r.Header.Get("User-Agent"); ua != "capgate/test (+tests@example.com)" {
				t.Errorf("User-Agent = %q", ua)
			}
		})
	}
}

func checkExamplePage(t *testing.T, page *providers.Page) {
	t.Helper()
	if len(page.Records) == 0 {
		t.Fatal("no records")
	}
	for _, r := range page.Records {
		if r.Title == "" || r.URL == "" || r.Data.(*BookRecord).Source != "ebook_library" || len(r.Ref) == 0 {
			t.Errorf("record %+v", r)
		}
	}
	if len(page.Notes) != 0 {
		t.Errorf("notes = %v, want none from the primary source", page.Notes)
	}
}

// TestMappingGolden maps recorded-shape upstream answers (testdata/) to records.
func TestMappingGolden(t *testing.T) {
	t.Run("gutendex", func(t *testing.T) {
		gx := providertest.ServeFile(t, 200, "testdata/gutendex_books.json")
		page, err := run(t, client(t, fakes{gutendex: gx}), `{"author":"shelley","num":10}`, `{"source":"gutendex","page":4,"offset":0}`)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "gutendex_books", providertest.RecordsJSON(page))
	})
	t.Run("wikisource", func(t *testing.T) {
		ws := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			file := "testdata/wikisource_search.json"
			if r.URL.Query().Get("prop") == "links" {
				file = "testdata/wikisource_links.json"
			}
			b, _ := os.ReadFile(file)
			_, _ = w.Write(b)
		}}
		page, err := run(t, client(t, fakes{wikisource: ws}), `{"query":"frankenstein","author":"shelley","language":"en","num":4}`, `{"source":"wikisource","offset":0}`)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "wikisource_search", providertest.RecordsJSON(page))
	})
}

// TestSandboxGolden pins what a test key sees: sandbox pages and details of both sources.
func TestSandboxGolden(t *testing.T) {
	c := providertest.Client(t, Providers(), nil, nil)
	for _, tc := range []struct {
		name, body, state string
		details           []int // record indexes whose details are pinned
	}{
		{"sandbox_gutendex", `{"author":"Charles Dickens","num":5}`, "", []int{0, 2}},
		{"sandbox_gutendex_fr", `{"query":"voyage","author":"Jules Verne","language":"fr"}`, "", []int{1}},
		{"sandbox_wikisource", `{"author":"Charles Dickens","num":5}`, `{"source":"wikisource","offset":0}`, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st json.RawMessage
			if tc.state != "" {
				st = json.RawMessage(tc.state)
			}
			req := prepare(t, tc.body)
			page, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, st)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			for _, i := range tc.details {
				d, err := providertest.Action(t, c, Search, providers.ModeTest, req, "details", &page.Records[i])
				if err != nil {
					t.Fatal(err)
				}
				providertest.Golden(t, fmt.Sprintf("%s_details_%d", tc.name, i), d)
			}
		})
	}
}

func TestUpstreamRequests(t *testing.T) {
	checkUA := func(t *testing.T, r *http.Request) {
		t.Helper()
		if ua := r.Header.Get("User-Agent"); ua != "capgate/test (+tests@example.com)" {
			t.Errorf("User-Agent = %q", ua)
		}
		if r.Header.Get("Authorization") != "" || r.URL.Query().Has("key") {
			t.Error("keyless upstream got credentials")
		}
	}
	t.Run("gutendex search", func(t *testing.T) {
		for _, tc := range []struct {
			body string
			want map[string][]string
		}{
			{`{"query":"  Great   Expectations ","num":7}`, map[string][]string{"search": {"Great Expectations"}, "page": {"1"}}},
			{`{"author":"Jules Verne","query":"voyage","language":"fr"}`, map[string][]string{"search": {"voyage Jules Verne"}, "languages": {"fr"}, "page": {"1"}}},
			{`{"author":"Brontë"}`, map[string][]string{"search": {"Brontë"}, "page": {"1"}}},
		} {
			gx := providertest.ServeBody(200, `{"count":0,"next":null,"previous":null,"results":[]}`)
			page, err := run(t, client(t, fakes{gutendex: gx}), tc.body, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) != 0 || page.HasMore || page.Next != nil || page.Notes != nil {
				t.Errorf("empty answer gave %+v", page)
			}
			r := gx.Requests()[0]
			if r.Method != http.MethodGet || r.URL.Path != "/books/" {
				t.Errorf("request %s %s, want GET /books/", r.Method, r.URL.Path)
			}
			if got := map[string][]string(r.URL.Query()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("query = %v, want %v", got, tc.want)
			}
			if r.Header.Get("Accept") != "application/json" {
				t.Errorf("Accept = %q", r.Header.Get("Accept"))
			}
			checkUA(t, r)
		}
	})
	t.Run("wikisource search and authors", func(t *testing.T) {
		ws := sandboxFake(wikisourceID)
		_, err := run(t, client(t, fakes{wikisource: ws}), `{"query":"christmas","author":"Dickens","num":5}`, `{"source":"wikisource","offset":0}`)
		if err != nil {
			t.Fatal(err)
		}
		reqs := ws.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want search and links", len(reqs))
		}
		want := map[string][]string{"action": {"query"}, "list": {"search"}, "srsearch": {"christmas Dickens"}, "srlimit": {"5"},
			"sroffset": {"0"}, "format": {"json"}, "formatversion": {"2"}}
		if got := map[string][]string(reqs[0].URL.Query()); reqs[0].URL.Path != "/w/api.php" || !reflect.DeepEqual(got, want) {
			t.Errorf("search %s %v, want %v", reqs[0].URL.Path, got, want)
		}
		want = map[string][]string{"action": {"query"}, "prop": {"links"}, "pageids": {"44862|106392|212338|79014|1060457"},
			"plnamespace": {"102"}, "pllimit": {"max"}, "format": {"json"}, "formatversion": {"2"}}
		if got := map[string][]string(reqs[1].URL.Query()); !reflect.DeepEqual(got, want) {
			t.Errorf("links %v, want %v", got, want)
		}
		for _, r := range reqs {
			checkUA(t, r)
		}
	})
	t.Run("ebook excerpt", func(t *testing.T) {
		pg := sandboxFake(gutenbergID)
		rec := providers.Record{Title: "A Tale of Two Cities", Ref: json.RawMessage(`{"source":"gutendex","id":98,"text":"https://www.gutenberg.org/ebooks/98.txt.utf-8"}`)}
		if _, err := providertest.Action(t, client(t, fakes{gutenberg: pg}), Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", &rec); err != nil {
			t.Fatal(err)
		}
		r := pg.Requests()[0]
		if r.URL.Path != "/cache/epub/98/pg98.txt" || r.URL.RawQuery != "" {
			t.Errorf("request %s?%s", r.URL.Path, r.URL.RawQuery)
		}
		if r.Header.Get("Range") != "bytes=0-65535" {
			t.Errorf("Range = %q", r.Header.Get("Range"))
		}
		checkUA(t, r)
	})
	t.Run("wikisource excerpt", func(t *testing.T) {
		ws := sandboxFake(wikisourceID)
		rec := providers.Record{Title: "x", Ref: json.RawMessage(`{"source":"wikisource","pageid":44862,"title":"A Christmas Carol (Dickens)/Stave 1"}`)}
		if _, err := providertest.Action(t, client(t, fakes{wikisource: ws}), Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", &rec); err != nil {
			t.Fatal(err)
		}
		reqs := ws.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want extracts then parse (the sandbox extract is empty)", len(reqs))
		}
		want := map[string][]string{"action": {"query"}, "prop": {"extracts"}, "explaintext": {"1"}, "exsectionformat": {"plain"},
			"exlimit": {"1"}, "pageids": {"44862"}, "format": {"json"}, "formatversion": {"2"}}
		if got := map[string][]string(reqs[0].URL.Query()); !reflect.DeepEqual(got, want) {
			t.Errorf("extracts %v, want %v", got, want)
		}
		want = map[string][]string{"action": {"parse"}, "pageid": {"44862"}, "prop": {"text"}, "disableeditsection": {"1"},
			"disablelimitreport": {"1"}, "format": {"json"}, "formatversion": {"2"}}
		if got := map[string][]string(reqs[1].URL.Query()); !reflect.DeepEqual(got, want) {
			t.Errorf("parse %v, want %v", got, want)
		}
	})
}

// gutendexPages fakes Gutendex for a search with total books: 32 a page, with next links.
func gutendexPages(total int) *upstream {
	return &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
		page := 1
		fmt.Sscan(r.URL.Query().Get("page"), &page)
		first := (page - 1) * gutendexPageSize
		if page < 1 || first >= total && page > 1 {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"detail":"Invalid page."}`))
			return
		}
		var books []string
		for i := first; i < total && i < first+gutendexPageSize; i++ {
			books = append(books, fmt.Sprintf(`{"id":%d,"title":"Book %d","authors":[],"summaries":[],"translators":[],"subjects":[],"bookshelves":[],"languages":["en"],"copyright":false,"media_type":"Text","formats":{},"download_count":%d}`, 1000+i, i, 5000-i))
		}
		next := "null"
		if first+gutendexPageSize < total {
			next = fmt.Sprintf(`"https://gutendex.com/books/?page=%d&search=x"`, page+1)
		}
		fmt.Fprintf(w, `{"count":%d,"next":%s,"previous":null,"results":[%s]}`, total, next, strings.Join(books, ","))
	}}
}

func titles(p *providers.Page) []string {
	var out []string
	for _, r := range p.Records {
		out = append(out, strings.TrimPrefix(r.Title, "Book "))
	}
	return out
}

func seq(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprint(i))
	}
	return out
}

func TestPaging(t *testing.T) {
	t.Run("slices of one gutendex page", func(t *testing.T) {
		gx := sandboxFake(gutendexID)
		c := client(t, fakes{gutendex: gx})
		body := `{"author":"Charles Dickens","num":5}`
		p1, err := run(t, c, body, "")
		if err != nil {
			t.Fatal(err)
		}
		if !p1.HasMore || string(p1.Next) != `{"source":"gutendex","page":1,"offset":5}` || len(p1.Records) != 5 {
			t.Fatalf("page 1: has_more=%v next=%s records=%d", p1.HasMore, p1.Next, len(p1.Records))
		}
		p2, err := run(t, c, body, string(p1.Next))
		if err != nil {
			t.Fatal(err)
		}
		if p2.HasMore || p2.Next != nil || len(p2.Records) != 2 || p2.Records[0].Title != "Bleak House" {
			t.Errorf("page 2: has_more=%v next=%s records=%v", p2.HasMore, p2.Next, titles(p2))
		}
		if q := gx.Requests()[1].URL.Query(); q.Get("page") != "1" {
			t.Errorf("page 2 read Gutendex page %s, want 1 again", q.Get("page"))
		}
	})
	t.Run("pages across gutendex pages", func(t *testing.T) {
		gx := gutendexPages(37)
		c := client(t, fakes{gutendex: gx})
		body := `{"query":"x","num":25}`
		p1, err := run(t, c, body, "")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(titles(p1), seq(0, 25)) || string(p1.Next) != `{"source":"gutendex","page":1,"offset":25}` {
			t.Fatalf("page 1: %v next %s", titles(p1), p1.Next)
		}
		p2, err := run(t, c, body, string(p1.Next))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(titles(p2), seq(25, 37)) || p2.HasMore || p2.Next != nil {
			t.Errorf("page 2: %v has_more %v next %s", titles(p2), p2.HasMore, p2.Next)
		}
		var pages []string
		for _, r := range gx.Requests() {
			pages = append(pages, r.URL.Query().Get("page"))
		}
		if !reflect.DeepEqual(pages, []string{"1", "1", "2"}) {
			t.Errorf("gutendex pages read %v", pages)
		}
	})
	t.Run("a page ending on a gutendex page boundary", func(t *testing.T) {
		c := client(t, fakes{gutendex: gutendexPages(40)})
		body := `{"query":"x","num":16}`
		var got []string
		var states []string
		p, err := run(t, c, body, "")
		for n := 0; ; n++ {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, titles(p)...)
			if !p.HasMore {
				break
			}
			states = append(states, string(p.Next))
			if n > 5 {
				t.Fatal("paging does not end")
			}
			p, err = run(t, c, body, string(p.Next))
		}
		if !reflect.DeepEqual(got, seq(0, 40)) {
			t.Errorf("books %v", got)
		}
		want := []string{`{"source":"gutendex","page":1,"offset":16}`, `{"source":"gutendex","page":2,"offset":0}`}
		if !reflect.DeepEqual(states, want) {
			t.Errorf("states %v, want %v", states, want)
		}
	})
	t.Run("the next gutendex page failing keeps what was read", func(t *testing.T) {
		pages := gutendexPages(40)
		gx := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") == "2" {
				w.WriteHeader(http.StatusBadGateway)
				return
			}
			pages.Answer(w, r)
		}}
		p, err := run(t, client(t, fakes{gutendex: gx}), `{"query":"x","num":10}`, `{"source":"gutendex","page":1,"offset":25}`)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(titles(p), seq(25, 32)) || !p.HasMore || string(p.Next) != `{"source":"gutendex","page":2,"offset":0}` {
			t.Errorf("records %v has_more %v next %s", titles(p), p.HasMore, p.Next)
		}
		p2, err := run(t, client(t, fakes{gutendex: gx}), `{"query":"x","num":10}`, string(p.Next))
		if providertest.ErrorCode(err) != providers.CodeProviderError || p2 != nil {
			t.Errorf("retrying the failed page: %v", err)
		}
	})
	t.Run("a page past the end is an empty last page", func(t *testing.T) {
		gx := providertest.ServeFile(t, 404, "sandbox/gutendex_invalid_page.json")
		p, err := run(t, client(t, fakes{gutendex: gx}), `{"query":"x"}`, `{"source":"gutendex","page":9,"offset":0}`)
		if err != nil || len(p.Records) != 0 || p.HasMore {
			t.Errorf("page = %+v, err = %v", p, err)
		}
	})
	t.Run("wikisource offset round trip", func(t *testing.T) {
		ws := sandboxFake(wikisourceID)
		c := client(t, fakes{wikisource: ws})
		body := `{"author":"Charles Dickens","num":5}`
		p1, err := run(t, c, body, `{"source":"wikisource","offset":0}`)
		if err != nil {
			t.Fatal(err)
		}
		if !p1.HasMore || string(p1.Next) != `{"source":"wikisource","offset":5}` || len(p1.Records) != 5 {
			t.Fatalf("page 1: has_more=%v next=%s records=%d", p1.HasMore, p1.Next, len(p1.Records))
		}
		p2, err := run(t, c, body, string(p1.Next))
		if err != nil {
			t.Fatal(err)
		}
		if p2.HasMore || p2.Next != nil || len(p2.Records) != 2 || p2.Records[0].Title != "Bleak House/Chapter 1" {
			t.Errorf("page 2: has_more=%v records=%v", p2.HasMore, p2.Records)
		}
		if q := ws.Requests()[2].URL.Query(); q.Get("sroffset") != "5" || q.Get("list") != "search" {
			t.Errorf("page 2 query = %v", q)
		}
		for _, p := range []*providers.Page{p1, p2} {
			if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "this search started there because the primary source, Gutendex, was unavailable") {
				t.Errorf("notes = %v", p.Notes)
			}
		}
	})
	t.Run("sandbox pages", func(t *testing.T) {
		c := providertest.Client(t, Providers(), nil, nil)
		req := prepare(t, `{"author":"Dickens","num":5}`)
		p1, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, p1.Next)
		if err != nil || p2.HasMore || len(p2.Records) != 2 {
			t.Fatalf("sandbox page 2: %v, %+v", err, p2)
		}
	})
	t.Run("unreadable state", func(t *testing.T) {
		for _, st := range []string{`{"source":"openlibrary","page":2}`, `{"source":"gutendex","page":0,"offset":0}`,
			`{"source":"gutendex","page":2,"offset":-1}`, `{"source":"wikisource","page":2,"offset":5}`, `[1]`, `"x"`} {
			_, err := run(t, client(t, fakes{}), `{"query":"x"}`, st)
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("state %s: error %v, want internal_error", st, err)
			}
		}
	})
}

func TestFallback(t *testing.T) {
	checkFallback := func(t *testing.T, page *providers.Page, why string) {
		t.Helper()
		if len(page.Records) != 5 {
			t.Fatalf("%d fallback records", len(page.Records))
		}
		for _, r := range page.Records {
			data := r.Data.(*BookRecord)
			if data.Source != "wiki_library" || r.Snippet != "" || data.Words == nil {
				t.Errorf("record %+v", r)
			}
			if data.Languages != nil || data.Subjects != nil || data.Downloads != nil {
				t.Errorf("fallback record has languages, subjects or downloads: %+v", data)
			}
			if !reflect.DeepEqual(data.Authors, []string{"Charles Dickens"}) && !reflect.DeepEqual(data.Authors, []string{"Charles Dickens", "John Leech"}) {
				t.Errorf("authors = %v", data.Authors)
			}
		}
		if len(page.Notes) != 1 || !strings.Contains(page.Notes[0], why) ||
			!strings.Contains(page.Notes[0], "lack snippet, languages, subjects and download counts") {
			t.Errorf("notes = %v, want the fallback and %q", page.Notes, why)
		}
		if !page.HasMore || string(page.Next) != `{"source":"wikisource","offset":5}` {
			t.Errorf("fallback paging: has_more=%v next=%s", page.HasMore, page.Next)
		}
	}
	body := `{"author":"Charles Dickens","num":5}`
	for _, tc := range []struct {
		name   string
		status int
		answer string
		why    string
	}{
		{"HTTP 500", 500, `<html>Server Error (500)</html>`, "Gutendex could not answer: gutendex failed (HTTP 500)"},
		{"HTTP 502 from its proxy", 502, `<html><head><title>502 Bad Gateway</title></head></html>`, "gutendex failed (HTTP 502)"},
		{"HTTP 400 with a detail", 400, `{"detail":"Bad request."}`, "gutendex refused the request (HTTP 400): Bad request."},
		{"malformed JSON", 200, `{"count":3,"results":[{"id":1,`, "Gutendex could not answer: gutendex answered malformed JSON"},
		{"answer without results", 200, `{"count":3}`, "gutendex answered without a results list"},
		{"allowance used up", 429, `{"detail":"Request was throttled."}`, "allowance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := run(t, client(t, fakes{gutendex: providertest.ServeBody(tc.status, tc.answer), wikisource: sandboxFake(wikisourceID)}), body, "")
			if err != nil {
				t.Fatal(err)
			}
			checkFallback(t, page, tc.why)
		})
	}
	for _, tc := range []struct {
		body, language string
	}{{`{"author":"Charles Dickens","language":"fr","num":5}`, "The language filter (fr) was not applied"}, {body, ""}} {
		t.Run("language note for "+tc.body, func(t *testing.T) {
			page, err := run(t, client(t, fakes{gutendex: providertest.ServeBody(500, ``), wikisource: sandboxFake(wikisourceID)}), tc.body, "")
			if err != nil {
				t.Fatal(err)
			}
			note := strings.Join(page.Notes, " ")
			if mentions := strings.Contains(note, "language filter"); mentions != (tc.language != "") || !strings.Contains(note, tc.language) {
				t.Errorf("notes = %v", page.Notes)
			}
		})
	}
	t.Run("gutendex not configured", func(t *testing.T) {
		provs := Providers()
		provs[0].BaseURL = ""
		c := providertest.Client(t, provs, nil, nil)
		srv := httptest.NewServer(sandboxFake(wikisourceID))
		t.Cleanup(srv.Close)
		if err := c.Configure(wikisourceID, providers.Setting{URL: srv.URL + "/w"}); err != nil {
			t.Fatal(err)
		}
		page, err := providertest.ExecuteState(t, c, Search, providers.ModeLive, prepare(t, body), nil)
		if err != nil {
			t.Fatal(err)
		}
		checkFallback(t, page, "Gutendex is not configured in this deployment")
	})
	t.Run("gutendex breaker open", func(t *testing.T) {
		gx := providertest.ServeBody(503, `<html>Service Unavailable</html>`)
		c := client(t, fakes{gutendex: gx, wikisource: sandboxFake(wikisourceID)})
		// Five failing Gutendex pages (a Gutendex search never switches source mid-search) open the breaker.
		for range 5 {
			if _, err := run(t, c, body, `{"source":"gutendex","page":2,"offset":0}`); providertest.ErrorCode(err) != providers.CodeProviderError {
				t.Fatalf("error = %v, want provider_error", err)
			}
		}
		page, err := run(t, c, body, "")
		if err != nil {
			t.Fatal(err)
		}
		checkFallback(t, page, "Gutendex is failing and calls to it are paused")
		if n := len(gx.Requests()); n != 5 {
			t.Errorf("Gutendex called %d times, want 5 (the open breaker fails fast)", n)
		}
		if _, err := run(t, c, body, `{"source":"gutendex","page":2,"offset":0}`); providertest.ErrorCode(err) != providers.CodeServiceUnavailable {
			t.Errorf("more while open: %v, want service_unavailable", err)
		}
	})
	t.Run("gutendex timeout leaves time for the fallback", func(t *testing.T) {
		gx := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}}
		c := client(t, fakes{gutendex: gx, wikisource: sandboxFake(wikisourceID)})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		page, err := Search.Execute(ctx, providers.NewCall(Search, prepare(t, body), nil, providers.ModeLive, "tnt_test", c))
		if err != nil {
			t.Fatal(err)
		}
		checkFallback(t, page, "Gutendex could not answer: gutendex did not answer in time")
	})
	t.Run("a short rate limit is not a reason to switch", func(t *testing.T) {
		gx := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
		}}
		_, err := run(t, client(t, fakes{gutendex: gx}), body, "")
		if providertest.ErrorCode(err) != providers.CodeRateLimited {
			t.Errorf("error = %v, want rate_limited", err)
		}
	})
	t.Run("no fallback when wikisource is not configured", func(t *testing.T) {
		provs := Providers()
		provs[1].BaseURL = ""
		c := providertest.Client(t, provs, map[string]http.Handler{gutendexID: providertest.ServeBody(500, `oops`)}, nil)
		_, err := providertest.ExecuteState(t, c, Search, providers.ModeLive, prepare(t, body), nil)
		if providertest.ErrorCode(err) != providers.CodeProviderError || !strings.Contains(err.Error(), "gutendex") {
			t.Errorf("error = %v, want Gutendex's provider_error", err)
		}
	})
	t.Run("a fallback failure is reported", func(t *testing.T) {
		ws := providertest.ServeBody(200, `{"error":{"code":"internal_api_error_DBQueryError","info":"[a1b2c3] Database query error."},"servedby":"mw-api-ext.eqiad.main-1"}`)
		_, err := run(t, client(t, fakes{gutendex: providertest.ServeBody(500, `oops`), wikisource: ws}), body, "")
		if providertest.ErrorCode(err) != providers.CodeProviderError || !strings.Contains(err.Error(), "wikisource") {
			t.Errorf("error = %v, want Wikisource's provider_error", err)
		}
	})
	t.Run("a gutendex search does not switch source on more", func(t *testing.T) {
		_, err := run(t, client(t, fakes{gutendex: providertest.ServeBody(500, `oops`)}), body, `{"source":"gutendex","page":1,"offset":5}`)
		if providertest.ErrorCode(err) != providers.CodeProviderError {
			t.Errorf("error = %v, want provider_error", err)
		}
	})
	t.Run("authors lookup failing leaves authors out", func(t *testing.T) {
		sb := sandboxFake(wikisourceID)
		ws := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("prop") == "links" {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			sb.Answer(w, r)
		}}
		page, err := run(t, client(t, fakes{wikisource: ws}), body, `{"source":"wikisource","offset":0}`)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Records {
			if r.Data.(*BookRecord).Authors != nil {
				t.Errorf("record %q has authors", r.Title)
			}
		}
		if len(page.Notes) != 2 || !strings.Contains(page.Notes[1], "Authors could not be looked up") {
			t.Errorf("notes = %v", page.Notes)
		}
	})
}

func TestUpstreamErrors(t *testing.T) {
	cases := []struct {
		name       string
		gutendex   *upstream
		wikisource *upstream
		state      string
		code       providers.Code
		retryable  bool
		retryAfter time.Duration
		message    string
	}{
		{name: "gutendex refusal with a detail on more", gutendex: providertest.ServeBody(400, `{"detail":"Invalid value for page."}`),
			state: `{"source":"gutendex","page":2,"offset":0}`, code: providers.CodeProviderError, message: "Invalid value for page."},
		{name: "gutendex 5xx on more", gutendex: providertest.ServeBody(500, `Server Error (500)`),
			state: `{"source":"gutendex","page":2,"offset":0}`, code: providers.CodeProviderError, retryable: true},
		{name: "gutendex malformed on more", gutendex: providertest.ServeBody(200, `[`),
			state: `{"source":"gutendex","page":2,"offset":0}`, code: providers.CodeProviderError, retryable: true},
		{name: "gutendex not an object on more", gutendex: providertest.ServeBody(200, `[]`),
			state: `{"source":"gutendex","page":2,"offset":0}`, code: providers.CodeProviderError, retryable: true},
		{name: "gutendex results of the wrong type on more", gutendex: providertest.ServeBody(200, `{"count":1,"results":"none"}`),
			state: `{"source":"gutendex","page":2,"offset":0}`, code: providers.CodeProviderError, retryable: true},
		{name: "gutendex 404 on the first page", gutendex: providertest.ServeBody(404, `{"detail":"Not found."}`),
			state: `{"source":"gutendex","page":1,"offset":5}`, code: providers.CodeProviderError, message: "Not found."},
		{name: "wikisource throttling (ratelimited)", wikisource: providertest.ServeBody(200, `{"error":{"code":"ratelimited","info":"You've exceeded your rate limit. Please wait some time and try again.","docref":"See https://en.wikisource.org/w/api.php for API usage."},"servedby":"mw-api-ext.codfw.main-1"}`),
			state: `{"source":"wikisource","offset":0}`, code: providers.CodeRateLimited, retryable: true, retryAfter: 5 * time.Second},
		{name: "wikisource HTTP 429", wikisource: &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		}}, state: `{"source":"wikisource","offset":0}`, code: providers.CodeRateLimited, retryable: true, retryAfter: time.Second},
		{name: "wikisource maxlag", wikisource: providertest.ServeBody(200, `{"error":{"code":"maxlag","info":"Waiting for 10.64.48.35: 1.2 seconds lagged.","host":"10.64.48.35","lag":1.2,"type":"db"},"servedby":"mw-api-ext.eqiad.main-2"}`),
			state: `{"source":"wikisource","offset":0}`, code: providers.CodeServiceUnavailable, retryable: true, retryAfter: 5 * time.Second},
		{name: "wikisource internal error", wikisource: providertest.ServeBody(200, `{"error":{"code":"internal_api_error_DBQueryError","info":"[b31e7a] Database query error."},"servedby":"mw-api-ext.eqiad.main-3"}`),
			state: `{"source":"wikisource","offset":0}`, code: providers.CodeProviderError, retryable: true},
		{name: "wikisource bad value", wikisource: providertest.ServeBody(200, `{"error":{"code":"badvalue","info":"Unrecognized value for parameter \"list\": serch.","docref":"See https://en.wikisource.org/w/api.php for API usage."},"servedby":"mw-api-ext.eqiad.main-4"}`),
			state: `{"source":"wikisource","offset":0}`, code: providers.CodeProviderError, message: "(badvalue)"},
		{name: "wikisource answer without query", wikisource: providertest.ServeBody(200, `{"batchcomplete":true}`),
			state: `{"source":"wikisource","offset":0}`, code: providers.CodeProviderError, retryable: true},
		{name: "wikisource malformed", wikisource: providertest.ServeBody(200, `{"query":{"search":[`),
			state: `{"source":"wikisource","offset":0}`, code: providers.CodeProviderError, retryable: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := fakes{}
			if tc.gutendex != nil {
				f.gutendex = tc.gutendex
			}
			if tc.wikisource != nil {
				f.wikisource = tc.wikisource
			}
			_, err := run(t, client(t, f), `{"query":"x"}`, tc.state)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if e.IsRetryable() != tc.retryable {
				t.Errorf("retryable = %v, want %v", e.IsRetryable(), tc.retryable)
			}
			if e.RetryAfter != tc.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tc.retryAfter)
			}
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message %q does not name %q", e.Message, tc.message)
			}
		})
	}
}
