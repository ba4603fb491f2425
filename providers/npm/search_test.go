package npm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func runSearch(tb testing.TB, registry http.Handler, body, state string) (*providers.Page, error) {
	tb.Helper()
	var st json.RawMessage
	if state != "" {
		st = json.RawMessage(state)
	}
	return providertest.ExecuteState(tb, newClient(tb, registry, nil), Search, providers.ModeLive, prepare(tb, Search, body), st)
}

func TestSearchGolden(t *testing.T) {
	fake := serveFile(t, http.StatusOK, "testdata/search.json")
	page, err := runSearch(t, fake, `{"text":"keywords:cli maintainer:bcoe parser","size":4}`, "")
	if err != nil {
		t.Fatal(err)
	}
	r := only(t, fake)
	checkRequest(t, r, r.URL.Path+"?"+r.URL.RawQuery)
	if r.URL.Path != "/-/v1/search" {
		t.Errorf("path %q", r.URL.Path)
	}
	want := url.Values{"text": {"keywords:cli maintainer:bcoe parser"}, "size": {"4"}, "from": {"0"}}
	if got := r.URL.Query(); !reflect.DeepEqual(got, want) {
		t.Errorf("query %v, want %v", got, want)
	}
	providertest.Golden(t, "search", providertest.RecordsJSON(page))
	if !page.HasMore || string(page.Next) != `{"from":4}` {
		t.Errorf("has_more %v next %s, want true {\"from\":4} (total 1874)", page.HasMore, page.Next)
	}
}

func TestSearchPaging(t *testing.T) {
	fake := sandboxFake(RegistryID)
	client := newClient(t, fake, nil)
	req := prepare(t, Search, `{"text":"argument parser","size":3}`)
	p1, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p1.Records) != 3 || !p1.HasMore || string(p1.Next) != `{"from":3}` {
		t.Fatalf("page 1: %d records, has_more %v, next %s", len(p1.Records), p1.HasMore, p1.Next)
	}
	p2, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, p1.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Records) != 2 || p2.HasMore || p2.Next != nil {
		t.Fatalf("page 2: %d records, has_more %v, next %s", len(p2.Records), p2.HasMore, p2.Next)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, from := range []string{"0", "3"} {
		q := reqs[i].URL.Query()
		if q.Get("from") != from || q.Get("size") != "3" || q.Get("text") != "argument parser" {
			t.Errorf("request %d query %v", i+1, q)
		}
	}
	if p1.Records[0].Title == p2.Records[0].Title {
		t.Error("page 2 repeats page 1")
	}

	t.Run("the request's from starts the first page", func(t *testing.T) {
		f := serveBody(http.StatusOK, `{"objects":[{"package":{"name":"a"}}],"total":21,"time":"2024-12-02T10:15:31.420Z"}`)
		page, err := runSearch(t, f, `{"text":"x","from":20,"size":1}`, "")
		if err != nil {
			t.Fatal(err)
		}
		if q := only(t, f).URL.Query(); q.Get("from") != "20" || q.Get("size") != "1" {
			t.Errorf("query %v", q)
		}
		if page.HasMore {
			t.Error("has_more with from+len == total")
		}
	})
	t.Run("defaults", func(t *testing.T) {
		f := serveBody(http.StatusOK, `{"objects":[],"total":0,"time":"2024-12-02T10:15:31.420Z"}`)
		page, err := runSearch(t, f, `{"text":"nothing-matches-this"}`, "")
		if err != nil {
			t.Fatal(err)
		}
		if q := only(t, f).URL.Query(); q.Get("from") != "0" || q.Get("size") != "10" {
			t.Errorf("query %v, want size 10 from 0", q)
		}
		if len(page.Records) != 0 || page.HasMore || page.Records == nil {
			t.Errorf("empty result: %#v", page)
		}
	})
	t.Run("an empty page never continues", func(t *testing.T) {
		f := serveBody(http.StatusOK, `{"objects":[],"total":500}`)
		page, err := runSearch(t, f, `{"text":"x"}`, `{"from":250}`)
		if err != nil {
			t.Fatal(err)
		}
		if page.HasMore {
			t.Error("has_more on an empty page")
		}
	})
	t.Run("bad state", func(t *testing.T) {
		_, err := runSearch(t, refuse(t), `{"text":"x"}`, `{"from":-1}`)
		wantCode(t, err, providers.CodeInternal)
	})
}

