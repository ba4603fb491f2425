package openmeteo

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const userAgent = "capgate/test (+tests@example.com)"

// fake is an httptest stand-in for one Open-Meteo API: it checks every request's method, path,
// query (when want is set) and User-Agent, then answers a testdata fixture with a status.
type fake struct {
	t      *testing.T
	path   string
	want   url.Values
	status int
	body   []byte
	calls  atomic.Int32
}

func newFake(t *testing.T, path string, want url.Values, status int, fixture string) *fake {
	t.Helper()
	f := &fake{t: t, path: path, want: want, status: status}
	if fixture != "" {
		f.body = providertest.Fixture(t, fixture)
	}
	return f
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	if r.Method != http.MethodGet {
		f.t.Errorf("%s: method %s, want GET", f.path, r.Method)
	}
	if r.URL.Path != f.path {
		f.t.Errorf("path %q, want %q", r.URL.Path, f.path)
	}
	if got := r.Header.Get("User-Agent"); got != userAgent {
		f.t.Errorf("%s: User-Agent %q, want %q", f.path, got, userAgent)
	}
	if f.want != nil && !reflect.DeepEqual(r.URL.Query(), f.want) {
		f.t.Errorf("%s: query\n got %v\nwant %v", f.path, r.URL.Query(), f.want)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = w.Write(f.body)
}

// fakes maps provider ids to their fakes.
type fakes map[string]*fake

func (fs fakes) handlers() map[string]http.Handler {
	out := map[string]http.Handler{}
	for id, f := range fs {
		out[id] = f
	}
	return out
}

// run validates the body as the gateway does and executes it live against the fakes.
func run(t *testing.T, fs fakes, keys map[string]string, body string) (*providers.Page, error) {
	t.Helper()
	client := providertest.Client(t, Providers(), fs.handlers(), keys)
	return providertest.Execute(t, client, WeatherForecast, providers.ModeLive, body)
}

func forecastQueryValues(lat, lon string, days string, imperial bool) url.Values {
	v := url.Values{
		"latitude":      {lat},
		"longitude":     {lon},
		"current":       {"temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m"},
		"daily":         {"weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,wind_speed_10m_max,uv_index_max,sunrise,sunset"},
		"timezone":      {"auto"},
		"forecast_days": {days},
	}
	if imperial {
		v["temperature_unit"] = []string{"fahrenheit"}
		v["wind_speed_unit"] = []string{"mph"}
		v["precipitation_unit"] = []string{"inch"}
	}
	return v
}

func geocodingQueryValues(name string) url.Values {
	return url.Values{"name": {name}, "count": {"1"}, "language": {"en"}, "format": {"json"}}
}

func airQualityQueryValues(lat, lon string) url.Values {
	return url.Values{"latitude": {lat}, "longitude": {lon}, "current": {"european_aqi,us_aqi,pm2_5,pm10,ozone"}, "timezone": {"auto"}}
}

func marineQueryValues(lat, lon, days string) url.Values {
	return url.Values{"latitude": {lat}, "longitude": {lon}, "daily": {"wave_height_max,wave_direction_dominant,wave_period_max"},
		"timezone": {"auto"}, "forecast_days": {days}}
}

// withKey adds the apikey parameter a configured commercial key sends.
func withKey(v url.Values, key string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = vs
	}
	out.Set("apikey", key)
	return out
}

// record is the page's only record, rendered as the gateway shows it.
func record(t *testing.T, page *providers.Page) map[string]any {
	t.Helper()
	if len(page.Records) != 1 {
		t.Fatalf("got %d records, want 1", len(page.Records))
	}
	b, err := json.Marshal(providertest.RecordsJSON(page))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Records []map[string]any `json:"records"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out.Records[0]
}
