package transit

// --- the parts of a Routes API answer the sandbox writes (all fields always present)

// localizedText is a Routes API LocalizedText: {text}.
type localizedText struct {
	Text string `json:"text"`
}

// localizedClock is a Routes API LocalizedTime: a time of day as text and its IANA zone.
type localizedClock struct {
	Time     localizedText `json:"time"`
	TimeZone string        `json:"timeZone"`
}

// stepLocalizedValues are a step's distance and duration as text.
type stepLocalizedValues struct {
	Distance       localizedText `json:"distance"`
	StaticDuration localizedText `json:"staticDuration"`
}

// routeLocalizedValues are a route's distance, duration and fare as text.
type routeLocalizedValues struct {
	Distance    localizedText `json:"distance"`
	Duration    localizedText `json:"duration"`
	TransitFare localizedText `json:"transitFare"`
}

// transitLocalizedValues are a ride's departure and arrival times as text.
type transitLocalizedValues struct {
	DepartureTime localizedClock `json:"departureTime"`
	ArrivalTime   localizedClock `json:"arrivalTime"`
}

// transitStop is a Routes API TransitStop: a named stop and where it is.
type transitStop struct {
	Name     string   `json:"name"`
	Location location `json:"location"`
}

// stopDetails is a ride's TransitStopDetails: where it boards and alights, and when (RFC 3339).
type stopDetails struct {
	DepartureStop transitStop `json:"departureStop"`
	ArrivalStop   transitStop `json:"arrivalStop"`
	DepartureTime string      `json:"departureTime"`
	ArrivalTime   string      `json:"arrivalTime"`
}

// travelAdvisory is a route's RouteTravelAdvisory, with its fare.
type travelAdvisory struct {
	TransitFare money `json:"transitFare"`
}

// money is a google.type.Money: whole units (a decimal string) and billionths.
type money struct {
	CurrencyCode string `json:"currencyCode"`
	Units        string `json:"units"`
	Nanos        int    `json:"nanos"`
}