func TestSearchOddAnswers(t *testing.T) {
	body := `{"objects":[
		null,
		{"package":null},
		{"package":{"version":"1.0.0"}},
		{"package":{"name":"  "}},
		{"package":{"name":"ok-pkg","version":3,"keywords":["a",null,7,"  ","b"],"date":null,"links":{"npm":"javascript:x","repository":42,"homepage":"https://ok.example"},
			"maintainers":"bcoe","description":["x"]},"score":{"final":"0.5","detail":{"quality":null,"popularity":0.25}},"searchScore":"12.5"},
		{"package":{"name":"Bad Name!"},"score":[],"searchScore":null}
	],"total":"9"}`
	page, err := runSearch(t, serveBody(http.StatusOK, body), `{"text":"x"}`, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 2 {
		t.Fatalf("%d records, want 2 (hits without a name dropped)", len(page.Records))
	}
	ok := page.Records[0]
	want := map[string]any{
		"package": "ok-pkg", "keywords": []string{"a", "b"},
		"links":        map[string]string{"homepage": "https://ok.example", "npm": "javascript:x"},
		"score":        map[string]any{"final": 0.5, "detail": map[string]any{"popularity": 0.25}},
		"search_score": 12.5,
	}
	if ok.Title != "ok-pkg" || ok.URL != "" || ok.Snippet != "" || mustJSON(t, ok.Data) != mustJSON(t, want) {
		t.Errorf("record %q %q %s\nwant %s", ok.Title, ok.URL, mustJSON(t, ok.Data), mustJSON(t, want))
	}
	if ok.Actions != nil || string(ok.Ref) != `{"name":"ok-pkg"}` {
		t.Errorf("actions %v ref %s", ok.Actions, ok.Ref)
	}
	bad := page.Records[1]
	if bad.Actions == nil || len(bad.Actions) != 0 || bad.Ref != nil {
		t.Errorf("a name the registry path cannot carry must have no details: actions %v ref %s", bad.Actions, bad.Ref)
	}
	if page.HasMore != true || string(page.Next) != `{"from":6}` {
		t.Errorf("has_more %v next %s", page.HasMore, page.Next)
	}
	t.Run("no objects member", func(t *testing.T) {
		page, err := runSearch(t, serveBody(http.StatusOK, `{"total":3}`), `{"text":"x"}`, "")
		if err != nil || len(page.Records) != 0 || page.HasMore {
			t.Errorf("page %#v err %v", page, err)
		}
	})
}

func TestSearchErrors(t *testing.T) {
	cases := []struct {
		name     string
		fake     *upstream
		code     providers.Code
		path     string
		retrying bool
	}{
		{"refused text", serveBody(http.StatusBadRequest, `{"error":"text is too long"}`), providers.CodeInvalidRequest, "/text", false},
		{"refused text (code and message)", serveBody(http.StatusBadRequest, `{"code":"BadRequest","message":"invalid qualifier"}`), providers.CodeInvalidRequest, "/text", false},
		{"400 without a message", serveBody(http.StatusBadRequest, ``), providers.CodeProviderError, "", false},
		{"server error", serveBody(http.StatusInternalServerError, `{"error":"internal"}`), providers.CodeProviderError, "", true},
		{"malformed JSON", serveBody(http.StatusOK, `{"objects":[`), providers.CodeProviderError, "", true},
		{"throttled briefly", &upstream{Answer: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		}}, providers.CodeRateLimited, "", true},
		{"throttled for long", &upstream{Answer: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		}}, providers.CodeProviderAllowance, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runSearch(t, tc.fake, `{"text":"x"}`, "")
			e := wantCode(t, err, tc.code)
			if tc.path != "" {
				wantViolation(t, err, tc.path)
			}
			if e.IsRetryable() != tc.retrying {
				t.Errorf("retryable %v, want %v", e.IsRetryable(), tc.retrying)
			}
		})
	}
}

func searchRec(name string) providers.Record {
	ref, _ := json.Marshal(packageRef{Name: name})
	return providers.Record{Title: name, Ref: ref}
}

func TestSearchDetails(t *testing.T) {
	req := func(t *testing.T) providers.Request { return prepare(t, Search, `{"text":"yargs"}`) }
	t.Run("full document of a scoped package", func(t *testing.T) {
		fake := serveFile(t, http.StatusOK, "sandbox/packument_types-yargs.json")
		rec := searchRec("@types/yargs")
		d, err := providertest.Action(t, newClient(t, fake, nil), Search, providers.ModeLive, req(t), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		r := only(t, fake)
		checkRequest(t, r, "/@types%2Fyargs")
		if r.Header.Get("Accept") != "application/json" {
			t.Errorf("Accept %q", r.Header.Get("Accept"))
		}
		want, _ := os.ReadFile("sandbox/packument_types-yargs.json")
		if raw, ok := d.Body.(json.RawMessage); !ok || !bytes.Equal(raw, want) {
			t.Error("details are not the full registry document")
		}
		if d.Credits != nil {
			t.Errorf("credits %d, want the action's 0", *d.Credits)
		}
		wantLinks := []providers.Link{
			{Label: "Homepage", URL: "https://github.com/DefinitelyTyped/DefinitelyTyped/tree/master/types/yargs"},
			{Label: "Repository", URL: "https://github.com/DefinitelyTyped/DefinitelyTyped"},
			{Label: "Tarball of @types/yargs@17.0.33", URL: "https://registry.example/@types/yargs/-/yargs-17.0.33.tgz"},
		}
		if !reflect.DeepEqual(d.Links, wantLinks) {
			t.Errorf("links %v\nwant %v", d.Links, wantLinks)
		}
	})
	t.Run("9 MiB document", func(t *testing.T) {
		rec := searchRec("huge")
		_, err := providertest.Action(t, newClient(t, streamBig(9<<20), nil), Search, providers.ModeLive, req(t), "details", &rec)
		e := wantCode(t, err, providers.CodeProviderError)
		if !strings.Contains(e.Hint, "request a specific version") || e.IsRetryable() {
			t.Errorf("hint %q retryable %v", e.Hint, e.IsRetryable())
		}
	})
	t.Run("package gone", func(t *testing.T) {
		rec := searchRec("gone-pkg")
		_, err := providertest.Action(t, newClient(t, serveBody(http.StatusNotFound, `{"error":"Not found"}`), nil), Search, providers.ModeLive, req(t), "details", &rec)
		wantCode(t, err, providers.CodeNotFound)
	})
	t.Run("malformed document", func(t *testing.T) {
		rec := searchRec("yargs")
		_, err := providertest.Action(t, newClient(t, serveBody(http.StatusOK, `{"name":`), nil), Search, providers.ModeLive, req(t), "details", &rec)
		wantCode(t, err, providers.CodeProviderError)
	})
	for _, ref := range []string{"", `{}`, `{"name":"a b"}`, `{"name":"../x"}`, `not json`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			rec := providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			_, err := providertest.Action(t, newClient(t, refuse(t), nil), Search, providers.ModeLive, req(t), "details", &rec)
			wantCode(t, err, providers.CodeInvalidRequest)
		})
	}
}

