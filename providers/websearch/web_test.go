package websearch

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestWebMappingGolden(t *testing.T) {
	cases := []struct {
		golden, fixture, body string
	}{
		// A documented-shape answer: answer box (organic_result type), knowledge graph, organic results.
		{"web_search", "google.json", `{"query":"apple","country":"US","language":"en"}`},
		// answer_box as an array (SerpApi's overview shape): a calculator box without a link, a weather box.
		{"web_answer_array", "google_answer_array.json", `{"query":"pi"}`},
		// Odd values: nulls, wrong types, unusable links, oversize and unsafe provider keys.
		{"web_odd", "google_odd.json", `{"query":"apple music"}`},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			f := newFake(t)
			f.serve(tc.fixture)
			page, err := providertest.Execute(t, f.client(t), WebSearch, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.golden, providertest.RecordsJSON(page))
			for _, rec := range page.Records {
				if rec.Title == "" {
					t.Errorf("record without a title: %+v", rec)
				}
				if k := providertest.FieldsOf(t, &rec)["kind"]; k != "organic" && k != "answer_box" && k != "knowledge_graph" {
					t.Errorf("record %q: kind %v", rec.Title, k)
				}
				if (rec.URL == "") != (rec.Actions != nil && len(rec.Actions) == 0) {
					t.Errorf("record %q: url %q but actions %v", rec.Title, rec.URL, rec.Actions)
				}
				for k, v := range providertest.FieldsOf(t, &rec) {
					b, _ := json.Marshal(v)
					if strings.HasPrefix(k, "serpapi_") || strings.Contains(string(b), "serpapi.com/search.json") ||
						strings.Contains(string(b), "data:image") || strings.HasSuffix(k, "_stick") {
						t.Errorf("record %q keeps an unsafe key %s = %s", rec.Title, k, b)
					}
				}
			}
		})
	}
}

func TestWebRecordKeys(t *testing.T) {
	f := newFake(t)
	f.serve("google.json")
	page, err := providertest.Execute(t, f.client(t), WebSearch, providers.ModeLive, `{"query":"apple"}`)
	if err != nil {
		t.Fatal(err)
	}
	recs := page.Records
	if len(recs) != 7 {
		t.Fatalf("%d records, want answer box + knowledge graph + 5 organic", len(recs))
	}
	ab, kg := recs[0], recs[1]
	if providertest.FieldsOf(t, &ab)["kind"] != "answer_box" || ab.Title != "Apple Inc. › Founders" || ab.URL != "https://en.wikipedia.org/wiki/Apple_Inc." ||
		ab.Snippet != "Steve Jobs, Steve Wozniak, Ronald Wayne" || providertest.FieldsOf(t, &ab)["type"] != "organic_result" || providertest.FieldsOf(t, &ab)["answer"] == nil {
		t.Errorf("answer box = %+v", ab)
	}
	if _, ok := providertest.FieldsOf(t, &ab)["thumbnail"]; ok {
		t.Error("answer box keeps an inline data: thumbnail")
	}
	wantAttrs := map[string]any{"founded": "April 1, 1976, Cupertino, CA", "headquarters": "Cupertino, CA", "ceo": "Tim Cook (Aug 24, 2011–)"}
	if providertest.FieldsOf(t, &kg)["kind"] != "knowledge_graph" || kg.Title != "Apple" || providertest.FieldsOf(t, &kg)["type"] != "Technology company" ||
		!reflect.DeepEqual(providertest.FieldsOf(t, &kg)["attributes"], wantAttrs) || kg.URL != "https://www.apple.com/" || providertest.FieldsOf(t, &kg)["kgmid"] != "/m/0k8z" {
		t.Errorf("knowledge graph = %+v", kg)
	}
	for _, k := range []string{"founded", "founded_links", "ceo_stick", "knowledge_graph_search_link", "description", "website"} {
		if _, ok := providertest.FieldsOf(t, &kg)[k]; ok {
			t.Errorf("knowledge graph keeps %s outside attributes/base keys", k)
		}
	}
	for i, rec := range recs[2:] {
		if providertest.FieldsOf(t, &rec)["kind"] != "organic" || *rec.Data.(*WebRecord).Position != i+1 {
			t.Errorf("organic %d: %+v", i, rec)
		}
	}
	if providertest.FieldsOf(t, &recs[4])["date"] != "2 hours ago" || recs[4].Snippet != "" {
		t.Errorf("organic 3 = %+v", recs[4])
	}
	if recs[5].Title != "https://www.apple.com › newsroom" {
		t.Errorf("a result without a title is titled by its displayed link, got %q", recs[5].Title)
	}
	if string(recs[2].Ref) != `{"url":"https://www.apple.com/"}` {
		t.Errorf("ref = %s", recs[2].Ref)
	}
}

