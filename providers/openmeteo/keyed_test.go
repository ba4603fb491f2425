package openmeteo

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// hostTransport answers Open-Meteo's real hosts from fixtures by path and records every request,
// so that the hosts the client picks are seen without a network.
type hostTransport struct {
	t    *testing.T
	mu   sync.Mutex
	reqs []*http.Request
}

func (h *hostTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.reqs = append(h.reqs, r)
	h.mu.Unlock()
	fixture := map[string]string{"/v1/search": "geocoding.json", "/v1/forecast": "forecast_metric.json",
		"/v1/air-quality": "airquality.json", "/v1/marine": "marine.json"}[r.URL.Path]
	if fixture == "" {
		h.t.Errorf("unexpected request %s", r.URL)
		return &http.Response{StatusCode: 404, Body: io.NopCloser(strings.NewReader(`{}`)), Header: http.Header{}, Request: r}, nil
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(providertest.Fixture(h.t, fixture))), Request: r}, nil
}

// With PROVIDER_OPENMETEO_KEY every host is called on its customer- twin with apikey; without it
// the free hosts are called with no apikey. One key serves the four hosts.
func TestCommercialKey(t *testing.T) {
	cases := []struct {
		name   string
		key    string
		hosts  map[string]bool
		apikey string
	}{
		{"free API without a key", "", map[string]bool{"geocoding-api.open-meteo.com": true, "api.open-meteo.com": true,
			"air-quality-api.open-meteo.com": true, "marine-api.open-meteo.com": true}, ""},
		{"customer hosts with the key", "c0mm3rc1al", map[string]bool{"customer-geocoding-api.open-meteo.com": true,
			"customer-api.open-meteo.com": true, "customer-air-quality-api.open-meteo.com": true, "customer-marine-api.open-meteo.com": true}, "c0mm3rc1al"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := &hostTransport{t: t}
			c := providers.NewClient(Providers(), providers.ClientOptions{Version: "test", Contact: "tests@example.com", Transport: tr})
			if tc.key != "" {
				if err := c.Configure(ProviderForecast, providers.Setting{Key: tc.key}); err != nil {
					t.Fatal(err)
				}
			}
			_, err := providertest.Execute(t, c, WeatherForecast, providers.ModeLive, `{"location":"Berlin","include":["air_quality","marine"]}`)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.reqs) != 4 {
				t.Fatalf("%d requests, want 4 (geocoding, forecast, air quality, marine)", len(tr.reqs))
			}
			for _, r := range tr.reqs {
				if !tc.hosts[r.URL.Host] || r.URL.Scheme != "https" || r.Method != http.MethodGet {
					t.Errorf("request %s %s, want GET https on one of %v", r.Method, r.URL, tc.hosts)
				}
				if got, has := r.URL.Query()["apikey"]; (tc.apikey == "" && has) || (tc.apikey != "" && (len(got) != 1 || got[0] != tc.apikey)) {
					t.Errorf("%s: apikey %v, want %q", r.URL.Path, got, tc.apikey)
				}
			}
		})
	}
	t.Run("a base URL the deployment set is kept", func(t *testing.T) {
		c := providers.NewClient(Providers(), providers.ClientOptions{})
		_ = c.Configure(ProviderForecast, providers.Setting{Key: "k"})
		_ = c.Configure(ProviderMarine, providers.Setting{URL: "https://weather.internal.example"})
		if u := c.Upstream(ProviderMarine, providers.ModeLive); u.BaseURL != "https://weather.internal.example" || u.Key != "k" {
			t.Errorf("marine upstream %s key %q", u.BaseURL, u.Key)
		}
	})
}

// The free tier's limits hold for the four hosts together: one allowance (LimitGroup) of 600 a
// minute, 5,000 an hour and 10,000 a day, lifted by a commercial key.
func TestFreeTierLimits(t *testing.T) {
	want := []providers.Limit{
		{Requests: 600, Per: time.Minute, Burst: 60, Keyless: true},
		{Requests: 5000, Per: time.Hour, Burst: 500, Keyless: true},
		{Requests: 10000, Per: 24 * time.Hour, Burst: 1000, Keyless: true},
	}
	for _, p := range Providers() {
		if p.LimitGroup != "openmeteo" || p.RequestsPerSecond != 0 || len(p.Limits) != len(want) {
			t.Fatalf("%s: group %q rps %v limits %v", p.ID, p.LimitGroup, p.RequestsPerSecond, p.Limits)
		}
		for i := range want {
			if p.Limits[i] != want[i] {
				t.Errorf("%s: limit %d = %+v, want %+v", p.ID, i, p.Limits[i], want[i])
			}
		}
		if p.ID != ProviderForecast && p.KeyOf != ProviderForecast {
			t.Errorf("%s does not use the forecast provider's key", p.ID)
		}
		if !strings.HasPrefix(p.KeyedURL, "https://customer-") {
			t.Errorf("%s: keyed URL %q", p.ID, p.KeyedURL)
		}
	}
	if !strings.Contains(WeatherForecast.Description, "non-commercial") || !strings.Contains(WeatherForecast.Cost.Basis, "PROVIDER_OPENMETEO_KEY") {
		t.Errorf("the capability does not say that the free API is for non-commercial use: %q / %q", WeatherForecast.Description, WeatherForecast.Cost.Basis)
	}
}
