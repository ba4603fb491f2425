package transit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

const (
	sourceName = "google_routes" // record key source
	// fieldMask names every response field the adapter reads (the Routes API requires a mask and
	// bills by the richest field asked for; transit details are in the Routes Advanced SKU).
	fieldMask = "routes.duration,routes.distanceMeters,routes.localizedValues,routes.travelAdvisory.transitFare," +
		"routes.warnings,routes.legs.stepsOverview,routes.legs.steps.travelMode,routes.legs.steps.distanceMeters," +
		"routes.legs.steps.staticDuration,routes.legs.steps.navigationInstruction,routes.legs.steps.localizedValues," +
		"routes.legs.steps.transitDetails,geocodingResults"
	// timeTolerance absorbs the rounding of walking times when checking a requested time.
	timeTolerance = time.Minute
)

// Values of requested_time_status.
const (
	statusNow          = "now"           // no time given: the trip departs at the time of the request
	statusHonored      = "honored"       // sent to the Routes API and the itinerary respects it
	statusNotMet       = "not_met"       // sent, but the itinerary leaves earlier / arrives later than asked
	statusNotSupported = "not_supported" // last_available: the Routes API cannot express it
	realtimeUnknown    = "unknown"       // the Routes API does not say whether times are live or scheduled
)

// offsetSuffix is the explicit UTC offset an `at` value must end with.
var offsetSuffix = regexp.MustCompile(`(?i)(?:z|[+-][0-9]{2}:[0-9]{2})$`)

// now is the clock of fetched_at (tests pin it).
var now = time.Now

// Routes is transit.routes (spec section 4.24).
var Routes = &providers.Capability{
	ID:    "transit.routes",
	Fresh: 5 * time.Minute,
	Title: "Public transit routes",
	Summary: "Public transport itineraries between two places (bus, subway, train, tram): departure and arrival " +
		"times, lines, transfers, walking, duration, distance and fare, with the full itinerary as details.",
	Description: "Plans public transit trips from `origin` to `destination` with Google Maps Platform's Routes API " +
		"(travel mode TRANSIT, alternatives on). Places are names or addresses (Google geocodes them; one it cannot " +
		"find is refused with 400 invalid_request at /origin or /destination) or coordinates {lat, lon}. `time` " +
		"chooses when: {mode: depart_at, at} or {mode: arrive_by, at} with `at` an RFC 3339 timestamp with an explicit " +
		"offset (e.g. 2026-03-02T08:30:00-08:00; Google plans trips from 7 days in the past to 100 days ahead), or " +
		"{mode: last_available}, which the Routes API cannot express: those trips depart now and say so. Omitted, the " +
		"trip departs now. `preference`: best (default), fewer_transfers, less_walking, or wheelchair_accessible, " +
		"which the Routes API cannot express either: Google's default routing is used and `notes` says the routes " +
		"are not checked for step-free access. `prefer` (1 to 4 of bus, subway, train, tram_and_light_rail) is sent " +
		"as the Routes API's allowed transit modes. `country` (two letters) biases place names to a region, " +
		"`language` (a BCP 47 code such as en or de-CH) localizes labels and names. One record per itinerary " +
		"(Google usually finds 1 to 6); `num` (1 to 10, default 5) sets how many a page shows. Record keys: " +
		"duration_seconds and distance_m (integers), duration_label and distance_label (Google's localized text), " +
		"time_window {departure, arrival (RFC 3339 UTC: leaving the origin and reaching the destination, walking " +
		"included), time_zone (the first stop's IANA zone)} when the itinerary uses transit, requested_time (the " +
		"`at` asked for), requested_time_status (always: now, honored, not_met when the itinerary leaves before a " +
		"depart_at or arrives after an arrive_by time, or not_supported for last_available), lines (the transit " +
		"lines in riding order, e.g. \"Bus 14\"), source (google_routes), fetched_at (RFC 3339) and realtime_status " +
		"(always unknown: the Routes API does not say whether its times are live or scheduled). Follow-ups: more " +
		"(local, free), update (change any request field; planned again) and the record action details (stored at " +
		"search time, free; 410 session_expired once the session is gone): the itinerary segment by segment " +
		"(walks with their distance and time; rides with line, vehicle, agency, headsign, stops, departure and " +
		"arrival times and stop count), transfers, the fare when Google knows it, and Google's warnings.",
	Topic:   "Travel and places",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingLocal,
	Actions: []providers.Action{{
		Name: "details",
		Description: "The itinerary segment by segment: walks (distance, duration, instruction) and rides (line, vehicle, " +
			"agency, headsign, departure and arrival stops and times, stop count), with transfers, fare and warnings; " +
			"links to the trip on Google Maps and to the agencies. Stored at search time: free, no provider call; 410 " +
			"session_expired once the search session is gone.",
		Kind: providers.ActionStored,
	}},
	Cost: providers.Cost{
		Typical: 4,
		Basis: "4 credits per search or update (one Routes API computeRoutes call); more pages are local and free, " +
			"details are stored at search time and free",
	},
	Deadline:  40 * time.Second,
	Providers: []string{ProviderID},
	Examples: []providers.Example{
		{Title: "Transit trip between two places, leaving now", Body: providers.ExampleBody(`{"origin": "2700 W Broadway, Vancouver", "destination": "SFU Burnaby Campus, Burnaby", "num": 2}`)},
		{Title: "Arrive by a given time, fewer transfers, buses and trains only", Body: providers.ExampleBody(`{"origin": "Kitsilano, Vancouver", "destination": "SFU Burnaby Campus, Burnaby", "time": {"mode": "arrive_by", "at": "2026-03-02T09:00:00-08:00"}, "preference": "fewer_transfers", "prefer": ["bus", "train"], "country": "CA", "language": "en"}`)},
		{Title: "Between coordinates, last departure (not expressible: departs now)", Body: providers.ExampleBody(`{"origin": {"lat": 40.7484, "lon": -73.9857}, "destination": {"lat": 40.7033, "lon": -74.017}, "time": {"mode": "last_available"}, "preference": "less_walking"}`)},
	},
	Execute: execute,
	Record:  RouteRecord{},
}

