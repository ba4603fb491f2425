package hotels

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/serpapi"
	"github.com/capgate/capgate/providers/upstream/serpapi/serpapitest"
)

const (
	testKey = serpapitest.Key
	// A stay far enough ahead never to be in the past.
	london = `"destination":"london","check_in":"2099-03-13","check_out":"2099-03-24"`
)

// fake is an httptest stand-in for SerpApi that records every request and answers google_hotels
// searches with search and property-details requests (those carrying property_token) with details.
type fake struct {
	providertest.Upstream
	t       *testing.T
	mu      sync.Mutex
	search  http.HandlerFunc
	details http.HandlerFunc
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t}
	f.Upstream = providertest.Upstream{TB: t, Answer: f.route}
	return f
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	h := f.search
	if r.URL.Query().Get("property_token") != "" {
		h = f.details
	}
	f.mu.Unlock()
	serpapitest.CheckRequest(f.t, r, "google_hotels")
	w.Header().Set("Content-Type", "application/json")
	if h == nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"Missing query ` + "`q`" + ` parameter."}`))
		return
	}
	h(w, r)
}

// answer is a handler writing status and a body: a testdata fixture name, or literal JSON.
func answer(t *testing.T, status int, body string) http.HandlerFunc {
	t.Helper()
	b := providertest.Body(t, body)
	return func(w http.ResponseWriter, _ *http.Request) {
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

// query is what every request carries besides the given parameters.
func query(extra url.Values) url.Values {
	q := url.Values{"engine": {"google_hotels"}, "output": {"json"}, "api_key": {testKey}}
	for k, v := range extra {
		q[k] = v
	}
	return q
}

// londonQuery is the query of the london stay with the request's defaults.
func londonQuery(extra ...string) url.Values {
	q := query(url.Values{"q": {"london"}, "check_in_date": {"2099-03-13"}, "check_out_date": {"2099-03-24"},
		"adults": {"2"}, "currency": {"USD"}})
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return q
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Search
	if c.ID != "hotels.search" || c.Topic != "Travel and places" || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("id/topic/texts = %q/%q", c.ID, c.Topic)
	}
	if c.Paging != providers.PagingToken || c.Deadline != 15*time.Second || c.NoUpdate || c.Merge != nil {
		t.Errorf("paging %v deadline %v noupdate %v", c.Paging, c.Deadline, c.NoUpdate)
	}
	if c.Cost.Typical != 4 || !strings.Contains(c.Cost.Basis, "$0.004 per SerpApi Google Hotels page") {
		t.Errorf("cost = %+v", c.Cost)
	}
	if !reflect.DeepEqual(c.Providers, []string{"serpapi"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	if len(c.Actions) != 1 || c.Actions[0].Name != "details" || c.Actions[0].Kind != providers.ActionLookup ||
		c.Actions[0].Credits != 4 || c.Actions[0].Run == nil || c.Actions[0].Description == "" {
		t.Errorf("actions = %+v", c.Actions)
	}
	if len(c.Examples) < 3 {
		t.Errorf("%d examples, want 3", len(c.Examples))
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Search {
		t.Errorf("Capabilities() = %v", got)
	}
	if p := Providers(); len(p) != 1 || p[0] != serpapi.Provider() {
		t.Errorf("Providers() = %v", p)
	}

	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["type"] != "object" ||
		!reflect.DeepEqual(doc["required"], []any{"destination", "check_in", "check_out"}) {
		t.Errorf("schema top level: %v", doc)
	}
	props := doc["properties"].(map[string]any)
	if len(props) != 11 {
		t.Errorf("%d properties: %v", len(props), props)
	}
	for name, raw := range props {
		if d, _ := raw.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	prop := func(name string) map[string]any { return props[name].(map[string]any) }
	if p := prop("destination"); p["type"] != "string" || p["minLength"] != 1.0 || p["maxLength"] != 200.0 {
		t.Errorf("destination schema = %v", p)
	}
	if p := prop("adults"); p["type"] != "integer" || p["minimum"] != 1.0 || p["maximum"] != 10.0 || p["default"] != 2.0 {
		t.Errorf("adults schema = %v", p)
	}
	if p := prop("children_ages"); p["type"] != "array" || p["maxItems"] != 5.0 || p["items"].(map[string]any)["type"] != "integer" {
		t.Errorf("children_ages schema = %v", p)
	}
	if p := prop("currency"); p["minLength"] != 3.0 || p["maxLength"] != 3.0 || p["default"] != "USD" {
		t.Errorf("currency schema = %v", p)
	}
	if p := prop("max_price"); p["type"] != "number" || p["minimum"] != 0.0 || p["maximum"] != nil {
		t.Errorf("max_price schema = %v", p)
	}
	if p := prop("min_rating"); p["type"] != "number" || p["minimum"] != 0.0 || p["maximum"] != 5.0 {
		t.Errorf("min_rating schema = %v", p)
	}
	if p := prop("amenities"); p["type"] != "array" || p["maxItems"] != 10.0 {
		t.Errorf("amenities schema = %v", p)
	}
	enums := map[string][]any{"property_type": {"hotel", "vacation_rental"},
		"sort": {"relevance", "lowest_price", "highest_rating", "most_reviewed"}}
	for name, want := range enums {
		if p := prop(name); p["type"] != "string" || !reflect.DeepEqual(p["enum"], want) {
			t.Errorf("%s schema = %v", name, p)
		}
	}
	// The amenity vocabulary is exactly the names both id tables know.
	var vocab []string
	for _, m := range []map[string]int{hotelAmenities, rentalAmenities} {
		for k := range m {
			if !slices.Contains(vocab, k) {
				vocab = append(vocab, k)
			}
		}
	}
	var enum []string
	for _, v := range prop("amenities")["items"].(map[string]any)["enum"].([]any) {
		enum = append(enum, v.(string))
	}
	sort.Strings(vocab)
	sort.Strings(enum)
	if !reflect.DeepEqual(vocab, enum) {
		t.Errorf("amenity enum %v, id tables %v", enum, vocab)
	}
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

func TestValidation(t *testing.T) {
	body := func(extra string) string {
		if extra == "" {
			return "{" + london + "}"
		}
		return "{" + london + "," + extra + "}"
	}
	amen := func(n int) string {
		names := []string{"pool", "spa", "bar", "free_wifi", "free_parking", "parking", "restaurant", "fitness_center",
			"free_breakfast", "room_service", "ev_charger"}
		return `"amenities":["` + strings.Join(names[:n], `","`) + `"]`
	}
	cases := []struct {
		name  string
		body  string
		paths []string // nil: valid
	}{
		{"minimal", body(""), nil},
		{"everything for a hotel", body(`"adults":3,"children_ages":[1,17,9],"currency":"eur","max_price":180.5,"min_rating":4.2,` +
			amen(10) + `,"property_type":"hotel","sort":"lowest_price"`), nil},
		{"vacation rental for ten", body(`"adults":10,"property_type":"vacation_rental","amenities":["kitchen","hot_tub","pool","crib"]`), nil},
		{"six guests in a hotel", body(`"adults":4,"children_ages":[3,5]`), nil},
		{"one adult", body(`"adults":1`), nil},
		{"leap day", `{"destination":"x","check_in":"2096-02-28","check_out":"2096-02-29"}`, nil},
		{"zero filters", body(`"max_price":0,"min_rating":0`), nil},
		{"empty children and amenities", body(`"children_ages":[],"amenities":[]`), nil},
		{"relevance", body(`"sort":"relevance"`), nil},
		{"shared amenity names", body(`"amenities":["pool","free_wifi","pet_friendly","beach_access","child_friendly","air_conditioned","fitness_center"]`), nil},

		{"nothing", `{}`, []string{"/check_in", "/check_out", "/destination"}},
		{"empty destination", `{"destination":"","check_in":"2099-03-13","check_out":"2099-03-24"}`, []string{"/destination"}},
		{"blank destination", `{"destination":"  ","check_in":"2099-03-13","check_out":"2099-03-24"}`, []string{"/destination"}},
		{"destination too long", `{"destination":"` + strings.Repeat("a", 201) + `","check_in":"2099-03-13","check_out":"2099-03-24"}`, []string{"/destination"}},
		{"date with slashes", `{"destination":"x","check_in":"2099/03/13","check_out":"2099-03-24"}`, []string{"/check_in"}},
		{"date with time", `{"destination":"x","check_in":"2099-03-13","check_out":"2099-03-24T10:00"}`, []string{"/check_out"}},
		{"adults zero", body(`"adults":0`), []string{"/adults"}},
		{"adults eleven", body(`"adults":11`), []string{"/adults"}},
		{"adults fraction", body(`"adults":1.5`), []string{"/adults"}},
		{"six children", body(`"children_ages":[1,2,3,4,5,6]`), []string{"/children_ages"}},
		{"child age a string", body(`"children_ages":[4,"5"]`), []string{"/children_ages/1"}},
		{"currency four letters", body(`"currency":"EURO"`), []string{"/currency"}},
		{"currency digits", body(`"currency":"978"`), []string{"/currency"}},
		{"max_price negative", body(`"max_price":-1`), []string{"/max_price"}},
		{"min_rating above five", body(`"min_rating":5.1`), []string{"/min_rating"}},
		{"eleven amenities", body(amen(11)), []string{"/amenities"}},
		{"unknown amenity", body(`"amenities":["sauna"]`), []string{"/amenities/0"}},
		{"unknown property type", body(`"property_type":"apartment"`), []string{"/property_type"}},
		{"unknown sort", body(`"sort":"price"`), []string{"/sort"}},
		{"unknown key", body(`"num":10`), []string{"/num"}},

		// rules beyond the schema
		{"check_in not a calendar date", `{"destination":"x","check_in":"2099-02-30","check_out":"2099-03-24"}`, []string{"/check_in"}},
		{"check_out month 13", `{"destination":"x","check_in":"2099-03-13","check_out":"2099-13-01"}`, []string{"/check_out"}},
		{"no leap day", `{"destination":"x","check_in":"2097-02-28","check_out":"2097-02-29"}`, []string{"/check_out"}},
		{"year zero", `{"destination":"x","check_in":"0000-01-01","check_out":"2099-03-24"}`, []string{"/check_in"}},
		{"check_in in the past", `{"destination":"x","check_in":"2000-01-01","check_out":"2099-03-24"}`, []string{"/check_in"}},
		{"same day", `{"destination":"x","check_in":"2099-03-13","check_out":"2099-03-13"}`, []string{"/check_out"}},
		{"check_out first", `{"destination":"x","check_in":"2099-03-13","check_out":"2099-03-12"}`, []string{"/check_out"}},
		{"past and reversed", `{"destination":"x","check_in":"2001-03-13","check_out":"2001-03-12"}`, []string{"/check_in", "/check_out"}},
		{"child under one", body(`"children_ages":[4,0]`), []string{"/children_ages/1"}},
		{"child of eighteen", body(`"children_ages":[18]`), []string{"/children_ages/0"}},
		{"negative age", body(`"children_ages":[-2,3]`), []string{"/children_ages/0"}},
		{"seven guests in a hotel", body(`"adults":5,"children_ages":[3,5]`), []string{"/children_ages"}},
		{"seven adults in a hotel", body(`"adults":7`), []string{"/adults"}},
		{"seven adults, hotel explicitly", body(`"adults":7,"property_type":"hotel"`), []string{"/adults"}},
		{"children with a vacation rental", body(`"adults":2,"children_ages":[6],"property_type":"vacation_rental"`), []string{"/children_ages"}},
		{"hotel amenity for a rental", body(`"property_type":"vacation_rental","amenities":["kitchen","spa"]`), []string{"/amenities/1"}},
		{"rental amenity for a hotel", body(`"amenities":["kitchen","pool","hot_tub"]`), []string{"/amenities/0", "/amenities/2"}},
		{"several rules", `{"destination":"x","check_in":"2099-03-13","check_out":"2099-03-10","adults":6,"children_ages":[20]}`,
			[]string{"/check_out", "/children_ages/0", "/children_ages"}},
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
			if got := uniquePaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %q, want %q", got, tc.paths)
			}
		})
	}

	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, body(""))
		if n, _ := req.Int("adults"); n != 2 || req.Str("currency") != "USD" || len(req) != 5 {
			t.Errorf("request = %v, want the three fields with adults 2 and currency USD", req)
		}
	})
	t.Run("rule messages", func(t *testing.T) {
		msg := func(body string) string {
			_, err := providertest.Prepare(t, Search, body)
			e, _ := providers.AsError(err)
			if e == nil || len(e.Violations) == 0 {
				t.Fatalf("%s: no violation", body)
			}
			return e.Violations[0].Message
		}
		for body, want := range map[string][]string{
			`{"destination":"x","check_in":"2099-02-30","check_out":"2099-03-24"}`: {"real calendar date", "2099-02-30"},
			`{"destination":"x","check_in":"2099-03-13","check_out":"2099-03-13"}`: {"after check_in", "at least one night"},
			body(`"adults":5,"children_ages":[3,5]`):                               {"at most 6 guests", "5 adults and 2 children"},
			body(`"children_ages":[6],"property_type":"vacation_rental"`):          {"only for hotels", "count every guest in adults"},
			body(`"children_ages":[0]`):                                            {"1 to 17", "0"},
			body(`"amenities":["spa"],"property_type":"vacation_rental"`):          {"spa is not an amenity filter for vacation rentals", "hot_tub, air_conditioned"},
		} {
			got := msg(body)
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%s: message %q lacks %q", body, got, w)
				}
			}
		}
	})
	t.Run("rules on update", func(t *testing.T) {
		// The gateway checks the merged query: switching a stored family search to vacation rentals
		// names children_ages.
		up := &providers.Update{Params: providers.Request{"property_type": "vacation_rental"}}
		req := providers.Request{"destination": "x", "check_in": "2099-03-13", "check_out": "2099-03-24", "adults": json.Number("2"),
			"children_ages": []any{json.Number("7")}, "property_type": "vacation_rental"}
		if vs := Search.Rules(req, up); len(vs) != 1 || vs[0].Path != "/children_ages" {
			t.Errorf("violations = %+v", vs)
		}
	})
}

func TestPastDatesAgainstToday(t *testing.T) {
	saved := today
	defer func() { today = saved }()
	today = func() time.Time { return time.Date(2030, 1, 10, 0, 0, 0, 0, time.UTC) }
	for checkIn, ok := range map[string]bool{"2030-01-10": true, "2030-01-09": true, "2030-01-08": false, "2029-12-31": false} {
		_, err := providertest.Prepare(t, Search, `{"destination":"x","check_in":"`+checkIn+`","check_out":"2030-02-01"}`)
		if (err == nil) != ok {
			t.Errorf("check_in %s: error %v, want accepted %v", checkIn, err, ok)
		}
	}
}

func TestSearchGolden(t *testing.T) {
	f := newFake(t)
	f.search = answer(t, http.StatusOK, "search.json")
	page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, "{"+london+"}")
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "search", providertest.RecordsJSON(page))
	if len(page.Records) != 6 || !page.HasMore || string(page.Next) != `{"token":"CBI="}` || page.Notes != nil {
		t.Errorf("%d records, has_more %v, next %s, notes %v", len(page.Records), page.HasMore, page.Next, page.Notes)
	}
	for _, rec := range page.Records {
		if rec.Title == "" || providertest.FieldsOf(t, &rec)["requested_occupancy"] == nil || providertest.FieldsOf(t, &rec)["occupancy_status"] == nil {
			t.Errorf("record misses an always key: %+v", rec)
		}
		for k, v := range providertest.FieldsOf(t, &rec) {
			if v == "" || v == nil {
				t.Errorf("%q: empty %s", rec.Title, k)
			}
		}
		if (len(rec.Ref) > 0) != (rec.Actions == nil) {
			t.Errorf("%q: ref %s actions %v", rec.Title, rec.Ref, rec.Actions)
		}
	}
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d upstream requests, want 1", len(reqs))
	}
	if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, londonQuery()) {
		t.Errorf("query = %v, want %v", got, londonQuery())
	}
}

func TestSearchQueryParameters(t *testing.T) {
	cases := []struct {
		name  string
		extra string
		want  url.Values // the london query plus these
	}{
		{"defaults", "", nil},
		{"party and currency", `"adults":3,"children_ages":[4,11],"currency":"eur"`,
			url.Values{"adults": {"3"}, "children": {"2"}, "children_ages": {"4,11"}, "currency": {"EUR"}}},
		{"vacation rental", `"adults":8,"property_type":"vacation_rental"`, url.Values{"adults": {"8"}, "vacation_rentals": {"true"}}},
		{"hotel sends nothing", `"property_type":"hotel"`, nil},
		{"sort lowest price", `"sort":"lowest_price"`, url.Values{"sort_by": {"3"}}},
		{"sort highest rating", `"sort":"highest_rating"`, url.Values{"sort_by": {"8"}}},
		{"sort most reviewed", `"sort":"most_reviewed"`, url.Values{"sort_by": {"13"}}},
		{"relevance sends nothing", `"sort":"relevance"`, nil},
		{"max price rounds up", `"max_price":149.2`, url.Values{"max_price": {"150"}}},
		{"whole max price", `"max_price":300`, url.Values{"max_price": {"300"}}},
		{"zero max price is not sent", `"max_price":0`, nil},
		{"rating 3.5", `"min_rating":3.5`, url.Values{"rating": {"7"}}},
		{"rating 3.9 asks 3.5+", `"min_rating":3.9`, url.Values{"rating": {"7"}}},
		{"rating 4", `"min_rating":4`, url.Values{"rating": {"8"}}},
		{"rating 4.7 asks 4.5+", `"min_rating":4.7`, url.Values{"rating": {"9"}}},
		{"rating 3 has no Google filter", `"min_rating":3`, nil},
		{"hotel amenities", `"amenities":["free_wifi","pool","pool","ev_charger"]`, url.Values{"amenities": {"35,6,61"}}},
		{"rental amenities", `"property_type":"vacation_rental","amenities":["pool","kitchen","free_wifi"]`,
			url.Values{"vacation_rentals": {"true"}, "amenities": {"32,15,29"}}},
		{"trimmed destination", `"destination":"  Lisbon, Portugal "`, url.Values{"q": {"Lisbon, Portugal"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := "{" + london + "}"
			if tc.extra != "" {
				// A later duplicate key wins in the decoded body, so destination can be overridden.
				body = "{" + london + "," + tc.extra + "}"
			}
			f := newFake(t)
			f.search = answer(t, http.StatusOK, "search.json")
			if _, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, body); err != nil {
				t.Fatal(err)
			}
			want := londonQuery()
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
	t.Run("next_page_token", func(t *testing.T) {
		f := newFake(t)
		page2 := `{"search_metadata":{"status":"Success"},"properties":[{"type":"hotel","name":"Page two hotel","property_token":"p2",
			"rate_per_night":{"lowest":"$90","extracted_lowest":90}}],"serpapi_pagination":{"current_from":21,"current_to":21}}`
		f.search = func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("next_page_token") == "CBI=" {
				answer(t, 200, page2)(w, r)
				return
			}
			answer(t, 200, "search.json")(w, r)
		}
		client := f.client(t)
		req := prepare(t, `{`+london+`,"sort":"lowest_price"}`)
		first, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		second, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, first.Next)
		if err != nil {
			t.Fatal(err)
		}
		if len(second.Records) != 1 || second.Records[0].Title != "Page two hotel" || second.HasMore || second.Next != nil {
			t.Errorf("second page = %+v", second)
		}
		reqs := f.Requests()
		if got, want := reqs[1].URL.Query(), londonQuery("sort_by", "3", "next_page_token", "CBI="); !reflect.DeepEqual(got, want) {
			t.Errorf("second query = %v, want %v", got, want)
		}
	})

	t.Run("a provider page above 20 properties is served in two pages", func(t *testing.T) {
		var props []string
		for i := 1; i <= 25; i++ {
			props = append(props, fmt.Sprintf(`{"type":"hotel","name":"Hotel %d","property_token":"t%d"}`, i, i))
		}
		big := `{"search_metadata":{"status":"Success"},"properties":[` + strings.Join(props, ",") +
			`],"serpapi_pagination":{"current_from":1,"current_to":25,"next_page_token":"NEXT"}}`
		f := newFake(t)
		f.search = answer(t, 200, big)
		client := f.client(t)
		req := prepare(t, "{"+london+"}")
		first, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Records) != 20 || first.Records[19].Title != "Hotel 20" || string(first.Next) != `{"offset":20}` {
			t.Fatalf("first page: %d records, next %s", len(first.Records), first.Next)
		}
		second, err := providertest.ExecuteState(t, client, Search, providers.ModeLive, req, first.Next)
		if err != nil {
			t.Fatal(err)
		}
		if len(second.Records) != 5 || second.Records[0].Title != "Hotel 21" || string(second.Next) != `{"token":"NEXT"}` {
			t.Errorf("second page: %d records, next %s", len(second.Records), second.Next)
		}
		if q := f.Requests()[1].URL.Query(); q.Has("next_page_token") {
			t.Errorf("the rest of the first provider page was asked with a token: %v", q)
		}
	})

	for _, state := range []string{`not json`, `{"offset":-1}`, `[1]`} {
		t.Run("bad state "+state, func(t *testing.T) {
			f := newFake(t)
			_, err := providertest.ExecuteState(t, f.client(t), Search, providers.ModeLive, prepare(t, "{"+london+"}"), json.RawMessage(state))
			if providertest.ErrorCode(err) != providers.CodeInternal || len(f.Requests()) != 0 {
				t.Errorf("error = %v after %d requests", err, len(f.Requests()))
			}
		})
	}
}

func TestPageFilters(t *testing.T) {
	titles := func(p *providers.Page) []string {
		out := []string{}
		for _, r := range p.Records {
			out = append(out, r.Title)
		}
		return out
	}
	cases := []struct {
		name   string
		extra  string
		titles []string
		params []string
		note   string
		empty  bool
	}{
		{"max price", `"max_price":150`, []string{"APlaceToStay Central London Apartment, Zone 1 COV", "Kensington Garden Lodge", "Camden Lock Micro Studio"},
			[]string{"max_price", "150"}, "3 of the 7 properties", false},
		{"max price is inclusive", `"max_price":249`, []string{"APlaceToStay Central London Apartment, Zone 1 COV", "The Lincoln Suites",
			"Hotel Riu Plaza London Victoria", "Kensington Garden Lodge", "Camden Lock Micro Studio"}, []string{"max_price", "249"}, "1 of the 7", false},
		{"min rating", `"min_rating":4.2`, []string{"The Lincoln Suites", "Hotel Riu Plaza London Victoria", "The Savoy"},
			[]string{"rating", "8"}, "min_rating 4.2", false},
		{"both", `"max_price":200,"min_rating":4`, []string{"Kensington Garden Lodge"}, []string{"max_price", "200", "rating", "8"},
			"max_price 200 USD a night and min_rating 4", false},
		{"nothing left", `"max_price":10`, []string{}, []string{"max_price", "10"}, "This page is empty but has_more is true", true},
		{"min rating 0 keeps unrated", `"min_rating":0`, []string{"APlaceToStay Central London Apartment, Zone 1 COV", "The Lincoln Suites",
			"Hotel Riu Plaza London Victoria", "The Savoy", "Kensington Garden Lodge", "Camden Lock Micro Studio"}, nil, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.search = answer(t, 200, "search.json")
			page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, "{"+london+","+tc.extra+"}")
			if err != nil {
				t.Fatal(err)
			}
			if got := titles(page); !reflect.DeepEqual(got, tc.titles) {
				t.Errorf("titles = %q, want %q", got, tc.titles)
			}
			if !page.HasMore || page.Next == nil {
				t.Errorf("has_more %v next %s: filtering must not end the search", page.HasMore, page.Next)
			}
			switch {
			case tc.note == "" && page.Notes != nil:
				t.Errorf("notes = %q", page.Notes)
			case tc.note != "" && (len(page.Notes) != 1 || !strings.Contains(page.Notes[0], tc.note)):
				t.Errorf("notes = %q, want one containing %q", page.Notes, tc.note)
			}
			if tc.empty != strings.Contains(strings.Join(page.Notes, ""), "empty") {
				t.Errorf("notes = %q", page.Notes)
			}
			want := londonQuery(tc.params...)
			if got := f.Requests()[0].URL.Query(); !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

func TestOccupancy(t *testing.T) {
	status := func(extra string) map[string][2]string {
		f := newFake(t)
		f.search = answer(t, 200, "search.json")
		page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, "{"+london+extra+"}")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][2]string{}
		for _, r := range page.Records {
			note, _ := providertest.FieldsOf(t, &r)["occupancy_note"].(string)
			out[r.Title] = [2]string{providertest.FieldsOf(t, &r)["occupancy_status"].(string), note}
		}
		return out
	}
	two := status("")
	want := map[string]string{
		"APlaceToStay Central London Apartment, Zone 1 COV": "confirmed", // offer for 2 guests
		"The Lincoln Suites":              "requested",           // no stated guest count
		"Hotel Riu Plaza London Victoria": "different_occupancy", // offer for 3 guests
		"The Savoy":                       "no_price",
		"Kensington Garden Lodge":         "requested",
		"Camden Lock Micro Studio":        "over_capacity", // sleeps 1
	}
	for title, w := range want {
		got := two[title]
		if got[0] != w {
			t.Errorf("%s: status %q, want %q", title, got[0], w)
		}
		if (got[1] != "") != (w != "confirmed" && w != "requested") {
			t.Errorf("%s: note %q", title, got[1])
		}
	}
	if n := two["Hotel Riu Plaza London Victoria"][1]; !strings.Contains(n, "for 3 guests, not the 2 requested (2 adults)") {
		t.Errorf("note = %q", n)
	}
	if n := two["The Savoy"][1]; !strings.Contains(n, "2099-03-13 to 2099-03-24 for 2 adults") {
		t.Errorf("note = %q", n)
	}

	// Two adults and a child: three guests, the Riu offer now fits and the two-person flat is too small.
	three := status(`,"children_ages":[5]`)
	if s := three["Hotel Riu Plaza London Victoria"][0]; s != "confirmed" {
		t.Errorf("Riu with 3 guests: %q", s)
	}
	if s := three["APlaceToStay Central London Apartment, Zone 1 COV"]; s[0] != "over_capacity" ||
		!strings.Contains(s[1], "sleeps 2; the party is 3 guests (2 adults and 1 child (age 5))") {
		t.Errorf("flat with 3 guests: %q", s)
	}
	if s := three["The Lincoln Suites"][0]; s != "requested" {
		t.Errorf("Lincoln: %q", s)
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
		{"out of searches", 429, `{"error":"Your account has run out of searches."}`, nil,
			providers.CodeProviderAllowance, false, "run out of searches"},
		{"hourly throughput", 429, `{"error":"You have exceeded the hourly throughput limit."}`, map[string]string{"Retry-After": "5"},
			providers.CodeRateLimited, true, "exceeded the hourly throughput"},
		{"bad request", 400, `{"error":"` + "`check_in_date`" + ` cannot be in the past."}`, nil, providers.CodeProviderError, false, "cannot be in the past"},
		{"server error", 500, `{"error":"Internal error."}`, nil, providers.CodeProviderError, true, "SerpApi: Internal error."},
		{"search failed in a 200", 200, `{"search_metadata":{"id":"64c32cfeb68f8bc186aaa013","status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, nil,
			providers.CodeProviderError, true, "couldn't get valid results"},
		{"other error without results", 200, `{"search_metadata":{"status":"Success"},"error":"Unsupported currency parameter."}`, nil,
			providers.CodeProviderError, true, "Unsupported currency parameter."},
		{"html error page", 502, `<html><body>Bad Gateway</body></html>`, nil, providers.CodeProviderError, true, "HTTP 502"},
		{"malformed JSON", 200, `{"properties":[`, nil, providers.CodeProviderError, true, "malformed JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.search = func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}
			_, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, "{"+london+"}")
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

	empties := []struct{ name, body string }{
		{"no results answer", `{"search_metadata":{"status":"Success"},"error":"Google Hotels hasn't returned any results for this query."}`},
		{"empty properties with a token", `{"search_metadata":{"status":"Success"},"properties":[],"serpapi_pagination":{"next_page_token":"X"}}`},
		{"properties null", `{"search_metadata":{"status":"Success"},"properties":null}`},
		{"properties not an array", `{"search_metadata":{"status":"Success"},"properties":{"0":{}}}`},
	}
	for _, tc := range empties {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.search = answer(t, 200, tc.body)
			page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, "{"+london+"}")
			if err != nil {
				t.Fatal(err)
			}
			if page.Records == nil || len(page.Records) != 0 || page.HasMore || page.Next != nil {
				t.Errorf("page = %+v", page)
			}
		})
	}
}

