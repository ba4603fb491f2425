package navigation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

const topic = "Travel and places"

// orsMaxBudget bounds the primary engine's call so a timeout still leaves the fallback time to
// answer within the 15 s deadline.
const orsMaxBudget = 8 * time.Second

var routeSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "navigation.route request",
  "type": "object",
  "additionalProperties": false,
  "required": ["origin", "destination"],
  "properties": {
    "origin": ` + placeSchema("Where the route starts.") + `,
    "destination": ` + placeSchema("Where the route ends.") + `,
    "waypoints": {
      "type": "array",
      "maxItems": 10,
      "items": ` + placeSchema("A stop on the way, visited in the order given.") + `,
      "description": "Up to 10 stops between origin and destination, visited in order; each a place name or coordinates. Alternatives are computed only for routes without waypoints."
    },
    "mode": ` + modeSchema + `,
    "alternatives": {
      "type": "boolean",
      "default": false,
      "description": "Also return up to 3 alternative routes (one record each) when the engine finds ones that differ enough from the best route. Not combined with waypoints."
    }
  }
}`

// Route is navigation.route (spec section 4.7).
var Route = &providers.Capability{
	ID:      "navigation.route",
	Fresh:   time.Hour,
	Title:   "Route planner",
	Summary: "A driving, walking or cycling route between places (with optional stops and alternatives): distance, duration, main roads and turn-by-turn steps.",
	Description: "Plans a route from `origin` to `destination` through up to 10 `waypoints`, by `mode` driving (default), walking or cycling. " +
		"Places are names or addresses (geocoded to their best match with OpenStreetMap's Nominatim; a name nothing matches is refused with " +
		"400 invalid_request and a violation at its field, for example /origin or /waypoints/2), \"lat, lon\" strings, or {lat, lon} objects. " +
		"One record per route; `alternatives: true` adds up to 3 alternative routes as further records (routes without waypoints only). " +
		"Record keys: `distance_km` and `duration_min` (numbers, always), `steps` (integer count of turn-by-turn steps, always), " +
		"`via` (string[]: the waypoints, or for a route without waypoints its main roads by distance), `engine` (openrouteservice or osrm-demo, always), " +
		"and with the primary engine OpenRouteService `attribution`, `license` and `license_url` (always). When the primary engine is unavailable, " +
		"driving routes come from the fallback demo engine OSRM (car profile only, no service level; by default the public OSRM demo server, " +
		"which allows at most one request a second and non-commercial use only, so this gateway queues its calls to it): `notes` says so and " +
		"its records carry no attribution, license or license_url; walking and cycling are then refused with capability_unavailable. When no route connects the places " +
		"the result is empty and `notes` says why. `notes` also names what each place name was geocoded to. " +
		"Single result: `more` is refused and `update` is not offered. Record action `details` (free, stored at search time, no provider call; " +
		"410 session_expired once the session is gone): distance_km, duration_min, steps [{instruction, distance_m, duration_s, name (when the way has one)}], " +
		"and attribution, license, license_url with the primary engine.",
	Topic:    topic,
	Request:  routeSchema,
	Paging:   providers.PagingSingle,
	NoUpdate: true,
	Actions: []providers.Action{{
		Name: "details",
		Description: "The route's turn-by-turn steps (instruction, distance in metres, duration in seconds, way name), with its total distance " +
			"and duration and, from the primary engine, attribution and license. Stored at search time: free, no provider call; 410 " +
			"session_expired once the search session is gone.",
		Kind: providers.ActionStored,
	}},
	Cost: providers.Cost{Typical: 0,
		Basis: "Free: OpenRouteService's free plan, the OSRM demo server and Nominatim cost nothing per call; details are stored at search time."},
	Deadline:  15 * time.Second,
	Providers: []string{osrmID, nominatimID},
	Examples: []providers.Example{
		{Title: "Driving route between two cities", Body: providers.ExampleBody(`{"origin": "Berlin", "destination": "Potsdam"}`)},
		{Title: "Driving route with alternatives", Body: providers.ExampleBody(`{"origin": "Berlin", "destination": "Potsdam", "alternatives": true}`)},
		{Title: "Driving route with a stop on the way", Body: providers.ExampleBody(`{"origin": "Berlin", "destination": "Leipzig", "waypoints": ["Potsdam"]}`)},
		{Title: "Walking route between coordinates", Body: providers.ExampleBody(`{"origin": {"lat": 52.5163, "lon": 13.3777}, "destination": {"lat": 52.5219, "lon": 13.4132}, "mode": "walking"}`)},
		{Title: "Cycling route between coordinates", Body: providers.ExampleBody(`{"origin": {"lat": 52.4009, "lon": 13.0591}, "destination": {"lat": 52.3906, "lon": 13.0645}, "mode": "cycling"}`)},
	},
	Execute: executeRoute,
	Record:  RouteRecord{},
}

// RouteRecord is a navigation.route record (besides title and snippet); the details action has
// the turn-by-turn steps.
type RouteRecord struct {
	DistanceKm  float64  `json:"distance_km"`
	DurationMin float64  `json:"duration_min"`
	Steps       int      `json:"steps" doc:"how many steps details lists"`
	Engine      string   `json:"engine" doc:"the routing engine that answered"`
	Via         []string `json:"via,omitempty" doc:"the waypoints, else the main roads"`
	Attribution *string  `json:"attribution,omitempty" doc:"OpenRouteService answers: the credit its data needs"`
	License     string   `json:"license,omitempty"`
	LicenseURL  string   `json:"license_url,omitempty"`
}

// routeQuery is a validated navigation.route body.
type routeQuery struct {
	origin, destination *place
	waypoints           []*place
	mode                string
	alternatives        bool
}

// points are the places in route order: origin, waypoints, destination.
func (q *routeQuery) points() []*place {
	out := append([]*place{q.origin}, q.waypoints...)
	return append(out, q.destination)
}

func parseRouteQuery(req providers.Request) (*routeQuery, error) {
	q := &routeQuery{mode: req.Str("mode")}
	if _, ok := orsProfiles[q.mode]; !ok {
		q.mode = "driving"
	}
	q.alternatives, _ = req.Bool("alternatives")
	var err error
	if q.origin, err = parsePlace(req["origin"], "/origin"); err != nil {
		return nil, err
	}
	if q.destination, err = parsePlace(req["destination"], "/destination"); err != nil {
		return nil, err
	}
	if q.waypoints, err = parsePlaces(req["waypoints"], "/waypoints"); err != nil {
		return nil, err
	}
	return q, nil
}

func executeRoute(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	q, err := parseRouteQuery(call.Request)
	if err != nil {
		return nil, err
	}
	points := q.points()
	geocodeNotes, err := resolvePlaces(ctx, call, points)
	if err != nil {
		return nil, err
	}
	paths := func(i int) []string {
		if i >= 0 && i < len(points) {
			return []string{points[i].Path}
		}
		return nil
	}
	var notes []string
	alternatives := q.alternatives
	if alternatives && len(q.waypoints) > 0 {
		alternatives = false
		notes = append(notes, "Alternatives are computed only for routes without waypoints; this answer has the one route through the waypoints.")
	}
	ans, engineNotes, err := routeWithEngines(ctx, call, q.mode, points, alternatives, paths)
	if err != nil {
		return nil, err
	}
	notes = append(engineNotes, notes...)
	page := &providers.Page{}
	routes := ans.Routes
	if len(routes) == 0 {
		notes = append(notes, fmt.Sprintf("No %s route was found: %s.", q.mode, strings.TrimSuffix(ans.NoRoute, ".")))
	}
	if !alternatives && len(routes) > 1 {
		routes = routes[:1]
	}
	if alternatives && len(routes) == 1 {
		notes = append(notes, "No alternative route was found that differs enough from the best route.")
	}
	for i, r := range routes {
		page.Records = append(page.Records, routeRecord(q, i, r, ans))
	}
	page.Notes = append(notes, geocodeNotes...)
	return page, nil
}

// errORSLimit marks OpenRouteService's refusal of a request over its limits.
var errORSLimit = errors.New("over the engine's limits")

// routeWithEngines asks the primary engine, and the fallback demo engine for driving when the
// primary is not configured, paused or failing.
func routeWithEngines(ctx context.Context, call *providers.Call, mode string, points []*place, alternatives bool, paths pointPaths) (*routeAnswer, []string, error) {
	var ans *routeAnswer
	var notes []string
	why, err := withEngines(ctx, call, mode,
		func(ctx context.Context, ors *providers.Upstream) error {
			var err error
			ans, err = orsDirections(ctx, ors, mode, points, alternatives, paths)
			if err != nil && alternatives && errors.Is(err, errORSLimit) {
				// Alternatives have a lower distance limit than single routes at OpenRouteService.
				ans, err = orsDirections(ctx, ors, mode, points, false, paths)
				notes = append(notes, "OpenRouteService computes alternatives only for shorter routes; this answer has the best route only.")
			}
			return err
		},
		func(osrm *providers.Upstream) error {
			var err error
			ans, err = osrmDirections(ctx, osrm, points, alternatives, paths)
			return err
		})
	if err != nil {
		return nil, nil, err
	}
	if why != "" {
		notes = append(notes, fallbackNote("Routed", why))
	}
	return ans, notes, nil
}

// withEngines runs primary on OpenRouteService when it is configured and not paused, and
// fallback on the OSRM demo server when it is not, or when it fails in a way a fallback should
// absorb. The fallback routes cars only: other modes are then refused with
// capability_unavailable (retryable when the primary engine is failing rather than absent). why
// is "" when the primary engine answered, else the reason the fallback did.
func withEngines(ctx context.Context, call *providers.Call, mode string,
	primary func(ctx context.Context, ors *providers.Upstream) error, fallback func(osrm *providers.Upstream) error) (string, error) {
	ors := call.Upstream(orsID)
	var why string
	temporary := false
	switch {
	case !ors.Available():
		why = "OpenRouteService is not configured in this deployment"
	case ors.BreakerOpen():
		why, temporary = "OpenRouteService is failing and calls to it are paused", true
	default:
		octx, cancel := context.WithTimeout(ctx, providers.PrimaryBudget(ctx, orsMaxBudget))
		err := primary(octx, ors)
		cancel()
		if err == nil || !providers.FallbackWorthy(err) || ctx.Err() != nil {
			return "", err
		}
		why, temporary = "OpenRouteService failed: "+providers.MessageOf(err), true
	}
	if mode != "driving" {
		e := providers.Errorf(providers.CodeCapabilityUnavailable,
			"%s needs the primary routing engine OpenRouteService, which is unavailable (%s); the fallback demo engine routes cars only",
			mode, why).WithRetryable(temporary)
		return "", e.WithHint("Use mode driving, or retry later.")
	}
	return why, fallback(call.Upstream(osrmID))
}

// fallbackNote tells the caller the fallback demo engine answered, why, and what its records lack.
func fallbackNote(verb, why string) string {
	return verb + " by the fallback demo engine OSRM (car profile only, no service level) because " + why +
		". Its records carry no attribution, license or license_url keys; its routes are computed from OpenStreetMap data " +
		"(© OpenStreetMap contributors, ODbL 1.0, https://www.openstreetmap.org/copyright)."
}

// routeDetail is the stored details answer of a route.
type routeDetail struct {
	DistanceKm  float64      `json:"distance_km"`
	DurationMin float64      `json:"duration_min"`
	Steps       []detailStep `json:"steps"`
	Attribution string       `json:"attribution,omitempty"`
	License     string       `json:"license,omitempty"`
	LicenseURL  string       `json:"license_url,omitempty"`
}

type detailStep struct {
	Instruction string  `json:"instruction"`
	DistanceM   float64 `json:"distance_m"`
	DurationS   float64 `json:"duration_s"`
	Name        string  `json:"name,omitempty"`
}

// routeRecord maps route i of the answer.
func routeRecord(q *routeQuery, i int, r route, ans *routeAnswer) providers.Record {
	km, minutes := round(r.DistanceM/1000, 2), round(r.DurationS/60, 1)
	fields := &RouteRecord{DistanceKm: km, DurationMin: minutes, Steps: len(r.Steps), Engine: ans.Engine}
	var via []string
	if len(q.waypoints) > 0 {
		for _, w := range q.waypoints {
			via = append(via, w.Label)
		}
	} else {
		via = mainRoads(r.Steps, 3)
	}
	fields.Via = via
	detail := routeDetail{DistanceKm: km, DurationMin: minutes, Steps: make([]detailStep, 0, len(r.Steps))}
	for _, s := range r.Steps {
		detail.Steps = append(detail.Steps, detailStep{Instruction: s.Instruction, DistanceM: round(s.DistanceM, 1),
			DurationS: round(s.DurationS, 1), Name: s.Name})
	}
	links := []providers.Link{}
	if ans.Engine == engineORS {
		fields.Attribution, fields.License, fields.LicenseURL = &ans.Attribution, orsLicense, orsLicenseURL
		detail.Attribution, detail.License, detail.LicenseURL = ans.Attribution, orsLicense, orsLicenseURL
		links = append(links, providers.Link{Label: "Map data © OpenStreetMap contributors (ODbL 1.0)", URL: orsLicenseURL})
	}
	title := fmt.Sprintf("Route %s → %s", short(q.origin.Label), short(q.destination.Label))
	if i > 0 {
		title = fmt.Sprintf("Alternative %d: %s → %s", i, short(q.origin.Label), short(q.destination.Label))
	}
	if len(q.waypoints) > 0 {
		title += " via " + viaLabel(q.waypoints)
	}
	title += fmt.Sprintf(" (%s, %s km)", q.mode, formatKm(r.DistanceM))
	// Road names may hold commas ("AVUS, A 115"): the snippet separates them with semicolons.
	snippet := fmt.Sprintf("%s km in about %s", formatKm(r.DistanceM), humanDuration(r.DurationS))
	if roads := mainRoads(r.Steps, 3); len(roads) > 0 {
		snippet += ", mainly on " + strings.Join(roads, "; ")
	}
	snippet += fmt.Sprintf(" (%d steps).", len(r.Steps))
	return providers.Record{
		Title:   title,
		Snippet: snippet,
		Data:    fields,
		Stored:  map[string]*providers.Detail{"details": {Body: detail, Links: links}},
	}
}

// viaLabel names the waypoints of a title: up to three, else their count.
func viaLabel(ws []*place) string {
	if len(ws) > 3 {
		return fmt.Sprintf("%d stops", len(ws))
	}
	labels := make([]string, len(ws))
	for i, w := range ws {
		labels[i] = short(w.Label)
	}
	return strings.Join(labels, ", ")
}

// mainRoads names up to n roads the route travels longest on, in the order the route meets them.
func mainRoads(steps []step, n int) []string {
	dist := map[string]float64{}
	first := map[string]int{}
	for i, s := range steps {
		if s.Name == "" {
			continue
		}
		if _, seen := first[s.Name]; !seen {
			first[s.Name] = i
		}
		dist[s.Name] += s.DistanceM
	}
	names := make([]string, 0, len(dist))
	for name, d := range dist {
		if d > 0 {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if dist[names[i]] != dist[names[j]] {
			return dist[names[i]] > dist[names[j]]
		}
		return first[names[i]] < first[names[j]]
	})
	if len(names) > n {
		names = names[:n]
	}
	sort.Slice(names, func(i, j int) bool { return first[names[i]] < first[names[j]] })
	return names
}

// short trims a label for a title.
func short(s string) string { return providers.Clip(s, 60) }

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// formatKm writes metres as kilometres with one decimal.
func formatKm(m float64) string {
	return fmt.Sprintf("%.1f", m/1000)
}

// humanDuration writes seconds as "41 min" or "2 h 5 min".
func humanDuration(s float64) string {
	minutes := int(math.Round(s / 60))
	switch {
	case s < 30:
		return "under a minute"
	case minutes < 60:
		return fmt.Sprintf("%d min", minutes)
	case minutes%60 == 0:
		return fmt.Sprintf("%d h", minutes/60)
	}
	return fmt.Sprintf("%d h %d min", minutes/60, minutes%60)
}
