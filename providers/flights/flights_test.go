package flights

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
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

// fake is an httptest stand-in for SerpApi that records every request and answers search.json
// with one handler.
type fake struct {
	providertest.Upstream
	t      *testing.T
	mu     sync.Mutex
	handle func(w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T) *fake {
	f := &fake{t: t}
	f.Upstream = providertest.Upstream{TB: t, Answer: f.route}
	return f
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	h := f.handle
	f.mu.Unlock()
	serpapitest.CheckRequest(f.t, r, "google_flights")
	w.Header().Set("Content-Type", "application/json")
	if h == nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"no answer configured"}`))
		return
	}
	h(w, r)
}

// serve answers with a status and a body: a testdata fixture name, or literal JSON.
func (f *fake) serve(status int, body string) {
	f.t.Helper()
	b := providertest.Body(f.t, body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handle = func(w http.ResponseWriter, _ *http.Request) {
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

// wantQuery is the query every request carries, plus the given parameters.
func wantQuery(extra url.Values) url.Values {
	q := url.Values{"engine": {"google_flights"}, "output": {"json"}, "api_key": {testKey}, "hl": {"en"}}
	for k, v := range extra {
		q[k] = v
	}
	return q
}

// oneAdult are the passenger parameters of the defaults.
func oneAdult(extra url.Values) url.Values {
	q := url.Values{"adults": {"1"}, "children": {"0"}, "infants_in_seat": {"0"}, "infants_on_lap": {"0"}, "currency": {"USD"}}
	for k, v := range extra {
		q[k] = v
	}
	return wantQuery(q)
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Search
	if c.ID != "flights.search" || c.Topic != "Travel and places" || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("id/topic/texts = %q/%q", c.ID, c.Topic)
	}
	if c.Paging != providers.PagingSingle || c.Deadline != 15*time.Second || !c.NoUpdate {
		t.Errorf("paging %v deadline %v noupdate %v", c.Paging, c.Deadline, c.NoUpdate)
	}
	if len(c.SearchActions()) != 0 {
		t.Errorf("search actions = %v, want none (more refused, update not offered)", c.SearchActions())
	}
	if c.Cost.Typical != 4 || !strings.Contains(c.Cost.Basis, "$0.004") {
		t.Errorf("cost = %+v", c.Cost)
	}
	if !reflect.DeepEqual(c.Providers, []string{"serpapi"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	if len(c.Actions) != 1 || c.Actions[0].Name != "details" || c.Actions[0].Kind != providers.ActionLookup ||
		c.Actions[0].Credits != 4 || c.Actions[0].Run == nil || !strings.Contains(c.Actions[0].Description, "return_search") {
		t.Errorf("actions = %+v", c.Actions)
	}
	if len(c.Examples) < 3 {
		t.Errorf("%d examples, want one way, round trip and departure_token", len(c.Examples))
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Search {
		t.Errorf("Capabilities() = %v", got)
	}
	if p := Providers(); len(p) != 1 || p[0] != serpapi.Provider() {
		t.Errorf("Providers() = %v", p)
	}

	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["type"] != "object" ||
		!reflect.DeepEqual(doc["required"], []any{"origin", "destination", "departure_date"}) {
		t.Errorf("schema top level: %v", doc)
	}
	props := doc["properties"].(map[string]any)
	if len(props) != 12 {
		t.Errorf("%d properties: %v", len(props), props)
	}
	for name, raw := range props {
		if d, _ := raw.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	prop := func(name string) map[string]any { return props[name].(map[string]any) }
	for _, name := range []string{"origin", "destination"} {
		if p := prop(name); p["minLength"] != 3.0 || p["maxLength"] != 3.0 || p["pattern"] != "^[A-Za-z]{3}$" {
			t.Errorf("%s schema = %v", name, p)
		}
	}
	if p := prop("currency"); p["minLength"] != 3.0 || p["maxLength"] != 3.0 || p["default"] != "USD" {
		t.Errorf("currency schema = %v", p)
	}
	if p := prop("departure_token"); p["minLength"] != 1.0 || p["maxLength"] != 16384.0 {
		t.Errorf("departure_token schema = %v", p)
	}
	ints := map[string][3]any{"adults": {1.0, 9.0, 1.0}, "children": {0.0, 8.0, 0.0}, "infants_in_seat": {0.0, 8.0, 0.0},
		"infants_on_lap": {0.0, 8.0, 0.0}, "max_stops": {0.0, 2.0, nil}}
	for name, want := range ints {
		p := prop(name)
		if p["type"] != "integer" || p["minimum"] != want[0] || p["maximum"] != want[1] || p["default"] != want[2] {
			t.Errorf("%s schema = %v", name, p)
		}
	}
	if p := prop("cabin"); !reflect.DeepEqual(p["enum"], []any{"economy", "premium_economy", "business", "first"}) {
		t.Errorf("cabin schema = %v", p)
	}
}

func TestValidation(t *testing.T) {
	base := `"origin":"CDG","destination":"AUS","departure_date":"2027-03-03"`
	body := func(extra string) string {
		if extra == "" {
			return "{" + base + "}"
		}
		return "{" + base + "," + extra + "}"
	}
	long := strings.Repeat("A", 16384)
	cases := []struct {
		name  string
		body  string
		paths []string // nil: valid
	}{
		{"one way", body(""), nil},
		{"lower-case codes", `{"origin":"cdg","destination":"aus","departure_date":"2027-03-03"}`, nil},
		{"round trip, same day", body(`"return_date":"2027-03-03"`), nil},
		{"everything", body(`"return_date":"2027-03-10","departure_token":"W1siUEVLIl0=","adults":2,"children":3,
			"infants_in_seat":2,"infants_on_lap":2,"cabin":"premium_economy","max_stops":0,"currency":"eur"`), nil},
		{"nine passengers", body(`"adults":3,"children":3,"infants_in_seat":2,"infants_on_lap":1`), nil},
		{"token at 16384", body(`"return_date":"2027-03-10","departure_token":"` + long + `"`), nil},
		{"leap day", `{"origin":"CDG","destination":"AUS","departure_date":"2028-02-29"}`, nil},

		{"nothing", `{}`, []string{"/departure_date", "/destination", "/origin"}},
		{"origin two letters", `{"origin":"CD","destination":"AUS","departure_date":"2027-03-03"}`, []string{"/origin"}},
		{"origin four letters", `{"origin":"CDGX","destination":"AUS","departure_date":"2027-03-03"}`, []string{"/origin"}},
		{"destination with a digit", `{"origin":"CDG","destination":"A1S","departure_date":"2027-03-03"}`, []string{"/destination"}},
		{"date with slashes", `{"origin":"CDG","destination":"AUS","departure_date":"2027/03/03"}`, []string{"/departure_date"}},
		{"date with time", body(`"return_date":"2027-03-10T10:00"`), []string{"/return_date"}},
		{"token empty", body(`"return_date":"2027-03-10","departure_token":""`), []string{"/departure_token"}},
		{"token with a space", body(`"return_date":"2027-03-10","departure_token":"a b"`), []string{"/departure_token"}},
		{"token too long", body(`"return_date":"2027-03-10","departure_token":"` + long + `A"`), []string{"/departure_token"}},
		{"adults zero", body(`"adults":0`), []string{"/adults"}},
		{"adults ten", body(`"adults":10`), []string{"/adults"}},
		{"children nine", body(`"children":9`), []string{"/children"}},
		{"infants negative", body(`"infants_in_seat":-1`), []string{"/infants_in_seat"}},
		{"infants fraction", body(`"infants_on_lap":0.5`), []string{"/infants_on_lap"}},
		{"cabin unknown", body(`"cabin":"premium"`), []string{"/cabin"}},
		{"max_stops three", body(`"max_stops":3`), []string{"/max_stops"}},
		{"currency two letters", body(`"currency":"US"`), []string{"/currency"}},
		{"currency digits", body(`"currency":"123"`), []string{"/currency"}},
		{"unknown key", body(`"trip":"one_way"`), []string{"/trip"}},

		// rules beyond the schema
		{"departure date not on the calendar", `{"origin":"CDG","destination":"AUS","departure_date":"2027-02-29"}`, []string{"/departure_date"}},
		{"return date month 13", body(`"return_date":"2027-13-01"`), []string{"/return_date"}},
		{"year zero", `{"origin":"CDG","destination":"AUS","departure_date":"0000-01-01"}`, []string{"/departure_date"}},
		{"return before departure", body(`"return_date":"2027-03-02"`), []string{"/return_date"}},
		{"same airports", `{"origin":"aus","destination":"AUS","departure_date":"2027-03-03"}`, []string{"/destination"}},
		{"token without return date", body(`"departure_token":"W1siUEVLIl0="`), []string{"/departure_token"}},
		{"ten passengers, children cross", body(`"adults":2,"children":8`), []string{"/children"}},
		{"ten passengers, lap infant crosses", body(`"adults":5,"children":2,"infants_in_seat":2,"infants_on_lap":1`), []string{"/infants_on_lap"}},
		{"adults nine and an infant in seat", body(`"adults":9,"infants_in_seat":1`), []string{"/infants_in_seat"}},
		{"more lap infants than adults", body(`"adults":1,"infants_on_lap":2`), []string{"/infants_on_lap"}},
		{"lap infants default one adult", body(`"infants_on_lap":2`), []string{"/infants_on_lap"}},
		{"too many and lap infants", body(`"adults":2,"children":5,"infants_on_lap":3`), []string{"/infants_on_lap", "/infants_on_lap"}},
		{"several rules", `{"origin":"AUS","destination":"AUS","departure_date":"2027-03-03","return_date":"2027-02-30","departure_token":"x"}`,
			[]string{"/return_date", "/destination"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, Search, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if n, ok := req.Int("adults"); !ok || n < 1 || req.Str("currency") == "" {
					t.Errorf("defaults not applied: %v", req)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			if got := uniquePaths(err); !reflect.DeepEqual(got, uniq(tc.paths)) {
				t.Errorf("violation paths = %q, want %q", got, uniq(tc.paths))
			}
		})
	}

	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, body(""))
		want := providers.Request{"origin": "CDG", "destination": "AUS", "departure_date": "2027-03-03",
			"adults": json.Number("1"), "children": json.Number("0"), "infants_in_seat": json.Number("0"),
			"infants_on_lap": json.Number("0"), "currency": "USD"}
		if !reflect.DeepEqual(req, want) {
			t.Errorf("request = %#v", req)
		}
	})
	t.Run("rule messages", func(t *testing.T) {
		vs := rules(providers.Request{"origin": "CDG", "destination": "AUS", "departure_date": "2027-03-03",
			"return_date": "2027-03-01", "adults": 2, "children": 8}, nil)
		if len(vs) != 2 || !strings.Contains(vs[0].Message, "2027-03-01") || !strings.Contains(vs[0].Message, "2027-03-03") ||
			!strings.Contains(vs[1].Message, "at most 9") || !strings.Contains(vs[1].Message, "10") {
			t.Errorf("violations = %+v", vs)
		}
		vs = rules(providers.Request{"origin": "CDG", "destination": "cdg", "departure_date": "2027-03-03"}, nil)
		if len(vs) != 1 || vs[0].Path != "/destination" || !strings.Contains(vs[0].Message, "CDG") {
			t.Errorf("violations = %+v", vs)
		}
	})
}

// uniquePaths lists the distinct violation paths in order (one field may break two keywords).
func uniquePaths(err error) []string { return uniq(providertest.ViolationPaths(err)) }

func uniq(in []string) []string {
	var out []string
	for _, p := range in {
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

func TestSearchParameters(t *testing.T) {
	cases := []struct {
		name string
		body string
		want url.Values
	}{
		{"one way defaults", `{"origin":"cdg","destination":"aus","departure_date":"2027-03-03"}`,
			oneAdult(url.Values{"departure_id": {"CDG"}, "arrival_id": {"AUS"}, "outbound_date": {"2027-03-03"}, "type": {"2"}})},
		{"round trip with everything", `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03","return_date":"2027-03-10",
			"adults":2,"children":1,"infants_in_seat":1,"infants_on_lap":1,"cabin":"business","max_stops":0,"currency":"eur"}`,
			wantQuery(url.Values{"departure_id": {"CDG"}, "arrival_id": {"AUS"}, "outbound_date": {"2027-03-03"}, "return_date": {"2027-03-10"},
				"type": {"1"}, "adults": {"2"}, "children": {"1"}, "infants_in_seat": {"1"}, "infants_on_lap": {"1"},
				"travel_class": {"3"}, "stops": {"1"}, "currency": {"EUR"}})},
		{"premium economy, two stops", `{"origin":"JFK","destination":"ORD","departure_date":"2027-05-01","cabin":"premium_economy","max_stops":2}`,
			oneAdult(url.Values{"departure_id": {"JFK"}, "arrival_id": {"ORD"}, "outbound_date": {"2027-05-01"}, "type": {"2"},
				"travel_class": {"2"}, "stops": {"3"}})},
		{"economy, one stop", `{"origin":"JFK","destination":"ORD","departure_date":"2027-05-01","cabin":"economy","max_stops":1}`,
			oneAdult(url.Values{"departure_id": {"JFK"}, "arrival_id": {"ORD"}, "outbound_date": {"2027-05-01"}, "type": {"2"},
				"travel_class": {"1"}, "stops": {"2"}})},
		{"first class", `{"origin":"JFK","destination":"ORD","departure_date":"2027-05-01","cabin":"first"}`,
			oneAdult(url.Values{"departure_id": {"JFK"}, "arrival_id": {"ORD"}, "outbound_date": {"2027-05-01"}, "type": {"2"},
				"travel_class": {"4"}})},
		{"return flights", `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03","return_date":"2027-03-10","departure_token":"W1siUEVLIl0="}`,
			oneAdult(url.Values{"departure_id": {"CDG"}, "arrival_id": {"AUS"}, "outbound_date": {"2027-03-03"}, "return_date": {"2027-03-10"},
				"type": {"1"}, "departure_token": {"W1siUEVLIl0="}})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve(http.StatusOK, "search_oneway.json")
			if _, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			reqs := f.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("query =\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

func TestSearchMappingGolden(t *testing.T) {
	cases := []struct {
		name, fixture, body string
		records             int
		roundTrip           bool
		outbound            bool // records are outbound selections
	}{
		{"search_oneway", "search_oneway.json", `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03"}`, 5, false, false},
		{"search_roundtrip", "search_roundtrip.json", `{"origin":"PEK","destination":"AUS","departure_date":"2023-10-03","return_date":"2023-10-09"}`, 4, true, true},
		{"search_return", "search_return.json", `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03","return_date":"2027-03-10",
			"adults":2,"children":1,"max_stops":1,"departure_token":"` + exampleDepartureToken + `"}`, 3, true, false},
		{"search_odd", "search_odd.json", `{"origin":"JFK","destination":"ORD","departure_date":"2027-05-01","currency":"eur"}`, 3, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve(http.StatusOK, tc.fixture)
			page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			if len(page.Records) != tc.records || page.HasMore || page.Next != nil {
				t.Fatalf("%d records, has_more %v next %s; want %d and a single result", len(page.Records), page.HasMore, page.Next, tc.records)
			}
			for _, rec := range page.Records {
				checkRecord(t, rec, tc.roundTrip, tc.outbound)
			}
		})
	}
}

