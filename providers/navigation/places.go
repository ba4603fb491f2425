package navigation

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/internal/ttlcache"
)

// place is one origin, destination, waypoint or matrix entry of a request.
type place struct {
	Path  string // JSON pointer of the request field ("/origin", "/waypoints/2")
	Label string // how the caller named it: the trimmed text, or the coordinates
	Query string // the text to geocode; "" when the caller gave coordinates
	Lat   float64
	Lon   float64
	// Resolved is the geocoder's name of the match ("Berlin, Deutschland"); "" for coordinates.
	Resolved string
}

// coordinateText is a place string that already is "lat, lon" in decimal degrees.
var coordinateText = regexp.MustCompile(`^\s*([-+]?[0-9]{1,3}(?:\.[0-9]+)?)\s*,\s*([-+]?[0-9]{1,3}(?:\.[0-9]+)?)\s*$`)

// parsePlace reads a validated place value: a name (geocoded later), a "lat, lon" string or a
// {lat, lon} object.
func parsePlace(v any, path string) (*place, error) {
	switch t := v.(type) {
	case string:
		text := strings.TrimSpace(t)
		if text == "" {
			return nil, providers.InvalidField(path, "the place must not be blank")
		}
		if m := coordinateText.FindStringSubmatch(text); m != nil {
			lat, errLat := strconv.ParseFloat(m[1], 64)
			lon, errLon := strconv.ParseFloat(m[2], 64)
			if errLat == nil && errLon == nil && validCoordinates(lat, lon) {
				return &place{Path: path, Label: coordinates(lat, lon), Lat: lat, Lon: lon}, nil
			}
		}
		return &place{Path: path, Label: text, Query: text}, nil
	case map[string]any:
		obj := providers.Request(t)
		lat, okLat := obj.Float("lat")
		lon, okLon := obj.Float("lon")
		if !okLat || !okLon || !validCoordinates(lat, lon) {
			return nil, providers.InvalidField(path, "coordinates need lat (-90 to 90) and lon (-180 to 180) in decimal degrees")
		}
		return &place{Path: path, Label: coordinates(lat, lon), Lat: lat, Lon: lon}, nil
	}
	return nil, providers.InvalidField(path, "a place is a name or an object {lat, lon}")
}

func validCoordinates(lat, lon float64) bool {
	return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 && !math.IsNaN(lat) && !math.IsNaN(lon)
}