// RouteRecord is a transit.routes record (besides title, url and snippet): the trip at a glance;
// the details action has its segments, fare and warnings.
type RouteRecord struct {
	Source              string      `json:"source" doc:"google_routes"`
	FetchedAt           string      `json:"fetched_at" doc:"when the upstream answered (RFC 3339)"`
	RealtimeStatus      string      `json:"realtime_status"`
	DistanceM           *int64      `json:"distance_m,omitempty"`
	DurationSeconds     *int64      `json:"duration_seconds,omitempty"`
	DurationLabel       string      `json:"duration_label,omitempty"`
	DistanceLabel       string      `json:"distance_label,omitempty"`
	Lines               []string    `json:"lines,omitempty" doc:"the lines ridden, in order"`
	TimeWindow          *TimeWindow `json:"time_window,omitempty"`
	RequestedTime       string      `json:"requested_time,omitempty"`
	RequestedTimeStatus string      `json:"requested_time_status" doc:"whether the trip honours the requested time"`
}

// TimeWindow is when a trip leaves and arrives. Fields in key order: the details body is
// written by encoding/json, which keeps the declared order.
type TimeWindow struct {
	Arrival   string `json:"arrival" doc:"RFC 3339, UTC"`
	Departure string `json:"departure" doc:"RFC 3339, UTC"`
	TimeZone  string `json:"time_zone,omitempty" doc:"the IANA zone of the first departure"`
}

// placeSchema is the JSON Schema of origin or destination.
func placeSchema(what string) string {
	return `{
      "description": "` + what + ` A place name or address (geocoded by Google), or coordinates {lat, lon}.",
      "oneOf": [
        {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "\\S",
         "description": "A place name, address or station, e.g. \"Waterfront Station, Vancouver\"; add the city to pick among places of the same name. Must not be blank."},
        {"type": "object", "additionalProperties": false, "required": ["lat", "lon"],
         "description": "Coordinates in decimal degrees (WGS84).",
         "properties": {
           "lat": {"type": "number", "minimum": -90, "maximum": 90, "description": "Latitude, -90 to 90."},
           "lon": {"type": "number", "minimum": -180, "maximum": 180, "description": "Longitude, -180 to 180."}
         }}
      ]
    }`
}

var requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "transit.routes request",
  "description": "Plan public transit trips between two places. origin and destination are required.",
  "type": "object",
  "additionalProperties": false,
  "required": ["origin", "destination"],
  "properties": {
    "origin": ` + placeSchema("Where the trip starts.") + `,
    "destination": ` + placeSchema("Where the trip ends.") + `,
    "time": {
      "type": "object",
      "additionalProperties": false,
      "required": ["mode"],
      "description": "When to travel: {mode: depart_at, at} or {mode: arrive_by, at} with at an RFC 3339 timestamp with an explicit offset, or {mode: last_available} (not expressible in the Routes API: departs now, requested_time_status not_supported). Omit to depart now.",
      "properties": {
        "mode": {"type": "string", "enum": ["depart_at", "arrive_by", "last_available"],
                 "description": "depart_at: leave at or after at; arrive_by: arrive at or before at; last_available: the last trip of the day (not expressible; departs now)."},
        "at": {"type": "string", "format": "date-time", "maxLength": 40,
               "pattern": "(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$",
               "description": "RFC 3339 timestamp with an explicit offset (Z or ±hh:mm), e.g. 2026-03-02T08:30:00-08:00; at most 40 characters. Required with depart_at and arrive_by, not allowed with last_available."}
      },
      "if": {"properties": {"mode": {"enum": ["depart_at", "arrive_by"]}}},
      "then": {"required": ["at"]}
    },
    "preference": {
      "type": "string",
      "enum": ["best", "fewer_transfers", "less_walking", "wheelchair_accessible"],
      "default": "best",
      "description": "How to choose among trips: best (Google's default), fewer_transfers, less_walking, or wheelchair_accessible (not expressible in the Routes API: Google's default is used and notes says so)."
    },
    "prefer": {
      "type": "array",
      "minItems": 1,
      "maxItems": 4,
      "uniqueItems": true,
      "items": {"type": "string", "enum": ["bus", "subway", "train", "tram_and_light_rail"]},
      "description": "Transit modes to use (sent as the Routes API's allowedTravelModes): 1 to 4 of bus, subway, train, tram_and_light_rail. Omit for all modes."
    },
    "country": {
      "type": "string",
      "pattern": "^[A-Za-z]{2}$",
      "description": "Two-letter region code (e.g. CA, DE) that biases how place names are read."
    },
    "language": {
      "type": "string",
      "minLength": 2,
      "maxLength": 12,
      "pattern": "^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$",
      "description": "Language of labels, instructions and names as a BCP 47 code, e.g. en, fr, de-CH (2 to 12 characters). Omit for the origin's language."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 10,
      "default": 5,
      "description": "Itineraries per page, 1 to 10 (all of Google's alternatives are held; more pages are local and free)."
    }
  }
}`

// rules checks what the schema cannot: an at that Go reads as RFC 3339 (a real date and time),
// and no at with last_available.
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	t, ok := req.Object("time")
	if !ok {
		return nil
	}
	at, hasAt := t.String("at")
	if t.Str("mode") == "last_available" {
		if hasAt {
			return []providers.Violation{{Path: "/time/at", Message: "at is not used with mode last_available; remove it or use depart_at or arrive_by"}}
		}
		return nil
	}
	if hasAt {
		if _, err := parseAt(at); err != nil {
			return []providers.Violation{{Path: "/time/at", Message: fmt.Sprintf("at must be an RFC 3339 timestamp with an explicit offset, e.g. 2026-03-02T08:30:00-08:00; %q is not", at)}}
		}
	}
	return nil
}

// parseAt reads an RFC 3339 timestamp that ends with an explicit offset.
func parseAt(s string) (time.Time, error) {
	if !offsetSuffix.MatchString(s) {
		return time.Time{}, fmt.Errorf("no explicit offset")
	}
	return time.Parse(time.RFC3339Nano, strings.ToUpper(s))
}

// --- the request

// waypointOf is the Routes API waypoint of a place and its text for the Google Maps link.
func waypointOf(v any) (waypoint, string, bool) {
	switch p := v.(type) {
	case string:
		s := strings.TrimSpace(p)
		return waypoint{Address: s}, s, s != ""
	case map[string]any:
		lat, okLat := providers.Request(p).Float("lat")
		lon, okLon := providers.Request(p).Float("lon")
		if !okLat || !okLon {
			return waypoint{}, "", false
		}
		return waypoint{Location: &location{LatLng: latLng{Latitude: lat, Longitude: lon}}},
			strconv.FormatFloat(lat, 'f', -1, 64) + "," + strconv.FormatFloat(lon, 'f', -1, 64), true
	}
	return waypoint{}, "", false
}

// preferModes maps the spec's transit modes to the Routes API's TransitTravelMode.
var preferModes = map[string]string{"bus": "BUS", "subway": "SUBWAY", "train": "TRAIN", "tram_and_light_rail": "LIGHT_RAIL"}

// routingPreferences maps the preferences the Routes API can express.
var routingPreferences = map[string]string{"fewer_transfers": "FEWER_TRANSFERS", "less_walking": "LESS_WALKING"}

// query is a validated request as the adapter uses it.
type query struct {
	body        computeRoutesRequest
	origin      string // for the Google Maps link
	destination string
	timeMode    string // "", depart_at, arrive_by, last_available
	at          time.Time
	atText      string
	notes       []string
}

func buildQuery(req providers.Request) (*query, error) {
	q := &query{body: computeRoutesRequest{TravelMode: "TRANSIT", ComputeAlternativeRoutes: true}}
	for _, f := range []struct {
		key  string
		wp   *waypoint
		text *string
	}{{"origin", &q.body.Origin, &q.origin}, {"destination", &q.body.Destination, &q.destination}} {
		w, text, ok := waypointOf(req[f.key])
		if !ok {
			return nil, providers.InvalidField("/"+f.key, f.key+" must be a place name or coordinates {lat, lon}")
		}
		*f.wp, *f.text = w, text
	}
	if t, ok := req.Object("time"); ok {
		q.timeMode = t.Str("mode")
		switch q.timeMode {
		case "depart_at", "arrive_by":
			at, err := parseAt(t.Str("at"))
			if err != nil {
				return nil, providers.InvalidField("/time/at", "at must be an RFC 3339 timestamp with an explicit offset")
			}
			q.at, q.atText = at, t.Str("at")
			when := &q.body.DepartureTime
			if q.timeMode == "arrive_by" {
				when = &q.body.ArrivalTime
			}
			*when = at.UTC().Format(time.RFC3339Nano)
		case "last_available":
			q.notes = append(q.notes, "The Routes API cannot ask for the last trip of the day (time mode last_available): "+
				"these itineraries depart now, and their requested_time_status is not_supported.")
		}
	}
	var prefs transitPreferences
	if modes := req.Strings("prefer"); len(modes) > 0 {
		var allowed []string
		for _, m := range modes {
			if v, ok := preferModes[m]; ok {
				allowed = append(allowed, v)
			}
		}
		prefs.AllowedTravelModes = allowed
	}
	switch p := req.Str("preference"); p {
	case "fewer_transfers", "less_walking":
		prefs.RoutingPreference = routingPreferences[p]
	case "wheelchair_accessible":
		q.notes = append(q.notes, "The Routes API has no wheelchair-accessible transit option: these itineraries use "+
			"Google's default routing and are not checked for step-free access; check with the agencies before travelling.")
	}
	if prefs.AllowedTravelModes != nil || prefs.RoutingPreference != "" {
		q.body.TransitPreferences = &prefs
	}
	q.body.RegionCode = strings.ToLower(req.Str("country")) // a CLDR/ccTLD region code
	q.body.LanguageCode = req.Str("language")
	return q, nil
}

// --- execute

func execute(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	q, err := buildQuery(call.Request)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(q.body)
	if err != nil {
		return nil, providers.Errorf(providers.CodeInternal, "could not encode the Routes API request")
	}
	u := call.Upstream(ProviderID)
	hreq, err := u.NewRequest(ctx, http.MethodPost, computeRoutesPath, nil, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("X-Goog-FieldMask", fieldMask)
	resp, err := u.Do(hreq)
	if err != nil {
		return nil, mapGoogleError(err)
	}
	var ans computeRoutesResponse
	if err := u.Decode(resp, &ans); err != nil {
		return nil, err
	}
	fetched := now().UTC().Truncate(time.Second)
	page := &providers.Page{Records: []providers.Record{}, Notes: q.notes}
	if len(ans.Routes) == 0 {
		if err := geocodingError(ans); err != nil {
			return nil, err
		}
		page.Notes = append(page.Notes, "Google found no transit itinerary between these places for this time: transit "+
			"may not run then, or the places are outside Google's transit coverage.")
		return page, nil
	}
	for i, r := range ans.Routes {
		page.Records = append(page.Records, itineraryRecord(q, i, r, fetched))
	}
	return page, nil
}

// geocodingError is the invalid_request of a place Google could not geocode (a non-OK
// geocoderStatus; code 0, or no status, is OK).
func geocodingError(ans computeRoutesResponse) error {
	g := ans.GeocodingResults.V
	if g == nil {
		return nil
	}
	for _, w := range []struct {
		path string
		wp   *geocodedWaypoint
	}{{"/origin", g.Origin.V}, {"/destination", g.Destination.V}} {
		if w.wp == nil || w.wp.GeocoderStatus.V == nil {
			continue
		}
		st := w.wp.GeocoderStatus.V
		if st.Code.OK && st.Code.V != 0 {
			msg := "Google could not find this place"
			if st.Message != "" {
				msg += ": " + string(st.Message)
			}
			return providers.InvalidField(w.path, msg).WithHint("Add the city or country, or give coordinates {lat, lon}.")
		}
	}
	return nil
}

// mapGoogleError reads Google's error body: a refused request becomes invalid_request at the
// field Google names, a refused key a non-retryable provider_error; throttling and 5xx keep the
// client's mapping with Google's message added.
func mapGoogleError(err error) error {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return err
	}
	var g googleError
	_ = json.Unmarshal(e.Body, &g)
	msg := strings.TrimSpace(g.Error.Message)
	keyRefused := false
	for _, d := range g.Error.Details {
		if d.Reason == "API_KEY_INVALID" || d.Reason == "API_KEY_SERVICE_BLOCKED" || d.Reason == "SERVICE_DISABLED" {
			keyRefused = true
		}
	}
	switch {
	case keyRefused || e.UpstreamStatus == http.StatusUnauthorized || e.UpstreamStatus == http.StatusForbidden:
		out := providers.Errorf(providers.CodeProviderError, "the Routes API refused this gateway's key (%s)", orStatus(msg, e.UpstreamStatus)).WithRetryable(false)
		out.UpstreamStatus, out.Cause = e.UpstreamStatus, err
		return out
	case e.UpstreamStatus == http.StatusBadRequest && (g.Error.Status == "INVALID_ARGUMENT" || g.Error.Status == "FAILED_PRECONDITION"):
		text := "the Routes API refused the request"
		if msg != "" {
			text += ": " + msg
		}
		out := providers.InvalidField(blamedField(msg), text)
		out.UpstreamStatus, out.Cause = e.UpstreamStatus, err
		return out
	case msg != "":
		e.Message += ": " + msg
	}
	return e
}

func orStatus(msg string, status int) string {
	if msg != "" {
		return msg
	}
	return "HTTP " + strconv.Itoa(status)
}

// blamedField guesses the request field a Routes API message is about ("" for the body).
func blamedField(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "origin"):
		return "/origin"
	case strings.Contains(m, "destination"):
		return "/destination"
	case strings.Contains(m, "departure_time"), strings.Contains(m, "departuretime"),
		strings.Contains(m, "arrival_time"), strings.Contains(m, "arrivaltime"), strings.Contains(m, "timestamp"):
		return "/time/at"
	case strings.Contains(m, "language"):
		return "/language"
	case strings.Contains(m, "region"):
		return "/country"
	case strings.Contains(m, "transit_preferences"), strings.Contains(m, "transitpreferences"), strings.Contains(m, "travel mode"):
		return "/prefer"
	}
	return ""
}
