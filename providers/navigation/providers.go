package navigation

import (
	"bytes"
	"embed"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Provider ids: the names of PROVIDER_<ID>_URL / PROVIDER_<ID>_KEY.
const (
	orsID       = "ors"
	osrmID      = "osrm"
	nominatimID = "nominatim"
)

//go:embed sandbox/*.json
var sandboxFS embed.FS

// osrmDemoURL is the public OSRM demo server, the fallback's default base URL. Its usage policy
// allows at most one request a second and no distance tables (see doc.go).
const osrmDemoURL = "https://router.project-osrm.org"

// Providers lists the upstreams of this package: OpenRouteService (primary routing engine, keyed),
// the OSRM demo server (fallback routing engine, keyless, car only, at most one request a second)
// and Nominatim (geocoding of place names, keyless, at most one request a second). OSRM and
// Nominatim ask for an identifying User-Agent: the client always sends capgate/<version> (+contact).
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:          orsID,
			Title:       "OpenRouteService",
			Cache:       providers.CacheRule{MaxAge: time.Hour, Rule: "OSM-derived routes (ODbL); terms on caching not found; an hour", Source: "not found: conservative hour (third-party: OSM geocoding and routing guidelines)"},
			BaseURL:     "https://api.openrouteservice.org",
			KeyRequired: true,
			SignUp:      "https://openrouteservice.org/dev/#/signup",
			Authorize:   func(r *http.Request, key string) { r.Header.Set("Authorization", key) },
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Method: http.MethodPost, Path: "/v2/directions/driving-car/json",
					Match: orsCoordinates(func(n int, alt bool) bool { return n > 2 }), File: "sandbox/ors_directions_driving_waypoints.json"},
				providers.SandboxRoute{Method: http.MethodPost, Path: "/v2/directions/driving-car/json",
					Match: orsCoordinates(func(n int, alt bool) bool { return alt }), File: "sandbox/ors_directions_driving_alternatives.json"},
				providers.SandboxRoute{Method: http.MethodPost, Path: "/v2/directions/driving-car/json", File: "sandbox/ors_directions_driving.json"},
				providers.SandboxRoute{Method: http.MethodPost, Path: "/v2/directions/foot-walking/json", File: "sandbox/ors_directions_walking.json"},
				providers.SandboxRoute{Method: http.MethodPost, Path: "/v2/directions/cycling-regular/json", File: "sandbox/ors_directions_cycling.json"},
				providers.SandboxRoute{Method: http.MethodPost, Path: "/v2/matrix/driving-car", File: "sandbox/ors_matrix_driving.json"},
				providers.SandboxRoute{Method: http.MethodPost, Path: "/v2/matrix/foot-walking", File: "sandbox/ors_matrix_walking.json"},
				providers.SandboxRoute{Method: http.MethodPost, Path: "/v2/matrix/cycling-regular", File: "sandbox/ors_matrix_cycling.json"},
			),
		},
		{
			ID:                osrmID,
			Title:             "OSRM demo server",
			Cache:             providers.CacheRule{MaxAge: time.Hour, Rule: "demo server usage policy says nothing on caching; an hour", Source: "OSRM demo server API usage policy (third-party mirror of the wiki)"},
			BaseURL:           osrmDemoURL,
			RequestsPerSecond: 1,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/route/v1/driving/*", File: "sandbox/osrm_route_waypoints.json",
					Match: func(r *http.Request) bool { return strings.Count(r.URL.Path, ";") > 1 }},
				providers.SandboxRoute{Path: "/route/v1/driving/*", File: "sandbox/osrm_route_alternatives.json",
					Match: func(r *http.Request) bool { return r.URL.Query().Get("alternatives") == "true" }},
				providers.SandboxRoute{Path: "/route/v1/driving/*", File: "sandbox/osrm_route.json"},
				providers.SandboxRoute{Path: "/table/v1/driving/*", File: "sandbox/osrm_table.json"},
			),
		},
		{
			ID:                nominatimID,
			Title:             "Nominatim (OpenStreetMap geocoding)",
			Cache:             providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "the usage policy asks clients to cache results; a day", Source: "Nominatim usage policy (not re-read this session)"},
			BaseURL:           "https://nominatim.openstreetmap.org",
			RequestsPerSecond: 1,
			// Nominatim's usage policy requires an identifying User-Agent with a contact.
			ContactRequired: true,
			Sandbox: providers.SandboxHandler(sandboxFS,
				sandboxPlace("berlin"), sandboxPlace("potsdam"), sandboxPlace("leipzig"),
				sandboxPlace("hamburg"), sandboxPlace("helgoland"),
				// Any other name: the documented answer without results.
				providers.SandboxRoute{Path: "/search", File: "sandbox/nominatim_empty.json"},
			),
		},
	}
}

// sandboxPlace answers a Nominatim search for one of the sandbox's known place names.
func sandboxPlace(name string) providers.SandboxRoute {
	return providers.SandboxRoute{Path: "/search", File: "sandbox/nominatim_" + name + ".json",
		Match: func(r *http.Request) bool { return placeKey(r.URL.Query().Get("q")) == name }}
}

// orsCoordinates matches an OpenRouteService directions body by its number of coordinates and
// whether it asks for alternative routes; the body is put back for the handler.
func orsCoordinates(accept func(coordinates int, alternatives bool) bool) func(r *http.Request) bool {
	return func(r *http.Request) bool {
		if r.Body == nil {
			return false
		}
		b, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		if err != nil {
			return false
		}
		var body struct {
			Coordinates  [][]float64    `json:"coordinates"`
			Alternatives map[string]any `json:"alternative_routes"`
		}
		if json.Unmarshal(b, &body) != nil {
			return false
		}
		return accept(len(body.Coordinates), body.Alternatives != nil)
	}
}
