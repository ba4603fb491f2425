package realestate

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const (
	wantUA  = "capgate/test (+tests@example.com)"
	testKey = "rapid-test-key"
)

func init() {
	now = func() time.Time { return time.Date(2026, 3, 2, 15, 30, 0, 0, time.UTC) }
}

// answer is a canned upstream answer: status, headers and body (a testdata name or literal JSON).
type answer struct {
	status int
	header http.Header
	body   string
}

// fake stands in for the Zillow API: it checks the auth headers and records every request.
type fake struct {
	providertest.Upstream
	t      *testing.T
	answer func(r *http.Request) answer
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		f.t.Errorf("method %s, want GET", r.Method)
	}
	// The fake runs on 127.0.0.1: the documented RapidAPI host is sent.
	for k, want := range map[string]string{"X-RapidAPI-Key": testKey, "X-RapidAPI-Host": "zillow-com1.p.rapidapi.com", "User-Agent": wantUA} {
		if got := r.Header.Get(k); got != want {
			f.t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	a := f.answer(r)
	b := []byte(a.body)
	if !strings.HasPrefix(a.body, "{") && !strings.HasPrefix(a.body, "[") {
		b = providertest.Fixture(f.t, a.body)
	}
	for k, vs := range a.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json")
	if a.status == 0 {
		a.status = http.StatusOK
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(b)
}

func newFake(t *testing.T, fn func(r *http.Request) answer) (*fake, *providers.Client) {
	f := &fake{t: t, answer: fn}
	f.Upstream = providertest.Upstream{TB: t, Answer: f.route}
	return f, providertest.Client(t, Providers(), map[string]http.Handler{ProviderID: f}, map[string]string{ProviderID: testKey})
}

// serve answers every request the same way.
func serve(status int, body string) func(*http.Request) answer {
	return func(*http.Request) answer { return answer{status: status, body: body} }
}

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, Search, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Search
	if c.ID != "realestate.search" || c.Topic != "Commerce and markets" || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("id/topic/texts = %q/%q", c.ID, c.Topic)
	}
	if c.Paging != providers.PagingPage || c.Deadline != 15*time.Second || c.NoUpdate || c.Cost.Typical != 4 || c.Cost.Basis == "" {
		t.Errorf("paging %v deadline %v cost %+v", c.Paging, c.Deadline, c.Cost)
	}
	if len(c.Actions) != 1 || c.Actions[0].Name != "details" || c.Actions[0].Kind != providers.ActionLookup ||
		c.Actions[0].Credits != 4 || c.Actions[0].Run == nil {
		t.Errorf("actions = %+v", c.Actions)
	}
	p := Providers()
	if !reflect.DeepEqual(c.Providers, []string{"zillow"}) || len(p) != 1 || p[0].ID != "zillow" || !p[0].KeyRequired ||
		p[0].BaseURL != "https://zillow-com1.p.rapidapi.com" {
		t.Errorf("providers = %v %+v", c.Providers, p)
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Search {
		t.Errorf("Capabilities() = %v", got)
	}
	doc := c.Schema().Doc
	props := doc["properties"].(map[string]any)
	if doc["additionalProperties"] != false || len(props) != 9 || !reflect.DeepEqual(doc["required"], []any{"query"}) {
		t.Errorf("schema = %v", doc)
	}
	prop := func(n string) map[string]any { return props[n].(map[string]any) }
	if q := prop("query"); q["minLength"] != 1.0 || q["maxLength"] != 300.0 {
		t.Errorf("query = %v", q)
	}
	if n := prop("num"); n["minimum"] != 1.0 || n["maximum"] != 20.0 || n["default"] != 10.0 {
		t.Errorf("num = %v", n)
	}
	if h := prop("home_types"); h["minItems"] != 1.0 || h["maxItems"] != 7.0 || h["uniqueItems"] != true {
		t.Errorf("home_types = %v", h)
	}
	if s := prop("listing_status"); s["default"] != "for_sale" || !reflect.DeepEqual(s["enum"], []any{"for_sale", "for_rent", "sold"}) {
		t.Errorf("listing_status = %v", s)
	}
	for name, raw := range props {
		if d, _ := raw.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	// The authorization keeps another RapidAPI host, and sends the documented one otherwise.
	r, _ := http.NewRequest(http.MethodGet, "https://zillow56.p.rapidapi.com/search", nil)
	authorize(r, "k")
	if r.Header.Get("X-RapidAPI-Host") != "zillow56.p.rapidapi.com" || r.Header.Get("X-RapidAPI-Key") != "k" {
		t.Errorf("headers = %v", r.Header)
	}
}

func TestValidation(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		paths []string // nil: valid
	}{
		{"query only", `{"query":"Austin, TX"}`, nil},
		{"everything", `{"query":"80206","listing_status":"sold","home_types":["house","condo","townhouse","multi_family","apartment","land","manufactured"],
			"min_price":0,"max_price":0,"min_beds":5,"min_baths":4,"sort":"sqft","num":20}`, nil},
		{"fractional prices", `{"query":"x","min_price":1000.5,"max_price":1000.5}`, nil},
		{"query at 300", `{"query":"` + strings.Repeat("a", 300) + `"}`, nil},

		{"no query", `{}`, []string{"/query"}},
		{"empty query", `{"query":""}`, []string{"/query"}},
		{"blank query", `{"query":"   "}`, []string{"/query"}},
		{"query too long", `{"query":"` + strings.Repeat("a", 301) + `"}`, []string{"/query"}},
		{"status unknown", `{"query":"x","listing_status":"pending"}`, []string{"/listing_status"}},
		{"home_types empty", `{"query":"x","home_types":[]}`, []string{"/home_types"}},
		{"home_types duplicate", `{"query":"x","home_types":["house","house"]}`, []string{"/home_types"}},
		{"home type unknown", `{"query":"x","home_types":["castle"]}`, []string{"/home_types/0"}},
		{"negative min_price", `{"query":"x","min_price":-1}`, []string{"/min_price"}},
		{"negative max_price", `{"query":"x","max_price":-0.5}`, []string{"/max_price"}},
		{"price a string", `{"query":"x","max_price":"500k"}`, []string{"/max_price"}},
		{"min_beds 0", `{"query":"x","min_beds":0}`, []string{"/min_beds"}},
		{"min_beds 6", `{"query":"x","min_beds":6}`, []string{"/min_beds"}},
		{"min_beds fraction", `{"query":"x","min_beds":1.5}`, []string{"/min_beds"}},
		{"min_baths 5", `{"query":"x","min_baths":5}`, []string{"/min_baths"}},
		{"sort unknown", `{"query":"x","sort":"cheapest"}`, []string{"/sort"}},
		{"num 0", `{"query":"x","num":0}`, []string{"/num"}},
		{"num 21", `{"query":"x","num":21}`, []string{"/num"}},
		{"unknown key", `{"query":"x","page":2}`, []string{"/page"}},

		// rule beyond the schema
		{"min above max", `{"query":"x","min_price":500000,"max_price":400000}`, []string{"/min_price"}},
		{"min above max by a cent", `{"query":"x","min_price":100.01,"max_price":100}`, []string{"/min_price"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, Search, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if n, _ := req.Int("num"); n < 1 || req.Str("listing_status") == "" || req.Str("sort") == "" {
					t.Errorf("defaults not applied: %v", req)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			var got []string
			for _, p := range providertest.ViolationPaths(err) {
				if len(got) == 0 || got[len(got)-1] != p {
					got = append(got, p)
				}
			}
			if !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %q, want %q", got, tc.paths)
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, `{"query":"x"}`)
		if n, _ := req.Int("num"); n != 10 || req.Str("listing_status") != "for_sale" || req.Str("sort") != "relevance" || len(req) != 4 {
			t.Errorf("request = %v", req)
		}
	})
	t.Run("rule on update", func(t *testing.T) {
		up := &providers.Update{Params: providers.Request{"max_price": 100}}
		vs := Search.Rules(providers.Request{"query": "x", "min_price": json.Number("200"), "max_price": json.Number("100")}, up)
		if len(vs) != 1 || vs[0].Path != "/min_price" || !strings.Contains(vs[0].Message, "200") || !strings.Contains(vs[0].Message, "100") {
			t.Errorf("violations = %+v", vs)
		}
	})
}

func TestSearchQueryParameters(t *testing.T) {
	cases := []struct {
		name string
		body string
		want url.Values
	}{
		{"defaults", `{"query":"  Austin, TX "}`, url.Values{"location": {"Austin, TX"}, "status_type": {"ForSale"}}},
		{"for sale filters", `{"query":"Austin, TX","home_types":["house","land","condo"],"min_price":250000.4,"max_price":900000.9,
			"min_beds":3,"min_baths":2,"sort":"price_desc"}`, url.Values{"location": {"Austin, TX"}, "status_type": {"ForSale"},
			"home_type": {"Houses,LotsLand,Condos"}, "minPrice": {"250001"}, "maxPrice": {"900000"}, "bedsMin": {"3"},
			"bathsMin": {"2"}, "sort": {"Price_High_Low"}}},
		{"sold, every sale type", `{"query":"80206","listing_status":"sold","home_types":["multi_family","apartment","manufactured","townhouse"],"sort":"newest"}`,
			url.Values{"location": {"80206"}, "status_type": {"RecentlySold"}, "home_type": {"Multi-family,Apartments,Manufactured,Townhomes"}, "sort": {"Newest"}}},
		{"rent: apartments and condos are one type, rent prices", `{"query":"Seattle, WA","listing_status":"for_rent","home_types":["apartment","condo","house"],
			"min_price":1500,"max_price":3000,"sort":"price_asc"}`, url.Values{"location": {"Seattle, WA"}, "status_type": {"ForRent"},
			"home_type": {"Apartments_Condos_Co-ops,Houses"}, "rentMinPrice": {"1500"}, "rentMaxPrice": {"3000"}, "sort": {"Payment_Low_High"}}},
		{"rent: a type without a rent filter sends none", `{"query":"Seattle, WA","listing_status":"for_rent","home_types":["townhouse","land"],"sort":"price_desc"}`,
			url.Values{"location": {"Seattle, WA"}, "status_type": {"ForRent"}, "sort": {"Payment_High_Low"}}},
		{"zero bounds: min 0 is no bound, max 0 is", `{"query":"x","min_price":0,"max_price":0}`,
			url.Values{"location": {"x"}, "status_type": {"ForSale"}, "maxPrice": {"0"}}},
		{"relevance sends no sort", `{"query":"x","sort":"relevance"}`, url.Values{"location": {"x"}, "status_type": {"ForSale"}}},
		{"beds baths sqft", `{"query":"x","sort":"sqft"}`, url.Values{"location": {"x"}, "status_type": {"ForSale"}, "sort": {"Square_Feet"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, client := newFake(t, serve(200, "search_empty.json"))
			if _, err := providertest.Execute(t, client, Search, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			r := f.Requests()[0]
			if r.URL.Path != "/propertyExtendedSearch" {
				t.Errorf("path = %s", r.URL.Path)
			}
			if got := r.URL.Query(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("query = %v\nwant    %v", got, tc.want)
			}
		})
	}
}

func TestSearchMappingGolden(t *testing.T) {
	cases := []struct{ name, fixture, body string }{
		{"austin", "search_forsale_austin.json", `{"query":"Austin, TX"}`},
		{"odd", "search_odd.json", `{"query":"Springfield, IL","num":20}`},
		{"rent_mixed_filtered", "search_rent_mixed.json", `{"query":"Seattle, WA","listing_status":"for_rent","home_types":["townhouse","multi_family"]}`},
		{"exact_address", "search_exact_address.json", `{"query":"101 California Ave UNIT 506, Santa Monica, CA 90403"}`},
		{"building", "search_building.json", `{"query":"1 Building Way, Seattle, WA"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, client := newFake(t, serve(200, tc.fixture))
			page, err := providertest.Execute(t, client, Search, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			for _, rec := range page.Records {
				for _, k := range []string{"price_kind", "source", "fetched_at"} {
					if s, _ := providertest.FieldsOf(t, &rec)[k].(string); s == "" {
						t.Errorf("%q: always key %s missing", rec.Title, k)
					}
				}
				for k, v := range providertest.FieldsOf(t, &rec) {
					if v == "" || v == nil {
						t.Errorf("%q: empty %s", rec.Title, k)
					}
				}
				if !strings.HasPrefix(rec.URL, "https://www.zillow.com/homedetails/") || len(rec.Ref) == 0 {
					t.Errorf("%q: url %q ref %s", rec.Title, rec.URL, rec.Ref)
				}
			}
		})
	}
}

func TestRecordValues(t *testing.T) {
	_, client := newFake(t, serve(200, "search_odd.json"))
	page, err := providertest.Execute(t, client, Search, providers.ModeLive, `{"query":"Springfield, IL"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 3 {
		t.Fatalf("%d records, want 3 (an item without a numeric zpid is dropped)", len(page.Records))
	}
	f, i, b := func(v float64) *float64 { return &v }, func(v int64) *int64 { return &v }, func(v bool) *bool { return &v }
	want := &ListingRecord{Street: "1 Main St", City: "Springfield", State: "IL", Zipcode: "62701", Country: "USA",
		HomeType: "house", HomeStatus: "for_sale", StatusText: "House for sale", Broker: "Prairie Homes Realty",
		Currency: "USD", DatePriceChanged: "2026-02-27", PriceLabel: "$415,000", Price: f(415000), Beds: f(3),
		Baths: f(2.5), LotSqft: f(10890), LotAreaUnit: "acres", DaysOnZillow: i(0), Latitude: f(39.8017),
		Longitude: f(-89.6436), IsShowcase: b(true), PriceKind: "listing_price", Source: "zillow", FetchedAt: "2026-03-02T15:30:00Z"}
	if got := page.Records[0].Data; !reflect.DeepEqual(got, want) {
		t.Errorf("fields = %v\nwant     %v", got, want)
	}
	// Zero price, area, lot, baths, coordinates and negative days are absent; an unknown status is unknown.
	lot := page.Records[1]
	if _, has := providertest.FieldsOf(t, &lot)["price"]; has || providertest.FieldsOf(t, &lot)["price_kind"] != "unknown" || providertest.FieldsOf(t, &lot)["home_status"] != "pending" ||
		providertest.FieldsOf(t, &lot)["home_type"] != "land" || lot.URL != "https://www.zillow.com/homedetails/88112_zpid/" {
		t.Errorf("lot = %+v", lot)
	}
	for _, k := range []string{"price", "sqft", "lot_sqft", "baths", "beds", "latitude", "days_on_zillow", "street"} {
		if _, has := providertest.FieldsOf(t, &lot)[k]; has {
			t.Errorf("lot has %s", k)
		}
	}
	coop := page.Records[2]
	if c := coop.Data.(*ListingRecord); c.HomeType != "cooperative" || c.PriceLabel != "300,000 CAD" || c.Beds == nil || *c.Beds != 0 {
		t.Errorf("coop = %+v", c)
	}
}

func TestPaging(t *testing.T) {
	f, client := newFake(t, func(r *http.Request) answer {
		switch r.URL.Query().Get("page") {
		case "":
			return answer{body: "search_page1.json"}
		case "2":
			return answer{body: "search_page2.json"}
		}
		t.Errorf("unexpected page %q", r.URL.Query().Get("page"))
		return answer{status: 400, body: `{"message":"bad page"}`}
	})
	req := prepare(t, `{"query":"Austin, TX","num":3}`)
	var titles []string
	var state json.RawMessage
	var states []string
	for i := 0; i < 5; i++ {
		page, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, state)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Records {
			titles = append(titles, r.Title)
		}
		if !page.HasMore {
			if page.Next != nil {
				t.Errorf("next %s without has_more", page.Next)
			}
			break
		}
		state = page.Next
		states = append(states, string(state))
	}
	// page 1 holds 5 listings: 3, then 2; page 2 holds 3.
	if want := []string{`{"page":1,"offset":3}`, `{"page":2,"offset":0}`}; !reflect.DeepEqual(states, want) {
		t.Errorf("states = %v, want %v", states, want)
	}
	if len(titles) != 8 || titles[0] != "2511 Burnet Ave, Austin, TX 78757" || titles[7] != "3108 Govalle Ave, Austin, TX 78702" {
		t.Errorf("titles = %v", titles)
	}
	seen := map[string]bool{}
	for _, tt := range titles {
		if seen[tt] {
			t.Errorf("%q repeated", tt)
		}
		seen[tt] = true
	}
	if n := len(f.Requests()); n != 3 {
		t.Errorf("%d upstream requests, want 3 (one per page)", n)
	}
	t.Run("filtered page is empty while more remain", func(t *testing.T) {
		_, client := newFake(t, func(r *http.Request) answer {
			if r.URL.Query().Get("page") == "" {
				return answer{body: "search_page1.json"} // houses, condos: no manufactured home
			}
			return answer{body: "search_page2.json"}
		})
		req := prepare(t, `{"query":"Austin, TX","listing_status":"for_rent","home_types":["manufactured"]}`)
		page, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 0 || !page.HasMore || string(page.Next) != `{"page":2,"offset":0}` {
			t.Errorf("page = %+v next %s", page, page.Next)
		}
	})
	t.Run("page 20 is the last", func(t *testing.T) {
		many := strings.Replace(string(providertest.Fixture(t, "search_page1.json")), `"totalPages": 2`, `"totalPages": 25`, 1)
		f, client := newFake(t, serve(200, many))
		page, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, prepare(t, `{"query":"x","num":20}`), json.RawMessage(`{"page":20,"offset":0}`))
		if got := f.Requests()[0].URL.Query().Get("page"); got != "20" {
			t.Errorf("page parameter %q", got)
		}
		if err != nil {
			t.Fatal(err)
		}
		if page.HasMore || len(page.Records) != 5 || len(page.Notes) != 1 {
			t.Errorf("page = %+v", page)
		}
	})
	t.Run("bad state", func(t *testing.T) {
		_, client := newFake(t, serve(200, "search_page1.json"))
		for _, s := range []string{`{"page":0}`, `{"page":21}`, `{"page":1,"offset":-1}`, `[`} {
			_, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, prepare(t, `{"query":"x"}`), json.RawMessage(s))
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("state %s: %v", s, err)
			}
		}
	})
	t.Run("empty answer ends the search", func(t *testing.T) {
		_, client := newFake(t, serve(200, "search_empty.json"))
		page, err := providertest.Execute(t, client, Search, providers.ModeLive, `{"query":"Nowhere, ZZ"}`)
		if err != nil || len(page.Records) != 0 || page.HasMore {
			t.Errorf("page = %+v, %v", page, err)
		}
	})
}

func TestUpstreamErrors(t *testing.T) {
	cases := []struct {
		name      string
		a         answer
		code      providers.Code
		retryable bool
		message   string
	}{
		{"invalid key", answer{status: 401, body: "rapidapi_401_invalid_key.json"}, providers.CodeProviderError, false, "Invalid API key"},
		{"not subscribed", answer{status: 403, body: "rapidapi_403_not_subscribed.json"}, providers.CodeProviderError, false, "not subscribed"},
		{"monthly quota", answer{status: 429, body: "rapidapi_429_quota.json"}, providers.CodeProviderAllowance, false, "MONTHLY quota"},
		{"rate limit per second", answer{status: 429, body: "rapidapi_429_rate.json"}, providers.CodeRateLimited, true, "rate limit per second"},
		{"server error", answer{status: 502, body: `{"message":"Bad Gateway"}`}, providers.CodeProviderError, true, "Bad Gateway"},
		{"message with 200", answer{body: "error_200_message.json"}, providers.CodeProviderError, true, "Something went wrong"},
		{"malformed", answer{body: `{"props": [`}, providers.CodeProviderError, true, "malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, client := newFake(t, func(*http.Request) answer { return tc.a })
			_, err := providertest.Execute(t, client, Search, providers.ModeLive, `{"query":"Austin, TX"}`)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code || e.IsRetryable() != tc.retryable || !strings.Contains(e.Message, tc.message) {
				t.Fatalf("error = %v, want %s (retryable %v) containing %q", err, tc.code, tc.retryable, tc.message)
			}
			if tc.code == providers.CodeRateLimited && e.RetryAfter <= 0 {
				t.Errorf("no Retry-After: %+v", e)
			}
		})
	}
}

func TestDetails(t *testing.T) {
	rec := func(zpid, u string) *providers.Record {
		r, _ := json.Marshal(ref{Zpid: zpid})
		return &providers.Record{Title: "x", URL: u, Ref: r}
	}
	cases := []struct{ name, zpid, fixture string }{
		{"details_for_sale", "29382740", "property_29382740.json"},
		{"details_rental_no_sale", "2057431936", "property_2057431936.json"},
		{"details_sold", "13278346", "property_13278346.json"},
		{"details_odd", "13278999", "property_odd.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, client := newFake(t, serve(200, tc.fixture))
			d, err := providertest.Action(t, client, Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details",
				rec(tc.zpid, "https://www.zillow.com/homedetails/"+tc.zpid+"_zpid/"))
			if err != nil {
				t.Fatal(err)
			}
			r := f.Requests()[0]
			if r.URL.Path != "/property" || !reflect.DeepEqual(r.URL.Query(), url.Values{"zpid": {tc.zpid}}) {
				t.Errorf("request %s", r.URL)
			}
			providertest.Golden(t, tc.name, d)
			last := d.Body.(*PropertyDetail).LastSale
			if p := last.Price; p != nil && *p <= 0 {
				t.Errorf("last sale price %v", *p)
			}
			if len(d.Links) != 1 || !strings.HasPrefix(d.Links[0].URL, "https://www.zillow.com/homedetails/") {
				t.Errorf("links = %+v", d.Links)
			}
		})
	}
	t.Run("last sale values", func(t *testing.T) {
		price := 415000.0
		want := map[string]LastSale{
			"property_29382740.json":   {Price: &price, Date: "2016-06-20", Status: "reported"},
			"property_2057431936.json": {Status: "unknown"},                      // lastSoldPrice 0 is not a price
			"property_odd.json":        {Date: "2019-03-01", Status: "reported"}, // from the history, without a price
		}
		for fixture, w := range want {
			_, client := newFake(t, serve(200, fixture))
			d, err := providertest.Action(t, client, Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", rec("1", ""))
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Body.(*PropertyDetail).LastSale; !reflect.DeepEqual(got, w) {
				t.Errorf("%s: last_sale = %v, want %v", fixture, got, w)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			a    answer
			code providers.Code
		}{
			{answer{status: 404, body: `{"message":"Property not found"}`}, providers.CodeNotFound},
			{answer{body: `{}`}, providers.CodeNotFound},
			{answer{status: 403, body: "rapidapi_403_not_subscribed.json"}, providers.CodeProviderError},
			{answer{status: 500, body: `{"message":"boom"}`}, providers.CodeProviderError},
		} {
			_, client := newFake(t, func(*http.Request) answer { return tc.a })
			_, err := providertest.Action(t, client, Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", rec("42", ""))
			if providertest.ErrorCode(err) != tc.code {
				t.Errorf("%+v: %v, want %s", tc.a, err, tc.code)
			}
		}
		_, client := newFake(t, serve(200, `{}`))
		if _, err := providertest.Action(t, client, Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details",
			&providers.Record{Title: "x"}); providertest.ErrorCode(err) != providers.CodeInvalidRequest {
			t.Errorf("record without ref: %v", err)
		}
	})
}

func TestSplitAddress(t *testing.T) {
	cases := map[string][4]string{
		"2511 Burnet Ave, Austin, TX 78757":             {"2511 Burnet Ave", "Austin", "TX", "78757"},
		"555 E 5th St UNIT 2108, Austin, TX 78701-1234": {"555 E 5th St UNIT 2108", "Austin", "TX", "78701-1234"},
		"Suite 4, 10 Elm St, Boston, MA 02108":          {"Suite 4, 10 Elm St", "Boston", "MA", "02108"},
		"Austin, TX":                                    {"", "Austin", "TX", ""},
		"Lot 7 Prairie Rd":                              {"", "", "", ""},
		"1 Main St, Springfield, Illinois":              {"", "", "", ""},
	}
	for in, want := range cases {
		s, c, st, z := splitAddress(in)
		if got := [4]string{s, c, st, z}; got != want {
			t.Errorf("splitAddress(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSandboxExamples runs what the gateway runs with a test key: every example, the details of
// its first record, and the next page with the returned state.
func TestSandboxExamples(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	for i, ex := range Search.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			b, _ := json.Marshal(ex.Body)
			req := prepare(t, string(b))
			page, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 {
				t.Fatal("no records in the sandbox")
			}
			providertest.Golden(t, "sandbox_example_"+string(rune('1'+i)), providertest.RecordsJSON(page))
			for _, a := range Search.Actions {
				d, err := providertest.Action(t, client, Search, providers.ModeTest, req, a.Name, &page.Records[0])
				if err != nil || d == nil {
					t.Fatalf("action %s: %v", a.Name, err)
				}
				if i == 0 {
					providertest.Golden(t, "sandbox_details", d)
				}
			}
			if page.HasMore {
				next, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, page.Next)
				if err != nil || len(next.Records) == 0 || next.Records[0].Title == page.Records[0].Title {
					t.Errorf("next page: %v %+v", err, next)
				}
			}
		})
	}
	t.Run("first example pages through the sandbox", func(t *testing.T) {
		b, _ := json.Marshal(Search.Examples[0].Body)
		req := prepare(t, string(b))
		first, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, nil)
		if err != nil || !first.HasMore || len(first.Records) != 10 {
			t.Fatalf("first page: %v %+v", err, first)
		}
		second, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, first.Next)
		if err != nil || second.HasMore || len(second.Records) != 4 {
			t.Errorf("second page: %v %+v", err, second)
		}
	})
}
