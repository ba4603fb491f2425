package openmeteo

import (
	"embed"
	"math"
	"net/http"
	"strconv"

	"github.com/capgate/capgate/providers"
)

//go:embed sandbox/*.json
var sandboxFS embed.FS

// Provider ids: the names of PROVIDER_<ID>_URL / PROVIDER_<ID>_KEY.
const (
	ProviderForecast   = "openmeteo"
	ProviderGeocoding  = "openmeteo_geocoding"
	ProviderAirQuality = "openmeteo_airquality"
	ProviderMarine     = "openmeteo_marine"
)

// requestsPerSecond is the free tier's documented bound of 600 calls a minute (counted per IP).
const requestsPerSecond = 10

// Providers lists Open-Meteo's four APIs. All are keyless; a commercial key (customer- hosts)
// is sent as the apikey query parameter.
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:                ProviderForecast,
			Title:             "Open-Meteo Weather Forecast API",
			BaseURL:           "https://api.open-meteo.com",
			Authorize:         authorize,
			RequestsPerSecond: requestsPerSecond,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/v1/forecast", File: "sandbox/forecast_imperial.json",
					Match: func(r *http.Request) bool { return r.URL.Query().Get("temperature_unit") == "fahrenheit" }},
				providers.SandboxRoute{Path: "/v1/forecast", File: "sandbox/forecast_metric.json"},
			),
		},
		{
			ID:                ProviderGeocoding,
			Title:             "Open-Meteo Geocoding API",
			BaseURL:           "https://geocoding-api.open-meteo.com",
			Authorize:         authorize,
			RequestsPerSecond: requestsPerSecond,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/v1/search", File: "sandbox/geocoding_berlin.json",
					Match: func(r *http.Request) bool { return placeKey(r.URL.Query().Get("name")) == "berlin" }},
				// Any other name: the documented answer without results.
				providers.SandboxRoute{Path: "/v1/search", File: "sandbox/geocoding_empty.json"},
			),
		},
		{
			ID:                ProviderAirQuality,
			Title:             "Open-Meteo Air Quality API",
			BaseURL:           "https://air-quality-api.open-meteo.com",
			Authorize:         authorize,
			RequestsPerSecond: requestsPerSecond,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/v1/air-quality", File: "sandbox/airquality_current.json"},
			),
		},
		{
			ID:                ProviderMarine,
			Title:             "Open-Meteo Marine Weather API",
			BaseURL:           "https://marine-api.open-meteo.com",
			Authorize:         authorize,
			RequestsPerSecond: requestsPerSecond,
			Sandbox: providers.SandboxHandler(sandboxFS,
				// The recorded coastal answer (off Cascais, Portugal) serves points near the Lisbon coast;
				// elsewhere the sandbox answers as the marine API does inland: every value null.
				providers.SandboxRoute{Path: "/v1/marine", File: "sandbox/marine_coast.json", Match: nearLisbonCoast},
				providers.SandboxRoute{Path: "/v1/marine", File: "sandbox/marine_inland.json"},
			),
		},
	}
}

// authorize sends a commercial key the documented way: the apikey query parameter.
func authorize(r *http.Request, key string) {
	q := r.URL.Query()
	q.Set("apikey", key)
	r.URL.RawQuery = q.Encode()
}

func nearLisbonCoast(r *http.Request) bool {
	lat, err1 := strconv.ParseFloat(r.URL.Query().Get("latitude"), 64)
	lon, err2 := strconv.ParseFloat(r.URL.Query().Get("longitude"), 64)
	return err1 == nil && err2 == nil && math.Abs(lat-38.7) <= 1 && math.Abs(lon+9.3) <= 1
}
