package console_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func TestProviderConnectionTest(t *testing.T) {
	e := newEnv(t, tenantstest.SQLite(t))
	admin := signedIn(t, e, "admin@probe.test", tenants.RoleAdmin)
	var status, calls atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/rate_limit" || r.Method != http.MethodGet {
			t.Errorf("probe %s %s", r.Method, r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(int(status.Load()))
		_, _ = w.Write([]byte(`{"resources":{"core":{"limit":60,"remaining":60}}}`))
	}))
	t.Cleanup(srv.Close)
	if err := e.client.Configure("github", providers.Setting{URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	_, page := admin.do(http.MethodGet, "/console/admin/providers", nil)
	d := doc(t, page)
	if d.Find(`[data-testid="test-github"]`).Length() != 1 || d.Find(`[data-testid="test-zillow"]`).Length() != 0 {
		t.Fatal("the test button is not on exactly the providers with a documented probe")
	}
	for _, tc := range []struct {
		name   string
		status int
		banner string
		want   string
	}{
		{"answering", http.StatusOK, "flash", "answered HTTP 200"},
		{"refusing", http.StatusUnauthorized, "error", "test of github failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status.Store(int32(tc.status))
			before := calls.Load()
			res, _ := admin.post("/console/admin/providers/github/test", url.Values{})
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("%d", res.StatusCode)
			}
			_, page := admin.do(http.MethodGet, "/console/admin/providers", nil)
			if got := doc(t, page).Find(`[data-testid="` + tc.banner + `"]`).Text(); !strings.Contains(got, tc.want) {
				t.Fatalf("banner %q, want %q", got, tc.want)
			}
			if calls.Load() != before+1 {
				t.Fatalf("%d calls, want one", calls.Load()-before)
			}
		})
	}
	if res, _ := admin.post("/console/admin/providers/zillow/test", url.Values{}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("provider without a probe: %d", res.StatusCode)
	}
}

// TestProbeRequests: the probe of a keyless provider is the documented GET, with its query.
func TestProbeRequests(t *testing.T) {
	cases := []struct{ id, path, query string }{
		{"openmeteo", "/v1/forecast", "current=temperature_2m&latitude=52.52&longitude=13.41"},
		{"nominatim", "/status", "format=json"},
		{"bibleapi", "/john+3:16", ""},
		{"pypi", "/pypi/pip/json", ""},
		{"osrm", "/route/v1/driving/13.388860,52.517037;13.385983,52.496891", "overview=false"},
	}
	e := newEnv(t, tenantstest.SQLite(t))
	admin := signedIn(t, e, "admin@probes.test", tenants.RoleAdmin)
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			var got atomic.Value
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got.Store(r.Method + " " + r.URL.EscapedPath() + "?" + r.URL.RawQuery)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{}`))
			}))
			t.Cleanup(srv.Close)
			if err := e.client.Configure(tc.id, providers.Setting{URL: srv.URL}); err != nil {
				t.Fatal(err)
			}
			if res, _ := admin.post("/console/admin/providers/"+tc.id+"/test", url.Values{}); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("%d", res.StatusCode)
			}
			if want := "GET " + tc.path + "?" + tc.query; got.Load() != want {
				t.Fatalf("probe %v, want %s", got.Load(), want)
			}
		})
	}
}
