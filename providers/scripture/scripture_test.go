package scripture

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// fake is the shared recording stand-in for one upstream.
type fake = providertest.Upstream

// sandboxFake serves a provider's own sandbox fixtures from a live fake, with the path of the
// provider's default base URL (/api/v4 for Quran.com) put back.
func sandboxFake(id string) *fake { return providertest.SandboxUpstreamAtBase(Providers(), id) }

const testKey = "abibkey-123"

// fakes are the three upstreams of a test; nil ones refuse every call.
type fakes struct {
	bible, apiBible, quran *fake
	noAPIBibleKey          bool
}

func (fs fakes) client(tb testing.TB) *providers.Client {
	tb.Helper()
	pick := func(f *fake, name string) http.Handler {
		if f == nil {
			return providertest.Refuse(tb, name)
		}
		return f
	}
	keys := map[string]string{apiBibleID: testKey}
	if fs.noAPIBibleKey {
		keys = nil
	}
	return providertest.Client(tb, Providers(), map[string]http.Handler{
		bibleAPIID: pick(fs.bible, "bible-api.com"),
		apiBibleID: pick(fs.apiBible, "API.Bible"),
		quranID:    pick(fs.quran, "Quran.com"),
	}, keys)
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

func mustRun(tb testing.TB, c *providers.Client, body, state string) *providers.Page {
	tb.Helper()
	page, err := run(tb, c, body, state)
	if err != nil {
		tb.Fatalf("%s (state %s): %v", body, state, err)
	}
	return page
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Search
	if c.ID != "scripture.search" || c.Topic != "Research and reading" || c.Paging != providers.PagingOffset {
		t.Errorf("id/topic/paging = %q/%q/%q", c.ID, c.Topic, c.Paging)
	}
	if c.Deadline != 15*time.Second || c.Cost.Typical != 0 || c.Cost.Basis == "" {
		t.Errorf("deadline/cost = %v/%d/%q", c.Deadline, c.Cost.Typical, c.Cost.Basis)
	}
	if !reflect.DeepEqual(c.Providers, []string{bibleAPIID, quranID}) {
		t.Errorf("providers = %v (API.Bible is keyed and only needed for whole-Bible phrase search)", c.Providers)
	}
	a, ok := c.Action("details")
	if !ok || a.Kind != providers.ActionLookup || a.Credits != 0 || a.Run == nil || len(c.Actions) != 1 {
		t.Errorf("actions = %+v", c.Actions)
	}
	if got := c.SearchActions(); !reflect.DeepEqual(got, []string{"more", "update"}) {
		t.Errorf("search actions = %v", got)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples", len(c.Examples))
	}
	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("schema header = %v / %v", doc["additionalProperties"], doc["$schema"])
	}
	props := doc["properties"].(map[string]any)
	for _, name := range []string{"text", "query", "reference", "translation", "num"} {
		p, ok := props[name].(map[string]any)
		if !ok {
			t.Errorf("property %s missing", name)
			continue
		}
		if d, _ := p["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	if len(props) != 5 {
		t.Errorf("%d properties, want 5", len(props))
	}
	if e := props["text"].(map[string]any)["enum"]; !reflect.DeepEqual(e, []any{"bible", "quran"}) {
		t.Errorf("text enum = %v", e)
	}
	if r := doc["required"]; !reflect.DeepEqual(r, []any{"text"}) {
		t.Errorf("required = %v", r)
	}
	for name, want := range map[string][2]float64{"query": {1, 300}, "reference": {1, 60}, "translation": {1, 20}} {
		p := props[name].(map[string]any)
		if p["minLength"] != want[0] || p["maxLength"] != want[1] || p["pattern"] != `\S` {
			t.Errorf("%s limits = %v..%v %v", name, p["minLength"], p["maxLength"], p["pattern"])
		}
	}
	num := props["num"].(map[string]any)
	if num["type"] != "integer" || num["minimum"] != 1.0 || num["maximum"] != 25.0 || num["default"] != 10.0 {
		t.Errorf("num = %v", num)
	}

	ids := map[string]*providers.Provider{}
	for _, p := range Providers() {
		ids[p.ID] = p
		if p.Sandbox == nil || p.BaseURL == "" {
			t.Errorf("provider %s: sandbox and base URL expected", p.ID)
		}
	}
	if p := ids[bibleAPIID]; p == nil || p.KeyRequired || p.BaseURL != "https://bible-api.com" || p.RequestsPerSecond != 0.5 {
		t.Errorf("bibleapi = %+v", p)
	}
	if p := ids[apiBibleID]; p == nil || !p.KeyRequired || p.BaseURL != "https://rest.api.bible" || p.Authorize == nil {
		t.Errorf("apibible = %+v", p)
	}
	if p := ids[quranID]; p == nil || p.KeyRequired || p.BaseURL != "https://api.quran.com/api/v4" {
		t.Errorf("quran = %+v", p)
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Search {
		t.Errorf("Capabilities() = %v", got)
	}
}

func TestSchemaAndRules(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name string
		body string
		want []string // violation paths; nil: valid
	}{
		{"bible reference", `{"text":"bible","reference":"John 3:16"}`, nil},
		{"bible abbreviation range", `{"text":"bible","reference":"Jn 3:16-18","translation":"web","num":25}`, nil},
		{"bible whole chapter", `{"text":"bible","reference":"1 Cor 13"}`, nil},
		{"bible multi-word book", `{"text":"bible","reference":"Song of Solomon 2:1-3"}`, nil},
		{"bible phrase", `{"text":"bible","query":"love one another"}`, nil},
		{"bible phrase in passage of any translation", `{"text":"bible","query":"love","reference":"1 Jn 4","translation":"BBE"}`, nil},
		{"quran ayah", `{"text":"quran","reference":"2:255"}`, nil},
		{"quran range and translation", `{"text":"quran","reference":"2:255-257","translation":"20"}`, nil},
		{"quran surah", `{"text":"quran","reference":"114","num":1}`, nil},
		{"quran phrase", `{"text":"quran","query":"mercy"}`, nil},

		{"empty body", `{}`, []string{"/text"}},
		{"neither query nor reference", `{"text":"bible"}`, []string{""}},
		{"neither for quran", `{"text":"quran","num":5}`, []string{""}},
		{"unknown text", `{"text":"torah","reference":"Genesis 1:1"}`, []string{"/text"}},
		{"unknown field", `{"text":"bible","reference":"John 3:16","book":"John"}`, []string{"/book"}},
		{"blank query", `{"text":"bible","query":"   "}`, []string{"/query"}},
		{"empty reference", `{"text":"bible","reference":""}`, []string{"/reference"}},
		{"query too long", `{"text":"bible","query":"` + long(301) + `"}`, []string{"/query"}},
		{"query at limit", `{"text":"quran","query":"` + long(300) + `"}`, nil},
		{"reference too long", `{"text":"bible","reference":"` + long(61) + `"}`, []string{"/reference"}},
		{"translation too long", `{"text":"bible","reference":"Ps 23","translation":"` + long(21) + `"}`, []string{"/translation"}},
		{"num zero", `{"text":"bible","reference":"Ps 23","num":0}`, []string{"/num"}},
		{"num too big", `{"text":"bible","reference":"Ps 23","num":26}`, []string{"/num"}},
		{"num fraction", `{"text":"bible","reference":"Ps 23","num":2.5}`, []string{"/num"}},
		{"num string", `{"text":"bible","reference":"Ps 23","num":"5"}`, []string{"/num"}},

		{"unknown book", `{"text":"bible","reference":"Hezekiah 1:1"}`, []string{"/reference"}},
		{"not a reference", `{"text":"bible","reference":"love"}`, []string{"/reference"}},
		{"numbers only", `{"text":"bible","reference":"3:16"}`, []string{"/reference"}},
		{"chapter beyond the book", `{"text":"bible","reference":"John 22:1"}`, []string{"/reference"}},
		{"range ends in a missing chapter", `{"text":"bible","reference":"Jude 1:3-2:1"}`, []string{"/reference"}},
		{"no chapter", `{"text":"bible","reference":"Romans"}`, []string{"/reference"}},
		{"backwards range", `{"text":"bible","reference":"John 3:18-16"}`, []string{"/reference"}},
		{"chapter range", `{"text":"bible","reference":"Ps 23-24"}`, []string{"/reference"}},
		{"verse beyond any chapter", `{"text":"bible","reference":"Ps 119:177"}`, []string{"/reference"}},
		{"garbled numbers", `{"text":"bible","reference":"John 3:16:2"}`, []string{"/reference"}},
		{"unknown bible translation", `{"text":"bible","reference":"John 3:16","translation":"NIV"}`, []string{"/translation"}},
		{"translation case-insensitive", `{"text":"bible","reference":"John 3:16","translation":"oeb-CW"}`, nil},
		{"phrase search needs an API.Bible translation", `{"text":"bible","query":"love","translation":"bbe"}`, []string{"/translation"}},
		{"cherokee is New Testament only", `{"text":"bible","reference":"Genesis 1:1","translation":"cherokee"}`, []string{"/reference"}},
		{"cherokee New Testament", `{"text":"bible","reference":"John 3:16","translation":"CHEROKEE"}`, nil},
		{"two problems", `{"text":"bible","reference":"Foo 1","translation":"XYZ"}`, []string{"/reference", "/translation"}},

		{"unknown surah", `{"text":"quran","reference":"115"}`, []string{"/reference"}},
		{"surah zero", `{"text":"quran","reference":"0:1"}`, []string{"/reference"}},
		{"ayah beyond the surah", `{"text":"quran","reference":"2:287"}`, []string{"/reference"}},
		{"quran backwards", `{"text":"quran","reference":"2:10-5"}`, []string{"/reference"}},
		{"quran name form", `{"text":"quran","reference":"Al-Fatihah"}`, []string{"/reference"}},
		{"bible form for the quran", `{"text":"quran","reference":"John 3:16"}`, []string{"/reference"}},
		{"quran translation not an id", `{"text":"quran","reference":"1:1","translation":"sahih"}`, []string{"/translation"}},
		{"quran form for the bible", `{"text":"bible","reference":"2:255"}`, []string{"/reference"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, Search, tc.body)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			got := providertest.ViolationPaths(err)
			sort.Strings(got)
			got = slices.Compact(got)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("violation paths = %q, want %q (%v)", got, tc.want, err)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	cases := []struct {
		body        string
		translation string
	}{
		{`{"text":"bible","reference":"John 3:16"}`, "KJV"},
		{`{"text":"quran","reference":"2:255"}`, "131"},
		{`{"text":"bible","reference":"John 3:16","translation":"web"}`, "web"},
		{`{"text":"quran","reference":"2:255","translation":"20"}`, "20"},
	}
	for _, tc := range cases {
		req := prepare(t, tc.body)
		if got := req.Str("translation"); got != tc.translation {
			t.Errorf("%s: translation = %q, want %q", tc.body, got, tc.translation)
		}
		if n, _ := req.Int("num"); n != 10 {
			t.Errorf("%s: num = %d, want 10", tc.body, n)
		}
	}
}

func TestMerge(t *testing.T) {
	prev := providers.Request{"text": "bible", "reference": "John 3:16", "translation": "KJV", "num": json.Number("10")}
	t.Run("switching text drops the stored translation", func(t *testing.T) {
		got := merge(prev, providers.Request{"text": "quran", "reference": "2:255"})
		if got.Has("translation") || got.Str("reference") != "2:255" || got.Str("text") != "quran" {
			t.Errorf("merged = %v", got)
		}
		req, err := Search.Prepare(got, &providers.Update{Previous: prev})
		if err != nil || req.Str("translation") != "131" {
			t.Errorf("prepared = %v, %v", req, err)
		}
	})
	t.Run("switching text keeps a translation the update sets", func(t *testing.T) {
		got := merge(prev, providers.Request{"text": "quran", "reference": "1", "translation": "20"})
		if got.Str("translation") != "20" {
			t.Errorf("merged = %v", got)
		}
	})
	t.Run("same text keeps the translation; null removes a key", func(t *testing.T) {
		got := merge(prev, providers.Request{"text": "bible", "query": "love", "reference": nil})
		if got.Str("translation") != "KJV" || got.Has("reference") || got.Str("query") != "love" {
			t.Errorf("merged = %v", got)
		}
	})
	if prev.Str("translation") != "KJV" || !prev.Has("reference") {
		t.Error("merge modified the stored query")
	}
}

func TestPagingState(t *testing.T) {
	for _, st := range []string{`{"offset":-1}`, `"x"`, `[1]`} {
		_, err := run(t, fakes{}.client(t), `{"text":"bible","reference":"Ps 23"}`, st)
		if providertest.ErrorCode(err) != providers.CodeInternal {
			t.Errorf("state %s: error = %v, want internal_error", st, err)
		}
	}
}

// TestExamples runs every example in the sandbox (the shared conformance run: all pages, and
// details of every record) and live against fakes that serve the providers' recorded fixtures.
func TestExamples(t *testing.T) {
	providertest.Conformance{Providers: Providers(), EveryRecord: true,
		Page: func(t *testing.T, ex providers.Example, _ int, p *providers.Page) {
			for i := range p.Records {
				checkRecord(t, ex.Body.Request()["text"].(string), &p.Records[i])
			}
		},
		Detail: func(t *testing.T, _ providers.Example, _ string, rec *providers.Record, d *providers.Detail) {
			var vs []chapterVerse
			switch b := d.Body.(type) {
			case *BibleChapter:
				vs = b.Verses
			case *SurahDetail:
				vs = b.Verses
			}
			if len(vs) == 0 || len(d.Links) == 0 {
				t.Errorf("details of %q: %v %v", rec.Title, d.Body, d.Links)
			}
		}}.Run(t, Search)
	for _, ex := range Search.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("live: "+ex.Title, func(t *testing.T) {
			fs := fakes{bible: sandboxFake(bibleAPIID), apiBible: sandboxFake(apiBibleID), quran: sandboxFake(quranID)}
			page := mustRun(t, fs.client(t), string(body), "")
			if len(page.Records) == 0 {
				t.Fatal("no records")
			}
			for _, f := range []*fake{fs.bible, fs.apiBible, fs.quran} {
				for _, r := range f.Requests() {
					if ua := r.Header.Get("User-Agent"); ua != "capgate/test (+tests@example.com)" {
						t.Errorf("User-Agent = %q", ua)
					}
				}
			}
		})
	}
}

// checkRecord asserts the spec's record keys: text, book, translation (strings) and chapter, verse
// (integers) always; arabic only for the Quran; a non-empty title.
func checkRecord(t *testing.T, text string, rec *providers.Record) {
	t.Helper()
	fields := providertest.Native(rec)
	if strings.TrimSpace(rec.Title) == "" {
		t.Errorf("record without title: %+v", rec)
	}
	for _, k := range []string{"text", "book", "translation"} {
		if s, ok := fields[k].(string); !ok || s == "" {
			t.Errorf("%q: %s = %#v", rec.Title, k, fields[k])
		}
	}
	for _, k := range []string{"chapter", "verse"} {
		if n, ok := fields[k].(int); !ok || n < 1 {
			t.Errorf("%q: %s = %#v", rec.Title, k, fields[k])
		}
	}
	if _, has := fields["arabic"]; has != (text == textQuran) {
		t.Errorf("%q: arabic present = %v for %s", rec.Title, has, text)
	}
	for k, v := range fields {
		if v == "" || v == nil {
			t.Errorf("%q: empty placeholder for %s", rec.Title, k)
		}
	}
}

func TestSandboxGolden(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	cases := []struct{ name, body string }{
		{"sandbox_psalm_23", `{"text":"bible","reference":"Psalm 23","num":3}`},
		{"sandbox_bible_phrase", `{"text":"bible","query":"the LORD","num":3}`},
		{"sandbox_quran_search_page2", `{"text":"quran","query":"Allah","num":3}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := prepare(t, tc.body)
			page, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(tc.name, "page2") {
				page, err = providertest.ExecuteState(t, client, Search, providers.ModeTest, req, page.Next)
				if err != nil {
					t.Fatal(err)
				}
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
		})
	}
	for _, body := range []string{`{"text":"bible","reference":"Genesis 1:1"}`, `{"text":"quran","reference":"2:255"}`} {
		// Issue 18: a passage without a recording is generated with the requested reference.
		t.Run("a passage the sandbox has not recorded: "+body, func(t *testing.T) {
			page, err := providertest.Execute(t, client, Search, providers.ModeTest, body)
			if err != nil || len(page.Records) != 1 || !strings.Contains(page.Records[0].Title, strings.Split(body, `"`)[7]) {
				t.Errorf("error = %v, records %+v", err, page)
			}
		})
	}
}
