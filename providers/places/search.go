package places

import (
	"context"
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// SerpApi engine and the bounds the spec leaves to the adapter (see doc.go).
const (
	mapsEngine       = "google_maps"
	sourceName       = "google_maps" // record key source
	providerPageSize = 20            // SerpApi google_maps answers 20 results a page (start 0, 20, 40, …)
	maxProviderPages = 20            // spec 4.27 and section 8: paging stops after 20 provider pages
	defaultZoom      = 14            // zoom of ll without radius_m (SerpApi's documented example)
	minZoom, maxZoom = 3, 21         // SerpApi's ll zoom range
	// zoomSpan is the radius in metres a zoom-0 map spans at the equator, chosen so that the spec's
	// smallest radius (62 m) is zoom 21, the most zoomed-in map: 62 × 2^21.
	zoomSpan = 62 * (1 << 21)
)

// now is the clock of fetched_at (tests pin it).
var now = time.Now

// Search is places.search (spec section 4.27).
var Search = &providers.Capability{
	ID:      "places.search",
	Fresh:   time.Hour,
	Title:   "Places search",
	Summary: "Find businesses and places on Google Maps near a point or in a region, with rating, opening state, distance and contacts.",
	Description: "Searches Google Maps (through SerpApi) for places: shops, restaurants, services, landmarks. `query` is " +
		"what to find (\"coffee\", \"pharmacy near Union Square\"). `location` {lat, lon} centres the map; " +
		"`radius_m` (62 to 50000, needs location) keeps only places at most that far (straight-line distance) and " +
		"drops places without coordinates; `country` (two letters) and `language` localize the search; " +
		"`min_rating` keeps places rated at least that (places without a rating are dropped); `open_now` true " +
		"keeps places Google Maps shows as open now, false those it shows as closed (a place whose state is " +
		"unknown is dropped either way; the state is read from Google's English wording). `num` (1 to 20, " +
		"default 10) is the page size. Each record is one place: title, url (its Google Maps page), snippet " +
		"(Google's description) and the keys address, phone, type, open_state (as Google shows it, e.g. " +
		"\"Open ⋅ Closes 11 PM\"), hours (weekly opening hours, Monday first), website, price_level_label (e.g. " +
		"\"$$\"), types (string[]), rating (number out of 5), reviews (integer), coordinates {lat, lon}, " +
		"distance_m (metres from location, only with location) and open_now (boolean) when Google Maps has " +
		"them, plus source (always google_maps) and fetched_at (always, RFC 3339). Paging: Google Maps pages " +
		"hold 20 places; a page of this search never spans two of them, so a page can be shorter than num, " +
		"or empty after filtering while has_more is true; more stops after 20 Google Maps pages. Follow-ups: " +
		"more, update (change any field; paging restarts) and the record action details ($0.004 per fresh " +
		"request, cached on repeat): contacts, weekly hours and open state, location (address, plus code, " +
		"coordinates) and amenities (accessibility, payments, offerings, service options, …).",
	Topic:   "Travel and places",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingPage,
	Actions: []providers.Action{{
		Name: "details",
		Description: "Google Maps' place page: contacts (phone, website), weekly hours and the open state, location " +
			"(address, plus code, coordinates) and amenities (accessibility, payments, offerings, service options, …) " +
			"when supplied; $0.004 per fresh request, cached on repeat.",
		Kind:    providers.ActionLookup,
		Credits: 4,
		Run:     details,
	}},
	Cost: providers.Cost{
		Typical: 4,
		Basis:   "$0.004 per SerpApi Google Maps page and per fresh place details lookup; cached details are free",
	},
	Deadline:  15 * time.Second,
	Providers: []string{serpapi.ProviderID},
	Examples: []providers.Example{
		{Title: "Coffee shops within 2 km of a point in Manhattan", Body: providers.ExampleBody(`{"query": "coffee", "location": {"lat": 40.7455096, "lon": -74.0083012}, "radius_m": 2000, "num": 5}`)},
		{Title: "Well-rated places open now, in English for the US", Body: providers.ExampleBody(`{"query": "coffee", "location": {"lat": 40.7455096, "lon": -74.0083012}, "min_rating": 4, "open_now": true, "country": "us", "language": "en"}`)},
		{Title: "Places by name anywhere", Body: providers.ExampleBody(`{"query": "coffee shops in Chelsea, New York"}`)},
	},
	Execute: search,
	Record:  PlaceRecord{},
}

// PlaceRecord is a places.search record (besides title, url and snippet).
type PlaceRecord struct {
	Source          string       `json:"source" doc:"google_maps"`
	FetchedAt       string       `json:"fetched_at" doc:"when the upstream answered (RFC 3339)"`
	Address         string       `json:"address,omitempty"`
	Phone           string       `json:"phone,omitempty"`
	Website         string       `json:"website,omitempty"`
	PriceLevelLabel string       `json:"price_level_label,omitempty" doc:"Google's own label, for example $$"`
	OpenState       string       `json:"open_state,omitempty" doc:"Google's wording, for example Open ⋅ Closes 10 PM"`
	Type            string       `json:"type,omitempty"`
	Types           []string     `json:"types,omitempty"`
	Hours           string       `json:"hours,omitempty" doc:"the week's opening hours, one day after another"`
	Rating          *float64     `json:"rating,omitempty"`
	Reviews         *int64       `json:"reviews,omitempty"`
	Coordinates     *Coordinates `json:"coordinates,omitempty"`
	DistanceM       *float64     `json:"distance_m,omitempty" doc:"from the request's location"`
	OpenNow         *bool        `json:"open_now,omitempty"`
}

// Coordinates are WGS84 decimal degrees.
type Coordinates struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "places.search request",
  "description": "Search places on Google Maps. Only query is required; radius_m requires location.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 300,
      "pattern": "\\S",
      "description": "What to find, as in the Google Maps search box: a kind of place (\"coffee\", \"pharmacy\"), a name, or either with a place (\"pizza in Brooklyn\"). Must not be blank."
    },
    "location": {
      "type": "object",
      "additionalProperties": false,
      "required": ["lat", "lon"],
      "properties": {
        "lat": {"type": "number", "minimum": -90, "maximum": 90, "description": "Latitude in degrees."},
        "lon": {"type": "number", "minimum": -180, "maximum": 180, "description": "Longitude in degrees."}
      },
      "description": "The point the map is centred on; results are computed around it and distance_m is measured from it."
    },
    "radius_m": {
      "type": "number",
      "minimum": 62,
      "maximum": 50000,
      "description": "Keep only places at most this many metres (straight line) from location; places without coordinates are dropped. Requires location."
    },
    "country": {
      "type": "string",
      "pattern": "^[A-Za-z]{2}$",
      "description": "Two-letter country code (e.g. us, gb, fr) of the Google Maps search."
    },
    "language": {
      "type": "string",
      "minLength": 2,
      "maxLength": 12,
      "description": "Language code of the results, e.g. en, es, fr, pt-BR."
    },
    "min_rating": {
      "type": "number",
      "minimum": 0,
      "maximum": 5,
      "description": "Keep only places rated at least this (out of 5); above 0, places without a rating are dropped."
    },
    "open_now": {
      "type": "boolean",
      "description": "true: only places Google Maps shows as open now; false: only places it shows as closed now. Places whose state is unknown are dropped."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 20,
      "default": 10,
      "description": "Results per page, 1 to 20."
    }
  }
}`

// rules checks the rules beyond the schema of spec 4.27: radius_m needs location (also after an
// update that removes location, since the rules see the merged request).
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	if req.Has("radius_m") && req["radius_m"] != nil {
		if _, ok := req.Object("location"); !ok {
			return []providers.Violation{{Path: "/radius_m",
				Message: "radius_m requires location: send location {lat, lon} to measure the radius from"}}
		}
	}
	return nil
}

// pageState is the paging state: Google Maps page (1-based; page P is SerpApi start (P-1)×20),
// the index in it where the next page of this search starts, and, for a search without location,
// the ll SerpApi's own next link carried (SerpApi needs ll to page).
type pageState struct {
	Page   int    `json:"page"`
	Offset int    `json:"offset"`
	LL     string `json:"ll,omitempty"`
}

// point is a position in degrees.
type point struct{ lat, lon float64 }

// criteria are the request's filters, applied to every Google Maps result.
type criteria struct {
	center    *point
	radius    float64 // 0: none
	minRating float64 // 0: none
	openNow   *bool
}

func criteriaOf(req providers.Request) criteria {
	var c criteria
	if loc, ok := req.Object("location"); ok {
		lat, _ := loc.Float("lat")
		lon, _ := loc.Float("lon")
		c.center = &point{lat, lon}
		c.radius, _ = req.Float("radius_m")
	}
	c.minRating, _ = req.Float("min_rating")
	if b, ok := req.Bool("open_now"); ok {
		c.openNow = &b
	}
	return c
}

// llOf builds SerpApi's ll "@lat,lon,<zoom>z" for the request's location: with radius_m, the
// largest zoom whose map still spans the radius; without it, zoom 14.
func llOf(c criteria) string {
	if c.center == nil {
		return ""
	}
	zoom := defaultZoom
	if c.radius > 0 {
		span := zoomSpan * math.Max(math.Cos(c.center.lat*math.Pi/180), 0.01)
		zoom = int(math.Floor(math.Log2(span / c.radius)))
		zoom = min(max(zoom, minZoom), maxZoom)
	}
	return "@" + strconv.FormatFloat(c.center.lat, 'f', -1, 64) + "," + strconv.FormatFloat(c.center.lon, 'f', -1, 64) +
		"," + strconv.Itoa(zoom) + "z"
}

// searchParams is the google_maps query of one Google Maps page.
func searchParams(req providers.Request, c criteria, st pageState) url.Values {
	q := url.Values{"type": {"search"}, "q": {strings.TrimSpace(req.Str("query"))}}
	if ll := llOf(c); ll != "" {
		q.Set("ll", ll)
	} else if st.LL != "" {
		q.Set("ll", st.LL)
	}
	localize(q, req)
	if st.Page > 1 {
		q.Set("start", strconv.Itoa((st.Page-1)*providerPageSize))
	}
	return q
}

// localize adds hl and gl (lower-case country, as SerpApi's examples write it).
func localize(q url.Values, req providers.Request) {
	if s := strings.TrimSpace(req.Str("language")); s != "" {
		q.Set("hl", s)
	}
	if s := req.Str("country"); s != "" {
		q.Set("gl", strings.ToLower(s))
	}
}

// mapsAnswer is the part of a google_maps answer the search reads.
type mapsAnswer struct {
	LocalResults []json.RawMessage `json:"local_results"`
	PlaceResults json.RawMessage   `json:"place_results"`
	Pagination   struct {
		Next string `json:"next"`
	} `json:"serpapi_pagination"`
}

func search(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	req := call.Request
	num, ok := req.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	st := pageState{Page: 1}
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Page < 1 || st.Page > maxProviderPages ||
			st.Offset < 0 || st.Offset >= providerPageSize {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}
	c := criteriaOf(req)

	var raw json.RawMessage
	_, err := serpapi.Search(ctx, call, mapsEngine, searchParams(req, c, st), &raw)
	if err != nil {
		return nil, err
	}
	var ans mapsAnswer
	_ = json.Unmarshal(raw, &ans) // fields of an unexpected type count as absent
	results := ans.LocalResults
	if len(results) > providerPageSize {
		results = results[:providerPageSize]
	}
	page := &providers.Page{Records: []providers.Record{}}
	if lang := strings.ToLower(req.Str("language")); c.openNow != nil && lang != "" && !strings.HasPrefix(lang, "en") {
		page.Notes = append(page.Notes, "open_now reads Google Maps' English wording of the open state; with language "+
			req.Str("language")+" places whose state is not recognised are dropped.")
	}
	fetched := now().UTC().Format(time.RFC3339)

	if len(results) == 0 {
		// Google Maps answers a query naming one place with that place instead of a list.
		if st.Page == 1 && st.Offset == 0 && len(ans.PlaceResults) > 0 && string(ans.PlaceResults) != "null" {
			if rec, ok := placeRecord(ans.PlaceResults, c, fetched); ok {
				page.Records = append(page.Records, rec)
				page.Notes = append(page.Notes, "Google Maps answered with a single place for this query.")
			}
			return page, nil
		}
		return page, nil // no results, or a page past the end: the search ends
	}

	next := st.Offset
	for i := st.Offset; i < len(results) && len(page.Records) < num; i++ {
		next = i + 1
		if rec, ok := placeRecord(results[i], c, fetched); ok {
			page.Records = append(page.Records, rec)
		}
	}
	switch {
	case next < len(results):
		page.HasMore = true
		page.Next, _ = json.Marshal(pageState{Page: st.Page, Offset: next, LL: st.LL})
	case ans.Pagination.Next != "" && st.Page >= maxProviderPages:
		page.Notes = append(page.Notes, "places.search reads at most 20 Google Maps pages; narrow the search to see other places.")
	case ans.Pagination.Next != "":
		// SerpApi needs ll to page: with a location the request's own ll is rebuilt each time;
		// without one, the ll of SerpApi's next link (if any) is kept in the state.
		ll := ""
		if c.center == nil {
			ll = st.LL
			if v := queryParam(ans.Pagination.Next, "ll"); v != "" {
				ll = v
			}
		}
		page.HasMore = true
		page.Next, _ = json.Marshal(pageState{Page: st.Page + 1, LL: ll})
	}
	return page, nil
}

// queryParam reads one query parameter of a URL ("" when absent or unreadable).
func queryParam(link, name string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return u.Query().Get(name)
}

// distance is the great-circle (haversine) distance in metres on a sphere of the Earth's mean radius.
func distance(a, b point) float64 {
	const earthRadius = 6371008.8
	rad := math.Pi / 180
	dLat, dLon := (b.lat-a.lat)*rad, (b.lon-a.lon)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.lat*rad)*math.Cos(b.lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadius * math.Asin(math.Min(1, math.Sqrt(h)))
}
