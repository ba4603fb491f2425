//go:build !race

// Package consistency_test holds the test-mode consistency sweeps: thousands of generated
// requests through the gateway, in a package of their own so that go test runs them beside the
// gateway package's tests instead of after them (the gateway package was make test's longest).
package consistency_test

// Test mode looks like the world it stands in for (issue 36): generated requests per capability,
// each answer checked against the request — results near the requested place, identities echoed,
// filters and sort orders obeyed, more advancing, weather following latitude and season, past
// dates refused.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
)

// consistencyRequests is how many generated requests each capability answers consistently.
const consistencyRequests = 50

// consistencyCase generates request i of a capability and checks its answer.
type consistencyCase struct {
	id    string
	gen   func(r *rand.Rand, i int) map[string]any
	check func(t *testing.T, c *checker, body map[string]any, resp *gatewaytest.Response)
}

type checker struct {
	e   *gatewaytest.Env
	key string
}

func (c *checker) more(t *testing.T, r *gatewaytest.Response) *gatewaytest.Response {
	t.Helper()
	m := c.e.Do(http.MethodPost, "/v1/follow-up", c.key, map[string]any{"search_id": r.JSON["search_id"], "action": "more"})
	if m.Status != http.StatusOK {
		t.Fatalf("more: %d %s", m.Status, m.Body)
	}
	return m
}

func num(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func str(v any) string { s, _ := v.(string); return s }

// identity is a record's identity for paging checks: its keys joined.
func identity(m map[string]any, keys ...string) string {
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprint(m[k]))
	}
	return strings.Join(parts, "|")
}

// checkMoreAdvances pages once and checks that no record of page 2 repeats one of page 1.
func checkMoreAdvances(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response, keys ...string) {
	t.Helper()
	if r.JSON["has_more"] != true {
		return
	}
	seen := map[string]bool{}
	for _, m := range r.Results() {
		seen[identity(m, keys...)] = true
	}
	m := c.more(t, r)
	page2 := m.Results()
	if len(page2) == 0 {
		t.Errorf("%v: more answered an empty page while has_more was true", body)
	}
	for _, x := range page2 {
		if seen[identity(x, keys...)] {
			t.Errorf("%v: more repeats %q", body, identity(x, keys...))
		}
	}
}

func within(t *testing.T, what string, lat, lon float64, p providers.SandboxPlace, km float64) {
	t.Helper()
	if d := providers.DistanceKm(lat, lon, p.Lat, p.Lon); d > km {
		t.Errorf("%s lies %.0f km from %s (at most %.0f)", what, d, p.Name, km)
	}
}

