package navigation

// Engine names as the records carry them.
const (
	engineORS  = "openrouteservice"
	engineOSRM = "osrm-demo"
)

// Attribution and license of the primary engine's answers. The attribution is the one
// OpenRouteService puts in its answers' metadata; this text stands in when an answer lacks it.
const (
	orsAttribution = "openrouteservice.org | OpenStreetMap contributors"
	orsLicense     = "ODbL 1.0"
	orsLicenseURL  = "https://www.openstreetmap.org/copyright"
)

// orsProfiles maps the request's mode to OpenRouteService's profile.
var orsProfiles = map[string]string{"driving": "driving-car", "walking": "foot-walking", "cycling": "cycling-regular"}

// Alternative routes as OpenRouteService documents its defaults (share 0.6, weight 1.4); 3 is
// the most alternatives its public API computes.
const (
	alternativeCount  = 3
	alternativeShare  = 0.6
	alternativeWeight = 1.4
)

// route is one computed route in engine-neutral form.
type route struct {
	DistanceM float64
	DurationS float64
	Steps     []step
}

// step is one turn-by-turn instruction.
type step struct {
	Instruction string
	DistanceM   float64
	DurationS   float64
	Name        string // "" when the way has no name
}

// routeAnswer is what an engine answered for a route request.
type routeAnswer struct {
	Engine      string
	Attribution string // primary engine only
	Routes      []route
	// NoRoute is the engine's explanation when it found no route between the places.
	NoRoute string
}

// pointPaths maps an engine's coordinate index to the request fields that gave that point.
type pointPaths func(index int) []string
