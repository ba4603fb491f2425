package pypi

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestDownloadsGolden(t *testing.T) {
	cases := []struct {
		name, body, path, query, fixture string
	}{
		{"downloads_recent", `{"package":"PIP"}`, "/api/packages/pip/recent", "", "stats_recent.json"},
		{"downloads_overall", `{"package":"pip","kind":"overall"}`, "/api/packages/pip/overall", "mirrors=false", "stats_overall.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			useClock(t, newClock())
			u := newUpstreams(t)
			u.stats.serve(tc.path, http.StatusOK, tc.fixture)
			page, err := execute(t, u.client, Downloads, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, page)
			reqs := u.stats.Requests()
			if len(reqs) != 1 || reqs[0].URL.Path != tc.path || reqs[0].URL.RawQuery != tc.query ||
				reqs[0].Header.Get("Accept") != "application/json" || reqs[0].Header.Get("Authorization") != "" {
				t.Errorf("requests %v", reqs)
			}
			f := providertest.Native(&page.Records[0])
			for _, k := range []string{"package", "kind", "source", "data", "fetched_at", "cache_hit", "mirrors"} {
				if _, ok := f[k]; !ok {
					t.Errorf("always key %s missing", k)
				}
			}
			if f["fetched_at"] != "2026-11-21T06:30:00Z" || f["cache_hit"] != false || f["mirrors"] != false || f["source"] != "pypistats" {
				t.Errorf("fields %v", f)
			}
		})
	}
	t.Run("history keeps 180 days", func(t *testing.T) {
		useClock(t, newClock())
		u := newUpstreams(t)
		u.stats.serve("/api/packages/pip/overall", http.StatusOK, "stats_overall.json")
		page, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pip","kind":"overall"}`)
		if err != nil {
			t.Fatal(err)
		}
		rows := providertest.Native(&page.Records[0])["data"].([]HistoryDay)
		if len(rows) != 180 || rows[0].Date != "2026-05-25" || rows[179].Date != "2026-11-20" {
			t.Errorf("%d rows, %v .. %v", len(rows), rows[0], rows[len(rows)-1])
		}
		for _, r := range rows {
			if r.Category != "without_mirrors" {
				t.Errorf("row %v", r)
			}
		}
	})
}

func TestDownloadsCacheHit(t *testing.T) {
	clock := newClock()
	useClock(t, clock)
	u := newUpstreams(t)
	u.stats.serve("/api/packages/pip/recent", http.StatusOK, "stats_recent.json")
	u.stats.serve("/api/packages/pip/overall", http.StatusOK, "stats_overall.json")
	first, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pip"}`)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(23*time.Hour + 59*time.Minute)
	again, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"Pip"}`)
	if err != nil {
		t.Fatal(err)
	}
	f := providertest.Native(&again.Records[0])
	if f["cache_hit"] != true || f["fetched_at"] != providertest.Native(&first.Records[0])["fetched_at"] || !reflect.DeepEqual(f["data"], providertest.Native(&first.Records[0])["data"]) {
		t.Errorf("repeat fields %v", f)
	}
	if n := len(u.stats.Requests()); n != 1 {
		t.Errorf("%d upstream calls, want 1 (the repeat is cached)", n)
	}
	// The other endpoint of the same package is its own entry.
	if _, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pip","kind":"overall"}`); err != nil {
		t.Fatal(err)
	}
	if n := len(u.stats.Requests()); n != 2 {
		t.Errorf("%d upstream calls, want 2", n)
	}
	// After 24 hours the entry is stale and fetched again.
	clock.Advance(2 * time.Minute)
	stale, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pip"}`)
	if err != nil {
		t.Fatal(err)
	}
	if providertest.Native(&stale.Records[0])["cache_hit"] != false || providertest.Native(&stale.Records[0])["fetched_at"] != "2026-11-22T06:31:00Z" || len(u.stats.Requests()) != 3 {
		t.Errorf("after expiry: %v, %d calls", providertest.Native(&stale.Records[0]), len(u.stats.Requests()))
	}
}

// statsFake answers /recent for any package and counts the calls.
func statsFake(u *upstreams, calls *atomic.Int32) {
	u.stats.mu.Lock()
	defer u.stats.mu.Unlock()
	for i := 0; i < 300; i++ {
		name := fmt.Sprintf("pkg-%d", i)
		u.stats.routes["/api/packages/"+name+"/recent"] = func(w http.ResponseWriter, _ *http.Request) {
			calls.Add(1)
			_, _ = fmt.Fprintf(w, `{"data":{"last_day":%d,"last_month":%d,"last_week":%d},"package":%q,"type":"recent_downloads"}`, i, i*30, i*7, name)
		}
	}
}