func TestWebRequestParameters(t *testing.T) {
	cases := []struct {
		name string
		body string
		want url.Values
	}{
		{"query only", `{"query":"  eiffel tower  "}`, url.Values{"q": {"eiffel tower"}}},
		{"country and language lower-cased", `{"query":"x","country":"GB","language":"PT-BR"}`, url.Values{"q": {"x"}, "gl": {"gb"}, "hl": {"pt-br"}}},
		{"day", `{"query":"x","time_range":"day"}`, url.Values{"q": {"x"}, "tbs": {"qdr:d"}}},
		{"week", `{"query":"x","time_range":"week"}`, url.Values{"q": {"x"}, "tbs": {"qdr:w"}}},
		{"month", `{"query":"x","time_range":"month"}`, url.Values{"q": {"x"}, "tbs": {"qdr:m"}}},
		{"year", `{"query":"x","time_range":"year","num":20}`, url.Values{"q": {"x"}, "tbs": {"qdr:y"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google.json")
			if _, err := providertest.Execute(t, f.client(t), WebSearch, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			want := url.Values{"engine": {"google"}, "output": {"json"}, "api_key": {testKey}}
			for k, v := range tc.want {
				want[k] = v
			}
			reqs := f.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v (num is never sent: Google ignores it)", got, want)
			}
		})
	}
}

// pagingFake answers google.json (5 organic results, a next page) for start 0 and 3, and a last
// page without a next link for start 6.
func pagingFake(t *testing.T) *fake {
	t.Helper()
	f := newFake(t)
	full := providertest.Fixture(t, "google.json")
	last := []byte(`{"search_metadata":{"id":"x","status":"Success"},"organic_results":[
		{"position":1,"title":"Apple Podcasts","link":"https://www.apple.com/apple-podcasts/"}],
		"serpapi_pagination":{"current":3,"previous":"https://serpapi.com/search.json?engine=google&q=apple&start=3"}}`)
	f.answer = func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("start") {
		case "", "3":
			_, _ = w.Write(full)
		case "6":
			_, _ = w.Write(last)
		default:
			t.Errorf("unexpected start %q", r.URL.Query().Get("start"))
			w.WriteHeader(http.StatusBadRequest)
		}
	}
	return f
}

func TestWebPaging(t *testing.T) {
	f := pagingFake(t)
	client := f.client(t)
	req := prepare(t, WebSearch, `{"query":"apple","num":3}`)

	first, err := providertest.ExecuteState(t, client, WebSearch, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Records) != 5 || !first.HasMore || string(first.Next) != `{"page":2,"start":3}` {
		t.Fatalf("page 1: %d records, has_more %v, next %s", len(first.Records), first.HasMore, first.Next)
	}
	second, err := providertest.ExecuteState(t, client, WebSearch, providers.ModeLive, req, first.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Records) != 3 || !second.HasMore || string(second.Next) != `{"page":3,"start":6}` {
		t.Fatalf("page 2: %d records, has_more %v, next %s", len(second.Records), second.HasMore, second.Next)
	}
	for i, rec := range second.Records {
		if providertest.FieldsOf(t, &rec)["kind"] != "organic" || *rec.Data.(*WebRecord).Position != 4+i {
			t.Errorf("page 2 record %d: %v (answer box and knowledge graph only on page 1; positions continue)", i, providertest.FieldsOf(t, &rec))
		}
	}
	third, err := providertest.ExecuteState(t, client, WebSearch, providers.ModeLive, req, second.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(third.Records) != 1 || third.HasMore || third.Next != nil || *third.Records[0].Data.(*WebRecord).Position != 7 {
		t.Fatalf("page 3: %+v", third)
	}
	var starts []string
	for _, r := range f.Requests() {
		starts = append(starts, r.URL.Query().Get("start"))
		if r.URL.Query().Get("q") != "apple" {
			t.Errorf("q changed while paging: %v", r.URL.Query())
		}
	}
	if !reflect.DeepEqual(starts, []string{"", "3", "6"}) {
		t.Errorf("start offsets = %q, want start = (page-1)*num", starts)
	}

	t.Run("bad state", func(t *testing.T) {
		for _, st := range []string{`{"page":1,"start":0}`, `{"page":0}`, `"x"`, `{"page":2,"start":-1}`, `[]`} {
			_, err := providertest.ExecuteState(t, client, WebSearch, providers.ModeLive, req, json.RawMessage(st))
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("state %s: error %v, want internal_error", st, err)
			}
		}
	})
}

