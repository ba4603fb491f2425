package openmeteo

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestCapabilityDeclaration(t *testing.T) {
	c := WeatherForecast
	if c.ID != "weather.forecast" || c.Topic != "Travel and places" {
		t.Errorf("id %q topic %q", c.ID, c.Topic)
	}
	if c.Paging != providers.PagingSingle || c.Paging.Label() != "single result" {
		t.Errorf("paging %q, want single", c.Paging)
	}
	if !c.NoUpdate || len(c.SearchActions()) != 0 {
		t.Errorf("search actions %v, want none (more refused, update not offered)", c.SearchActions())
	}
	if len(c.Actions) != 0 {
		t.Errorf("record actions %v, want none", c.ActionNames())
	}
	if c.Deadline != 15*time.Second {
		t.Errorf("deadline %v, want 15s", c.Deadline)
	}
	if c.Cost.Typical != 0 || c.Cost.Basis == "" {
		t.Errorf("cost %+v, want 0 credits with a basis", c.Cost)
	}
	if want := []string{"openmeteo", "openmeteo_geocoding"}; !reflect.DeepEqual(c.Providers, want) {
		t.Errorf("providers %v, want %v", c.Providers, want)
	}
	if got := Capabilities(); len(got) != 1 || got[0] != c {
		t.Errorf("Capabilities() = %v", got)
	}
	var ids []string
	for _, p := range Providers() {
		ids = append(ids, p.ID)
		if p.KeyRequired || p.Authorize == nil || p.Sandbox == nil || p.BaseURL == "" {
			t.Errorf("provider %s: keyless with Authorize, Sandbox and a default base URL expected", p.ID)
		}
	}
	if want := []string{"openmeteo", "openmeteo_geocoding", "openmeteo_airquality", "openmeteo_marine"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("provider ids %v, want %v", ids, want)
	}
}

func TestSchemaDefaultsAndLimits(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		req, err := providertest.Prepare(t, WeatherForecast, `{"location":"Berlin"}`)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := req.Int("days"); n != 3 {
			t.Errorf("days default %v, want 3", req["days"])
		}
		if req.Str("units") != "metric" {
			t.Errorf("units default %v, want metric", req["units"])
		}
	})
	valid := []string{
		`{"location":"Berlin"}`,
		`{"location":"10967","days":16,"units":"imperial","include":["marine","air_quality"]}`,
		`{"location":{"lat":-90,"lon":180},"days":1}`,
		`{"location":{"lat":90,"lon":-180},"include":[]}`,
		`{"location":{"lat":52.52,"lon":13.41},"days":2.0}`,
	}
	for _, body := range valid {
		t.Run("valid "+body, func(t *testing.T) {
			if _, err := providertest.Prepare(t, WeatherForecast, body); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
	cases := []struct {
		name  string
		body  string
		paths []string
	}{
		{"location required", `{}`, []string{"/location"}},
		{"empty place", `{"location":""}`, []string{"/location"}},
		{"blank place", `{"location":"   "}`, []string{"/location"}},
		{"place too long", `{"location":"` + strings.Repeat("a", 201) + `"}`, []string{"/location"}},
		{"location of another type", `{"location":42}`, []string{"/location"}},
		{"latitude above 90", `{"location":{"lat":90.5,"lon":0}}`, []string{"/location", "/location/lat"}},
		{"longitude below -180", `{"location":{"lat":0,"lon":-181}}`, []string{"/location", "/location/lon"}},
		{"longitude missing", `{"location":{"lat":0}}`, []string{"/location", "/location/lon"}},
		{"unknown coordinate key", `{"location":{"lat":0,"lon":0,"alt":3}}`, []string{"/location", "/location/alt"}},
		{"latitude as text", `{"location":{"lat":"52","lon":13}}`, []string{"/location", "/location/lat"}},
		{"days 0", `{"location":"Berlin","days":0}`, []string{"/days"}},
		{"days 17", `{"location":"Berlin","days":17}`, []string{"/days"}},
		{"days fractional", `{"location":"Berlin","days":2.5}`, []string{"/days"}},
		{"units unknown", `{"location":"Berlin","units":"kelvin"}`, []string{"/units"}},
		{"include unknown", `{"location":"Berlin","include":["pollen"]}`, []string{"/include/0"}},
		{"include repeated", `{"location":"Berlin","include":["marine","marine"]}`, []string{"/include"}},
		{"include three", `{"location":"Berlin","include":["marine","air_quality","marine"]}`, []string{"/include"}},
		{"unknown key", `{"location":"Berlin","q":"rain"}`, []string{"/q"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, WeatherForecast, tc.body)
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("got %v, want invalid_request", err)
			}
			got := slices.Compact(providertest.ViolationPaths(err))
			if !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths %v, want %v", got, tc.paths)
			}
		})
	}
}

