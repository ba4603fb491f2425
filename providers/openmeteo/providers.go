package openmeteo

import (
	"embed"
	"math"
	"net/http"
	"strconv"
	"time"

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

// freeTier is the free API's documented allowance, counted per client over all four hosts
// together (open-meteo.com/en/terms): 600 calls a minute, 5,000 an hour, 10,000 a day. The longer
// windows allow a burst and then a pace that keeps any window within its limit. A commercial key
// lifts them (Keyless).
var freeTier = []providers.Limit{
	{Requests: 600, Per: time.Minute, Burst: 60, Keyless: true},
	{Requests: 5000, Per: time.Hour, Burst: 500, Keyless: true},
	{Requests: 10000, Per: 24 * time.Hour, Burst: 1000, Keyless: true},
}

// limitGroup makes the four hosts draw on one allowance.
const limitGroup = "openmeteo"

// KeySetting is the one key of all four hosts: the forecast provider's.
const KeySetting = "PROVIDER_OPENMETEO_KEY"

// Providers lists Open-Meteo's four APIs. All are keyless (the free API, for non-commercial use);
// with PROVIDER_OPENMETEO_KEY set, every host is called on its customer- twin with the key as the
// apikey query parameter, as Open-Meteo documents for its commercial API.
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:         ProviderForecast,
			Title:      "Open-Meteo Weather Forecast API",
			Cache:      providers.CacheRule{MaxAge: time.Hour, Rule: "CC BY 4.0 data, models update hourly; an hour", Source: "open-meteo.com licence (CC BY 4.0; not re-read this session)"},
			BaseURL:    "https://api.open-meteo.com",
			KeyedURL:   "https://customer-api.open-meteo.com",
			Authorize:  authorize,
			Limits:     freeTier,
			LimitGroup: limitGroup,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/v1/forecast", File: "sandbox/forecast_imperial.json",
					Match: func(r *http.Request) bool { return r.URL.Query().Get("temperature_unit") == "fahrenheit" }},
				providers.SandboxRoute{Path: "/v1/forecast", File: "sandbox/forecast_metric.json"},
			),
		},
		{
			ID:         ProviderGeocoding,
			Title:      "Open-Meteo Geocoding API",
			Cache:      providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "place names; a day", Source: "open-meteo.com licence (CC BY 4.0)"},
			BaseURL:    "https://geocoding-api.open-meteo.com",
			KeyedURL:   "https://customer-geocoding-api.open-meteo.com",
			KeyOf:      ProviderForecast,
			Authorize:  authorize,
			Limits:     freeTier,
			LimitGroup: limitGroup,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/v1/search", File: "sandbox/geocoding_berlin.json",
					Match: func(r *http.Request) bool { return placeKey(r.URL.Query().Get("name")) == "berlin" }},
				// Any other name: the documented answer without results.
				providers.SandboxRoute{Path: "/v1/search", File: "sandbox/geocoding_empty.json"},
			),
		},
		{
			ID:         ProviderAirQuality,
			Title:      "Open-Meteo Air Quality API",
			Cache:      providers.CacheRule{MaxAge: time.Hour, Rule: "CC BY 4.0, hourly models; an hour", Source: "open-meteo.com licence (CC BY 4.0)"},
			BaseURL:    "https://air-quality-api.open-meteo.com",
			KeyedURL:   "https://customer-air-quality-api.open-meteo.com",
			KeyOf:      ProviderForecast,
			Authorize:  authorize,
			Limits:     freeTier,
			LimitGroup: limitGroup,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/v1/air-quality", File: "sandbox/airquality_current.json"},
			),
		},
		{
			ID:         ProviderMarine,
			Title:      "Open-Meteo Marine Weather API",
			Cache:      providers.CacheRule{MaxAge: time.Hour, Rule: "CC BY 4.0, hourly models; an hour", Source: "open-meteo.com licence (CC BY 4.0)"},
			BaseURL:    "https://marine-api.open-meteo.com",
			KeyedURL:   "https://customer-marine-api.open-meteo.com",
			KeyOf:      ProviderForecast,
			Authorize:  authorize,
			Limits:     freeTier,
			LimitGroup: limitGroup,
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
