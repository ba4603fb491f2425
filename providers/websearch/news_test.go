package websearch

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestNewsMappingGolden(t *testing.T) {
	cases := []struct {
		golden, fixture, body string
	}{
		// The documented search answer: plain articles and a story cluster (highlight + stories).
		{"news_search", "google_news.json", `{"query":"pizza","country":"us","language":"en"}`},
		// The documented full-coverage shape: sections with stories, a post on X, an FAQ entry.
		{"news_coverage", "google_news_coverage.json", `{"query":"cpi october inflation"}`},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			f := newFake(t)
			f.serve(tc.fixture)
			page, err := providertest.Execute(t, f.client(t), NewsSearch, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.golden, providertest.RecordsJSON(page))
			if page.HasMore || page.Next != nil {
				t.Errorf("local paging: the whole set comes in one page, got has_more %v next %s", page.HasMore, page.Next)
			}
			seen := map[string]bool{}
			for _, rec := range page.Records {
				if rec.Title == "" || rec.URL == "" || providertest.FieldsOf(t, &rec)["source"] == "" || providertest.FieldsOf(t, &rec)["source"] == nil || len(rec.Ref) == 0 {
					t.Errorf("record = %+v", rec)
				}
				if seen[rec.URL] {
					t.Errorf("%s listed twice", rec.URL)
				}
				seen[rec.URL] = true
			}
		})
	}
}

func TestNewsFlattening(t *testing.T) {
	f := newFake(t)
	f.serve("google_news.json")
	page, err := providertest.Execute(t, f.client(t), NewsSearch, providers.ModeLive, `{"query":"pizza"}`)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, r := range page.Records {
		titles = append(titles, r.Title)
	}
	want := []string{
		"Parachute Pizza Opens With Sicilian-Style Squares and Oysters in Union Market",
		"Brewer's Pizza, home of Pinglehead Brewing Company, closing",
		"Google sues scammers that allegedly released a malware-filled Bard knockoff", // the cluster's highlight
		"Google fights scammers using Bard hype to spread malware",                    // its story, once
		"California Pizza Kitchen Invites Guests to Embrace the Holiday Spirit with Decadent New Dishes and a Signature Cocktail",
	}
	if !reflect.DeepEqual(titles, want) {
		t.Errorf("titles =\n%q\nwant\n%q", titles, want)
	}
	first := page.Records[0]
	if providertest.FieldsOf(t, &first)["source"] != "Washingtonian" || providertest.FieldsOf(t, &first)["published_at"] != "2023-11-13T16:43:00Z" ||
		providertest.FieldsOf(t, &first)["thumbnail"] == nil || first.Snippet == "" {
		t.Errorf("first = %+v", first)
	}
	if _, ok := providertest.FieldsOf(t, &page.Records[4])["thumbnail"]; ok {
		t.Error("an article without a thumbnail got one")
	}
	if page.Records[2].Snippet != "" {
		t.Error("an article without a snippet got one")
	}

	t.Run("more than 100 articles are cut at 100", func(t *testing.T) {
		var items []map[string]any
		for i := range 120 {
			items = append(items, map[string]any{"position": i + 1, "title": "Story", "source": map[string]any{"name": "Wire"},
				"link": "https://example.com/story/" + string(rune('a'+i%26)) + "/" + jsonInt(i)})
		}
		body, _ := json.Marshal(map[string]any{"search_metadata": map[string]any{"status": "Success"}, "news_results": items})
		f := newFake(t)
		f.answer = func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }
		page, err := providertest.Execute(t, f.client(t), NewsSearch, providers.ModeLive, `{"query":"x"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != maxNewsRecords {
			t.Errorf("%d records, want %d", len(page.Records), maxNewsRecords)
		}
	})
	t.Run("odd values", func(t *testing.T) {
		f := newFake(t)
		f.answer = func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"search_metadata":{"status":"Success"},"news_results":[
				"junk", null, {"title":"No link","source":{"name":"X"}},
				{"title":"Bad link","link":"javascript:alert(1)","source":{"name":"X"}},
				{"title":"  ","snippet":"  ","link":"https://example.com/a"},
				{"title":"No source name","link":"https://www.example.org/b","source":{"name":7},"date":"yesterday","thumbnail":"data:image/png;base64,AAAA"},
				{"title":"Stories not a list","link":"https://example.com/c","source":{"name":"Wire"},"stories":"nope","highlight":[1]}
			],"menu_links":null}`))
		}
		page, err := providertest.Execute(t, f.client(t), NewsSearch, providers.ModeLive, `{"query":"x"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 2 {
			t.Fatalf("records = %+v", page.Records)
		}
		b := page.Records[0]
		if b.Title != "No source name" || providertest.FieldsOf(t, &b)["source"] != "example.org" || providertest.FieldsOf(t, &b)["published_at"] != "yesterday" || providertest.FieldsOf(t, &b)["thumbnail"] != nil {
			t.Errorf("record = %+v", b)
		}
		if page.Records[1].Title != "Stories not a list" {
			t.Errorf("record = %+v", page.Records[1])
		}
	})
}

func jsonInt(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestNewsRequestParameters(t *testing.T) {
	cases := []struct {
		name string
		body string
		want url.Values
	}{
		{"query only", `{"query":"  pizza "}`, url.Values{"q": {"pizza"}}},
		{"edition", `{"query":"pizza","country":"FR","language":"fr"}`, url.Values{"q": {"pizza"}, "gl": {"fr"}, "hl": {"fr"}}},
		{"day", `{"query":"pizza","time_range":"day"}`, url.Values{"q": {"pizza when:1d"}}},
		{"week", `{"query":"pizza","time_range":"week"}`, url.Values{"q": {"pizza when:7d"}}},
		{"month", `{"query":"pizza","time_range":"month"}`, url.Values{"q": {"pizza when:30d"}}},
		{"year", `{"query":"pizza","time_range":"year","num":3}`, url.Values{"q": {"pizza when:1y"}}},
		{"caller's own when:", `{"query":"pizza when:2d"}`, url.Values{"q": {"pizza when:2d"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_news.json")
			if _, err := providertest.Execute(t, f.client(t), NewsSearch, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			want := url.Values{"engine": {"google_news"}, "output": {"json"}, "api_key": {testKey}}
			for k, v := range tc.want {
				want[k] = v
			}
			reqs := f.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

func TestNewsPagingIsLocal(t *testing.T) {
	f := newFake(t)
	f.serve("google_news.json")
	client := f.client(t)
	req := prepare(t, NewsSearch, `{"query":"pizza","num":2}`)
	page, err := providertest.ExecuteState(t, client, NewsSearch, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 5 || page.HasMore {
		t.Errorf("the whole set (5 articles) comes in one page for the gateway to slice by num: %d, has_more %v", len(page.Records), page.HasMore)
	}
	if _, err := providertest.ExecuteState(t, client, NewsSearch, providers.ModeLive, req, json.RawMessage(`{"page":2}`)); providertest.ErrorCode(err) != providers.CodeInternal {
		t.Errorf("a provider page was asked of a local-paging search: %v", err)
	}
	if n := len(f.Requests()); n != 1 {
		t.Errorf("%d upstream requests, want 1", n)
	}
}

func TestNewsNoResults(t *testing.T) {
	f := newFake(t)
	f.answer = func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"search_metadata":{"id":"x","status":"Success"},"search_parameters":{"engine":"google_news","q":"zzqq"},"error":"Google News hasn't returned any results for this query."}`))
	}
	page, err := providertest.Execute(t, f.client(t), NewsSearch, providers.ModeLive, `{"query":"zzqq"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 0 || page.HasMore {
		t.Errorf("page = %+v", page)
	}
}

func TestNewsSandbox(t *testing.T) {
	page, err := providertest.Execute(t, sandboxClient(t), NewsSearch, providers.ModeTest, `{"query":"electric vehicles"}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_news", providertest.RecordsJSON(page))
}