// checkRecord asserts the always-present keys, the absence of empty values and the Ref of a record.
func checkRecord(t *testing.T, rec providers.Record, roundTrip, outbound bool) {
	t.Helper()
	if rec.Title == "" || providertest.FieldsOf(t, &rec)["currency"] == nil || providertest.FieldsOf(t, &rec)["requested_passengers"] == nil || providertest.FieldsOf(t, &rec)["stops"] == nil {
		t.Errorf("record misses an always key: %+v", rec)
	}
	if len(rec.Data.(*FlightRecord).Legs) == 0 {
		t.Errorf("%q has no legs", rec.Title)
	}
	for k, v := range providertest.FieldsOf(t, &rec) {
		if v == "" || v == nil {
			t.Errorf("%q: empty %s", rec.Title, k)
		}
	}
	if nrs, has := providertest.FieldsOf(t, &rec)["needs_return_selection"]; has != roundTrip || (roundTrip && nrs != outbound && len(rec.Ref) > 0) {
		t.Errorf("%q: needs_return_selection %v (present %v), round trip %v", rec.Title, nrs, has, roundTrip)
	}
	if len(rec.Ref) == 0 {
		if rec.Actions == nil || len(rec.Actions) != 0 {
			t.Errorf("%q: no ref but actions %v", rec.Title, rec.Actions)
		}
		return
	}
	var ref recordRef
	if err := json.Unmarshal(rec.Ref, &ref); err != nil || len(ref.Query) == 0 || (ref.BookingToken == "") == (ref.DepartureToken == "") {
		t.Errorf("%q: ref %s", rec.Title, rec.Ref)
	}
	if outbound != (ref.DepartureToken != "") {
		t.Errorf("%q: departure token %q, outbound %v", rec.Title, ref.DepartureToken, outbound)
	}
}

