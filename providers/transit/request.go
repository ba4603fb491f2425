package transit

// --- the Routes API request

// computeRoutesRequest is the body of a Routes API computeRoutes call, with the fields the
// adapter sends.
type computeRoutesRequest struct {
	Origin                   waypoint            `json:"origin"`
	Destination              waypoint            `json:"destination"`
	TravelMode               string              `json:"travelMode"`
	ComputeAlternativeRoutes bool                `json:"computeAlternativeRoutes"`
	DepartureTime            string              `json:"departureTime,omitempty"`
	ArrivalTime              string              `json:"arrivalTime,omitempty"`
	TransitPreferences       *transitPreferences `json:"transitPreferences,omitempty"`
	RegionCode               string              `json:"regionCode,omitempty"`
	LanguageCode             string              `json:"languageCode,omitempty"`
}

// waypoint is a Routes API Waypoint: {address} or {location: {latLng}}.
type waypoint struct {
	Address  string    `json:"address,omitempty"`
	Location *location `json:"location,omitempty"`
}

// location is a Routes API Location: {latLng}.
type location struct {
	LatLng latLng `json:"latLng"`
}

// latLng is a point in decimal degrees (google.type.LatLng).
type latLng struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// transitPreferences is a Routes API TransitPreferences: the allowed modes (TransitTravelMode
// values) and the routing preference.
type transitPreferences struct {
	AllowedTravelModes []string `json:"allowedTravelModes,omitempty"`
	RoutingPreference  string   `json:"routingPreference,omitempty"`
}