func TestPublishedAt(t *testing.T) {
	cases := []struct {
		iso, date, want string
	}{
		{"", "11/13/2023, 05:43 PM, +0100 CET", "2023-11-13T16:43:00Z"},
		{"", "07/05/2025, 07:37 AM, +0000 UTC", "2025-07-05T07:37:00Z"},
		{"", "12/31/2023, 11:30 PM, -0500 EST", "2024-01-01T04:30:00Z"},
		{"", "11/13/2023, 05:43 PM, +0100", "2023-11-13T16:43:00Z"},
		// iso_date was not confirmed in SerpApi's Google News reference; it wins when sent.
		{"2025-07-05T07:37:00Z", "07/05/2025, 07:37 AM, +0000 UTC", "2025-07-05T07:37:00Z"},
		{"2025-07-05T09:37:00+02:00", "", "2025-07-05T07:37:00Z"},
		{"not a time", "11/13/2023, 05:43 PM, +0100 CET", "2023-11-13T16:43:00Z"},
		{"not a time", "", "not a time"},
		{"", "2 hours ago", "2 hours ago"},
		{"", "", ""},
	}
	for _, tc := range cases {
		if got := publishedAt(tc.iso, tc.date); got != tc.want {
			t.Errorf("publishedAt(%q, %q) = %q, want %q", tc.iso, tc.date, got, tc.want)
		}
	}
}

func TestShorten(t *testing.T) {
	cases := map[string]string{
		"short":                       "short",
		"  spaced \n\n text  ":        "spaced text",
		"one two three four five six": "one two three…",
	}
	for in, want := range cases {
		if got := providers.ClipLine(in, 15); got != want {
			t.Errorf("shorten(%q) = %q, want %q", in, got, want)
		}
	}
}