func TestSearchEmptyAndErrors(t *testing.T) {
	body := `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03"}`
	empty := []struct{ name, answer string }{
		{"no results answer", `{"search_metadata":{"id":"1","status":"Success"},"error":"Google Flights hasn't returned any results for this query."}`},
		{"no flights at all", `{"search_metadata":{"id":"1","status":"Success"},"price_insights":{"lowest_price":1}}`},
		{"empty lists", `{"search_metadata":{"status":"Success"},"best_flights":[],"other_flights":null}`},
		{"lists of another type", `{"search_metadata":{"status":"Success"},"best_flights":{"0":{}},"other_flights":"none"}`},
	}
	for _, tc := range empty {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve(http.StatusOK, tc.answer)
			page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, body)
			if err != nil {
				t.Fatal(err)
			}
			if page.Records == nil || len(page.Records) != 0 || page.HasMore {
				t.Errorf("page = %+v", page)
			}
		})
	}

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
		{"out of searches", 429, `{"error":"Your account has run out of searches."}`, nil, providers.CodeProviderAllowance, false, "run out of searches"},
		{"hourly throughput", 429, `{"error":"You have exceeded the hourly throughput limit."}`, map[string]string{"Retry-After": "5"},
			providers.CodeRateLimited, true, "exceeded the hourly throughput"},
		{"bad request", 400, `{"error":"` + "`return_date`" + ` is required if ` + "`type`" + ` is ` + "`1`" + ` (Round trip)."}`, nil,
			providers.CodeProviderError, false, "return_date"},
		{"search failed in a 200", 200, `{"search_metadata":{"id":"64c32cfeb68f8bc186aaa013","status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, nil,
			providers.CodeProviderError, true, "couldn't get valid results"},
		{"other error without flights", 200, `{"search_metadata":{"status":"Success"},"error":"Unsupported currency parameter."}`, nil,
			providers.CodeProviderError, true, "Unsupported currency parameter."},
		{"html error page", 502, `<html><body>Bad Gateway</body></html>`, nil, providers.CodeProviderError, true, "HTTP 502"},
		{"malformed JSON", 200, `{"best_flights":[`, nil, providers.CodeProviderError, true, "malformed JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.handle = func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}
			_, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, body)
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

func TestNotes(t *testing.T) {
	cases := []struct {
		fixture, body string
		want          []string
	}{
		{"search_oneway.json", `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03"}`,
			[]string{"Google Flights rates the prices of this search as typical (typical range 480–690 USD); lowest price 520 USD."}},
		{"search_roundtrip.json", `{"origin":"PEK","destination":"AUS","departure_date":"2023-10-03","return_date":"2023-10-09"}`,
			[]string{"Round trip: these are outbound flights", "rates the prices of this search as high (typical range 1500–1900 USD); lowest price 2512 USD."}},
		{"search_return.json", `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03","return_date":"2027-03-10","departure_token":"x"}`,
			[]string{"These are return flights for the chosen outbound flight", "as low"}},
		{"search_odd.json", `{"origin":"JFK","destination":"ORD","departure_date":"2027-05-01"}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.fixture, func(t *testing.T) {
			f := newFake(t)
			f.serve(http.StatusOK, tc.fixture)
			page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Notes) != len(tc.want) {
				t.Fatalf("notes = %q, want %d", page.Notes, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(page.Notes[i], w) {
					t.Errorf("note %d = %q, want it to contain %q", i, page.Notes[i], w)
				}
			}
		})
	}
}

func TestDuration(t *testing.T) {
	for min, want := range map[int64]string{45: "45m", 60: "1h", 330: "5h 30m", 820: "13h 40m", 1: "1m", 2370: "39h 30m"} {
		if got := duration(min); got != want {
			t.Errorf("duration(%d) = %q, want %q", min, got, want)
		}
	}
}

// searchRecords runs a search over a fixture and returns its records.
func searchRecords(t *testing.T, fixture, body string) []providers.Record {
	t.Helper()
	f := newFake(t)
	f.serve(http.StatusOK, fixture)
	page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, body)
	if err != nil {
		t.Fatal(err)
	}
	return page.Records
}

func TestBookingDetails(t *testing.T) {
	oneWay := `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03","cabin":"economy"}`
	returnBody := `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03","return_date":"2027-03-10","adults":2,"children":1,"max_stops":1,"departure_token":"` + exampleDepartureToken + `"}`

	t.Run("one way golden", func(t *testing.T) {
		rec := searchRecords(t, "search_oneway.json", oneWay)[0]
		f := newFake(t)
		f.serve(http.StatusOK, "booking_oneway.json")
		d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, nil, "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "booking_oneway", d)
		if d.Credits != nil {
			t.Errorf("credits = %d, want the action's 4", *d.Credits)
		}
		reqs := f.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests, want 1", len(reqs))
		}
		want := oneAdult(url.Values{"departure_id": {"CDG"}, "arrival_id": {"AUS"}, "outbound_date": {"2027-03-03"}, "type": {"2"},
			"travel_class": {"1"}, "booking_token": {bookingToken(t, rec)}})
		if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, want) {
			t.Errorf("query =\n%v\nwant\n%v", got, want)
		}
		body := d.Body.(*BookingDetails)
		if opts := body.BookingOptions; len(opts) != 3 || opts[0].BookWith != "British Airways" {
			t.Errorf("booking options = %v", opts)
		}
		if len(d.Links) != 1 || d.Links[0].Label != "Google Flights booking page" {
			t.Errorf("links = %v", d.Links)
		}
	})

	t.Run("return flight, separate tickets golden", func(t *testing.T) {
		rec := searchRecords(t, "search_return.json", returnBody)[0]
		f := newFake(t)
		f.serve(http.StatusOK, "booking_separate.json")
		d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, nil, "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "booking_separate", d)
		q := f.Requests()[0].URL.Query()
		if q.Has("departure_token") || q.Get("booking_token") != bookingToken(t, rec) || q.Get("return_date") != "2027-03-10" ||
			q.Get("adults") != "2" || q.Get("children") != "1" || q.Get("type") != "1" {
			t.Errorf("query = %v (booking_token must replace departure_token)", q)
		}
		opts := d.Body.(*BookingDetails).BookingOptions
		if len(opts) != 2 || opts[1].Tickets != "separate" || opts[1].Price == nil || *opts[1].Price != 883.0 {
			t.Errorf("options = %v", opts)
		}
		wantLinks := []providers.Link{
			{Label: "Google Flights booking page", URL: "https://www.google.com/travel/flights?hl=en&gl=us&curr=USD&tfs=CBwQAhqCARIKMjAyNS0wOS0wOSIeCgNTSU4SCjIwMjUtMDktMDkaA1lWUioCQUMyAjIw&tfu=EgIIAQ"},
			{Label: "Book with Trip.com", URL: "https://www.trip.com/flights/booking?token=dep123"},
		}
		if !reflect.DeepEqual(d.Links, wantLinks) {
			t.Errorf("links = %v", d.Links)
		}
	})

	failures := []struct {
		name   string
		status int
		body   string
		code   providers.Code
	}{
		{"no options", 200, `{"search_metadata":{"status":"Success"},"selected_flights":[],"booking_options":[]}`, providers.CodeNotFound},
		{"only unnamed options", 200, `{"search_metadata":{"status":"Success"},"booking_options":[{"together":{"price":5}}]}`, providers.CodeNotFound},
		{"no results answer", 200, `{"search_metadata":{"status":"Success"},"error":"Google Flights hasn't returned any results for this query."}`, providers.CodeNotFound},
		{"error without options", 200, `{"search_metadata":{"status":"Success"},"error":"Invalid booking_token."}`, providers.CodeProviderError},
		{"search failed", 503, `{"search_metadata":{"status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, providers.CodeProviderError},
		{"out of searches", 429, `{"error":"Your account has run out of searches."}`, providers.CodeProviderAllowance},
		{"malformed", 200, `{"booking_options":`, providers.CodeProviderError},
	}
	for _, tc := range failures {
		t.Run(tc.name, func(t *testing.T) {
			rec := searchRecords(t, "search_oneway.json", oneWay)[1]
			f := newFake(t)
			f.serve(tc.status, tc.body)
			_, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, nil, "details", &rec)
			if providertest.ErrorCode(err) != tc.code {
				t.Errorf("error = %v, want %s", err, tc.code)
			}
		})
	}

	for _, ref := range []string{"", `{}`, `not json`, `{"booking_token":"x"}`, `{"booking_token":"x","query":"nope"}`, `{"query":{"origin":"CDG"}}`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			f := newFake(t)
			rec := providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			_, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, nil, "details", &rec)
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Errorf("error = %v, want invalid_request", err)
			}
			if len(f.Requests()) != 0 {
				t.Error("called the upstream without a token")
			}
		})
	}
}

func bookingToken(t *testing.T, rec providers.Record) string {
	t.Helper()
	var ref recordRef
	if err := json.Unmarshal(rec.Ref, &ref); err != nil || ref.BookingToken == "" {
		t.Fatalf("record %q has no booking token: %s", rec.Title, rec.Ref)
	}
	return ref.BookingToken
}

func TestReturnSearch(t *testing.T) {
	body := `{"origin":"pek","destination":"aus","departure_date":"2023-10-03","return_date":"2023-10-09","adults":2,"cabin":"business","currency":"usd"}`
	recs := searchRecords(t, "search_roundtrip.json", body)
	for i, rec := range recs {
		f := newFake(t)
		d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, nil, "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Requests()) != 0 {
			t.Errorf("return_search called the upstream")
		}
		if d.Credits == nil || *d.Credits != 0 || d.Links == nil || len(d.Links) != 0 {
			t.Errorf("credits %v links %v, want 0 and []", d.Credits, d.Links)
		}
		rs := d.Body.(*ReturnSearchDetail).ReturnSearch
		params := rs.Params
		if rs.Capability != "flights.search" {
			t.Errorf("capability = %v", rs.Capability)
		}
		var fixture struct {
			Best []struct {
				DepartureToken string `json:"departure_token"`
			} `json:"best_flights"`
			Other []struct {
				DepartureToken string `json:"departure_token"`
			} `json:"other_flights"`
		}
		_ = json.Unmarshal(providertest.Fixture(t, "search_roundtrip.json"), &fixture)
		tokens := append(fixture.Best, fixture.Other...)
		want := providers.Request{"origin": "PEK", "destination": "AUS", "departure_date": "2023-10-03", "return_date": "2023-10-09",
			"adults": json.Number("2"), "children": json.Number("0"), "infants_in_seat": json.Number("0"), "infants_on_lap": json.Number("0"),
			"cabin": "business", "currency": "USD", "departure_token": tokens[i].DepartureToken}
		if !reflect.DeepEqual(params, want) {
			t.Errorf("params =\n%#v\nwant\n%#v", params, want)
		}
		// The body validates and executes: its query asks SerpApi for the return flights.
		b, _ := json.Marshal(params)
		f.serve(http.StatusOK, "search_return.json")
		page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, string(b))
		if err != nil || len(page.Records) == 0 {
			t.Fatalf("return search: %v", err)
		}
		q := f.Requests()[0].URL.Query()
		if q.Get("departure_token") != tokens[i].DepartureToken || q.Get("type") != "1" || q.Get("travel_class") != "3" || q.Get("adults") != "2" {
			t.Errorf("return search query = %v", q)
		}
	}

	t.Run("a departure token the schema cannot carry gives no details", func(t *testing.T) {
		long := strings.Repeat("A", maxTokenLen+1)
		f := newFake(t)
		f.serve(http.StatusOK, `{"search_metadata":{"status":"Success"},"best_flights":[
			{"flights":[{"departure_airport":{"id":"PEK","time":"2023-10-03 15:10"},"arrival_airport":{"id":"AUS","time":"2023-10-03 23:59"}}],"price":1,"departure_token":"`+long+`"},
			{"flights":[{"departure_airport":{"id":"PEK"},"arrival_airport":{"id":"AUS"}}],"price":2,"departure_token":"a b"}]}`)
		page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, body)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range page.Records {
			if rec.Ref != nil || rec.Actions == nil || len(rec.Actions) != 0 || providertest.FieldsOf(t, &rec)["needs_return_selection"] != false {
				t.Errorf("%q: ref %s actions %v needs_return_selection %v", rec.Title, rec.Ref, rec.Actions, providertest.FieldsOf(t, &rec)["needs_return_selection"])
			}
		}
	})
}

func TestExamples(t *testing.T) {
	if body := Search.Examples[2].Body.Request(); body["departure_token"] != exampleDepartureToken {
		t.Fatalf("third example carries no departure_token: %v", body)
	}
	for _, ex := range Search.Examples {
		b, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		req := prepare(t, string(b))
		t.Run("sandbox: "+ex.Title, func(t *testing.T) {
			client := providertest.Client(t, Providers(), nil, nil)
			runSandboxChain(t, client, req, 0)
		})
		t.Run("live: "+ex.Title, func(t *testing.T) {
			f := newFake(t)
			f.serve(http.StatusOK, "search_oneway.json")
			page, err := providertest.ExecuteState(t, f.client(t), Search, providers.ModeLive, req, nil)
			if err != nil || len(page.Records) == 0 {
				t.Fatalf("page %v err %v", page, err)
			}
			if got, want := f.Requests()[0].URL.Query(), wantQuery(searchParams(req)); !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

// runSandboxChain executes a request in the sandbox, then every action on its first record; a
// return_search answer is validated and executed in turn (as the gateway would let a caller do).
func runSandboxChain(t *testing.T, client *providers.Client, req providers.Request, depth int) {
	t.Helper()
	if depth > 2 {
		t.Fatal("the sandbox chain does not end")
	}
	page, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) == 0 || page.HasMore {
		t.Fatalf("%d records, has_more %v", len(page.Records), page.HasMore)
	}
	rec := page.Records[0]
	actions := rec.Actions
	if actions == nil {
		actions = Search.ActionNames()
	}
	if len(actions) == 0 {
		t.Fatalf("the first record %q has no action", rec.Title)
	}
	for _, name := range actions {
		d, err := providertest.Action(t, client, Search, providers.ModeTest, req, name, &rec)
		if err != nil {
			t.Fatalf("%s on %q: %v", name, rec.Title, err)
		}
		if rs, ok := d.Body.(*ReturnSearchDetail); ok {
			b, _ := json.Marshal(rs.ReturnSearch.Params)
			next := prepare(t, string(b))
			runSandboxChain(t, client, next, depth+1)
			continue
		}
		if body, _ := d.Body.(*BookingDetails); body == nil || len(body.BookingOptions) == 0 || len(d.Links) == 0 {
			t.Errorf("details = %v %v", d.Body, d.Links)
		}
	}
}

func TestSandbox(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	page, err := providertest.Execute(t, client, Search, providers.ModeTest, `{"origin":"CDG","destination":"AUS","departure_date":"2027-03-03"}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_oneway", providertest.RecordsJSON(page))
	d, err := providertest.Action(t, client, Search, providers.ModeTest, nil, "details", &page.Records[0])
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_booking", d)

	ret, err := providertest.Execute(t, client, Search, providers.ModeTest, mustJSON(t, Search.Examples[2].Body))
	if err != nil {
		t.Fatal(err)
	}
	if len(ret.Records) != 3 || providertest.FieldsOf(t, &ret.Records[0])["needs_return_selection"] != false || !strings.HasPrefix(ret.Records[0].Title, "British Airways: AUS") {
		t.Errorf("sandbox return flights = %+v", ret.Records)
	}
}

// TestRoundTripSandboxFixture checks roundtrip.json, the sandbox answer of a round-trip search:
// its first outbound's return_search is exactly the third example.
func TestRoundTripSandboxFixture(t *testing.T) {
	b, err := os.ReadFile("../upstream/serpapi/sandbox/google_flights/roundtrip.json")
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t)
	f.serve(http.StatusOK, string(b))
	page, err := providertest.Execute(t, f.client(t), Search, providers.ModeLive, mustJSON(t, Search.Examples[1].Body))
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_roundtrip", providertest.RecordsJSON(page))
	for _, rec := range page.Records {
		checkRecord(t, rec, true, true)
	}
	d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, nil, "details", &page.Records[0])
	if err != nil {
		t.Fatal(err)
	}
	params := d.Body.(*ReturnSearchDetail).ReturnSearch.Params
	want := prepare(t, mustJSON(t, Search.Examples[2].Body))
	if !reflect.DeepEqual(params, want) {
		t.Errorf("return_search params =\n%#v\nthird example =\n%#v", params, want)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
