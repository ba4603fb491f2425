package commerce

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

func TestShoppingGolden(t *testing.T) {
	f := newFake(t)
	f.serve("google_shopping", http.StatusOK, "shopping.json")
	page, err := providertest.Execute(t, f.client(t), ShoppingSearch, providers.ModeLive, `{"query":"coffee grinder","num":25}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "shopping", providertest.RecordsJSON(page))
	if len(page.Records) != 8 || !page.HasMore || string(page.Next) != `{"start":60,"offset":0}` {
		t.Errorf("records %d has_more %v next %s", len(page.Records), page.HasMore, page.Next)
	}
	for _, r := range page.Records {
		if r.Title == "" || r.Data.(*OfferRecord).Source != "google_shopping" {
			t.Errorf("record %+v", r)
		}
	}
}

func TestShoppingRequest(t *testing.T) {
	cases := []struct {
		name string
		body string
		want url.Values
	}{
		{"minimal", `{"query":"  coffee grinder "}`, url.Values{"engine": {"google_shopping"}, "q": {"coffee grinder"}}},
		{"every field", `{"query":"camera","country":"GB","language":"en-GB","location":"London, England, United Kingdom","num":3,
			"price_min":10.5,"price_max":500,"condition":"used","sort":"price_high_to_low"}`,
			url.Values{"engine": {"google_shopping"}, "q": {"camera used"}, "gl": {"gb"}, "hl": {"en-GB"},
				"location": {"London, England, United Kingdom"}, "min_price": {"10.5"}, "max_price": {"500"}, "sort_by": {"2"}}},
		{"price low to high", `{"query":"tv","sort":"price_low_to_high","condition":"new"}`,
			url.Values{"engine": {"google_shopping"}, "q": {"tv new"}, "sort_by": {"1"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_shopping", http.StatusOK, "shopping.json")
			if _, err := providertest.Execute(t, f.client(t), ShoppingSearch, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			reqs := f.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			wantQuery(t, reqs[0], tc.want)
		})
	}

	t.Run("filter_id is sent as shoprs", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_shopping", http.StatusOK, "shopping.json")
		req := providers.Request{"query": "coffee grinder", "num": json.Number("10"), "filter_id": "CAEYBBoKb3hvIGdyaW5kZXIiBzIFCAQSA09YTyoCGAFYAQ"}
		if _, err := providertest.ExecuteState(t, f.client(t), ShoppingSearch, providers.ModeLive, req, nil); err != nil {
			t.Fatal(err)
		}
		wantQuery(t, f.Requests()[0], url.Values{"engine": {"google_shopping"}, "q": {"coffee grinder"},
			"shoprs": {"CAEYBBoKb3hvIGdyaW5kZXIiBzIFCAQSA09YTyoCGAFYAQ"}})
	})
}

func TestShoppingPaging(t *testing.T) {
	f := newFake(t)
	f.serveBy("google_shopping", func(q url.Values) string {
		if q.Get("start") == "60" {
			return "shopping_page2.json"
		}
		return "shopping.json"
	})
	client := f.client(t)
	req := prepare(t, ShoppingSearch, `{"query":"coffee grinder","num":5}`)
	var titles []string
	var state json.RawMessage
	wantNext := []string{`{"start":0,"offset":5}`, `{"start":60,"offset":0}`, ``}
	for i := 0; i < 3; i++ {
		page, err := providertest.ExecuteState(t, client, ShoppingSearch, providers.ModeLive, req, state)
		if err != nil {
			t.Fatal(err)
		}
		if string(page.Next) != wantNext[i] || page.HasMore != (wantNext[i] != "") || len(page.Filters) == 0 {
			t.Fatalf("page %d: next %s has_more %v filters %d", i+1, page.Next, page.HasMore, len(page.Filters))
		}
		for _, r := range page.Records {
			titles = append(titles, r.Title)
		}
		state = page.Next
	}
	if len(titles) != 11 || titles[0] != "Baratza Encore Conical Burr Coffee Grinder" || titles[10] != "Krups Precision Burr Grinder GX332850" {
		t.Errorf("titles = %q", titles)
	}
	reqs := f.Requests()
	if len(reqs) != 3 || query(reqs[0]).Has("start") || query(reqs[1]).Has("start") || query(reqs[2]).Get("start") != "60" {
		t.Errorf("starts: %v / %v / %v", query(reqs[0]), query(reqs[1]), query(reqs[2]))
	}

	t.Run("bad state", func(t *testing.T) {
		_, err := providertest.ExecuteState(t, client, ShoppingSearch, providers.ModeLive, req, json.RawMessage(`{"start":-1}`))
		if providertest.ErrorCode(err) != providers.CodeInternal {
			t.Errorf("error = %v", err)
		}
	})
}

func TestShoppingFilters(t *testing.T) {
	var raw struct {
		Filters []json.RawMessage `json:"filters"`
	}
	if err := json.Unmarshal(providertest.Fixture(t, "shopping.json"), &raw); err != nil {
		t.Fatal(err)
	}
	got := shoppingFilters(raw.Filters)
	want := []providers.Filter{
		{ID: "CAEYARoGZ3JpbmRlciIQMg4IARIKVXAgdG8gJDUwKgIYAVgB", Label: "Up to $50", Group: "Price"},
		{ID: "CAEYAhoGZ3JpbmRlciISMhAIAhIMJDUwIOKAkyAkMTUwKgIYAVgB", Label: "$50 – $150", Group: "Price"},
		{ID: "CAEYAxoOYmFyYXR6YSBncmluZGVyIgsyCQgDEgdCYXJhdHphKgIYAVgB", Label: "Baratza", Group: "Brand"},
		{ID: "CAEYBBoKb3hvIGdyaW5kZXIiBzIFCAQSA09YTyoCGAFYAQ", Label: "OXO", Group: "Brand"},
		{ID: "CAEYBRoLdXNlZCBncmluZGVyIggyBggFEgRVc2VkKgIYAVgB", Label: "Used", Group: "Condition"},
		{ID: "NEARBYTOKEN", Label: "Nearby", Group: "Filter"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("filters = %+v", got)
	}
	if f := shoppingFilters(nil); f == nil || len(f) != 0 {
		t.Errorf("no filters = %#v", f)
	}
}

var testFilters = []providers.Filter{
	{ID: "OXO-TOKEN", Label: "OXO", Group: "Brand"},
	{ID: "USED-TOKEN", Label: "Used", Group: "Condition"},
}

func TestShoppingRules(t *testing.T) {
	execute := []struct {
		name, body string
		paths      []string
	}{
		{"minimal", `{"query":"tv"}`, nil},
		{"every field", `{"query":"tv","country":"us","language":"en","location":"Austin, Texas","num":25,"price_min":0,"price_max":100000000,"condition":"new","sort":"rating_high_to_low"}`, nil},
		{"equal prices", `{"query":"tv","price_min":100,"price_max":100}`, nil},
		{"price_min above price_max", `{"query":"tv","price_min":200,"price_max":100}`, []string{"/price_min"}},
		{"filter_id on execute", `{"query":"tv","filter_id":"OXO-TOKEN"}`, []string{"/filter_id"}},
		{"null filter_id on execute", `{"query":"tv","filter_id":null}`, []string{"/filter_id"}},
		{"missing query", `{}`, []string{"/query"}},
		{"blank query", `{"query":"   "}`, []string{"/query"}},
		{"long query", `{"query":"` + longString(501) + `"}`, []string{"/query"}},
		{"bad country", `{"query":"tv","country":"usa"}`, []string{"/country"}},
		{"digit country", `{"query":"tv","country":"u1"}`, []string{"/country"}},
		{"short language", `{"query":"tv","language":"e"}`, []string{"/language"}},
		{"long language", `{"query":"tv","language":"en-US-x-private"}`, []string{"/language"}},
		{"empty location", `{"query":"tv","location":""}`, []string{"/location"}},
		{"num 0", `{"query":"tv","num":0}`, []string{"/num"}},
		{"num 26", `{"query":"tv","num":26}`, []string{"/num"}},
		{"negative price", `{"query":"tv","price_min":-1}`, []string{"/price_min"}},
		{"huge price", `{"query":"tv","price_max":100000001}`, []string{"/price_max"}},
		{"bad condition", `{"query":"tv","condition":"refurbished"}`, []string{"/condition"}},
		{"bad sort", `{"query":"tv","sort":"newest"}`, []string{"/sort"}},
		{"unknown key", `{"query":"tv","page":2}`, []string{"/page"}},
	}
	for _, tc := range execute {
		t.Run("execute/"+tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, ShoppingSearch, tc.body)
			if got := sortedPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violations %v, want %v (err %v)", got, tc.paths, err)
			}
		})
	}

	update := []struct {
		name, prev, params string
		paths              []string
		wantFilter         any // filter_id of the merged request (nil: absent)
	}{
		{"pick a filter", `{"query":"grinder","num":10}`, `{"filter_id":"OXO-TOKEN"}`, nil, "OXO-TOKEN"},
		{"pick a filter, other fields unchanged", `{"query":"grinder","country":"us","num":10}`, `{"filter_id":"OXO-TOKEN","query":"grinder","country":"us","num":5}`, nil, "OXO-TOKEN"},
		{"unknown filter", `{"query":"grinder"}`, `{"filter_id":"NOT-A-FILTER"}`, []string{"/filter_id"}, "NOT-A-FILTER"},
		{"filter with a new query", `{"query":"grinder"}`, `{"filter_id":"OXO-TOKEN","query":"kettle"}`, []string{"/filter_id"}, "OXO-TOKEN"},
		{"filter with a new country", `{"query":"grinder","country":"us"}`, `{"filter_id":"OXO-TOKEN","country":"gb"}`, []string{"/filter_id"}, "OXO-TOKEN"},
		{"filter with a removed location", `{"query":"grinder","location":"Austin"}`, `{"filter_id":"OXO-TOKEN","location":null}`, []string{"/filter_id"}, "OXO-TOKEN"},
		{"filter with a new language", `{"query":"grinder"}`, `{"filter_id":"OXO-TOKEN","language":"de"}`, []string{"/filter_id"}, "OXO-TOKEN"},
		{"filter with a stored sort", `{"query":"grinder","sort":"price_low_to_high"}`, `{"filter_id":"OXO-TOKEN"}`, []string{"/filter_id"}, "OXO-TOKEN"},
		{"filter with a sent condition", `{"query":"grinder"}`, `{"filter_id":"OXO-TOKEN","condition":"used"}`, []string{"/filter_id"}, "OXO-TOKEN"},
		{"filter and a sort removed", `{"query":"grinder","sort":"price_low_to_high"}`, `{"filter_id":"OXO-TOKEN","sort":null}`, nil, "OXO-TOKEN"},
		{"sort added to a stored filter", `{"query":"grinder","filter_id":"OXO-TOKEN"}`, `{"sort":"price_low_to_high"}`, []string{"/sort"}, "OXO-TOKEN"},
		{"condition added to a stored filter", `{"query":"grinder","filter_id":"OXO-TOKEN"}`, `{"condition":"new"}`, []string{"/condition"}, "OXO-TOKEN"},
		{"new query clears a stored filter", `{"query":"grinder","filter_id":"OXO-TOKEN"}`, `{"query":"kettle"}`, nil, nil},
		{"new query with a sort clears it", `{"query":"grinder","filter_id":"OXO-TOKEN"}`, `{"query":"kettle","sort":"price_low_to_high"}`, nil, nil},
		{"same query keeps a stored filter", `{"query":"grinder","filter_id":"OXO-TOKEN"}`, `{"query":"grinder","num":5}`, nil, "OXO-TOKEN"},
		{"num keeps a stored filter", `{"query":"grinder","filter_id":"OXO-TOKEN"}`, `{"num":20}`, nil, "OXO-TOKEN"},
		{"null clears the filter", `{"query":"grinder","filter_id":"OXO-TOKEN"}`, `{"filter_id":null}`, nil, nil},
		{"null clears the filter, sort allowed", `{"query":"grinder","filter_id":"OXO-TOKEN"}`, `{"filter_id":null,"sort":"price_low_to_high"}`, nil, nil},
		{"null with a new query", `{"query":"grinder","filter_id":"OXO-TOKEN"}`, `{"filter_id":null,"query":"kettle"}`, nil, nil},
		{"prices checked on update", `{"query":"grinder","price_max":50}`, `{"price_min":60}`, []string{"/price_min"}, nil},
	}
	for _, tc := range update {
		t.Run("update/"+tc.name, func(t *testing.T) {
			prev := decodeReq(t, tc.prev)
			params := decodeReq(t, tc.params)
			merged := ShoppingSearch.Merge(prev, params)
			if got, ok := merged["filter_id"]; tc.wantFilter == nil && ok || tc.wantFilter != nil && got != tc.wantFilter {
				t.Errorf("merged filter_id = %v (present %v), want %v", got, ok, tc.wantFilter)
			}
			_, err := ShoppingSearch.Prepare(merged, &providers.Update{Previous: prev, Params: params, Filters: testFilters})
			if got := sortedPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violations %v, want %v (err %v)", got, tc.paths, err)
			}
		})
	}
}

func decodeReq(t *testing.T, body string) providers.Request {
	t.Helper()
	r, err := providers.DecodeBody([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func longString(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}

func TestShoppingDetails(t *testing.T) {
	f := newFake(t)
	f.serve("google_shopping", http.StatusOK, "shopping.json")
	f.serve("google_immersive_product", http.StatusOK, "product.json")
	client := f.client(t)
	req := prepare(t, ShoppingSearch, `{"query":"coffee grinder","country":"US","language":"en","num":25}`)
	page, err := providertest.ExecuteState(t, client, ShoppingSearch, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := providertest.Action(t, client, ShoppingSearch, providers.ModeLive, req, "details", &page.Records[0])
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "product", d)
	reqs := f.Requests()
	var ref productRef
	_ = json.Unmarshal(page.Records[0].Ref, &ref)
	wantQuery(t, reqs[len(reqs)-1], url.Values{"engine": {"google_immersive_product"}, "page_token": {ref.PageToken},
		"more_stores": {"true"}, "gl": {"us"}, "hl": {"en"}})

	t.Run("token read from the serpapi link", func(t *testing.T) {
		var rec *providers.Record
		for i := range page.Records {
			if page.Records[i].Title == "Mr. Coffee Blade Grinder (open box)" {
				rec = &page.Records[i]
			}
		}
		if rec == nil || string(rec.Ref) != `{"page_token":"TOKEN-FROM-LINK","product_id":"555"}` || rec.Actions != nil {
			t.Fatalf("record %+v", rec)
		}
	})
	t.Run("record without a token has no details", func(t *testing.T) {
		last := page.Records[len(page.Records)-1]
		if last.Title != "Capresso Infinity Plus" || last.Actions == nil || len(last.Actions) != 0 || last.Ref != nil {
			t.Fatalf("record %+v", last)
		}
		_, err := productDetails(t.Context(), providers.NewCall(ShoppingSearch, req, nil, providers.ModeLive, "tnt_test", client), &last)
		if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("product gone", func(t *testing.T) {
		f.serve("google_immersive_product", http.StatusOK, `{"search_metadata":{"status":"Success"},"error":"Google hasn't returned any results for this query."}`)
		_, err := providertest.Action(t, client, ShoppingSearch, providers.ModeLive, req, "details", &page.Records[0])
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("product failure", func(t *testing.T) {
		f.serve("google_immersive_product", http.StatusBadRequest, `{"error":"Invalid page_token."}`)
		_, err := providertest.Action(t, client, ShoppingSearch, providers.ModeLive, req, "details", &page.Records[0])
		if e, ok := providers.AsError(err); !ok || e.Code != providers.CodeProviderError || e.Message != "SerpApi: Invalid page_token." {
			t.Errorf("error = %v", err)
		}
	})
}

func TestShoppingErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		code   providers.Code
	}{
		{"invalid key", 401, `{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`, providers.CodeProviderError},
		{"run out of searches", 429, `{"error":"Your account has run out of searches."}`, providers.CodeProviderAllowance},
		{"throughput", 429, `{"error":"The number of requests sent using this API key exceeds the hourly throughput limit."}`, providers.CodeProviderAllowance},
		{"server error", 500, `{"error":"Something went wrong."}`, providers.CodeProviderError},
		{"status Error in a 200", 200, `{"search_metadata":{"status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, providers.CodeProviderError},
		{"other error in a 200", 200, `{"search_metadata":{"status":"Success"},"error":"Unsupported shoprs value."}`, providers.CodeProviderError},
		{"malformed JSON", 200, `{"shopping_results":[`, providers.CodeProviderError},
		{"wrong type", 200, `{"search_metadata":{"status":"Success"},"shopping_results":{"a":1}}`, providers.CodeProviderError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_shopping", tc.status, tc.body)
			_, err := providertest.Execute(t, f.client(t), ShoppingSearch, providers.ModeLive, `{"query":"tv"}`)
			if got := providertest.ErrorCode(err); got != tc.code {
				t.Errorf("code %q, want %q (%v)", got, tc.code, err)
			}
		})
	}
	t.Run("no results is an empty page", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_shopping", 200, `{"search_metadata":{"status":"Success"},"search_information":{"shopping_results_state":"Fully empty"},"error":"Google hasn't returned any results for this query."}`)
		page, err := providertest.Execute(t, f.client(t), ShoppingSearch, providers.ModeLive, `{"query":"xyzzy"}`)
		if err != nil || len(page.Records) != 0 || page.HasMore || page.Records == nil {
			t.Errorf("page %+v err %v", page, err)
		}
	})
}

func TestShoppingSandbox(t *testing.T) {
	client := sandboxClient(t)
	for _, ex := range ShoppingSearch.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			page, err := providertest.Execute(t, client, ShoppingSearch, providers.ModeTest, mustJSON(t, ex.Body))
			if err != nil || len(page.Records) == 0 || len(page.Filters) == 0 {
				t.Fatalf("page %+v err %v", page, err)
			}
			f := newFake(t)
			f.serve("google_shopping", http.StatusOK, "shopping.json")
			if page, err := providertest.Execute(t, f.client(t), ShoppingSearch, providers.ModeLive, mustJSON(t, ex.Body)); err != nil || len(page.Records) == 0 {
				t.Fatalf("live: page %+v err %v", page, err)
			}
		})
	}
	t.Run("pages, filter and details", func(t *testing.T) {
		req := prepare(t, ShoppingSearch, `{"query":"coffee grinder","num":5}`)
		p1, err := providertest.ExecuteState(t, client, ShoppingSearch, providers.ModeTest, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := providertest.ExecuteState(t, client, ShoppingSearch, providers.ModeTest, req, p1.Next)
		if err != nil {
			t.Fatal(err)
		}
		p3, err := providertest.ExecuteState(t, client, ShoppingSearch, providers.ModeTest, req, p2.Next)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "sandbox_shopping", map[string]any{"page1": providertest.RecordsJSON(p1),
			"page2": providertest.RecordsJSON(p2), "page3": providertest.RecordsJSON(p3)})
		if p3.HasMore || len(p1.Records)+len(p2.Records)+len(p3.Records) != 9 {
			t.Errorf("pages %d %d %d", len(p1.Records), len(p2.Records), len(p3.Records))
		}
		prev := req.Clone()
		params := providers.Request{"filter_id": p1.Filters[2].ID}
		up, err := ShoppingSearch.Prepare(ShoppingSearch.Merge(prev, params), &providers.Update{Previous: prev, Params: params, Filters: p1.Filters})
		if err != nil {
			t.Fatal(err)
		}
		filtered, err := providertest.ExecuteState(t, client, ShoppingSearch, providers.ModeTest, up, nil)
		if err != nil || len(filtered.Records) != 3 || filtered.Records[2].Title != "Baratza Sette 270 Conical Burr Grinder" {
			t.Fatalf("filtered %+v err %v", filtered, err)
		}
		d, err := providertest.Action(t, client, ShoppingSearch, providers.ModeTest, req, "details", &p1.Records[0])
		if err != nil || d.Body.(*ProductDetail).Title != "Baratza Encore Conical Burr Coffee Grinder" || len(d.Links) != 4 {
			t.Fatalf("detail %+v err %v", d, err)
		}
		empty, err := providertest.Execute(t, client, ShoppingSearch, providers.ModeTest, `{"query":"noresults please"}`)
		if err != nil || len(empty.Records) != 0 || empty.HasMore {
			t.Errorf("empty %+v err %v", empty, err)
		}
	})
}

