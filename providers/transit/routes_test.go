package transit

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const (
	wantUA  = "capgate/test (+tests@example.com)"
	testKey = "routes-test-key"
)

func init() {
	now = func() time.Time { return time.Date(2026, 3, 2, 15, 30, 0, 0, time.UTC) }
}

// fake stands in for the Routes API: it checks what every request carries, records the bodies
// and answers with a status, headers and a body.
type fake struct {
	providertest.Upstream
	t      *testing.T
	status int
	header http.Header
	body   []byte
}

func newFake(t *testing.T, status int, body string) *fake {
	t.Helper()
	b := []byte(body)
	if !strings.HasPrefix(body, "{") {
		b = providertest.Fixture(t, body)
	}
	f := &fake{t: t, status: status, body: b, header: http.Header{}}
	f.Upstream = providertest.Upstream{TB: t, Answer: f.route}
	return f
}

// decodeBody decodes the JSON body of a request.
func decodeBody(r *http.Request) (map[string]any, error) {
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, fmt.Errorf("%w: %s", err, b)
	}
	return body, nil
}

// bodies are the JSON bodies f received.
func (f *fake) bodies() []map[string]any {
	var out []map[string]any
	for _, r := range f.Requests() {
		body, _ := decodeBody(r)
		out = append(out, body)
	}
	return out
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/directions/v2:computeRoutes" || r.URL.RawQuery != "" {
		f.t.Errorf("request %s %s?%s, want POST /directions/v2:computeRoutes without a query", r.Method, r.URL.Path, r.URL.RawQuery)
	}
	for k, want := range map[string]string{"X-Goog-Api-Key": testKey, "X-Goog-FieldMask": fieldMask,
		"Content-Type": "application/json", "User-Agent": wantUA} {
		if got := r.Header.Get(k); got != want {
			f.t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if _, err := decodeBody(r); err != nil {
		f.t.Errorf("body is not JSON: %v", err)
	}
	for k, vs := range f.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = w.Write(f.body)
}

func (f *fake) client(t *testing.T) *providers.Client {
	return providertest.Client(t, Providers(), map[string]http.Handler{ProviderID: f}, map[string]string{ProviderID: testKey})
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Routes
	if c.ID != "transit.routes" || c.Topic != "Travel and places" || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("id/topic/texts = %q/%q", c.ID, c.Topic)
	}
	if c.Paging != providers.PagingLocal || c.Deadline != 40*time.Second || c.NoUpdate || c.Cost.Typical != 4 || c.Cost.Basis == "" {
		t.Errorf("paging %v deadline %v noupdate %v cost %+v", c.Paging, c.Deadline, c.NoUpdate, c.Cost)
	}
	if !reflect.DeepEqual(c.Providers, []string{"googleroutes"}) || len(Providers()) != 1 || Providers()[0].ID != "googleroutes" ||
		!Providers()[0].KeyRequired || Providers()[0].BaseURL != "https://routes.googleapis.com" {
		t.Errorf("providers = %v", c.Providers)
	}
	if len(c.Actions) != 1 || c.Actions[0].Name != "details" || c.Actions[0].Kind != providers.ActionStored || c.Actions[0].Description == "" {
		t.Errorf("actions = %+v", c.Actions)
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Routes {
		t.Errorf("Capabilities() = %v", got)
	}
	doc := c.Schema().Doc
	props := doc["properties"].(map[string]any)
	if doc["additionalProperties"] != false || len(props) != 8 || !reflect.DeepEqual(doc["required"], []any{"origin", "destination"}) {
		t.Errorf("schema: %v", doc)
	}
	if p := props["num"].(map[string]any); p["minimum"] != 1.0 || p["maximum"] != 10.0 || p["default"] != 5.0 {
		t.Errorf("num = %v", p)
	}
	if p := props["preference"].(map[string]any); p["default"] != "best" ||
		!reflect.DeepEqual(p["enum"], []any{"best", "fewer_transfers", "less_walking", "wheelchair_accessible"}) {
		t.Errorf("preference = %v", p)
	}
	if p := props["prefer"].(map[string]any); p["minItems"] != 1.0 || p["maxItems"] != 4.0 || p["uniqueItems"] != true {
		t.Errorf("prefer = %v", p)
	}
	for name, raw := range props {
		if d, _ := raw.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
}

func TestValidation(t *testing.T) {
	long := strings.Repeat("a", 201)
	cases := []struct {
		name  string
		body  string
		paths []string // nil: valid
	}{
		{"names", `{"origin":"Kitsilano","destination":"SFU"}`, nil},
		{"coordinates", `{"origin":{"lat":49.26,"lon":-123.17},"destination":{"lat":-90,"lon":180}}`, nil},
		{"everything", `{"origin":"a","destination":"b","time":{"mode":"depart_at","at":"2026-03-02T08:30:00-08:00"},
			"preference":"less_walking","prefer":["bus","subway","train","tram_and_light_rail"],"country":"ca","language":"de-CH","num":10}`, nil},
		{"arrive_by Z", `{"origin":"a","destination":"b","time":{"mode":"arrive_by","at":"2026-03-02T16:30:00.5Z"}}`, nil},
		{"last_available", `{"origin":"a","destination":"b","time":{"mode":"last_available"}}`, nil},
		{"wheelchair", `{"origin":"a","destination":"b","preference":"wheelchair_accessible"}`, nil},

		{"no origin", `{"destination":"b"}`, []string{"/origin"}},
		{"no places", `{}`, []string{"/destination", "/origin"}},
		{"blank origin", `{"origin":"   ","destination":"b"}`, []string{"/origin"}},
		{"empty destination", `{"origin":"a","destination":""}`, []string{"/destination"}},
		{"origin too long", `{"origin":"` + long + `","destination":"b"}`, []string{"/origin"}},
		// oneOf: the string branch fails at the place, the object branch at its key.
		{"lat out of range", `{"origin":{"lat":91,"lon":0},"destination":"b"}`, []string{"/origin", "/origin/lat"}},
		{"lon missing", `{"origin":{"lat":1},"destination":"b"}`, []string{"/origin", "/origin/lon"}},
		{"extra coordinate key", `{"origin":{"lat":1,"lon":2,"alt":3},"destination":"b"}`, []string{"/origin", "/origin/alt"}},
		{"origin a number", `{"origin":5,"destination":"b"}`, []string{"/origin"}},
		{"time without mode", `{"origin":"a","destination":"b","time":{"at":"2026-03-02T08:30:00Z"}}`, []string{"/time/mode"}},
		{"depart_at without at", `{"origin":"a","destination":"b","time":{"mode":"depart_at"}}`, []string{"/time/at"}},
		{"arrive_by without at", `{"origin":"a","destination":"b","time":{"mode":"arrive_by"}}`, []string{"/time/at"}},
		{"unknown mode", `{"origin":"a","destination":"b","time":{"mode":"now"}}`, []string{"/time/mode"}},
		{"no offset", `{"origin":"a","destination":"b","time":{"mode":"depart_at","at":"2026-03-02T08:30:00"}}`, []string{"/time/at"}},
		{"date only", `{"origin":"a","destination":"b","time":{"mode":"depart_at","at":"2026-03-02"}}`, []string{"/time/at"}},
		{"at too long", `{"origin":"a","destination":"b","time":{"mode":"depart_at","at":"2026-03-02T08:30:00.000000000000000000000+01:00"}}`, []string{"/time/at"}},
		{"time extra key", `{"origin":"a","destination":"b","time":{"mode":"depart_at","at":"2026-03-02T08:30:00Z","zone":"x"}}`, []string{"/time/zone"}},
		{"time a string", `{"origin":"a","destination":"b","time":"now"}`, []string{"/time"}},
		{"preference unknown", `{"origin":"a","destination":"b","preference":"fastest"}`, []string{"/preference"}},
		{"prefer empty", `{"origin":"a","destination":"b","prefer":[]}`, []string{"/prefer"}},
		{"prefer duplicate", `{"origin":"a","destination":"b","prefer":["bus","bus"]}`, []string{"/prefer"}},
		{"prefer unknown", `{"origin":"a","destination":"b","prefer":["ferry"]}`, []string{"/prefer/0"}},
		{"country three letters", `{"origin":"a","destination":"b","country":"CAN"}`, []string{"/country"}},
		{"language too short", `{"origin":"a","destination":"b","language":"e"}`, []string{"/language"}},
		{"language too long", `{"origin":"a","destination":"b","language":"en-US-abcdefg"}`, []string{"/language"}},
		{"num 0", `{"origin":"a","destination":"b","num":0}`, []string{"/num"}},
		{"num 11", `{"origin":"a","destination":"b","num":11}`, []string{"/num"}},
		{"unknown key", `{"origin":"a","destination":"b","mode":"transit"}`, []string{"/mode"}},

		// rules beyond the schema
		{"at not a real date", `{"origin":"a","destination":"b","time":{"mode":"depart_at","at":"2026-02-30T08:30:00Z"}}`, []string{"/time/at"}},
		{"at with last_available", `{"origin":"a","destination":"b","time":{"mode":"last_available","at":"2026-03-02T08:30:00Z"}}`, []string{"/time/at"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, Routes, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if n, _ := req.Int("num"); n < 1 || req.Str("preference") == "" {
					t.Errorf("defaults not applied: %v", req)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			if got := uniquePaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %q, want %q (%v)", got, tc.paths, err)
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		req, err := providertest.Prepare(t, Routes, `{"origin":"a","destination":"b"}`)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := req.Int("num"); n != 5 || req.Str("preference") != "best" || len(req) != 4 {
			t.Errorf("request = %v", req)
		}
	})
}

// uniquePaths lists the distinct violation paths in sorted order.
func uniquePaths(err error) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range providertest.ViolationPaths(err) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

func TestRequestBody(t *testing.T) {
	cases := []struct {
		name string
		body string
		want map[string]any
	}{
		{"names, leave now", `{"origin":"  Kitsilano, Vancouver ","destination":"SFU"}`, map[string]any{
			"origin": map[string]any{"address": "Kitsilano, Vancouver"}, "destination": map[string]any{"address": "SFU"},
			"travelMode": "TRANSIT", "computeAlternativeRoutes": true}},
		{"coordinates, depart at, preferences", `{"origin":{"lat":49.26,"lon":-123.17},"destination":{"lat":49.28,"lon":-122.92},
			"time":{"mode":"depart_at","at":"2026-03-02T07:30:00-08:00"},"preference":"fewer_transfers","prefer":["tram_and_light_rail","bus"],
			"country":"CA","language":"fr-CA"}`, map[string]any{
			"origin":      map[string]any{"location": map[string]any{"latLng": map[string]any{"latitude": 49.26, "longitude": -123.17}}},
			"destination": map[string]any{"location": map[string]any{"latLng": map[string]any{"latitude": 49.28, "longitude": -122.92}}},
			"travelMode":  "TRANSIT", "computeAlternativeRoutes": true, "departureTime": "2026-03-02T15:30:00Z",
			"transitPreferences": map[string]any{"allowedTravelModes": []any{"LIGHT_RAIL", "BUS"}, "routingPreference": "FEWER_TRANSFERS"},
			"regionCode":         "ca", "languageCode": "fr-CA"}},
		{"arrive by, less walking", `{"origin":"a","destination":"b","time":{"mode":"arrive_by","at":"2026-03-02T09:00:00.250+01:00"},"preference":"less_walking"}`,
			map[string]any{"origin": map[string]any{"address": "a"}, "destination": map[string]any{"address": "b"},
				"travelMode": "TRANSIT", "computeAlternativeRoutes": true, "arrivalTime": "2026-03-02T08:00:00.25Z",
				"transitPreferences": map[string]any{"routingPreference": "LESS_WALKING"}}},
		{"last_available and wheelchair send no time or preference", `{"origin":"a","destination":"b","time":{"mode":"last_available"},"preference":"wheelchair_accessible"}`,
			map[string]any{"origin": map[string]any{"address": "a"}, "destination": map[string]any{"address": "b"},
				"travelMode": "TRANSIT", "computeAlternativeRoutes": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, http.StatusOK, "computeRoutes_vancouver.json")
			if _, err := providertest.Execute(t, f.client(t), Routes, providers.ModeLive, tc.body); err != nil {
				t.Fatal(err)
			}
			if len(f.bodies()) != 1 || !reflect.DeepEqual(f.bodies()[0], tc.want) {
				t.Errorf("body = %v\nwant   %v", f.bodies(), tc.want)
			}
		})
	}
}

func TestMappingGolden(t *testing.T) {
	cases := []struct{ name, fixture, body string }{
		// Route 2 arrives at 17:01:40Z, after the asked 17:00Z: not_met; the others honored.
		{"vancouver_arrive_by", "computeRoutes_vancouver.json",
			`{"origin":"Kitsilano, Vancouver","destination":"SFU Burnaby Campus","time":{"mode":"arrive_by","at":"2026-03-02T09:00:00-08:00"}}`},
		// Route 1 leaves at 15:37:10Z, before the asked 15:39Z (beyond the minute of tolerance):
		// not_met; routes 2 (15:44:01Z) and 3 (15:40:40Z) honored.
		{"vancouver_depart_at", "computeRoutes_vancouver.json",
			`{"origin":"2700 W Broadway, Vancouver","destination":"SFU","time":{"mode":"depart_at","at":"2026-03-02T07:39:00-08:00"}}`},
		{"newyork_last_available_wheelchair", "computeRoutes_newyork.json",
			`{"origin":{"lat":40.7484,"lon":-73.9857},"destination":{"lat":40.7033,"lon":-74.017},"time":{"mode":"last_available"},"preference":"wheelchair_accessible"}`},
		{"odd", "computeRoutes_odd.json", `{"origin":"Main St","destination":"Downtown"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, http.StatusOK, tc.fixture)
			page, err := providertest.Execute(t, f.client(t), Routes, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if page.HasMore || page.Next != nil {
				t.Errorf("local paging returns everything at once: has_more %v next %s", page.HasMore, page.Next)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			for _, rec := range page.Records {
				for _, k := range []string{"requested_time_status", "source", "fetched_at", "realtime_status"} {
					if s, _ := providertest.FieldsOf(t, &rec)[k].(string); s == "" {
						t.Errorf("%q: always key %s missing", rec.Title, k)
					}
				}
				for k, v := range providertest.FieldsOf(t, &rec) {
					if v == "" || v == nil {
						t.Errorf("%q: empty %s", rec.Title, k)
					}
				}
				if rec.Stored["details"] == nil || rec.Title == "" {
					t.Errorf("record without title or stored details: %+v", rec)
				}
			}
		})
	}
}

func TestRecordValues(t *testing.T) {
	f := newFake(t, http.StatusOK, "computeRoutes_vancouver.json")
	page, err := providertest.Execute(t, f.client(t), Routes, providers.ModeLive,
		`{"origin":"a","destination":"b","time":{"mode":"arrive_by","at":"2026-03-02T09:00:00-08:00"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 3 {
		t.Fatalf("%d records, want 3", len(page.Records))
	}
	statuses := []string{}
	for _, r := range page.Records {
		statuses = append(statuses, r.Data.(*RouteRecord).RequestedTimeStatus)
	}
	if !reflect.DeepEqual(statuses, []string{"honored", "not_met", "honored"}) {
		t.Errorf("statuses = %v", statuses)
	}
	for at, want := range map[string][]string{
		"2026-03-02T07:38:00-08:00": {"honored", "honored", "honored"}, // 15:37:10Z is within the minute of tolerance
		"2026-03-02T07:39:00-08:00": {"not_met", "honored", "honored"},
		"2026-03-02T15:42:00Z":      {"not_met", "honored", "not_met"},
	} {
		q, err := buildQuery(providers.Request{"origin": "a", "destination": "b", "time": map[string]any{"mode": "depart_at", "at": at}})
		if err != nil {
			t.Fatal(err)
		}
		var ans computeRoutesResponse
		if err := json.Unmarshal(providertest.Fixture(t, "computeRoutes_vancouver.json"), &ans); err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, r := range ans.Routes {
			got = append(got, itineraryRecord(q, i, r, now()).Data.(*RouteRecord).RequestedTimeStatus)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("depart_at %s: statuses %v, want %v", at, got, want)
		}
	}
	r := page.Records[0]
	secs, meters := int64(4760), int64(23895)
	want := &RouteRecord{DurationSeconds: &secs, DistanceM: &meters, DurationLabel: "1 hour 19 mins",
		DistanceLabel: "23.9 km", RequestedTime: "2026-03-02T09:00:00-08:00", Lines: []string{"Bus 014", "Bus R5"},
		TimeWindow: &TimeWindow{Departure: "2026-03-02T15:37:10Z", Arrival: "2026-03-02T16:56:30Z", TimeZone: "America/Vancouver"},
		Source:     "google_routes", FetchedAt: "2026-03-02T15:30:00Z", RealtimeStatus: "unknown", RequestedTimeStatus: "honored"}
	if !reflect.DeepEqual(r.Data, want) {
		t.Errorf("record = %+v\nwant     %+v", r.Data, want)
	}
	it := r.Stored["details"].Body.(itinerary)
	if *it.Transfers != 1 || len(it.Segments) != 5 || it.Segments[0].Mode != "walk" || *it.Segments[0].DistanceM != 205 ||
		*it.Segments[0].DurationSeconds != 170 || it.Segments[0].Instruction != "Walk to EB W Broadway @ Bayswater St" ||
		it.Segments[1].Line != "Bus 014" || *it.Segments[1].StopCount != 17 || *it.Segments[1].HeadwaySeconds != 600 ||
		it.Fare == nil || *it.Fare.Amount != 4.55 || it.Fare.Currency != "CAD" || it.Fare.Label != "CA$4.55" {
		t.Errorf("itinerary = %+v", it)
	}
	links := r.Stored["details"].Links
	if len(links) != 2 || links[0].URL != "https://www.google.com/maps/dir/?api=1&destination=b&origin=a&travelmode=transit" ||
		links[1].URL != "https://www.translink.ca/" || r.URL != links[0].URL {
		t.Errorf("links = %+v url %s", links, r.URL)
	}
}

func TestUpstreamErrors(t *testing.T) {
	body := `{"origin":"Nowhere Special","destination":"b"}`
	cases := []struct {
		name      string
		status    int
		header    http.Header
		fixture   string
		code      providers.Code
		retryable bool
		paths     []string
		message   string
	}{
		{"key invalid", 400, nil, "error_api_key_invalid.json", providers.CodeProviderError, false, nil, "API key not valid"},
		{"invalid argument names the time", 400, nil, "error_invalid_argument.json", providers.CodeInvalidRequest, false, []string{"/time/at"}, "Invalid arrival_time"},
		{"service disabled", 403, nil, "error_permission_denied.json", providers.CodeProviderError, false, nil, "Routes API has not been used"},
		{"throttled with Retry-After", 429, http.Header{"Retry-After": {"3"}}, "error_resource_exhausted.json", providers.CodeRateLimited, true, nil, "Quota exceeded"},
		{"quota without Retry-After", 429, nil, "error_resource_exhausted.json", providers.CodeProviderAllowance, false, nil, "Quota exceeded"},
		{"internal", 500, nil, "error_internal.json", providers.CodeProviderError, true, nil, "Internal error encountered"},
		{"origin not geocoded", 200, nil, "geocoding_not_found.json", providers.CodeInvalidRequest, false, []string{"/origin"}, "Address not found"},
		{"malformed", 200, nil, `{"routes": [`, providers.CodeProviderError, true, nil, "malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.status, tc.fixture)
			f.header = tc.header
			_, err := providertest.Execute(t, f.client(t), Routes, providers.ModeLive, body)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code || e.IsRetryable() != tc.retryable || !strings.Contains(e.Message, tc.message) {
				t.Fatalf("error = %v (retryable %v), want %s retryable %v containing %q", err, ok && e.IsRetryable(), tc.code, tc.retryable, tc.message)
			}
			if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, tc.paths) && (len(got) != 0 || tc.paths != nil) {
				t.Errorf("paths = %v, want %v", got, tc.paths)
			}
		})
	}
	t.Run("no route", func(t *testing.T) {
		f := newFake(t, http.StatusOK, `{}`)
		page, err := providertest.Execute(t, f.client(t), Routes, providers.ModeLive, body)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 0 || page.HasMore || len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "no transit itinerary") {
			t.Errorf("page = %+v", page)
		}
	})
}

func TestSeconds(t *testing.T) {
	for in, want := range map[string]int64{"0s": 0, "1234s": 1234, "12.5s": 13, " 60s ": 60} {
		if got, ok := seconds(in); !ok || got != want {
			t.Errorf("seconds(%q) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "12", "abc s", "-5s", "NaNs"} {
		if _, ok := seconds(in); ok {
			t.Errorf("seconds(%q) accepted", in)
		}
	}
}

// TestSandboxExamples runs every example as the gateway does with a test key, then the details
// of the first record (paging is local: more never calls the provider).
func TestSandboxExamples(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	for i, ex := range Routes.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			b, _ := json.Marshal(ex.Body)
			page, err := providertest.Execute(t, client, Routes, providers.ModeTest, string(b))
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 {
				t.Fatal("the sandbox answered no itinerary")
			}
			req, _ := providertest.Prepare(t, Routes, string(b))
			for _, a := range Routes.Actions {
				d, err := providertest.Action(t, client, Routes, providers.ModeTest, req, a.Name, &page.Records[0])
				if err != nil || d == nil || len(d.Links) == 0 {
					t.Errorf("action %s: %v %+v", a.Name, err, d)
				}
			}
			providertest.Golden(t, "sandbox_example_"+string(rune('1'+i)), providertest.RecordsJSON(page))
		})
	}
}