func TestDownloadsCacheFull(t *testing.T) {
	clock := newClock()
	useClock(t, clock)
	u := newUpstreams(t)
	var calls atomic.Int32
	statsFake(u, &calls)
	start := clock.Now()
	for i := 0; i < downloadsCacheSize; i++ {
		if _, err := execute(t, u.client, Downloads, providers.ModeLive, fmt.Sprintf(`{"package":"pkg-%d"}`, i)); err != nil {
			t.Fatalf("package %d: %v", i, err)
		}
		clock.Advance(time.Minute)
	}
	if calls.Load() != downloadsCacheSize {
		t.Fatalf("%d calls", calls.Load())
	}
	// The 257th distinct package: refused, retryable, without an upstream call.
	_, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pkg-256"}`)
	e, ok := providers.AsError(err)
	if !ok || e.Code != providers.CodeServiceUnavailable || !e.IsRetryable() || !strings.Contains(e.Message, "cache is full") {
		t.Fatalf("error = %v, want a retryable service_unavailable saying the cache is full", err)
	}
	wantWait := start.Add(24 * time.Hour).Sub(clock.Now()) // the oldest entry (pkg-0) expires first
	if e.RetryAfter != wantWait {
		t.Errorf("RetryAfter %v, want %v", e.RetryAfter, wantWait)
	}
	if calls.Load() != downloadsCacheSize {
		t.Errorf("the refused miss called pypistats")
	}
	// Cached packages are still answered, and a refusal takes no slot.
	page, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pkg-7"}`)
	if err != nil || providertest.Native(&page.Records[0])["cache_hit"] != true {
		t.Fatalf("cached answer: %v %v", err, page)
	}
	// Once the oldest entry expires, the new package gets its slot (the expired one is dropped).
	clock.Advance(wantWait)
	if _, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pkg-256"}`); err != nil {
		t.Fatalf("after the oldest entry expired: %v", err)
	}
	if _, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pkg-257"}`); providertest.ErrorCode(err) != providers.CodeServiceUnavailable {
		t.Errorf("error = %v, want service_unavailable: only one entry had expired", err)
	}
	page, err = execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pkg-0"}`)
	if providertest.ErrorCode(err) != providers.CodeServiceUnavailable {
		t.Errorf("pkg-0 expired and the cache is full again: error = %v page %v", err, page)
	}
	// The sandbox has its own cache: a full live cache does not refuse test keys.
	if _, err := execute(t, u.client, Downloads, providers.ModeTest, `{"package":"requests"}`); err != nil {
		t.Errorf("sandbox: %v", err)
	}
}