// searchRecord is a record as the search maps it, for the details lookup.
func searchRecord(t *testing.T, body string, i int) providers.Record {
	t.Helper()
	f := newFake(t)
	f.search = answer(t, 200, "search.json")
	page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, body)
	if err != nil {
		t.Fatal(err)
	}
	return page.Records[i]
}

func TestDetails(t *testing.T) {
	t.Run("golden", func(t *testing.T) {
		f := newFake(t)
		f.details = answer(t, 200, "property.json")
		rec := searchRecord(t, "{"+london+"}", 1)
		// The call's request is a later (updated) query: details still asks for the record's stay.
		later := prepare(t, `{"destination":"paris","check_in":"2099-05-01","check_out":"2099-05-02"}`)
		d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, later, "details", &rec)
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
		if got, want := reqs[0].URL.Query(), londonQuery("property_token", "ChkIgf65q43Z3ohYGg0vZy8xMW54dDI2ampiEAE"); !reflect.DeepEqual(got, want) {
			t.Errorf("query = %v, want %v", got, want)
		}
		body := d.Body.(*PropertyDetails)
		var sources []string
		for _, o := range body.BookingOptions {
			sources = append(sources, o.Source)
		}
		if want := []string{"Millennium Hotel and Conference Centre Gloucester London", "Hotels.com", "momondo.com", "Bluepillow.com", "Closest Hotel"}; !reflect.DeepEqual(sources, want) {
			t.Errorf("booking option sources = %q, want %q", sources, want)
		}
		if body.OccupancyStatus != "confirmed" || body.Stay.Nights != 11 {
			t.Errorf("occupancy %v stay %v", body.OccupancyStatus, body.Stay)
		}
		if len(d.Links) != 5 || d.Links[0].Label != "Property website" || d.Links[1].Label != "Book on Millennium Hotel and Conference Centre Gloucester London" {
			t.Errorf("links = %v", d.Links)
		}
	})

	t.Run("family stay in a vacation rental search", func(t *testing.T) {
		f := newFake(t)
		f.details = answer(t, 200, `{"search_metadata":{"status":"Success"},"name":"Somewhere","type":"hotel"}`)
		rec := searchRecord(t, `{`+london+`,"adults":1,"children_ages":[3,12],"currency":"gbp"}`, 0)
		d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, "{"+london+"}"), "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		want := londonQuery("property_token", "ChoQwpS_u-_n6ZG-ARoNL2cvMTF5M18wNXBnbhAC", "adults", "1", "children", "2",
			"children_ages", "3,12", "currency", "GBP")
		if got := f.Requests()[0].URL.Query(); !reflect.DeepEqual(got, want) {
			t.Errorf("query = %v, want %v", got, want)
		}
		body := d.Body.(*PropertyDetails)
		if body.OccupancyStatus != "no_price" || body.Currency != "GBP" || len(d.Links) != 0 ||
			!reflect.DeepEqual(body.BookingOptions, []BookingOption{}) {
			t.Errorf("detail = %v links %v", body, d.Links)
		}
	})

	failures := []struct {
		name   string
		status int
		body   string
		code   providers.Code
	}{
		{"no results answer", 200, `{"search_metadata":{"status":"Success"},"error":"Google Hotels hasn't returned any results for this query."}`, providers.CodeNotFound},
		{"nothing usable", 200, `{"search_metadata":{"status":"Success"},"search_parameters":{"engine":"google_hotels"}}`, providers.CodeNotFound},
		{"error with nothing usable", 200, `{"search_metadata":{"status":"Success"},"error":"Invalid property_token."}`, providers.CodeProviderError},
		{"search failed", 503, `{"search_metadata":{"status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, providers.CodeProviderError},
		{"out of searches", 429, `{"error":"Your account has run out of searches."}`, providers.CodeProviderAllowance},
		{"malformed", 200, `{"name":`, providers.CodeProviderError},
	}
	for _, tc := range failures {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.details = answer(t, tc.status, tc.body)
			rec := searchRecord(t, "{"+london+"}", 2)
			_, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, "{"+london+"}"), "details", &rec)
			if providertest.ErrorCode(err) != tc.code {
				t.Errorf("error = %v, want %s", err, tc.code)
			}
		})
	}

	for _, ref := range []string{"", `{}`, `not json`, `{"property_token":"t","q":"x","check_in_date":"2099-01-02","check_out_date":"2099-01-01","adults":2,"currency":"USD"}`,
		`{"property_token":" ","q":"x","check_in_date":"2099-01-01","check_out_date":"2099-01-02","adults":2,"currency":"USD"}`,
		`{"property_token":"t","q":"x","check_in_date":"2099-01-01","check_out_date":"2099-01-02","adults":0,"currency":"USD"}`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			f := newFake(t)
			rec := providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			_, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, "{"+london+"}"), "details", &rec)
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest || len(f.Requests()) != 0 {
				t.Errorf("error = %v after %d requests, want invalid_request without a call", err, len(f.Requests()))
			}
		})
	}
}

// TestExamples runs the shared conformance run over the examples in test mode (two pages, every
// record action on the first record), then each example live against a fake.
func TestExamples(t *testing.T) {
	providertest.Conformance{Providers: Providers(),
		Detail: func(t *testing.T, _ providers.Example, name string, _ *providers.Record, d *providers.Detail) {
			if b := d.Body.(*PropertyDetails); b.Description == "" || b.NearbyPlaces == nil || len(d.Links) < 2 {
				t.Errorf("%s = %v %v", name, b, d.Links)
			}
		},
		Done: func(t *testing.T, _ providers.Example, pages []*providers.Page) {
			if len(pages) != 2 {
				t.Errorf("%d sandbox pages, want 2 (the second is the last)", len(pages))
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
			f.search = answer(t, 200, "search.json")
			if _, err := providertest.ExecuteState(t, f.client(t), Search, providers.ModeLive, req, nil); err != nil {
				t.Fatal(err)
			}
			if got, want := f.Requests()[0].URL.Query(), query(stayOf(req).searchParams()); !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}

	t.Run("example stays start in the future", func(t *testing.T) {
		now := time.Date(2031, 7, 1, 23, 30, 0, 0, time.FixedZone("x", -5*3600))
		for _, ex := range examples(now) {
			in, out := ex.Body.Request()["check_in"].(string), ex.Body.Request()["check_out"].(string)
			if in <= "2031-07-02" || out <= in {
				t.Errorf("%s: %s to %s", ex.Title, in, out)
			}
		}
	})
}

func TestSandbox(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	req := prepare(t, `{"destination":"Lisbon","check_in":"2099-12-20","check_out":"2099-12-23"}`)
	page, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_lisbon", providertest.RecordsJSON(page))
	d, err := providertest.Action(t, client, Search, providers.ModeTest, req, "details", &page.Records[0])
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_details", d)
	next, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, page.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Records) != 3 || next.HasMore {
		t.Errorf("page 2: %d records, has_more %v", len(next.Records), next.HasMore)
	}

	t.Run("no results", func(t *testing.T) {
		page, err := providertest.Execute(t, client, Search, providers.ModeTest,
			`{"destination":"noresults village","check_in":"2099-12-20","check_out":"2099-12-23"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 0 || page.HasMore {
			t.Errorf("page = %+v", page)
		}
	})
}