// askable are cities a caller may name: large, their name alone resolves to them, and not the
// recorded places whose recorded answers the golden files pin (Berlin, Lisbon).
func askable() []providers.SandboxPlace {
	var out []providers.SandboxPlace
	for _, p := range providers.GazetteerCities(300000) {
		if p.Name != "Berlin" && p.Name != "Lisbon" && p.Name != "Potsdam" && p.Name != "New York City" && !strings.ContainsAny(p.Name, "()") {
			out = append(out, p)
		}
	}
	return out
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func day(days int) string { return time.Now().UTC().AddDate(0, 0, days).Format(time.DateOnly) }

func consistencyCases() []consistencyCase {
	cities := askable()
	airports := providers.GazetteerAirports()
	topics := []string{"coffee", "ramen", "bookshop", "bakery", "pharmacy", "museum", "vegan restaurant", "bike repair"}
	jobs := []string{"rust engineer", "nurse", "data analyst", "electrician", "product designer", "teacher", "accountant"}
	words := []string{"dune", "quantum computing", "gardens", "the silent sea", "machine learning", "winter", "harbour lights"}
	authors := []string{"Tolkien", "Ursula K. Le Guin", "Octavia Butler", "Chinua Achebe", "Haruki Murakami", "Jane Austen"}
	tickers := []string{"AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "META", "ZZTOP", "QQQX", "ACME", "IBM", "ORCL", "SAP"}
	packages := []string{"flask", "numpy", "react", "left-pad-sbx", "vue", "lodash", "pandas", "fastapi", "my-tool", "chalk", "zod", "attrs"}
	return []consistencyCase{
		{"hotels.search", func(r *rand.Rand, i int) map[string]any {
			c := pick(r, cities)
			in := 5 + r.IntN(120)
			b := map[string]any{"destination": c.Name, "check_in": day(in), "check_out": day(in + 1 + r.IntN(6))}
			if i%3 == 0 {
				b["max_price"] = 60 + r.IntN(400)
			}
			if i%4 == 1 {
				b["min_rating"] = pick(r, []float64{3.5, 4, 4.5})
			}
			b["sort"] = []string{"relevance", "lowest_price", "highest_rating", "most_reviewed"}[i%4]
			if i%5 == 4 {
				b["property_type"] = "vacation_rental"
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			place, _ := providers.PlaceNamed(body["destination"].(string))
			recs := r.Results()
			if len(recs) == 0 && body["max_price"] == nil && body["min_rating"] == nil {
				t.Errorf("%v: no hotels", body)
			}
			for _, m := range recs {
				lat, _ := num(m["lat"])
				lon, _ := num(m["lon"])
				within(t, fmt.Sprintf("%v: hotel %q", body, m["title"]), lat, lon, place, 15)
				p, _ := num(m["price_per_night"])
				if mx, ok := num(body["max_price"]); ok && p > mx {
					t.Errorf("%v: %q costs %v a night", body, m["title"], p)
				}
				rt, _ := num(m["rating"])
				if mn, ok := num(body["min_rating"]); ok && rt < mn {
					t.Errorf("%v: %q is rated %v", body, m["title"], rt)
				}
			}
			key := map[string]func(m map[string]any) float64{
				"lowest_price":   func(m map[string]any) float64 { v, _ := num(m["price_per_night"]); return v },
				"highest_rating": func(m map[string]any) float64 { v, _ := num(m["rating"]); return -v },
				"most_reviewed":  func(m map[string]any) float64 { v, _ := num(m["reviews"]); return -v },
			}[body["sort"].(string)]
			if key != nil && !sort.SliceIsSorted(recs, func(i, j int) bool { return key(recs[i]) < key(recs[j]) }) {
				t.Errorf("%v: not in %s order", body, body["sort"])
			}
			checkMoreAdvances(t, c, body, r, "title", "lat", "lon")
		}},
		{"places.search", func(r *rand.Rand, i int) map[string]any {
			c := pick(r, cities)
			b := map[string]any{"query": pick(r, topics) + " near " + c.Name, "num": 1 + r.IntN(10)}
			if i%2 == 1 {
				b = map[string]any{"query": pick(r, topics), "location": map[string]any{"lat": c.Lat, "lon": c.Lon}, "radius_m": 500 + r.IntN(9500)}
			}
			if i%3 == 0 {
				b["min_rating"] = pick(r, []float64{3.5, 4, 4.5})
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			var center providers.SandboxPlace
			radius := 10.0
			if loc, ok := body["location"].(map[string]any); ok {
				lat, _ := num(loc["lat"])
				lon, _ := num(loc["lon"])
				center = providers.SandboxPlace{Name: "the location", Lat: lat, Lon: lon}
				rm, _ := num(body["radius_m"])
				radius = rm / 1000 * 1.001
			} else {
				center, _ = providers.PlaceIn(body["query"].(string))
			}
			recs := r.Results()
			if len(recs) == 0 && body["min_rating"] == nil {
				t.Errorf("%v: no places", body)
			}
			for _, m := range recs {
				co, _ := m["coordinates"].(map[string]any)
				lat, _ := num(co["lat"])
				lon, _ := num(co["lon"])
				within(t, fmt.Sprintf("%v: place %q", body, m["title"]), lat, lon, center, radius)
				if mn, ok := num(body["min_rating"]); ok {
					if rt, _ := num(m["rating"]); rt < mn {
						t.Errorf("%v: %q rated %v", body, m["title"], rt)
					}
				}
			}
			checkMoreAdvances(t, c, body, r, "title", "coordinates")
		}},
		{"weather.forecast", func(r *rand.Rand, i int) map[string]any {
			return map[string]any{"location": pick(r, cities).Name, "days": 1 + r.IntN(16), "units": []string{"metric", "imperial"}[i%2]}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			place, _ := providers.PlaceNamed(body["location"].(string))
			recs := r.Results()
			if len(recs) != 1 {
				t.Fatalf("%v: %d records", body, len(recs))
			}
			loc, _ := recs[0]["location"].(map[string]any)
			lat, _ := num(loc["lat"])
			lon, _ := num(loc["lon"])
			within(t, fmt.Sprintf("%v: the forecast", body), lat, lon, place, 5)
			daily, _ := recs[0]["daily"].([]any)
			if n, _ := num(body["days"]); len(daily) != int(n) {
				t.Errorf("%v: %d days", body, len(daily))
			}
			for _, d := range daily {
				dm, _ := d.(map[string]any)
				hi, _ := num(dm["high"])
				lo, _ := num(dm["low"])
				if body["units"] == "imperial" {
					hi, lo = (hi-32)*5/9, (lo-32)*5/9
				}
				date, err := time.Parse(time.DateOnly, str(dm["date"]))
				if err != nil {
					t.Fatalf("%v: date %v", body, dm["date"])
				}
				mean, _ := providers.Climate(place.Lat, date)
				if hi < lo || math.Abs((hi+lo)/2-mean) > 4 {
					t.Errorf("%v: %s high %.1f low %.1f °C, the season's mean at latitude %.0f is %.1f", body, dm["date"], hi, lo, place.Lat, mean)
				}
			}
		}},
		{"navigation.route", func(r *rand.Rand, i int) map[string]any {
			a := pick(r, cities)
			near := providers.PlacesNear(a.Lat, a.Lon, 800, 12)
			b := near[min(1+r.IntN(11), len(near)-1)]
			return map[string]any{"origin": a.Name, "destination": b.Name, "mode": []string{"driving", "walking", "cycling"}[i%3]}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			a, _ := providers.PlaceNamed(body["origin"].(string))
			b, _ := providers.PlaceNamed(body["destination"].(string))
			gc := providers.DistanceKm(a.Lat, a.Lon, b.Lat, b.Lon)
			for _, m := range r.Results() {
				km, _ := num(m["distance_km"])
				mins, _ := num(m["duration_min"])
				if gc > 1 && (km < gc || km > gc*1.7+1) {
					t.Errorf("%v: %.1f km by road for %.1f km as the crow flies", body, km, gc)
				}
				speeds := map[string][2]float64{"driving": {30, 90}, "walking": {4, 6}, "cycling": {12, 20}}[body["mode"].(string)]
				if v := km / (mins / 60); mins > 0 && (v < speeds[0] || v > speeds[1]) {
					t.Errorf("%v: %.1f km in %.0f min is %.1f km/h", body, km, mins, v)
				}
			}
		}},
		{"navigation.matrix", func(r *rand.Rand, i int) map[string]any {
			a := pick(r, cities)
			near := providers.PlacesNear(a.Lat, a.Lon, 600, 8)
			var names []any
			for _, p := range near {
				names = append(names, p.Name)
			}
			return map[string]any{"origins": names[:1+r.IntN(min(2, len(names)))], "destinations": names[len(names)/2:], "mode": []string{"driving", "walking", "cycling"}[i%3]}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			origins, dests := body["origins"].([]any), body["destinations"].([]any)
			for _, m := range r.Results() {
				oi, _ := num(m["origin_index"])
				di, _ := num(m["destination_index"])
				a, _ := providers.PlaceNamed(origins[int(oi)].(string))
				b, _ := providers.PlaceNamed(dests[int(di)].(string))
				gc := providers.DistanceKm(a.Lat, a.Lon, b.Lat, b.Lon)
				if km, ok := num(m["distance_km"]); ok && gc > 1 && (km < gc || km > gc*1.7+1) {
					t.Errorf("%v: %s → %s %.1f km for %.1f km as the crow flies", body, a.Name, b.Name, km, gc)
				}
			}
		}},
		{"flights.search", func(r *rand.Rand, i int) map[string]any {
			a, b := pick(r, airports), pick(r, airports)
			for b.IATA == a.IATA {
				b = pick(r, airports)
			}
			d := 3 + r.IntN(200)
			if i%10 == 9 {
				d = -30 - r.IntN(2000) // a departure in the past
			}
			body := map[string]any{"origin": a.IATA, "destination": b.IATA, "departure_date": day(d)}
			if i%3 == 0 {
				body["max_stops"] = r.IntN(3)
			}
			return body
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			if body["departure_date"].(string) < day(-1) {
				if r.Status == http.StatusOK {
					t.Errorf("%v: a past departure was answered: %.300s", body, r.Body)
				}
				return
			}
			if r.Status != http.StatusOK {
				t.Fatalf("%v: %d %s", body, r.Status, r.Body)
			}
			for _, m := range r.Results() {
				legs, _ := m["legs"].([]any)
				if len(legs) == 0 {
					t.Fatalf("%v: an itinerary without legs", body)
				}
				first, last := legs[0].(map[string]any), legs[len(legs)-1].(map[string]any)
				if first["from"] != body["origin"] || last["to"] != body["destination"] {
					t.Errorf("%v: itinerary %v → %v", body, first["from"], last["to"])
				}
				for k := 1; k < len(legs); k++ {
					if legs[k-1].(map[string]any)["to"] != legs[k].(map[string]any)["from"] {
						t.Errorf("%v: legs do not connect: %v", body, legs)
					}
				}
				for _, l := range legs {
					if l.(map[string]any)["from"] == l.(map[string]any)["to"] {
						t.Errorf("%v: a leg from %v to itself", body, l.(map[string]any)["from"])
					}
				}
				if ms, ok := num(body["max_stops"]); ok && len(legs)-1 > int(ms) {
					t.Errorf("%v: %d stops", body, len(legs)-1)
				}
			}
		}},
		{"jobs.search", func(r *rand.Rand, i int) map[string]any {
			c := pick(r, cities)
			return map[string]any{"query": pick(r, jobs), "location": c.Name + ", " + c.Country}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			city := strings.Split(body["location"].(string), ",")[0]
			recs := r.Results()
			if len(recs) == 0 {
				t.Errorf("%v: no jobs", body)
			}
			for _, m := range recs {
				if !strings.Contains(str(m["location"]), city) {
					t.Errorf("%v: a job in %q", body, m["location"])
				}
				if !strings.Contains(strings.ToLower(str(m["title"])), body["query"].(string)) {
					t.Errorf("%v: a job titled %q", body, m["title"])
				}
			}
			checkMoreAdvances(t, c, body, r, "title", "company")
		}},
		{"markets.quote", func(r *rand.Rand, i int) map[string]any {
			n := 1 + r.IntN(3)
			perm := r.Perm(len(tickers))
			var syms []any
			for _, k := range perm[:n] {
				s := tickers[k]
				if r.IntN(2) == 0 {
					s += ":NASDAQ"
				}
				syms = append(syms, s)
			}
			return map[string]any{"symbols": syms, "window": []string{"1D", "5D", "1M", "1Y"}[i%4]}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			known := map[string]string{"AAPL": "Apple", "MSFT": "Microsoft", "NVDA": "NVIDIA", "TSLA": "Tesla", "AMZN": "Amazon", "META": "Meta"}
			recs := r.Results()
			syms := body["symbols"].([]any)
			if len(recs) != len(syms) {
				t.Fatalf("%v: %d records", body, len(recs))
			}
			titles := map[string]bool{}
			for i, m := range recs {
				s := syms[i].(string)
				tk, _, _ := strings.Cut(s, ":")
				if m["symbol"] != s || !strings.Contains(str(m["title"]), tk) {
					t.Errorf("%v: %s answered as %v %q", body, s, m["symbol"], m["title"])
				}
				if name, ok := known[tk]; ok && !strings.Contains(str(m["title"]), name) {
					t.Errorf("%v: %s is %q", body, s, m["title"])
				}
				titles[str(m["title"])] = true
			}
			if len(titles) != len(recs) {
				t.Errorf("%v: two tickers answered as one company", body)
			}
		}},
		{"pypkg.details", func(r *rand.Rand, i int) map[string]any {
			return map[string]any{"package": pick(r, packages) + []string{"", "-x", "2"}[i%3]}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) != 1 || !strings.EqualFold(str(recs[0]["package"]), body["package"].(string)) {
				t.Fatalf("%v: %.300s", body, r.Body)
			}
			if s := string(r.Body); strings.Contains(s, "Kenneth Reitz") || strings.Contains(s, "HTTP for Humans") {
				t.Errorf("%v: the answer carries the recorded project's identity: %.300s", body, s)
			}
		}},
		{"jspkg.package", func(r *rand.Rand, i int) map[string]any {
			return map[string]any{"package": pick(r, packages) + []string{"", "-x", "2"}[i%3]}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) != 1 || str(recs[0]["package"]) != body["package"] {
				t.Fatalf("%v: %.300s", body, r.Body)
			}
			if s := string(r.Body); strings.Contains(s, "parse argument options") || strings.Contains(s, "substack") {
				t.Errorf("%v: the answer carries the recorded package's identity: %.300s", body, s)
			}
		}},
		{"music.search", func(r *rand.Rand, i int) map[string]any {
			return map[string]any{"query": pick(r, []string{"karma police", "blue monday", "heroes", "river song", "northern lights"}) + []string{"", " live", " remix"}[i%3],
				"kind": []string{"track", "artist", "album"}[i%3/1%3], "num": 1 + r.IntN(5)}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			q := strings.ToLower(body["query"].(string))
			for _, m := range r.Results() {
				if !strings.Contains(strings.ToLower(str(m["title"])), strings.Fields(q)[0]) {
					t.Errorf("%v: %q", body, m["title"])
				}
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"books.search", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"query": pick(r, words), "num": 1 + r.IntN(10)}
			if i%2 == 0 {
				b["author"] = pick(r, authors)
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			first := strings.Fields(strings.ToLower(body["query"].(string)))[0]
			for _, m := range r.Results() {
				if !strings.Contains(strings.ToLower(str(m["title"])), first) {
					t.Errorf("%v: %q", body, m["title"])
				}
				if a, ok := body["author"].(string); ok && !strings.Contains(fmt.Sprint(m["authors"]), a) {
					t.Errorf("%v: %q by %v", body, m["title"], m["authors"])
				}
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"academic.search", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"query": pick(r, words), "num": 1 + r.IntN(10), "sort": []string{"relevance", "cited", "recent"}[i%3]}
			if i%2 == 0 {
				from := 1990 + r.IntN(30)
				b["from_year"] = from
				if i%4 == 0 {
					b["to_year"] = from + r.IntN(10)
				}
			}
			if i%5 == 0 {
				b["open_access_only"] = true
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) == 0 {
				t.Fatalf("%v: no works", body)
			}
			first := strings.Fields(strings.ToLower(body["query"].(string)))[0]
			for _, m := range recs {
				y, _ := num(m["year"])
				if from, ok := num(body["from_year"]); ok && y < from {
					t.Errorf("%v: a work of %v", body, y)
				}
				if to, ok := num(body["to_year"]); ok && y > to {
					t.Errorf("%v: a work of %v", body, y)
				}
				if body["open_access_only"] == true && m["open_access"] != true {
					t.Errorf("%v: %q is not open access", body, m["title"])
				}
				if !strings.Contains(strings.ToLower(str(m["title"])), first) {
					t.Errorf("%v: %q", body, m["title"])
				}
			}
			switch body["sort"] {
			case "cited":
				if !sort.SliceIsSorted(recs, func(i, j int) bool { return numOr(recs[i]["cited_by"]) > numOr(recs[j]["cited_by"]) }) {
					t.Errorf("%v: not by citations", body)
				}
			case "recent":
				if !sort.SliceIsSorted(recs, func(i, j int) bool { return numOr(recs[i]["year"]) > numOr(recs[j]["year"]) }) {
					t.Errorf("%v: not by recency", body)
				}
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"recipes.search", func(r *rand.Rand, i int) map[string]any {
			v := pick(r, []string{"Peruvian", "Thai", "Greek", "Korean", "Lebanese", "lentils", "tofu", "Breakfast", "Goat"})
			return map[string]any{[]string{"cuisine", "ingredient", "category", "query"}[i%4]: v, "num": 1 + r.IntN(5)}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			var v string
			for _, k := range []string{"cuisine", "ingredient", "category", "query"} {
				if s, ok := body[k].(string); ok {
					v = s
				}
			}
			recs := r.Results()
			if len(recs) == 0 {
				t.Fatalf("%v: no meals", body)
			}
			for _, m := range recs {
				if !strings.Contains(strings.ToLower(str(m["title"])), strings.ToLower(v)) {
					t.Errorf("%v: %q", body, m["title"])
				}
				if cu, ok := body["cuisine"].(string); ok {
					d := c.e.Do(http.MethodPost, "/v1/follow-up", c.key, map[string]any{"record_id": m["record_id"], "action": "details"})
					if !strings.Contains(string(d.Body), `"cuisine":"`+cu+`"`) {
						t.Errorf("%v: the details of %q are not %s: %.300s", body, m["title"], cu, d.Body)
					}
				}
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"realestate.search", func(r *rand.Rand, i int) map[string]any {
			c := pick(r, cities)
			b := map[string]any{"query": c.Name, "listing_status": []string{"for_sale", "for_rent", "sold"}[i%3],
				"sort": []string{"relevance", "newest", "price_asc", "price_desc", "beds", "baths", "sqft"}[i%7], "num": 1 + r.IntN(10)}
			if i%4 == 0 {
				b["min_beds"] = 1 + r.IntN(3)
			}
			if i%5 == 0 {
				if b["listing_status"] == "for_rent" {
					b["max_price"] = 2000 + r.IntN(3000)
				} else {
					b["max_price"] = 300000 + r.IntN(900000)
				}
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			place, _ := providers.PlaceNamed(body["query"].(string))
			recs := r.Results()
			for _, m := range recs {
				lat, _ := num(m["latitude"])
				lon, _ := num(m["longitude"])
				within(t, fmt.Sprintf("%v: listing %q", body, m["title"]), lat, lon, place, 10)
				if mx, ok := num(body["max_price"]); ok && numOr(m["price"]) > mx {
					t.Errorf("%v: %q at %v", body, m["title"], m["price"])
				}
				if mb, ok := num(body["min_beds"]); ok && numOr(m["beds"]) < mb {
					t.Errorf("%v: %q has %v bedrooms", body, m["title"], m["beds"])
				}
			}
			key := map[string]func(m map[string]any) float64{
				"price_asc":  func(m map[string]any) float64 { return numOr(m["price"]) },
				"price_desc": func(m map[string]any) float64 { return -numOr(m["price"]) },
				"beds":       func(m map[string]any) float64 { return -numOr(m["beds"]) },
				"baths":      func(m map[string]any) float64 { return -numOr(m["baths"]) },
				"sqft":       func(m map[string]any) float64 { return -numOr(m["sqft"]) },
				"newest":     func(m map[string]any) float64 { return numOr(m["days_on_zillow"]) },
			}[body["sort"].(string)]
			if key != nil && !sort.SliceIsSorted(recs, func(i, j int) bool { return key(recs[i]) < key(recs[j]) }) {
				t.Errorf("%v: not in %s order", body, body["sort"])
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"transit.routes", func(r *rand.Rand, i int) map[string]any {
			a := pick(r, cities)
			near := providers.PlacesNear(a.Lat, a.Lon, 300, 6)
			b := near[r.IntN(len(near))]
			return map[string]any{"origin": fmt.Sprintf("%d Market Street, %s", 1+r.IntN(90), a.Name), "destination": "Central Station, " + b.Name}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			a, _ := providers.PlaceNamed(body["origin"].(string))
			b, _ := providers.PlaceNamed(body["destination"].(string))
			gc := providers.DistanceKm(a.Lat, a.Lon, b.Lat, b.Lon)
			recs := r.Results()
			if len(recs) == 0 {
				t.Fatalf("%v: no itineraries", body)
			}
			for _, m := range recs {
				km := numOr(m["distance_m"]) / 1000
				if km < gc-6 || km > 1.7*gc+8 {
					t.Errorf("%v: %.1f km for %.1f km between the towns", body, km, gc)
				}
				if h := numOr(m["duration_seconds"]) / 3600; km > 0 && (km/h < 4 || km/h > 95) {
					t.Errorf("%v: %.1f km in %.1f h", body, km, h)
				}
			}
		}},
		{"shopping.search", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"query": pick(r, []string{"espresso machine", "trail shoes", "desk lamp", "mirrorless camera", "kettle"}), "num": 1 + r.IntN(10)}
			if i%3 == 0 {
				b["price_max"] = 50 + r.IntN(300)
			}
			if i%4 == 1 {
				b["price_min"] = 10 + r.IntN(40)
			}
			if s := []string{"", "price_low_to_high", "price_high_to_low", "rating_high_to_low"}[i%4]; s != "" {
				b["sort"] = s
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			first := strings.Fields(strings.ToLower(body["query"].(string)))[0]
			for _, m := range recs {
				p := numOr(m["price"])
				if mx, ok := num(body["price_max"]); ok && p > mx {
					t.Errorf("%v: %q at %v", body, m["title"], p)
				}
				if mn, ok := num(body["price_min"]); ok && p < mn {
					t.Errorf("%v: %q at %v", body, m["title"], p)
				}
				if !strings.Contains(strings.ToLower(str(m["title"])), first) {
					t.Errorf("%v: %q", body, m["title"])
				}
			}
			key := map[string]func(m map[string]any) float64{
				"price_low_to_high":  func(m map[string]any) float64 { return numOr(m["price"]) },
				"price_high_to_low":  func(m map[string]any) float64 { return -numOr(m["price"]) },
				"rating_high_to_low": func(m map[string]any) float64 { return -numOr(m["rating"]) },
			}[str(body["sort"])]
			if key != nil && !sort.SliceIsSorted(recs, func(i, j int) bool { return key(recs[i]) < key(recs[j]) }) {
				t.Errorf("%v: not in %s order", body, body["sort"])
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"repo.search", func(r *rand.Rand, i int) map[string]any {
			return map[string]any{"query": pick(r, []string{"http router", "static site generator language:rust", "tetris", "markdown parser language:go"}),
				"sort": []string{"best_match", "stars", "forks", "updated"}[i%4], "num": 2 + r.IntN(8)}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			key := map[string]string{"stars": "stars", "forks": "forks", "updated": "updated_at"}[body["sort"].(string)]
			if key != "" && !sort.SliceIsSorted(recs, func(i, j int) bool {
				return fmt.Sprint(recs[i][key]) > fmt.Sprint(recs[j][key]) && key == "updated_at" || numOr(recs[i][key]) > numOr(recs[j][key])
			}) {
				t.Errorf("%v: not sorted by %s", body, key)
			}
			if _, lang, ok := strings.Cut(body["query"].(string), "language:"); ok {
				for _, m := range recs {
					if !strings.EqualFold(str(m["language"]), lang) {
						t.Errorf("%v: a %v repository", body, m["language"])
					}
				}
			}
			checkMoreAdvances(t, c, body, r, "full_name")
		}},
	}
}

func numOr(v any) float64 { f, _ := num(v); return f }

// TestTestModeIsConsistentWithTheRequest is the property test of issue 36.
func TestTestModeIsConsistentWithTheRequest(t *testing.T) {
	t.Parallel() // a long CPU-bound sweep: it shares the two cores with the others
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: gatewaytest.Unlimited{}})
	for _, cc := range consistencyCases() {
		t.Run(cc.id, func(t *testing.T) {
			_, _, key := e.NewTenant("pro")
			c := &checker{e: e, key: key}
			for i := range consistencyRequests {
				r := rand.New(rand.NewPCG(uint64(i), 36))
				body := cc.gen(r, i)
				resp := e.Do(http.MethodPost, "/v1/capabilities/"+cc.id+"/execute", key, body)
				if resp.Status == http.StatusOK && !strings.Contains(fmt.Sprint(resp.JSON["notes"]), providers.SandboxNote) {
					t.Errorf("%v: no synthetic-answer note: %v", body, resp.JSON["notes"])
				}
				if resp.Status != http.StatusOK && cc.id != "flights.search" {
					t.Fatalf("%v: %d %s", body, resp.Status, resp.Body)
				}
				cc.check(t, c, body, resp)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// TestReadmeUpdateExample: the README walk-through's update to author Tolkien answers works by
// Tolkien about the query.
func TestReadmeUpdateExample(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: gatewaytest.Unlimited{}})
	r := e.Do(http.MethodPost, "/v1/capabilities/books.search/execute", e.TestKey, map[string]any{"query": "the lord of the rings", "num": 3})
	if r.Status != http.StatusOK {
		t.Fatalf("execute: %d %s", r.Status, r.Body)
	}
	u := e.Do(http.MethodPost, "/v1/follow-up", e.TestKey, map[string]any{"search_id": r.JSON["search_id"], "action": "update", "params": map[string]any{"author": "Tolkien"}})
	if u.Status != http.StatusOK {
		t.Fatalf("update: %d %s", u.Status, u.Body)
	}
	recs := u.Results()
	if len(recs) == 0 {
		t.Fatal("no works")
	}
	for _, m := range recs {
		if !strings.Contains(fmt.Sprint(m["authors"]), "Tolkien") || !strings.Contains(strings.ToLower(str(m["title"])), "lord of the rings") {
			t.Errorf("%q by %v", m["title"], m["authors"])
		}
	}
}
