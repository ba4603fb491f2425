package places

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/serpapi/serpapitest"
)

const testKey = serpapitest.Key

func init() {
	now = func() time.Time { return time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC) }
}

// fake is an httptest stand-in for SerpApi's search.json: it checks what every call carries and
// answers with the body pick chooses for the query (a testdata file name or literal JSON).
type fake struct {
	providertest.Upstream
	t      *testing.T
	status int
	pick   func(q url.Values) string
}

func newFake(t *testing.T, status int, pick func(q url.Values) string) *fake {
	f := &fake{t: t, status: status, pick: pick}
	f.Upstream = providertest.Upstream{TB: t, Answer: f.route}
	return f
}

func serve(t *testing.T, body string) *fake {
	return newFake(t, http.StatusOK, func(url.Values) string { return body })
}

// query is the query of a call without the parameters every call carries.
func query(r *http.Request) url.Values {
	q := r.URL.Query()
	for _, k := range []string{"api_key", "output"} {
		q.Del(k)
	}
	return q
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	q := query(r)
	serpapitest.CheckRequest(f.t, r, "google_maps")
	body := f.pick(q)
	if !strings.HasPrefix(body, "{") && !strings.HasPrefix(body, "[") && body != "" {
		body = string(providertest.Fixture(f.t, body))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = w.Write([]byte(body))
}

// requests are the queries f received, without the parameters every call carries.
func (f *fake) requests() []url.Values {
	var out []url.Values
	for _, r := range f.Requests() {
		out = append(out, query(r))
	}
	return out
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

func run(t *testing.T, f *fake, body string, state string) *providers.Page {
	t.Helper()
	var st json.RawMessage
	if state != "" {
		st = json.RawMessage(state)
	}
	page, err := providertest.ExecuteState(t, f.client(t), Search, providers.ModeLive, prepare(t, body), st)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

func TestSearchGolden(t *testing.T) {
	f := serve(t, "search.json")
	page := run(t, f, `{"query":" pizza ","location":{"lat":40.7455096,"lon":-74.0083012},"num":20}`, "")
	providertest.Golden(t, "search", providertest.RecordsJSON(page))
	want := url.Values{"engine": {"google_maps"}, "type": {"search"}, "q": {"pizza"}, "ll": {"@40.7455096,-74.0083012,14z"}}
	if got := f.requests()[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("query = %v, want %v", got, want)
	}
	if len(page.Records) != 4 || !page.HasMore || string(page.Next) != `{"page":2,"offset":0}` {
		t.Errorf("%d records, has_more %v, next %s", len(page.Records), page.HasMore, page.Next)
	}
	if page.Credits != nil {
		t.Errorf("credits = %d, want the typical 4", *page.Credits)
	}
}

func TestSearchOddResults(t *testing.T) {
	f := serve(t, "search_odd.json")
	page := run(t, f, `{"query":"pharmacy","location":{"lat":48.8566,"lon":2.3522}}`, "")
	providertest.Golden(t, "search_odd", providertest.RecordsJSON(page))
	// The blank title and the non-object are dropped; the rest keep only what is usable.
	if len(page.Records) != 5 {
		t.Fatalf("%d records, want 5", len(page.Records))
	}
	for _, rec := range page.Records {
		if hasRef := len(rec.Ref) > 0; hasRef != (rec.Actions == nil) {
			t.Errorf("%q: ref %s actions %v", rec.Title, rec.Ref, rec.Actions)
		}
		if d := rec.Data.(*PlaceRecord); d.Source != "google_maps" || d.FetchedAt != "2026-03-04T10:30:00Z" {
			t.Errorf("%q: source %v fetched_at %v", rec.Title, d.Source, d.FetchedAt)
		}
	}
}

func TestSearchParams(t *testing.T) {
	cases := []struct {
		name, body, state string
		want              url.Values
	}{
		{"query only", `{"query":"coffee"}`, "", url.Values{"type": {"search"}, "q": {"coffee"}}},
		{"localized", `{"query":"café","country":"FR","language":"fr"}`, "",
			url.Values{"type": {"search"}, "q": {"café"}, "hl": {"fr"}, "gl": {"fr"}}},
		{"radius sets the zoom", `{"query":"coffee","location":{"lat":0,"lon":10.5},"radius_m":62}`, "",
			url.Values{"type": {"search"}, "q": {"coffee"}, "ll": {"@0,10.5,21z"}}},
		{"wide radius", `{"query":"coffee","location":{"lat":40.7455096,"lon":-74.0083012},"radius_m":50000}`, "",
			url.Values{"type": {"search"}, "q": {"coffee"}, "ll": {"@40.7455096,-74.0083012,10z"}}},
		{"third page", `{"query":"coffee","location":{"lat":1,"lon":2}}`, `{"page":3,"offset":0}`,
			url.Values{"type": {"search"}, "q": {"coffee"}, "ll": {"@1,2,14z"}, "start": {"40"}}},
		{"same page again", `{"query":"coffee"}`, `{"page":1,"offset":10}`, url.Values{"type": {"search"}, "q": {"coffee"}}},
		{"stored ll without location", `{"query":"coffee"}`, `{"page":2,"offset":0,"ll":"@40.7,-74,14z"}`,
			url.Values{"type": {"search"}, "q": {"coffee"}, "ll": {"@40.7,-74,14z"}, "start": {"20"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := serve(t, "search.json")
			run(t, f, tc.body, tc.state)
			want := url.Values{"engine": {"google_maps"}}
			for k, v := range tc.want {
				want[k] = v
			}
			if got := f.requests()[0]; !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

func TestZoomSpansTheRadius(t *testing.T) {
	prev := maxZoom + 1
	for _, r := range []float64{62, 100, 500, 1000, 5000, 20000, 50000} {
		ll := llOf(criteria{center: &point{45, 7}, radius: r})
		var lat, lon float64
		var zoom int
		if _, err := fmt.Sscanf(ll, "@%g,%g,%dz", &lat, &lon, &zoom); err != nil {
			t.Fatalf("ll %q: %v", ll, err)
		}
		if zoom > prev || zoom < minZoom || zoom > maxZoom {
			t.Errorf("radius %v: zoom %d after %d", r, zoom, prev)
		}
		// The map at this zoom spans at least the radius.
		if span := zoomSpan * math.Cos(45*math.Pi/180) / math.Pow(2, float64(zoom)); span < r {
			t.Errorf("radius %v: zoom %d spans only %.0f m", r, zoom, span)
		}
		prev = zoom
	}
}

func TestRules(t *testing.T) {
	cases := []struct {
		name, body string
		paths      []string
	}{
		{"valid", `{"query":"coffee","location":{"lat":1,"lon":2},"radius_m":500,"min_rating":4.5,"open_now":false,"country":"us","language":"pt-BR","num":20}`, nil},
		{"radius without location", `{"query":"coffee","radius_m":500}`, []string{"/radius_m"}},
		{"blank query", `{"query":"   "}`, []string{"/query"}},
		{"empty query", `{"query":""}`, []string{"/query", "/query"}},
		{"query too long", `{"query":"` + strings.Repeat("a", 301) + `"}`, []string{"/query"}},
		{"missing query", `{"num":5}`, []string{"/query"}},
		{"location without lon", `{"query":"x","location":{"lat":1}}`, []string{"/location/lon"}},
		{"latitude out of range", `{"query":"x","location":{"lat":91,"lon":0}}`, []string{"/location/lat"}},
		{"longitude out of range", `{"query":"x","location":{"lat":0,"lon":-181}}`, []string{"/location/lon"}},
		{"radius too small", `{"query":"x","location":{"lat":0,"lon":0},"radius_m":61}`, []string{"/radius_m"}},
		{"radius too large", `{"query":"x","location":{"lat":0,"lon":0},"radius_m":50001}`, []string{"/radius_m"}},
		{"country of three letters", `{"query":"x","country":"usa"}`, []string{"/country"}},
		{"language too short", `{"query":"x","language":"e"}`, []string{"/language"}},
		{"rating above 5", `{"query":"x","min_rating":5.5}`, []string{"/min_rating"}},
		{"open_now not boolean", `{"query":"x","open_now":"yes"}`, []string{"/open_now"}},
		{"num too large", `{"query":"x","num":21}`, []string{"/num"}},
		{"num zero", `{"query":"x","num":0}`, []string{"/num"}},
		{"unknown key", `{"query":"x","sort":"distance"}`, []string{"/sort"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, Search, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("paths = %v, want %v", got, tc.paths)
			}
		})
	}

	t.Run("update removing location keeps radius", func(t *testing.T) {
		prev := prepare(t, `{"query":"coffee","location":{"lat":1,"lon":2},"radius_m":500}`)
		merged := prev.Clone()
		delete(merged, "location")
		_, err := Search.Prepare(merged, &providers.Update{Previous: prev, Params: providers.Request{"location": nil}})
		if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, []string{"/radius_m"}) {
			t.Errorf("paths = %v (%v)", got, err)
		}
	})
}

func TestFilters(t *testing.T) {
	titles := func(p *providers.Page) []string {
		out := []string{}
		for _, r := range p.Records {
			out = append(out, r.Title)
		}
		return out
	}
	cases := []struct {
		name, body string
		want       []string
	}{
		// Monge 1.17 km, Marais has no coordinates, Bastille has no usable coordinates, Lafayette 2.28 km,
		// Saint-Germain 1.38 km from the centre.
		{"radius is strict and drops unplaced results", `{"query":"x","location":{"lat":48.8566,"lon":2.3522},"radius_m":1300}`,
			[]string{"Pharmacie Monge"}},
		{"radius wide", `{"query":"x","location":{"lat":48.8566,"lon":2.3522},"radius_m":3000}`,
			[]string{"Pharmacie Monge", "Pharmacie Lafayette Opéra", "Pharmacie Saint-Germain"}},
		{"min rating drops unrated and out-of-range ratings", `{"query":"x","min_rating":4}`,
			[]string{"Pharmacie Monge", "Pharmacie du Marais"}},
		{"min rating zero keeps all", `{"query":"x","min_rating":0}`,
			[]string{"Pharmacie Monge", "Pharmacie du Marais", "Grande Pharmacie Bastille", "Pharmacie Lafayette Opéra", "Pharmacie Saint-Germain"}},
		{"open now", `{"query":"x","open_now":true}`, []string{"Pharmacie Monge", "Pharmacie Saint-Germain"}},
		{"closed now; unknown state dropped", `{"query":"x","open_now":false}`, []string{"Pharmacie du Marais", "Pharmacie Lafayette Opéra"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := run(t, serve(t, "search_odd.json"), tc.body, "")
			if got := titles(page); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("titles = %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("a filtered page can be empty while has_more is true", func(t *testing.T) {
		f := newFake(t, http.StatusOK, func(q url.Values) string {
			if q.Get("start") == "20" {
				return "search.json"
			}
			return "search_odd.json" // every result is far from the centre below
		})
		page := run(t, f, `{"query":"x","location":{"lat":0,"lon":0},"radius_m":100}`, "")
		if len(page.Records) != 0 || page.HasMore {
			t.Errorf("records %d has_more %v (the odd page has no next link)", len(page.Records), page.HasMore)
		}
		page = run(t, f, `{"query":"x","location":{"lat":0,"lon":0},"radius_m":100}`, `{"page":2,"offset":0}`)
		if len(page.Records) != 0 || !page.HasMore || string(page.Next) != `{"page":3,"offset":0}` {
			t.Errorf("records %d has_more %v next %s", len(page.Records), page.HasMore, page.Next)
		}
	})

	t.Run("open_now with another language says so", func(t *testing.T) {
		page := run(t, serve(t, "search_odd.json"), `{"query":"x","open_now":true,"language":"fr"}`, "")
		if len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "English") {
			t.Errorf("notes = %v", page.Notes)
		}
	})
}

func TestIsOpen(t *testing.T) {
	cases := []struct {
		state       string
		open, known bool
	}{
		{"Open ⋅ Closes 12 AM", true, true},
		{"Closes soon ⋅ 11 PM ⋅ Opens 11 AM Thu", true, true},
		{"Open 24 hours", true, true},
		{"Closed ⋅ Opens 7 AM Thu", false, true},
		{"Opens soon ⋅ 9 AM", false, true},
		{"Temporarily closed", false, true},
		{"Permanently closed", false, true},
		{"Hours might differ", false, false},
		{"Geöffnet ⋅ Schließt um 22:00", false, false},
		{"⋅", false, false},
		{"", false, false},
	}
	for _, tc := range cases {
		if open, known := isOpen(tc.state); open != tc.open || known != tc.known {
			t.Errorf("isOpen(%q) = %v %v, want %v %v", tc.state, open, known, tc.open, tc.known)
		}
	}
}

func TestDistance(t *testing.T) {
	// Paris (Notre-Dame) to London (Trafalgar Square): about 342 km.
	d := distance(point{48.853, 2.3499}, point{51.508, -0.128})
	if math.Abs(d-342500) > 1500 {
		t.Errorf("distance = %.0f m", d)
	}
	if d := distance(point{1, 1}, point{1, 1}); d != 0 {
		t.Errorf("zero distance = %v", d)
	}
}

// pages serves a full first Google Maps page (the sandbox's 20 results, with a next link) and the
// sandbox's last page for start=20.
func pages(t *testing.T) *fake {
	first := string(providertest.Fixture(t, "../../upstream/serpapi/sandbox/google_maps/default.json"))
	second := string(providertest.Fixture(t, "../../upstream/serpapi/sandbox/google_maps/page2.json"))
	return newFake(t, http.StatusOK, func(q url.Values) string {
		if q.Get("start") == "20" {
			return second
		}
		return first
	})
}

func TestPaging(t *testing.T) {
	f := pages(t)
	body := `{"query":"coffee","num":8}`
	var titles []string
	var states []string
	state := ""
	for n := 0; ; n++ {
		if n > 10 {
			t.Fatal("paging does not end")
		}
		page := run(t, f, body, state)
		for _, r := range page.Records {
			titles = append(titles, r.Title)
		}
		if !page.HasMore {
			break
		}
		state = string(page.Next)
		states = append(states, state)
	}
	// Without location the ll of SerpApi's next link is carried to page 2.
	wantStates := []string{`{"page":1,"offset":8}`, `{"page":1,"offset":16}`,
		`{"page":2,"offset":0,"ll":"@40.7455096,-74.0083012,14z"}`}
	if !reflect.DeepEqual(states, wantStates) {
		t.Errorf("states = %v, want %v", states, wantStates)
	}
	if len(titles) != 25 {
		t.Errorf("%d places over all pages, want 25", len(titles))
	}
	reqs := f.requests()
	if len(reqs) != 4 || reqs[3].Get("start") != "20" || reqs[3].Get("ll") != "@40.7455096,-74.0083012,14z" || reqs[2].Get("start") != "" {
		t.Errorf("requests = %v", reqs)
	}
}

func TestPagingStopsAfterTwentyProviderPages(t *testing.T) {
	f := pages(t)
	page := run(t, f, `{"query":"coffee","num":20,"location":{"lat":40.7455096,"lon":-74.0083012}}`, `{"page":20,"offset":0}`)
	if page.HasMore || page.Next != nil || len(page.Records) != 20 {
		t.Errorf("has_more %v next %s records %d", page.HasMore, page.Next, len(page.Records))
	}
	if len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "20 Google Maps pages") {
		t.Errorf("notes = %v", page.Notes)
	}
	if got := f.requests()[0].Get("start"); got != "380" {
		t.Errorf("start = %q, want 380", got)
	}
	page = run(t, f, `{"query":"coffee","num":20,"location":{"lat":40.7455096,"lon":-74.0083012}}`, `{"page":19,"offset":0}`)
	if !page.HasMore || string(page.Next) != `{"page":20,"offset":0}` {
		t.Errorf("page 19: has_more %v next %s", page.HasMore, page.Next)
	}
	for _, bad := range []string{`{"page":21,"offset":0}`, `{"page":0}`, `{"page":1,"offset":20}`, `"x"`} {
		_, err := providertest.ExecuteState(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"coffee"}`), json.RawMessage(bad))
		if providertest.ErrorCode(err) != providers.CodeInternal {
			t.Errorf("state %s: error %v", bad, err)
		}
	}
}

func TestSinglePlaceAnswer(t *testing.T) {
	page := run(t, serve(t, "place.json"), `{"query":"Cargiant NW10 6RS","location":{"lat":51.5,"lon":-0.2}}`, "")
	if len(page.Records) != 1 || page.HasMore {
		t.Fatalf("records %d has_more %v", len(page.Records), page.HasMore)
	}
	rec := page.Records[0].Data.(*PlaceRecord)
	if rec.Type != "Used car dealer" || !reflect.DeepEqual(rec.Types, []string{"Used car dealer", "Auto broker"}) || rec.OpenNow == nil || !*rec.OpenNow ||
		rec.Hours != "Monday 10 AM–10 PM; Tuesday 10 AM–10 PM; Wednesday 10 AM–10 PM; Thursday 10 AM–10 PM; Friday 10 AM–10 PM; Saturday 9 AM–7 PM; Sunday 10 AM–7 PM" {
		t.Errorf("record %+v", rec)
	}
	if d := rec.DistanceM; d == nil || *d < 4000 || *d > 4100 { // about 4.05 km
		t.Errorf("distance_m = %v", d)
	}
}

func TestSearchErrors(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		body    string
		code    providers.Code
		message string
	}{
		{"invalid key", 401, `{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`,
			providers.CodeProviderError, "SerpApi refused this deployment's key"},
		{"out of searches", 429, `{"error":"Your account has run out of searches."}`, providers.CodeProviderAllowance, "run out of searches"},
		{"bad request", 400, `{"error":"Missing query ` + "`q`" + ` parameter."}`, providers.CodeProviderError, "Missing query"},
		{"search failed in a 200", 200, `{"search_metadata":{"status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`,
			providers.CodeProviderError, "couldn't get valid results"},
		{"other error without results", 200, `{"search_metadata":{"status":"Success"},"error":"Unsupported ` + "`gl`" + ` parameter."}`,
			providers.CodeProviderError, "Unsupported"},
		{"malformed", 200, `{"local_results":[`, providers.CodeProviderError, "malformed JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.status, func(url.Values) string { return tc.body })
			_, err := providertest.ExecuteState(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"coffee"}`), nil)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code || !strings.Contains(e.Message, tc.message) {
				t.Fatalf("error = %v, want %s with %q", err, tc.code, tc.message)
			}
			if strings.Contains(e.Message, testKey) {
				t.Errorf("message leaks the key: %q", e.Message)
			}
		})
	}

	t.Run("no results", func(t *testing.T) {
		page := run(t, serve(t, "../../upstream/serpapi/sandbox/google_maps/empty.json"), `{"query":"noresults"}`, "")
		if len(page.Records) != 0 || page.HasMore || page.Records == nil {
			t.Errorf("page = %+v", page)
		}
	})
}

// recordOf runs the pizza search and returns one of its records.
func recordOf(t *testing.T, i int) providers.Record {
	page := run(t, serve(t, "search.json"), `{"query":"pizza"}`, "")
	return page.Records[i]
}

func TestDetails(t *testing.T) {
	t.Run("golden", func(t *testing.T) {
		f := serve(t, "place.json")
		rec := recordOf(t, 0)
		req := prepare(t, `{"query":"pizza","country":"GB","language":"en"}`)
		d, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, req, "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "details", d)
		want := url.Values{"engine": {"google_maps"}, "type": {"place"}, "place_id": {"ChIJifIePKtZwokRVZ-UdRGkZzs"}, "hl": {"en"}, "gl": {"gb"}}
		if got := f.requests()[0]; !reflect.DeepEqual(got, want) {
			t.Errorf("query = %v, want %v", got, want)
		}
		if d.Credits != nil {
			t.Errorf("credits = %d, want the action's 4", *d.Credits)
		}
		if a, _ := Search.Action("details"); a.Kind != providers.ActionLookup || a.Credits != 4 {
			t.Errorf("details action = %+v", a)
		}
	})

	t.Run("by data_cid", func(t *testing.T) {
		f := serve(t, "place.json")
		page := run(t, serve(t, "search_odd.json"), `{"query":"x"}`, "")
		rec := page.Records[1] // Pharmacie du Marais: a CID, no place id
		if _, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", &rec); err != nil {
			t.Fatal(err)
		}
		want := url.Values{"engine": {"google_maps"}, "type": {"place"}, "data_cid": {"1234567890123456789"}}
		if got := f.requests()[0]; !reflect.DeepEqual(got, want) {
			t.Errorf("query = %v, want %v", got, want)
		}
	})

	failures := []struct {
		name, body string
		status     int
		code       providers.Code
	}{
		{"no results", `{"search_metadata":{"status":"Success"},"error":"Google hasn't returned any results for this query."}`, 200, providers.CodeNotFound},
		{"nothing usable", `{"search_metadata":{"status":"Success"},"place_results":{"title":" "}}`, 200, providers.CodeNotFound},
		{"error without a place", `{"search_metadata":{"status":"Success"},"error":"Unsupported place_id."}`, 200, providers.CodeProviderError},
		{"out of searches", `{"error":"Your account has run out of searches."}`, 429, providers.CodeProviderAllowance},
		{"malformed", `{"place_results":`, 200, providers.CodeProviderError},
	}
	for _, tc := range failures {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.status, func(url.Values) string { return tc.body })
			rec := recordOf(t, 1)
			_, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", &rec)
			if providertest.ErrorCode(err) != tc.code {
				t.Errorf("error = %v, want %s", err, tc.code)
			}
		})
	}

	for _, ref := range []string{"", `{}`, `{"place_id":"short"}`, `{"data_cid":"12ab"}`, `not json`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			f := serve(t, "place.json")
			rec := providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			_, err := providertest.Action(t, f.client(t), Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", &rec)
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest || len(f.requests()) != 0 {
				t.Errorf("error = %v, %d requests", err, len(f.requests()))
			}
		})
	}
}

// TestExamples runs what the gateway runs for every example in test mode (the shared
// conformance run: execute, every record action, the next pages), then each example live
// against a fake.
func TestExamples(t *testing.T) {
	providertest.Conformance{Providers: Providers(),
		Detail: func(t *testing.T, _ providers.Example, name string, _ *providers.Record, d *providers.Detail) {
			if b := d.Body.(*PlaceDetail); b.Contacts == nil || b.Hours == nil || b.Location == nil || b.Amenities == nil {
				t.Errorf("%s = %v", name, b)
			}
		}}.Run(t, Search)
	for _, ex := range Search.Examples {
		t.Run("live: "+ex.Title, func(t *testing.T) {
			body, _ := json.Marshal(ex.Body)
			req := prepare(t, string(body))
			f := serve(t, "search.json")
			if _, err := providertest.ExecuteState(t, f.client(t), Search, providers.ModeLive, req, nil); err != nil {
				t.Fatal(err)
			}
			want := searchParams(req, criteriaOf(req), pageState{Page: 1})
			want.Set("engine", "google_maps")
			if got := f.requests()[0]; !reflect.DeepEqual(got, want) {
				t.Errorf("query = %v, want %v", got, want)
			}
		})
	}
}

func TestSandbox(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	page, err := providertest.Execute(t, client, Search, providers.ModeTest,
		`{"query":"coffee","location":{"lat":40.7455096,"lon":-74.0083012},"radius_m":2000,"num":5}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_coffee", providertest.RecordsJSON(page))
	d, err := providertest.Action(t, client, Search, providers.ModeTest, prepare(t, `{"query":"coffee"}`), "details", &page.Records[0])
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_details", d)
	page, err = providertest.Execute(t, client, Search, providers.ModeTest, `{"query":"noresults xyzzy"}`)
	if err != nil || len(page.Records) != 0 || page.HasMore {
		t.Errorf("no results: %v %+v", err, page)
	}
}