// parsePlaces reads an array of places at path ("/waypoints").
func parsePlaces(v any, path string) ([]*place, error) {
	arr, _ := v.([]any)
	out := make([]*place, 0, len(arr))
	for i, item := range arr {
		p, err := parsePlace(item, fmt.Sprintf("%s/%d", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// coordinates formats a position as "lat, lon" with at most 5 decimals (about a metre).
func coordinates(lat, lon float64) string {
	return formatDegrees(lat, 5) + ", " + formatDegrees(lon, 5)
}

func formatDegrees(v float64, decimals int) string {
	p := math.Pow(10, float64(decimals))
	return strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
}

// nominatimPlace is one entry of Nominatim's /search answer in format jsonv2: lat and lon are
// strings ("52.5170365"); display_name is the full address line.
type nominatimPlace struct {
	PlaceID     lenient.ID    `json:"place_id"`
	Lat         lenient.Float `json:"lat"`
	Lon         lenient.Float `json:"lon"`
	Name        lenient.Str   `json:"name"`
	DisplayName lenient.Str   `json:"display_name"`
}

// nominatimError is Nominatim's error body for the JSON formats: {"error":{"code","message"}}.
type nominatimError struct {
	Error lenient.Obj[struct {
		Code    lenient.Int `json:"code"`
		Message lenient.Str `json:"message"`
	}] `json:"error"`
}

// geocodeReserve is the part of the deadline geocoding leaves to the routing engines.
const geocodeReserve = 5 * time.Second

// resolvePlaces geocodes every distinct place name of the request once (through the in-process
// cache) and fills in the coordinates. Names nothing matched are refused with one violation per
// field; it returns notes naming what each name resolved to.
func resolvePlaces(ctx context.Context, call *providers.Call, places []*place) ([]string, error) {
	var names []string
	byKey := map[string][]*place{}
	for _, p := range places {
		if p.Query == "" {
			continue
		}
		k := placeKey(p.Query)
		if _, seen := byKey[k]; !seen {
			names = append(names, k)
		}
		byKey[k] = append(byKey[k], p)
	}
	if len(names) == 0 {
		return nil, nil
	}
	gctx := ctx
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) > 2*geocodeReserve {
		var cancel context.CancelFunc
		gctx, cancel = context.WithDeadline(ctx, dl.Add(-geocodeReserve))
		defer cancel()
	}
	var violations []providers.Violation
	var resolved []string
	for i, k := range names {
		first := byKey[k][0]
		match, err := geocode(gctx, call, first.Query)
		if err != nil {
			return nil, geocodeFailure(err, i, len(names))
		}
		if match == nil {
			for _, p := range byKey[k] {
				violations = append(violations, providers.Violation{Path: p.Path,
					Message: fmt.Sprintf("no place named %q was found; check the spelling, add the town or country, or give coordinates {lat, lon}", p.Label)})
			}
			continue
		}
		for _, p := range byKey[k] {
			p.Lat, p.Lon, p.Resolved = match.Lat, match.Lon, match.Name
		}
		resolved = append(resolved, fmt.Sprintf("%q → %s (%s)", first.Label, match.Name, coordinates(match.Lat, match.Lon)))
	}
	if len(violations) > 0 {
		msg := "a place could not be geocoded; see violations"
		if len(violations) == 1 {
			msg = violations[0].Path + ": " + violations[0].Message
		}
		// Test mode answers a miss (the reserved place Nowhere) exactly as live mode does.
		return nil, providers.Invalid(msg, violations...)
	}
	return []string{"Place names were geocoded with Nominatim (data © OpenStreetMap contributors, ODbL 1.0): " +
		strings.Join(resolved, "; ") + "."}, nil
}

// geocodeFailure explains a geocoding failure; when Nominatim's one-request-a-second queue did not
// fit the deadline, the names geocoded so far are cached and a retry continues from there.
func geocodeFailure(err error, done, total int) error {
	e, ok := providers.AsError(err)
	if !ok || e.Code != providers.CodeProviderTimeout || total < 2 {
		return err
	}
	out := *e
	out.Message = fmt.Sprintf("geocoding %d place names at Nominatim's limit of one request a second did not fit the deadline "+
		"(%d done); the names geocoded so far are cached, so a retry continues from there", total, done)
	out.Hint = "Give coordinates {lat, lon} for some of the places to need fewer geocoding requests."
	out.Retryable = nil
	return &out
}

// geocode resolves a place name to its best match (limit=1), or nil when nothing matched.
func geocode(ctx context.Context, call *providers.Call, name string) (*geocoded, error) {
	u := call.Upstream(nominatimID)
	// The base URL is part of the key so sandbox, live and differently configured hosts never mix.
	key := u.BaseURL + "\x00" + placeKey(name)
	if p, ok := geocodeCache.Get(key); ok {
		return p, nil
	}
	q := url.Values{"q": {strings.TrimSpace(name)}, "format": {"jsonv2"}, "limit": {"1"}}
	resp, err := u.Get(ctx, "/search", q, acceptJSON())
	if err != nil {
		return nil, nominatimFailure(err)
	}
	var results lenient.List[nominatimPlace]
	if err := u.Decode(resp, &results); err != nil {
		return nil, err
	}
	if results == nil { // not an array: an error object in a 200, or something else entirely
		var eb nominatimError
		if json.Unmarshal(resp.Body, &eb) == nil && eb.Error.V != nil && eb.Error.V.Message != "" {
			return nil, providers.Errorf(providers.CodeProviderError, "Nominatim refused the search: %s", eb.Error.V.Message).WithRetryable(false)
		}
		return nil, providers.Errorf(providers.CodeProviderError, "Nominatim answered something other than a list of places")
	}
	var match *geocoded
	for _, r := range results {
		if !r.Lat.OK || !r.Lon.OK || !validCoordinates(r.Lat.V, r.Lon.V) {
			continue
		}
		match = &geocoded{Lat: r.Lat.V, Lon: r.Lon.V, Name: firstNonEmpty(string(r.DisplayName), string(r.Name), coordinates(r.Lat.V, r.Lon.V))}
		break
	}
	geocodeCache.Put(key, match)
	return match, nil
}

// nominatimFailure reads Nominatim's error body into the message of an upstream refusal.
func nominatimFailure(err error) error {
	e, ok := providers.AsError(err)
	if !ok || len(e.Body) == 0 || e.UpstreamStatus == 0 {
		return err
	}
	var eb nominatimError
	if json.Unmarshal(e.Body, &eb) != nil || eb.Error.V == nil || eb.Error.V.Message == "" {
		return err
	}
	out := *e
	out.Message = fmt.Sprintf("Nominatim refused the search (HTTP %d): %s", e.UpstreamStatus, eb.Error.V.Message)
	return &out
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// placeKey normalizes a place name for the cache and for deduplication: case and runs of spaces
// do not matter.
func placeKey(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}

// geocoded is a geocoder match.
type geocoded struct {
	Lat, Lon float64
	Name     string
}

// geocodeCache keeps geocoder answers in process: the public geocoder allows one request a
// second and place names repeat. Matches are kept a day, misses an hour.
var geocodeCache = newPlaceCache(2048, 24*time.Hour, time.Hour)

// placeCache is the shared TTL cache of geocoder answers (a nil match is a miss), with the
// lifetimes it was made with.
type placeCache struct {
	*ttlcache.Cache[*geocoded]
	ttl, missTTL time.Duration
}

func newPlaceCache(max int, ttl, missTTL time.Duration) *placeCache {
	return &placeCache{Cache: ttlcache.New[*geocoded](max, ttl, missTTL), ttl: ttl, missTTL: missTTL}
}