func TestSearchSchema(t *testing.T) {
	cases := []struct {
		body string
		want []string
	}{
		{`{"text":"a"}`, nil},
		{`{"text":"` + strings.Repeat("x", 1000) + `"}`, nil},
		{`{"text":"keywords:cli,-framework scope:babel maintainer:bcoe","size":250,"from":100000}`, nil},
		{`{"text":"x","size":1,"from":0}`, nil},
		{`{}`, []string{"/text"}},
		{`{"text":""}`, []string{"/text"}},
		{`{"text":"   "}`, []string{"/text"}},
		{`{"text":"` + strings.Repeat("x", 1001) + `"}`, []string{"/text"}},
		{`{"text":"x","size":0}`, []string{"/size"}},
		{`{"text":"x","size":251}`, []string{"/size"}},
		{`{"text":"x","size":2.5}`, []string{"/size"}},
		{`{"text":"x","from":-1}`, []string{"/from"}},
		{`{"text":"x","from":"10"}`, []string{"/from"}},
		{`{"text":"x","num":5}`, []string{"/num"}},
	}
	for _, tc := range cases {
		t.Run(tc.body[:min(len(tc.body), 60)], func(t *testing.T) {
			_, err := providertest.Prepare(t, Search, tc.body)
			if tc.want == nil {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if got := uniquePaths(err); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("violations %v, want %v (%v)", got, tc.want, err)
			}
		})
	}
	t.Run("defaults applied", func(t *testing.T) {
		req := prepare(t, Search, `{"text":"x"}`)
		size, _ := req.Int("size")
		from, ok := req.Int("from")
		if size != 10 || !ok || from != 0 || Search.PageSize(req) != 10 {
			t.Errorf("size %d from %d (%v)", size, from, ok)
		}
	})
}

func TestSearchExamples(t *testing.T) {
	for _, ex := range Search.Examples {
		body, _ := json.Marshal(ex.Body)
		t.Run("sandbox: "+ex.Title, func(t *testing.T) {
			client := newClient(t, nil, nil)
			req := prepare(t, Search, string(body))
			var pages []*providers.Page
			var state json.RawMessage
			for {
				p, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, state)
				if err != nil {
					t.Fatal(err)
				}
				pages = append(pages, p)
				if !p.HasMore || len(pages) > 5 {
					break
				}
				state = p.Next
			}
			if len(pages) > 5 || len(pages[0].Records) == 0 {
				t.Fatalf("%d pages, %d records on the first", len(pages), len(pages[0].Records))
			}
			for _, p := range pages {
				for i := range p.Records {
					rec := &p.Records[i]
					d, err := providertest.Action(t, client, Search, providers.ModeTest, req, "details", rec)
					if err != nil {
						t.Fatalf("details of %q: %v", rec.Title, err)
					}
					if raw, ok := d.Body.(json.RawMessage); !ok || !json.Valid(raw) || len(d.Links) == 0 {
						t.Errorf("details of %q: %d links", rec.Title, len(d.Links))
					}
				}
			}
		})
		t.Run("live: "+ex.Title, func(t *testing.T) {
			fake := sandboxFake(RegistryID)
			page, err := runSearch(t, fake, string(body), "")
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 {
				t.Fatal("no records")
			}
			q := only(t, fake).URL.Query()
			if q.Get("text") != ex.Body.Request()["text"] || q.Get("size") != jsonText(ex.Body.Request()["size"]) {
				t.Errorf("query %v for %v", q, ex.Body)
			}
		})
	}
	t.Run("sandbox golden", func(t *testing.T) {
		page, err := providertest.Execute(t, newClient(t, nil, nil), Search, providers.ModeTest, `{"text":"argument parser","size":3}`)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "sandbox_search", providertest.RecordsJSON(page))
	})
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
