package navigation

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

var matrixSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "navigation.matrix request",
  "type": "object",
  "additionalProperties": false,
  "required": ["origins", "destinations"],
  "properties": {
    "origins": {
      "type": "array",
      "minItems": 1,
      "maxItems": 25,
      "items": ` + placeSchema("A place to travel from.") + `,
      "description": "1 to 25 places to travel from; each a place name or coordinates. Records are ordered by origin, then destination."
    },
    "destinations": {
      "type": "array",
      "minItems": 1,
      "maxItems": 25,
      "items": ` + placeSchema("A place to travel to.") + `,
      "description": "1 to 25 places to travel to; each a place name or coordinates."
    },
    "mode": ` + modeSchema + `,
    "metrics": {
      "type": "array",
      "items": {"type": "string", "enum": ["duration", "distance"]},
      "minItems": 1,
      "maxItems": 2,
      "uniqueItems": true,
      "default": ["duration", "distance"],
      "description": "What to compute for every origin-destination pair: duration (travel time, duration_min) and/or distance (road distance, distance_km)."
    }
  }
}`

// Matrix is navigation.matrix (named in the spec without a shape; designed like navigation.route).
var Matrix = &providers.Capability{
	ID:      "navigation.matrix",
	Fresh:   time.Hour,
	Title:   "Travel time and distance matrix",
	Summary: "Travel times and road distances between up to 25 origins and 25 destinations, by car, on foot or by bike.",
	Description: "Computes the travel time and/or road distance from every place in `origins` to every place in `destinations` " +
		"(1 to 25 each) by `mode` driving (default), walking or cycling; `metrics` picks duration and/or distance (default both). " +
		"Places are names or addresses (geocoded to their best match with OpenStreetMap's Nominatim, each distinct name once; a name nothing " +
		"matches is refused with 400 invalid_request and a violation at its field, for example /origins/1), \"lat, lon\" strings, or {lat, lon} objects. " +
		"One record per origin-destination pair, ordered by origin then destination, titled \"origin → destination\", with keys " +
		"`origin_index` and `destination_index` (integers, positions in the request's arrays, always), `duration_min` and `distance_km` " +
		"(numbers, when the pair is routable and the metric was requested), `status` (\"ok\" or \"unroutable\", always), `engine` " +
		"(openrouteservice or osrm-demo, always), and with the primary engine OpenRouteService `attribution`, `license` and `license_url` (always). " +
		"`notes` lists the unroutable pairs and names what each place name was geocoded to. Matrices come from OpenRouteService: the fallback " +
		"engine OSRM is by default the public OSRM demo server, whose usage policy forbids distance tables, so without OpenRouteService a " +
		"matrix is refused with capability_unavailable. Only a deployment that points the fallback at its own OSRM server gets driving " +
		"matrices from it (car profile only, no service level): `notes` says so and its records carry no attribution, license or " +
		"license_url; walking and cycling are then refused with capability_unavailable. " +
		"Single result: `more` is refused, `update` is not offered, and there are no record actions.",
	Topic:    topic,
	Request:  matrixSchema,
	Paging:   providers.PagingSingle,
	NoUpdate: true,
	Cost: providers.Cost{Typical: 0,
		Basis: "Free: OpenRouteService's free plan, a self-hosted OSRM server and Nominatim cost nothing per call."},
	Deadline:  15 * time.Second,
	Providers: []string{osrmID, nominatimID},
	Examples: []providers.Example{
		{Title: "Driving times and distances between cities, one of them on an island",
			Body: providers.ExampleBody(`{"origins": ["Berlin", "Potsdam"], "destinations": ["Leipzig", "Hamburg", "Helgoland"]}`)},
		{Title: "Walking times between coordinates",
			Body: providers.ExampleBody(`{"origins": [{"lat": 52.5163, "lon": 13.3777}, {"lat": 52.5076, "lon": 13.3904}], "destinations": [{"lat": 52.5219, "lon": 13.4132}, {"lat": 52.5208, "lon": 13.4094}], "mode": "walking", "metrics": ["duration"]}`)},
		{Title: "Cycling distances from one place to several",
			Body: providers.ExampleBody(`{"origins": ["52.4009, 13.0591"], "destinations": [{"lat": 52.3906, "lon": 13.0645}, {"lat": 52.4044, "lon": 13.0386}], "mode": "cycling", "metrics": ["distance"]}`)},
	},
	Execute: executeMatrix,
	Record:  PairRecord{},
}

// PairRecord is a navigation.matrix record (besides title and snippet): one origin-destination
// pair.
type PairRecord struct {
	OriginIndex      int      `json:"origin_index"`
	DestinationIndex int      `json:"destination_index"`
	Engine           string   `json:"engine"`
	Status           string   `json:"status" enum:"ok,unroutable"`
	DurationMin      *float64 `json:"duration_min,omitempty"`
	DistanceKm       *float64 `json:"distance_km,omitempty"`
	Attribution      *string  `json:"attribution,omitempty"`
	License          string   `json:"license,omitempty"`
	LicenseURL       string   `json:"license_url,omitempty"`
}

// metricsOrder is the canonical order of the metrics sent to the engines.
var metricsOrder = []string{"duration", "distance"}

// grid maps the request's places onto the engines' locations: each distinct position is sent
// once, and each distinct origin (destination) position is one source row (destination column).
type grid struct {
	locations    [][2]float64
	locPaths     [][]string // request fields of each location
	sources      []int      // location index of each row
	destinations []int      // location index of each column
	rowOf        []int      // row of each origin
	colOf        []int      // column of each destination
}

func newGrid(origins, destinations []*place) *grid {
	g := &grid{}
	locOf := map[string]int{}
	loc := func(p *place) int {
		k := strconv.FormatFloat(p.Lat, 'f', -1, 64) + "," + strconv.FormatFloat(p.Lon, 'f', -1, 64)
		i, ok := locOf[k]
		if !ok {
			i = len(g.locations)
			locOf[k] = i
			g.locations = append(g.locations, [2]float64{p.Lon, p.Lat})
			g.locPaths = append(g.locPaths, nil)
		}
		g.locPaths[i] = append(g.locPaths[i], p.Path)
		return i
	}
	index := func(places []*place, lines *[]int) []int {
		at := map[int]int{}
		out := make([]int, len(places))
		for i, p := range places {
			l := loc(p)
			n, ok := at[l]
			if !ok {
				n = len(*lines)
				at[l] = n
				*lines = append(*lines, l)
			}
			out[i] = n
		}
		return out
	}
	g.rowOf = index(origins, &g.sources)
	g.colOf = index(destinations, &g.destinations)
	return g
}

func (g *grid) paths(i int) []string {
	if i >= 0 && i < len(g.locPaths) {
		return g.locPaths[i]
	}
	return nil
}

func executeMatrix(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	req := call.Request
	mode := req.Str("mode")
	if _, ok := orsProfiles[mode]; !ok {
		mode = "driving"
	}
	asked := map[string]bool{}
	for _, m := range req.Strings("metrics") {
		asked[m] = true
	}
	var metrics []string
	for _, m := range metricsOrder {
		if asked[m] || len(asked) == 0 {
			metrics = append(metrics, m)
		}
	}
	origins, err := parsePlaces(req["origins"], "/origins")
	if err != nil {
		return nil, err
	}
	destinations, err := parsePlaces(req["destinations"], "/destinations")
	if err != nil {
		return nil, err
	}
	geocodeNotes, err := resolvePlaces(ctx, call, append(append([]*place{}, origins...), destinations...))
	if err != nil {
		return nil, err
	}
	g := newGrid(origins, destinations)

	var ans *matrixAnswer
	var noneRoutableWhy string
	keep := func(a *matrixAnswer, err error) error {
		var nr *noneRoutable
		if errors.As(err, &nr) {
			ans, noneRoutableWhy = a, nr.msg
			return nil
		}
		ans = a
		return err
	}
	why, err := withEngines(ctx, call, mode,
		func(ctx context.Context, ors *providers.Upstream) error {
			return keep(orsMatrix(ctx, ors, mode, g.locations, g.sources, g.destinations, metrics, g.paths))
		},
		func(osrm *providers.Upstream) error {
			if err := tablesAllowed(osrm); err != nil {
				return err
			}
			return keep(osrmTable(ctx, osrm, g.locations, g.sources, g.destinations, metrics, g.paths))
		})
	if err != nil {
		return nil, err
	}

	page := &providers.Page{}
	if why != "" {
		page.Notes = append(page.Notes, fallbackNote("Computed", why))
	}
	var unroutable []string
	for i, o := range origins {
		for j, d := range destinations {
			rec := pairRecord(i, j, o, d, g.rowOf[i], g.colOf[j], mode, ans)
			if rec.Data.(*PairRecord).Status == "unroutable" {
				unroutable = append(unroutable, fmt.Sprintf("%s → %s", short(o.Label), short(d.Label)))
			}
			page.Records = append(page.Records, rec)
		}
	}
	if len(unroutable) > 0 {
		note := fmt.Sprintf("No %s route was found for %d of %d pairs: %s", mode, len(unroutable), len(page.Records), listSome(unroutable, 10))
		if noneRoutableWhy != "" {
			note += " (" + strings.TrimSuffix(noneRoutableWhy, ".") + ")"
		}
		page.Notes = append(page.Notes, note+".")
	}
	page.Notes = append(page.Notes, geocodeNotes...)
	return page, nil
}

// pairRecord maps one origin-destination pair.
func pairRecord(i, j int, o, d *place, row, col int, mode string, ans *matrixAnswer) providers.Record {
	fields := &PairRecord{OriginIndex: i, DestinationIndex: j, Engine: ans.Engine}
	routable := true
	var parts []string
	if ans.Durations != nil {
		if c := ans.Durations[row][col]; c.OK && c.V >= 0 {
			v := round(c.V/60, 1)
			fields.DurationMin = &v
			parts = append(parts, humanDuration(c.V))
		} else {
			routable = false
		}
	}
	if ans.Distances != nil {
		if c := ans.Distances[row][col]; c.OK && c.V >= 0 {
			v := round(c.V/1000, 2)
			fields.DistanceKm = &v
			parts = append(parts, formatKm(c.V)+" km")
		} else {
			routable = false
		}
	}
	if ans.Engine == engineORS {
		fields.Attribution, fields.License, fields.LicenseURL = &ans.Attribution, orsLicense, orsLicenseURL
	}
	snippet := fmt.Sprintf("No %s route found.", mode)
	if routable {
		fields.Status = "ok"
		snippet = strings.Join(parts, ", ") + " by " + modeNoun[mode] + "."
	} else {
		fields.Status = "unroutable"
		// A half-answered pair (one metric without a value) keeps no numbers: it is not routable.
		fields.DurationMin, fields.DistanceKm = nil, nil
	}
	return providers.Record{
		Title:   fmt.Sprintf("%s → %s", short(o.Label), short(d.Label)),
		Snippet: snippet,
		Data:    fields,
	}
}

var modeNoun = map[string]string{"driving": "car", "walking": "foot", "cycling": "bike"}

// listSome joins up to n items with semicolons (labels may hold commas) and counts the rest.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:n], "; ") + fmt.Sprintf("; and %d more", len(items)-n)
}

// tablesAllowed refuses a matrix on the public OSRM demo server, whose usage policy forbids
// distance tables; a deployment's own OSRM server (PROVIDER_OSRM_URL) computes them.
func tablesAllowed(osrm *providers.Upstream) error {
	if strings.TrimRight(osrm.BaseURL, "/") != osrmDemoURL {
		return nil
	}
	return providers.Errorf(providers.CodeCapabilityUnavailable,
		"navigation.matrix needs OpenRouteService, which is unavailable; the public OSRM demo server's usage policy forbids "+
			"distance tables").WithHint("An operator can set PROVIDER_ORS_KEY, or PROVIDER_OSRM_URL to a self-hosted OSRM server.")
}