func TestWebShortPages(t *testing.T) {
	t.Run("num above what Google serves", func(t *testing.T) {
		f := newFake(t)
		f.serve("google.json")
		page, err := providertest.Execute(t, f.client(t), WebSearch, providers.ModeLive, `{"query":"apple","num":20}`)
		if err != nil {
			t.Fatal(err)
		}
		if !page.HasMore || string(page.Next) != `{"page":2,"start":5}` || len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "fewer than num (20)") {
			t.Errorf("page: has_more %v next %s notes %q", page.HasMore, page.Next, page.Notes)
		}
	})
	t.Run("no next link and nothing held back ends the search", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_answer_array.json")
		page, err := providertest.Execute(t, f.client(t), WebSearch, providers.ModeLive, `{"query":"pi"}`)
		if err != nil {
			t.Fatal(err)
		}
		if page.HasMore || page.Next != nil || len(page.Notes) != 0 {
			t.Errorf("page: has_more %v next %s notes %q", page.HasMore, page.Next, page.Notes)
		}
	})
	t.Run("a next link without organic results does not loop", func(t *testing.T) {
		f := newFake(t)
		f.answer = func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"search_metadata":{"status":"Success"},"organic_results":[],"serpapi_pagination":{"next":"https://serpapi.com/search.json?start=10"}}`))
		}
		page, err := providertest.Execute(t, f.client(t), WebSearch, providers.ModeLive, `{"query":"apple"}`)
		if err != nil {
			t.Fatal(err)
		}
		if page.HasMore || len(page.Records) != 0 {
			t.Errorf("page = %+v", page)
		}
	})
	t.Run("Google has nothing (more) for the query", func(t *testing.T) {
		f := newFake(t)
		f.answer = func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"search_metadata":{"id":"x","status":"Success"},"search_information":{"organic_results_state":"Fully empty"},"error":"Google hasn't returned any results for this query."}`))
		}
		client := f.client(t)
		req := prepare(t, WebSearch, `{"query":"zzqqxx"}`)
		for _, st := range []json.RawMessage{nil, json.RawMessage(`{"page":4,"start":30}`)} {
			page, err := providertest.ExecuteState(t, client, WebSearch, providers.ModeLive, req, st)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) != 0 || page.HasMore || page.Next != nil {
				t.Errorf("state %s: page = %+v", st, page)
			}
		}
	})
}

func TestWebSandbox(t *testing.T) {
	client := sandboxClient(t)
	page, err := providertest.Execute(t, client, WebSearch, providers.ModeTest, `{"query":"how tall is the eiffel tower"}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_web", providertest.RecordsJSON(page))
	if !page.HasMore {
		t.Fatal("the sandbox's first page has a next page")
	}
	next, err := providertest.ExecuteState(t, client, WebSearch, providers.ModeTest, prepare(t, WebSearch, `{"query":"how tall is the eiffel tower"}`), page.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Records) != 4 || next.HasMore || *next.Records[0].Data.(*WebRecord).Position != 11 {
		t.Errorf("sandbox page 2: %d records, has_more %v, first %v", len(next.Records), next.HasMore, providertest.FieldsOf(t, &next.Records[0]))
	}
}
