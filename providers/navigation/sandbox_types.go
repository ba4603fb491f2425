package navigation

// --- the parts of upstream answers the sandbox writes (all fields always present)

// nominatimResult is one entry of Nominatim's /search answer in format jsonv2, as the sandbox
// writes it: lat, lon and the bounding box are strings of degrees.
type nominatimResult struct {
	PlaceID     int      `json:"place_id"`
	Licence     string   `json:"licence"`
	OSMType     string   `json:"osm_type"`
	OSMID       int      `json:"osm_id"`
	Lat         string   `json:"lat"`
	Lon         string   `json:"lon"`
	Category    string   `json:"category"`
	Type        string   `json:"type"`
	PlaceRank   int      `json:"place_rank"`
	Importance  float64  `json:"importance"`
	AddressType string   `json:"addresstype"`
	Name        string   `json:"name"`
	DisplayName string   `json:"display_name"`
	BoundingBox []string `json:"boundingbox"` // south, north, west, east
}

// orsRouteSummary is an OpenRouteService route's summary: metres and seconds.
type orsRouteSummary struct {
	Distance float64 `json:"distance"`
	Duration float64 `json:"duration"`
}

// orsRouteSegment is an OpenRouteService route segment (between two waypoints): metres, seconds
// and the recorded steps, rescaled.
type orsRouteSegment struct {
	Distance float64 `json:"distance"`
	Duration float64 `json:"duration"`
	Steps    []any   `json:"steps"`
}

// orsSnappedLocation is an OpenRouteService matrix source or destination: the point as lon, lat
// and how far it was moved onto the road network (metres).
type orsSnappedLocation struct {
	Location        [2]float64 `json:"location"`
	SnappedDistance float64    `json:"snapped_distance"`
}

// osrmRouteLeg is an OSRM route leg (between two waypoints): its main roads, weight, seconds,
// metres and the recorded steps, rescaled.
type osrmRouteLeg struct {
	Summary  string  `json:"summary"`
	Weight   float64 `json:"weight"`
	Duration float64 `json:"duration"`
	Distance float64 `json:"distance"`
	Steps    []any   `json:"steps"`
}