func TestSchemaDocumentsEveryProperty(t *testing.T) {
	doc := WeatherForecast.Schema().Doc
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		if s["type"] == "object" && s["additionalProperties"] != false {
			t.Errorf("%s: object without additionalProperties false", path)
		}
		props, _ := s["properties"].(map[string]any)
		for name, raw := range props {
			p := raw.(map[string]any)
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("%s/%s has no description", path, name)
			}
			walk(path+"/"+name, p)
		}
		for _, key := range []string{"oneOf", "anyOf"} {
			branches, _ := s[key].([]any)
			for _, b := range branches {
				walk(path, b.(map[string]any))
			}
		}
	}
	walk("", doc)
}

// enschede is the point testdata/geocoding.json resolves "Enschede" to.
const enschedeLat, enschedeLon = "52.21833", "6.89583"

func TestGoldenMappings(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		fakes func(t *testing.T) fakes
	}{
		{
			name: "place_metric_with_extras",
			body: `{"location":"Enschede","days":3,"include":["air_quality","marine"]}`,
			fakes: func(t *testing.T) fakes {
				return fakes{
					ProviderGeocoding:  newFake(t, "/v1/search", geocodingQueryValues("Enschede"), 200, "geocoding.json"),
					ProviderForecast:   newFake(t, "/v1/forecast", forecastQueryValues(enschedeLat, enschedeLon, "3", false), 200, "forecast_metric.json"),
					ProviderAirQuality: newFake(t, "/v1/air-quality", airQualityQueryValues(enschedeLat, enschedeLon), 200, "airquality.json"),
					ProviderMarine:     newFake(t, "/v1/marine", marineQueryValues(enschedeLat, enschedeLon, "3"), 200, "marine.json"),
				}
			},
		},
		{
			name: "coordinates_imperial",
			body: `{"location":{"lat":40.7128,"lon":-74.006},"days":2,"units":"imperial"}`,
			fakes: func(t *testing.T) fakes {
				return fakes{
					ProviderForecast: newFake(t, "/v1/forecast", forecastQueryValues("40.7128", "-74.006", "2", true), 200, "forecast_imperial.json"),
				}
			},
		},
		{
			name: "marine_inland_all_null",
			body: `{"location":{"lat":52.21833,"lon":6.89583},"days":3,"include":["marine"]}`,
			fakes: func(t *testing.T) fakes {
				return fakes{
					ProviderForecast: newFake(t, "/v1/forecast", forecastQueryValues(enschedeLat, enschedeLon, "3", false), 200, "forecast_metric.json"),
					ProviderMarine:   newFake(t, "/v1/marine", marineQueryValues(enschedeLat, enschedeLon, "3"), 200, "marine_inland.json"),
				}
			},
		},
		{
			name: "extras_without_data",
			body: `{"location":"Atlantic Point","days":1,"include":["marine","air_quality"]}`,
			fakes: func(t *testing.T) fakes {
				return fakes{
					ProviderGeocoding:  newFake(t, "/v1/search", geocodingQueryValues("Atlantic Point"), 200, "geocoding_missing_fields.json"),
					ProviderForecast:   newFake(t, "/v1/forecast", forecastQueryValues("44.09647", "-69.10087", "1", false), 200, "forecast_metric.json"),
					ProviderAirQuality: newFake(t, "/v1/air-quality", airQualityQueryValues("44.09647", "-69.10087"), 400, "nodata_400.json"),
					ProviderMarine:     newFake(t, "/v1/marine", marineQueryValues("44.09647", "-69.10087", "1"), 400, "nodata_400.json"),
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := tc.fakes(t)
			page, err := run(t, fs, nil, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			for id, f := range fs {
				if f.calls.Load() != 1 {
					t.Errorf("%s called %d times, want 1", id, f.calls.Load())
				}
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
		})
	}
}

func TestRecordShape(t *testing.T) {
	page, err := run(t, fakes{
		ProviderGeocoding:  newFake(t, "/v1/search", nil, 200, "geocoding.json"),
		ProviderForecast:   newFake(t, "/v1/forecast", nil, 200, "forecast_metric.json"),
		ProviderAirQuality: newFake(t, "/v1/air-quality", nil, 200, "airquality.json"),
		ProviderMarine:     newFake(t, "/v1/marine", nil, 200, "marine.json"),
	}, nil, `{"location":"Enschede","days":3,"include":["air_quality","marine"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if page.HasMore || len(page.Next) != 0 {
		t.Errorf("single result: has_more %v next %s, want false and none", page.HasMore, page.Next)
	}
	rec := record(t, page)
	if rec["title"] != "Forecast for Enschede, Overijssel, The Netherlands (52.21833, 6.89583)" {
		t.Errorf("title %q", rec["title"])
	}
	wantKeys := func(name string, m map[string]any, allowed ...string) {
		t.Helper()
		for k := range m {
			if !slices.Contains(allowed, k) {
				t.Errorf("%s has key %q outside the spec's %v", name, k, allowed)
			}
		}
	}
	wantKeys("record", rec, "title", "snippet", "attribution", "source_url", "license", "license_url", "location", "units",
		"current", "daily", "air_quality", "marine")
	for _, k := range []string{"attribution", "source_url", "license", "license_url"} {
		if s, _ := rec[k].(string); s == "" {
			t.Errorf("%s must always be a non-empty string", k)
		}
	}
	wantKeys("location", rec["location"].(map[string]any), "name", "lat", "lon", "timezone", "elevation_m")
	wantKeys("units", rec["units"].(map[string]any), "temperature", "wind", "precipitation")
	wantKeys("current", rec["current"].(map[string]any), "time", "conditions", "temperature", "feels_like", "humidity", "wind", "precipitation")
	daily := rec["daily"].([]any)
	if len(daily) != 3 {
		t.Errorf("daily has %d entries, want one per requested day (3) although the upstream sent 4", len(daily))
	}
	for _, d := range daily {
		wantKeys("daily[]", d.(map[string]any), "date", "conditions", "high", "low", "precipitation", "precipitation_chance",
			"wind_max", "uv_index_max", "sunrise", "sunset")
	}
	wantKeys("air_quality", rec["air_quality"].(map[string]any), "type", "time", "timezone", "utc_offset_seconds", "interval_seconds",
		"attribution", "source_url", "data_source_url", "units", "european_aqi", "us_aqi", "pm2_5", "pm10", "ozone")
	for _, m := range rec["marine"].([]any) {
		wantKeys("marine[]", m.(map[string]any), "date", "wave_height_max_m", "wave_direction", "wave_period_max_s")
	}
	if _, ok := rec["current"].(map[string]any)["feels_like"]; ok {
		t.Error("feels_like is null upstream and must be left out")
	}
}

func TestRequestsSentUpstream(t *testing.T) {
	keys := map[string]string{ProviderForecast: "fk", ProviderGeocoding: "gk", ProviderAirQuality: "ak", ProviderMarine: "mk"}
	cases := []struct {
		name  string
		keys  map[string]string
		body  string
		fakes func(t *testing.T, keyed func(string, url.Values) url.Values) fakes
	}{
		{
			name: "keyless place, metric, both extras",
			body: `{"location":"  Enschede ","include":["marine","air_quality"]}`,
			fakes: func(t *testing.T, keyed func(string, url.Values) url.Values) fakes {
				return fakes{
					ProviderGeocoding:  newFake(t, "/v1/search", keyed(ProviderGeocoding, geocodingQueryValues("Enschede")), 200, "geocoding.json"),
					ProviderForecast:   newFake(t, "/v1/forecast", keyed(ProviderForecast, forecastQueryValues(enschedeLat, enschedeLon, "3", false)), 200, "forecast_metric.json"),
					ProviderAirQuality: newFake(t, "/v1/air-quality", keyed(ProviderAirQuality, airQualityQueryValues(enschedeLat, enschedeLon)), 200, "airquality.json"),
					ProviderMarine:     newFake(t, "/v1/marine", keyed(ProviderMarine, marineQueryValues(enschedeLat, enschedeLon, "3")), 200, "marine.json"),
				}
			},
		},
		{
			name: "commercial keys, coordinates, imperial",
			keys: keys,
			body: `{"location":{"lat":52.21833,"lon":6.89583},"days":16,"units":"imperial","include":["marine","air_quality"]}`,
			fakes: func(t *testing.T, keyed func(string, url.Values) url.Values) fakes {
				return fakes{
					ProviderForecast:   newFake(t, "/v1/forecast", keyed(ProviderForecast, forecastQueryValues(enschedeLat, enschedeLon, "16", true)), 200, "forecast_imperial.json"),
					ProviderAirQuality: newFake(t, "/v1/air-quality", keyed(ProviderAirQuality, airQualityQueryValues(enschedeLat, enschedeLon)), 200, "airquality.json"),
					ProviderMarine:     newFake(t, "/v1/marine", keyed(ProviderMarine, marineQueryValues(enschedeLat, enschedeLon, "16")), 200, "marine.json"),
				}
			},
		},
		{
			name: "commercial key on the geocoder",
			keys: keys,
			body: `{"location":"Enschede"}`,
			fakes: func(t *testing.T, keyed func(string, url.Values) url.Values) fakes {
				return fakes{
					ProviderGeocoding: newFake(t, "/v1/search", keyed(ProviderGeocoding, geocodingQueryValues("Enschede")), 200, "geocoding.json"),
					ProviderForecast:  newFake(t, "/v1/forecast", keyed(ProviderForecast, forecastQueryValues(enschedeLat, enschedeLon, "3", false)), 200, "forecast_metric.json"),
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			keyed := func(id string, v url.Values) url.Values {
				if k := tc.keys[id]; k != "" {
					return withKey(v, k)
				}
				return v
			}
			fs := tc.fakes(t, keyed)
			if _, err := run(t, fs, tc.keys, tc.body); err != nil {
				t.Fatal(err)
			}
			for id, f := range fs {
				if f.calls.Load() != 1 {
					t.Errorf("%s called %d times, want 1", id, f.calls.Load())
				}
			}
		})
	}
}

func TestUnresolvablePlace(t *testing.T) {
	forecast := newFake(t, "/v1/forecast", nil, 200, "forecast_metric.json")
	_, err := run(t, fakes{
		ProviderGeocoding: newFake(t, "/v1/search", geocodingQueryValues("Nowhere Atlantis"), 200, "geocoding_empty.json"),
		ProviderForecast:  forecast,
	}, nil, `{"location":"Nowhere Atlantis"}`)
	e, ok := providers.AsError(err)
	if !ok || e.Code != providers.CodeInvalidRequest || e.HTTPStatus() != 400 {
		t.Fatalf("got %v, want 400 invalid_request", err)
	}
	if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, []string{"/location"}) {
		t.Errorf("violation paths %v, want [/location]", got)
	}
	if !strings.Contains(e.Message, "Nowhere Atlantis") {
		t.Errorf("message %q does not name the place", e.Message)
	}
	if forecast.calls.Load() != 0 {
		t.Error("the forecast must not be asked for an unresolved place")
	}
}

func TestGeocodingIsCached(t *testing.T) {
	geo := newFake(t, "/v1/search", nil, 200, "geocoding.json")
	empty := newFake(t, "/v1/search", nil, 200, "geocoding_empty.json")
	mux := http.NewServeMux()
	mux.Handle("/v1/search", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("name") == "Atlantis" {
			empty.ServeHTTP(w, r)
			return
		}
		geo.ServeHTTP(w, r)
	}))
	forecast := newFake(t, "/v1/forecast", nil, 200, "forecast_metric.json")
	client := providertest.Client(t, Providers(), map[string]http.Handler{ProviderGeocoding: mux, ProviderForecast: forecast}, nil)
	for _, body := range []string{`{"location":"Enschede"}`, `{"location":"enschede"}`, `{"location":"  ENSCHEDE  "}`} {
		if _, err := providertest.Execute(t, client, WeatherForecast, providers.ModeLive, body); err != nil {
			t.Fatal(err)
		}
	}
	if n := geo.calls.Load(); n != 1 {
		t.Errorf("geocoder called %d times for one place name, want 1 (cached)", n)
	}
	if n := forecast.calls.Load(); n != 3 {
		t.Errorf("forecast called %d times, want 3 (never cached)", n)
	}
	for range 2 {
		_, err := providertest.Execute(t, client, WeatherForecast, providers.ModeLive, `{"location":"Atlantis"}`)
		if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
			t.Fatalf("got %v, want invalid_request", err)
		}
	}
	if n := empty.calls.Load(); n != 1 {
		t.Errorf("geocoder called %d times for an unknown name, want 1 (misses are cached too)", n)
	}
}

func TestUpstreamErrors(t *testing.T) {
	const body = `{"location":{"lat":52.21833,"lon":6.89583}}`
	cases := []struct {
		name       string
		status     int
		fixture    string
		code       providers.Code
		retryable  bool
		retryAfter time.Duration
		message    string
	}{
		{"documented 400 error object", 400, "error_400.json", providers.CodeProviderError, false, 0, "Cannot initialize WeatherVariable"},
		{"minutely limit", 429, "ratelimit_minutely_429.json", providers.CodeRateLimited, true, time.Minute, "Minutely API request limit exceeded"},
		{"daily limit", 429, "ratelimit_daily_429.json", providers.CodeProviderAllowance, false, 0, "Daily API request limit exceeded"},
		{"server failure", 502, "error_400.json", providers.CodeProviderError, true, 0, "HTTP 502"},
		{"malformed JSON", 200, "malformed.txt", providers.CodeProviderError, true, 0, "malformed JSON"},
		{"wrong value type", 200, "forecast_wrong_type.json", providers.CodeProviderError, true, 0, "malformed JSON"},
		{"error object with HTTP 200", 200, "error_400.json", providers.CodeProviderError, false, 0, "Cannot initialize WeatherVariable"},
		{"answer without current conditions", 200, "geocoding_empty.json", providers.CodeProviderError, true, 0, "without the current conditions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, fakes{ProviderForecast: newFake(t, "/v1/forecast", nil, tc.status, tc.fixture)}, nil, body)
			e, ok := providers.AsError(err)
			if !ok {
				t.Fatalf("got %v, want a *providers.Error", err)
			}
			if e.Code != tc.code || e.IsRetryable() != tc.retryable {
				t.Errorf("got %s retryable %v (%s), want %s retryable %v", e.Code, e.IsRetryable(), e.Message, tc.code, tc.retryable)
			}
			if e.RetryAfter != tc.retryAfter {
				t.Errorf("retry after %v, want %v", e.RetryAfter, tc.retryAfter)
			}
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message %q does not contain %q", e.Message, tc.message)
			}
		})
	}
	t.Run("geocoder error", func(t *testing.T) {
		_, err := run(t, fakes{
			ProviderGeocoding: newFake(t, "/v1/search", nil, 400, "error_400.json"),
			ProviderForecast:  newFake(t, "/v1/forecast", nil, 200, "forecast_metric.json"),
		}, nil, `{"location":"Enschede"}`)
		if providertest.ErrorCode(err) != providers.CodeProviderError || !strings.Contains(err.Error(), "Cannot initialize") {
			t.Errorf("got %v, want provider_error with the upstream reason", err)
		}
	})
}

func TestExtrasThatFailBecomeNotes(t *testing.T) {
	const body = `{"location":{"lat":52.21833,"lon":6.89583},"include":["air_quality","marine"]}`
	cases := []struct {
		name   string
		fakes  func(t *testing.T) fakes
		client func(t *testing.T, fs fakes) *providers.Client
		notes  []string
	}{
		{
			name: "upstream failures",
			fakes: func(t *testing.T) fakes {
				return fakes{
					ProviderForecast:   newFake(t, "/v1/forecast", nil, 200, "forecast_metric.json"),
					ProviderAirQuality: newFake(t, "/v1/air-quality", nil, 503, "error_400.json"),
					ProviderMarine:     newFake(t, "/v1/marine", nil, 429, "ratelimit_minutely_429.json"),
				}
			},
			notes: []string{
				"air_quality is left out: openmeteo_airquality failed (HTTP 503): Cannot initialize WeatherVariable from invalid String value tempeture_2m for key hourly",
				"marine is left out: openmeteo_marine is rate limiting this gateway; retry in a minute: Minutely API request limit exceeded. Please try again in one minute.",
			},
		},
		{
			name: "providers not configured",
			fakes: func(t *testing.T) fakes {
				return fakes{ProviderForecast: newFake(t, "/v1/forecast", nil, 200, "forecast_metric.json")}
			},
			client: func(t *testing.T, fs fakes) *providers.Client {
				var provs []*providers.Provider
				for _, p := range Providers() {
					if p.ID == ProviderAirQuality || p.ID == ProviderMarine {
						cp := *p
						cp.BaseURL = "" // as a deployment without PROVIDER_<ID>_URL and no default
						p = &cp
					}
					provs = append(provs, p)
				}
				return providertest.Client(t, provs, fs.handlers(), nil)
			},
			notes: []string{
				"air_quality is left out: provider openmeteo_airquality has no base URL in this deployment (set PROVIDER_OPENMETEO_AIRQUALITY_URL)",
				"marine is left out: provider openmeteo_marine has no base URL in this deployment (set PROVIDER_OPENMETEO_MARINE_URL)",
			},
		},
		{
			name: "answers without values",
			fakes: func(t *testing.T) fakes {
				return fakes{
					ProviderForecast:   newFake(t, "/v1/forecast", nil, 200, "forecast_metric.json"),
					ProviderAirQuality: newFake(t, "/v1/air-quality", nil, 200, "marine_inland.json"),
					ProviderMarine:     newFake(t, "/v1/marine", nil, 200, "geocoding_empty.json"),
				}
			},
			notes: []string{
				"air_quality is left out: Open-Meteo returned no current air-quality values for this location.",
				noMarineNote,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := tc.fakes(t)
			client := providertest.Client(t, Providers(), fs.handlers(), nil)
			if tc.client != nil {
				client = tc.client(t, fs)
			}
			page, err := providertest.Execute(t, client, WeatherForecast, providers.ModeLive, body)
			if err != nil {
				t.Fatal(err)
			}
			rec := record(t, page)
			for _, k := range []string{"air_quality", "marine"} {
				if _, ok := rec[k]; ok {
					t.Errorf("%s present, want it left out", k)
				}
			}
			if !reflect.DeepEqual(page.Notes, tc.notes) {
				t.Errorf("notes\n got %q\nwant %q", page.Notes, tc.notes)
			}
		})
	}
}

func TestExamples(t *testing.T) {
	if len(WeatherForecast.Examples) < 2 {
		t.Fatalf("%d examples, want at least 2", len(WeatherForecast.Examples))
	}
	for i, ex := range WeatherForecast.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		check := func(t *testing.T, page *providers.Page, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			rec := record(t, page)
			days, _ := ex.Body.Request().Int("days")
			if days == 0 {
				days = 3
			}
			if got := len(rec["daily"].([]any)); got != days {
				t.Errorf("daily has %d entries, want %d", got, days)
			}
			include, _ := ex.Body.Request()["include"].([]any)
			for _, k := range []string{"air_quality", "marine"} {
				_, present := rec[k]
				if present && !slices.Contains(include, any(k)) {
					t.Errorf("%s present but not asked for", k)
				}
			}
		}
		t.Run("sandbox "+ex.Title, func(t *testing.T) {
			client := providertest.Client(t, Providers(), nil, nil)
			page, err := providertest.Execute(t, client, WeatherForecast, providers.ModeTest, string(body))
			check(t, page, err)
			providertest.Golden(t, fmt.Sprintf("example_%d_sandbox", i+1), providertest.RecordsJSON(page))
		})
		t.Run("live fake "+ex.Title, func(t *testing.T) {
			// The fakes are the sandbox's recorded answers behind real HTTP servers, so the live
			// path (client, User-Agent, base URLs) runs the example end to end.
			handlers := map[string]http.Handler{}
			for _, p := range Providers() {
				sb := p.Sandbox
				handlers[p.ID] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if got := r.Header.Get("User-Agent"); got != userAgent {
						t.Errorf("User-Agent %q", got)
					}
					sb.ServeHTTP(w, r)
				})
			}
			client := providertest.Client(t, Providers(), handlers, nil)
			page, err := providertest.Execute(t, client, WeatherForecast, providers.ModeLive, string(body))
			check(t, page, err)
		})
	}
}

func TestSandboxExampleNotes(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	page, err := providertest.Execute(t, client, WeatherForecast, providers.ModeTest, `{"location":"Berlin","days":7,"include":["marine"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(page.Notes, noMarineNote) {
		t.Errorf("notes %q, want the inland marine note", page.Notes)
	}
	_, err = providertest.Execute(t, client, WeatherForecast, providers.ModeTest, `{"location":"Nowhere"}`)
	if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, []string{"/location"}) {
		t.Errorf("sandbox unknown place: %v, want a violation at /location", err)
	}
}

func TestConditions(t *testing.T) {
	documented := []int{0, 1, 2, 3, 45, 48, 51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 71, 73, 75, 77, 80, 81, 82, 85, 86, 95, 96, 97, 99}
	for _, code := range documented {
		f := float64(code)
		if s, ok := conditions(&f); !ok || s == "" {
			t.Errorf("code %d has no description", code)
		}
	}
	if len(wmoConditions) != len(documented) {
		t.Errorf("%d codes in the table, want the %d documented", len(wmoConditions), len(documented))
	}
	for _, v := range []float64{4, 100, -1, 2.5} {
		if s, ok := conditions(&v); ok {
			t.Errorf("code %v named %q, want none", v, s)
		}
	}
	if _, ok := conditions(nil); ok {
		t.Error("a null code must have no description")
	}
}

func TestForecastFailureWithExtras(t *testing.T) {
	page, err := run(t, fakes{
		ProviderForecast:   newFake(t, "/v1/forecast", nil, 500, "error_400.json"),
		ProviderAirQuality: newFake(t, "/v1/air-quality", nil, 200, "airquality.json"),
		ProviderMarine:     newFake(t, "/v1/marine", nil, 200, "marine.json"),
	}, nil, `{"location":{"lat":52.21833,"lon":6.89583},"include":["air_quality","marine"]}`)
	if page != nil || providertest.ErrorCode(err) != providers.CodeProviderError {
		t.Errorf("got page %v, error %v; want the forecast's provider_error", page, err)
	}
}

func TestParseForecastQueryRefusesWhatTheSchemaWould(t *testing.T) {
	// The gateway validates first; Execute still refuses a body that slipped past it.
	for _, req := range []providers.Request{
		{"location": "  "},
		{"location": map[string]any{"lat": json.Number("1")}},
		{"location": json.Number("5")},
	} {
		_, err := parseForecastQuery(req)
		if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, []string{"/location"}) {
			t.Errorf("%v: got %v, want a violation at /location", req, err)
		}
	}
}