// TestShoppingRatingSort: google_shopping's sort_by takes only 1 and 2 (price); a rating order goes
// through the rating option of the answer's "Sort by" filters, else the sort value is refused.
func TestShoppingRatingSort(t *testing.T) {
	const ratingToken = "CAEYFyoOY29mZmVlIGdyaW5kZXIyHQgXEhNSYXRpbmc6IGhpZ2ggdG8gbG93KgQQARgBYAKIAQM"
	body := `{"query":"coffee grinder","sort":"rating_high_to_low","price_min":0,"num":5}`
	t.Run("through the answer's rating option", func(t *testing.T) {
		f := newFake(t)
		f.serveBy("google_shopping", func(q url.Values) string {
			if q.Get("shoprs") != "" {
				return "shopping.json"
			}
			return "shopping_sort_by_rating.json"
		})
		client := f.client(t)
		page, err := providertest.Execute(t, client, ShoppingSearch, providers.ModeLive, body)
		if err != nil {
			t.Fatal(err)
		}
		reqs := f.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want the search and its rating-sorted repeat", len(reqs))
		}
		for _, r := range reqs {
			if r.Method != http.MethodGet || r.URL.Path != "/search.json" {
				t.Errorf("request %s %s", r.Method, r.URL.Path)
			}
		}
		wantQuery(t, reqs[0], url.Values{"engine": {"google_shopping"}, "q": {"coffee grinder"}, "min_price": {"0"}})
		wantQuery(t, reqs[1], url.Values{"engine": {"google_shopping"}, "q": {"coffee grinder"}, "min_price": {"0"}, "shoprs": {ratingToken}})
		var st shoppingState
		if err := json.Unmarshal(page.Next, &st); err != nil || st.SortToken != ratingToken || len(page.Records) != 5 {
			t.Fatalf("next %s records %d", page.Next, len(page.Records))
		}
		// The next upstream page keeps the rating order.
		st.Offset = 0
		st.Start = 60
		next, _ := json.Marshal(st)
		if _, err := providertest.ExecuteState(t, client, ShoppingSearch, providers.ModeLive, prepare(t, ShoppingSearch, body), next); err != nil {
			t.Fatal(err)
		}
		reqs = f.Requests()
		wantQuery(t, reqs[2], url.Values{"engine": {"google_shopping"}, "q": {"coffee grinder"}, "min_price": {"0"},
			"shoprs": {ratingToken}, "start": {"60"}})
	})
	t.Run("refused when Google offers only price orders", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_shopping", http.StatusOK, "shopping_sort_by_price.json")
		_, err := providertest.Execute(t, f.client(t), ShoppingSearch, providers.ModeLive, body)
		e, ok := providers.AsError(err)
		if !ok || e.Code != providers.CodeInvalidRequest || len(e.Violations) != 1 || e.Violations[0].Path != "/sort" ||
			!strings.Contains(e.Violations[0].Message, "price_low_to_high or price_high_to_low") {
			t.Fatalf("error %v", err)
		}
		reqs := f.Requests()
		if len(reqs) != 1 || query(reqs[0]).Has("sort_by") {
			t.Fatalf("requests %v: sort_by has no rating value", reqs)
		}
	})
}