func TestDownloadsFailuresFreeTheirSlot(t *testing.T) {
	useClock(t, newClock())
	u := newUpstreams(t)
	u.stats.handle("/api/packages/broken/recent", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	})
	for i := 0; i < downloadsCacheSize+5; i++ {
		if _, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"broken"}`); providertest.ErrorCode(err) != providers.CodeProviderError {
			t.Fatalf("error = %v", err)
		}
		if _, err := execute(t, u.client, Downloads, providers.ModeLive, fmt.Sprintf(`{"package":"missing-%d"}`, i)); providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Fatalf("error = %v", err)
		}
	}
	c := cacheFor(providers.ModeLive, "")
	c.mu.Lock()
	n, p := len(c.entries), len(c.pending)
	c.mu.Unlock()
	if n != 0 || p != 0 {
		t.Errorf("%d entries, %d pending after failures; want none", n, p)
	}
}

func TestDownloadsThrottled(t *testing.T) {
	cases := []struct {
		name       string
		retryAfter string
		code       providers.Code
		pause      time.Duration
	}{
		{"short Retry-After", "30", providers.CodeRateLimited, 30 * time.Second},
		{"long Retry-After", "7200", providers.CodeProviderAllowance, 2 * time.Hour},
		{"no Retry-After", "", providers.CodeProviderAllowance, time.Hour},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := newClock()
			useClock(t, clock)
			u := newUpstreams(t)
			u.stats.serve("/api/packages/pip/recent", http.StatusOK, "stats_recent.json")
			var limited atomic.Int32
			u.stats.handle("/api/packages/numpy/recent", func(w http.ResponseWriter, _ *http.Request) {
				limited.Add(1)
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`<!doctype html><title>429 Too Many Requests</title><h1>Too Many Requests</h1>`))
			})
			u.stats.serve("/api/packages/scipy/recent", http.StatusOK, `{"data":{"last_day":1,"last_month":30,"last_week":7},"package":"scipy","type":"recent_downloads"}`)
			if _, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pip"}`); err != nil {
				t.Fatal(err)
			}
			_, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"numpy"}`)
			if e, ok := providers.AsError(err); !ok || e.Code != tc.code || e.RetryAfter != tc.pause {
				t.Fatalf("429 answered %v (RetryAfter %v), want %s with %v", err, e.RetryAfter, tc.code, tc.pause)
			}
			// During the pause: another miss is refused without a call; the cached answer is served.
			clock.Advance(tc.pause - time.Second)
			_, err = execute(t, u.client, Downloads, providers.ModeLive, `{"package":"scipy"}`)
			e, ok := providers.AsError(err)
			if !ok || (e.Code != providers.CodeRateLimited && e.Code != providers.CodeProviderAllowance) || e.RetryAfter != time.Second {
				t.Fatalf("miss during the pause: %v", err)
			}
			if !strings.Contains(e.Message, "cached") {
				t.Errorf("message %q should say cached answers stay available", e.Message)
			}
			page, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"pip"}`)
			if err != nil || providertest.Native(&page.Records[0])["cache_hit"] != true {
				t.Fatalf("cached answer during the pause: %v %v", err, page)
			}
			if n := len(u.stats.Requests()); n != 2 {
				t.Errorf("%d upstream calls during the pause, want 2", n)
			}
			// After the pause, misses reach pypistats again.
			clock.Advance(time.Second)
			if _, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"scipy"}`); err != nil {
				t.Errorf("after the pause: %v", err)
			}
		})
	}
}

func TestDownloadsUpstreamErrors(t *testing.T) {
	cases := []struct {
		name, body string
		status     int
		code       providers.Code
	}{
		{"no data for the package", `<!doctype html><title>404 Not Found</title>`, 404, providers.CodeNotFound},
		{"server error", `oops`, 500, providers.CodeProviderError},
		{"malformed JSON", `{"data":`, 200, providers.CodeProviderError},
		{"recent without counts", `{"data":{},"package":"x","type":"recent_downloads"}`, 200, providers.CodeProviderError},
		{"recent with a list", `{"data":[],"package":"x","type":"recent_downloads"}`, 200, providers.CodeProviderError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			useClock(t, newClock())
			u := newUpstreams(t)
			u.stats.handle("/api/packages/x/recent", func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			_, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"x"}`)
			if providertest.ErrorCode(err) != tc.code {
				t.Errorf("error = %v, want %s", err, tc.code)
			}
		})
	}
	t.Run("overall odd shapes", func(t *testing.T) {
		useClock(t, newClock())
		u := newUpstreams(t)
		u.stats.serve("/api/packages/x/overall", 200, `{"data":[null,"junk",{"category":"without_mirrors","date":"2026-01-02","downloads":"12"},
			{"date":"2026-01-01","downloads":3},{"category":"with_mirrors","date":"2026-01-01","downloads":9}],"package":"x","type":"overall_downloads"}`)
		page, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"x","kind":"overall"}`)
		if err != nil {
			t.Fatal(err)
		}
		want := []HistoryDay{
			{Category: "without_mirrors", Date: "2026-01-01", Downloads: 3},
			{Category: "without_mirrors", Date: "2026-01-02", Downloads: 12},
		}
		if got := providertest.Native(&page.Records[0])["data"]; !reflect.DeepEqual(got, want) {
			t.Errorf("data %v", got)
		}
	})
	t.Run("overall without data", func(t *testing.T) {
		useClock(t, newClock())
		u := newUpstreams(t)
		u.stats.serve("/api/packages/x/overall", 200, `{"package":"x","type":"overall_downloads"}`)
		_, err := execute(t, u.client, Downloads, providers.ModeLive, `{"package":"x","kind":"overall"}`)
		if providertest.ErrorCode(err) != providers.CodeProviderError {
			t.Errorf("error = %v", err)
		}
	})
}

func TestDownloadsSchema(t *testing.T) {
	cases := []struct {
		body  string
		paths []string
	}{
		{`{"package":"requests"}`, nil},
		{`{"package":"requests","kind":"overall"}`, nil},
		{`{"package":"requests","kind":"daily"}`, []string{"/kind"}},
		{`{"package":"requests","mirrors":true}`, []string{"/mirrors"}},
		{`{"kind":"recent"}`, []string{"/package"}},
		{`{"package":"_requests"}`, []string{"/package"}},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			req, err := providertest.Prepare(t, Downloads, tc.body)
			if got := violationPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violations %v, want %v (%v)", got, tc.paths, err)
			}
			if err == nil && req.Str("kind") == "" {
				t.Error("kind default not applied")
			}
		})
	}
}
