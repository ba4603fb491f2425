//go:build !race

package gateway_test

// The gateway's long sequential sweeps: every capability's examples and generated bodies, each
// answer checked. They are loops of single requests, so the race detector finds nothing in them
// that the concurrent tests do not already cover, and it made them cost five to ten times the
// CPU; they are left out of race builds, and make test runs them in a plain build beside the
// race run (scripts/test.sh, "sweeps without the race detector").

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestHostileValuesNever5xx sends every capability's first example over HTTP with each field
// replaced by each hostile value, then follow-ups (update params, ids and actions) with the same
// values, on SQLite and PostgreSQL: the gateway never fails on its own (500, 503).
func TestHostileValuesNever5xx(t *testing.T) {
	t.Parallel() // a long CPU-bound sweep: it shares the two cores with the others
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := gatewaytest.New(t, gatewaytest.Options{DB: b.Open(t)})
			_, _, key := newPlanTenant(t, e, 1_000_000_000, "all")
			codes := map[string]int{}
			check := func(what string, r *gatewaytest.Response, body []byte) {
				t.Helper()
				codes[r.ErrorCode()]++
				if serverFault(r) {
					t.Errorf("%s: %d %s\nbody %q", what, r.Status, r.Body, body)
				}
			}
			for _, cp := range registry.Capabilities() {
				if len(cp.Examples) == 0 {
					continue
				}
				ex := cp.Examples[0].Body.Request()
				path := "/v1/capabilities/" + cp.ID + "/execute"
				for k := range ex {
					for _, v := range hostileValues {
						body := objectWith(t, ex, k, v)
						check(cp.ID+" "+k, e.Do(http.MethodPost, path, key, body), body)
					}
				}
				for _, v := range hostileValues {
					body := objectWith(t, ex, "unknown_field", v)
					check(cp.ID+" unknown field", e.Do(http.MethodPost, path, key, body), body)
				}
				first := e.Do(http.MethodPost, path, key, ex)
				sid, _ := first.JSON["search_id"].(string)
				if first.Status != 200 || sid == "" {
					continue
				}
				var rid string
				if rs, _ := first.JSON["results"].([]any); len(rs) > 0 {
					rid, _ = rs[0].(map[string]any)["record_id"].(string)
				}
				for k := range ex {
					for _, v := range hostileValues {
						params := objectWith(t, map[string]any{}, k, v)
						body := []byte(`{"search_id":"` + sid + `","action":"update","params":` + string(params) + `}`)
						check(cp.ID+" update "+k, e.Do(http.MethodPost, "/v1/follow-up", key, body), body)
					}
				}
				for _, v := range hostileValues {
					for _, body := range [][]byte{
						objectWith(t, map[string]any{"search_id": sid}, "action", v),
						objectWith(t, map[string]any{"action": "more"}, "search_id", v),
						objectWith(t, map[string]any{"action": "details"}, "record_id", v),
						objectWith(t, map[string]any{"search_id": sid, "action": "more"}, "page", v),
					} {
						check(cp.ID+" follow-up", e.Do(http.MethodPost, "/v1/follow-up", key, body), body)
					}
					if rid != "" {
						body := objectWith(t, map[string]any{"record_id": rid}, "action", v)
						check(cp.ID+" record action", e.Do(http.MethodPost, "/v1/follow-up", key, body), body)
					}
				}
			}
			t.Logf("answers by error code: %v", codes)
		})
	}
}

// TestSandboxFaults: each fault of the header, on one capability per provider family, gives what
// live mode answers to the same upstream behaviour (status, code, Retry-After), and the test
// balance stays as it was.
func TestSandboxFaults(t *testing.T) {
	t.Parallel() // a long CPU-bound sweep: it shares the two cores with the others
	up := &faultUpstream{}
	fakes, keys := map[string]http.Handler{}, map[string]string{}
	for _, p := range registry.Providers() {
		fakes[p.ID], keys[p.ID] = up, "k"
	}
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}, Fakes: fakes, Keys: keys, BreakerTimeout: time.Minute})
	faults := []providers.SandboxFault{providers.FaultError, providers.FaultRateLimited, providers.FaultAllowance, providers.FaultGarbage}
	// What the client makes of each upstream behaviour, checked where live mode cannot run here
	// (adapters may refine it: GitHub reads a long Retry-After as its rate limit). A garbage body
	// is not listed: an adapter that reads any text (a reader, an HTML page) takes it as content,
	// live and test alike.
	expected := map[providers.SandboxFault]struct {
		status     int
		code       string
		retryAfter bool
	}{
		providers.FaultError:       {http.StatusBadGateway, "provider_error", false},
		providers.FaultRateLimited: {http.StatusTooManyRequests, "rate_limited", true},
		providers.FaultAllowance:   {http.StatusServiceUnavailable, "provider_allowance", true},
	}
	for _, cp := range faultCapabilities() {
		t.Run(cp.ID, func(t *testing.T) {
			path := "/v1/capabilities/" + cp.ID + "/execute"
			body := cp.Examples[0].Body.Request()
			livePaused := false
			for _, f := range faults {
				// A fresh tenant per fault: repeated faults would open its sandbox breaker.
				tn, live, test := e.NewTenant("pro")
				usedTest, usedLive := used(t, e, tn, "test"), used(t, e, tn, "live")
				got := e.DoHeaders(http.MethodPost, path, test, body, map[string]string{gateway.SandboxFaultHeader: string(f)})
				if w, ok := expected[f]; ok && !liveComparable(cp) && (got.Status != w.status || got.ErrorCode() != w.code || (w.retryAfter && got.Header.Get("Retry-After") == "")) {
					t.Errorf("%s: test mode answered %d %s (Retry-After %q), want %d %s", f, got.Status, got.ErrorCode(), got.Header.Get("Retry-After"), w.status, w.code)
				}
				if u := used(t, e, tn, "test"); got.Status != http.StatusOK && u != usedTest {
					t.Errorf("%s: the test balance moved from %d to %d", f, usedTest, u)
				}
				if !liveComparable(cp) || livePaused {
					continue
				}
				up.fault.Store(f)
				want := e.Do(http.MethodPost, path, live, body)
				if got.Status != want.Status || got.ErrorCode() != want.ErrorCode() || got.Header.Get("Retry-After") != want.Header.Get("Retry-After") {
					t.Errorf("%s: test mode answered %d %s (Retry-After %q), live %d %s (Retry-After %q)\n%s\n%s", f,
						got.Status, got.ErrorCode(), got.Header.Get("Retry-After"), want.Status, want.ErrorCode(), want.Header.Get("Retry-After"), got.Body, want.Body)
				}
				if u := used(t, e, tn, "live"); want.Status != http.StatusOK && u != usedLive {
					t.Errorf("%s: the live balance moved from %d to %d", f, usedLive, u)
				}
				// pypistats' adapter pauses every live lookup of the process after a 429 (by design),
				// so later live answers are the pause, not the fault; its test mode pauses per tenant.
				livePaused = cp.ID == "pypkg.downloads" && want.Status == http.StatusTooManyRequests
			}
			_, _, test := e.NewTenant("pro")
			r := e.DoHeaders(http.MethodPost, path, test, body, map[string]string{gateway.SandboxFaultHeader: string(providers.FaultTimeout)})
			if r.Status != http.StatusGatewayTimeout || r.ErrorCode() != "provider_timeout" {
				t.Errorf("provider_timeout: %d %s", r.Status, r.Body)
			}
			r = e.DoHeaders(http.MethodPost, path, test, body, map[string]string{gateway.SandboxFaultHeader: string(providers.FaultBreakerOpen)})
			if r.Status != http.StatusServiceUnavailable || r.ErrorCode() != "service_unavailable" || r.Header.Get("Retry-After") == "" {
				t.Errorf("breaker_open: %d %s %q", r.Status, r.Body, r.Header.Get("Retry-After"))
			}
		})
	}
}

// TestTestModeIsDeterministicAndReflectsTheQuery: the same body gives the same records, and a
// search's records carry the asked query's words.
func TestTestModeIsDeterministicAndReflectsTheQuery(t *testing.T) {
	t.Parallel() // a long CPU-bound sweep: it shares the two cores with the others
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
	for _, cp := range registry.Capabilities() {
		t.Run(cp.ID, func(t *testing.T) {
			for _, body := range validBodies(t, cp, 10) {
				a := e.Do(http.MethodPost, "/v1/capabilities/"+cp.ID+"/execute", e.TestKey, body)
				b := e.Do(http.MethodPost, "/v1/capabilities/"+cp.ID+"/execute", e.TestKey, body)
				if a.Status != http.StatusOK || stableResults(a) != stableResults(b) {
					t.Errorf("%v: two answers differ (%d):\n%s\n%s", body, a.Status, stableResults(a), stableResults(b))
				}
			}
		})
	}
	searches := map[string]string{"web.search": "query", "news.search": "query", "academic.search": "query", "books.search": "query",
		"classics.search": "query", "music.search": "query", "video.search": "query", "recipes.search": "query", "fitness.exercises": "query",
		"social.search": "query", "shopping.search": "query", "jobs.search": "query", "places.search": "query", "patents.search": "query",
		"realestate.search": "query", "repo.search": "query", "jspkg.search": "text"}
	in := func(days int) string { return time.Now().UTC().AddDate(0, 0, days).Format("2006-01-02") }
	structured := []struct {
		id   string
		body map[string]any
		want []string
	}{
		{"weather.forecast", map[string]any{"location": "Paris", "days": 4}, []string{"Paris", in(3)}},
		{"weather.forecast", map[string]any{"location": "Quixote Springs"}, []string{"Quixote Springs"}},
		{"navigation.route", map[string]any{"origin": "Lisbon", "destination": "Porto"}, []string{"Lisbon", "Porto"}},
		{"flights.search", map[string]any{"origin": "LIS", "destination": "OPO", "departure_date": in(40)}, []string{"LIS", "OPO", in(40)}},
		{"hotels.search", map[string]any{"destination": "Kyoto", "check_in": in(30), "check_out": in(33)}, []string{"Kyoto"}},
		{"transit.routes", map[string]any{"origin": "Rua Augusta, Lisbon", "destination": "Avenida da Liberdade, Porto"}, []string{"Lisbon", "Porto"}},
		{"jspkg.package", map[string]any{"package": "express"}, []string{"express"}},
		{"jspkg.downloads", map[string]any{"package": "left-pad", "period": "2024-01-01:2024-01-31"}, []string{"left-pad", "2024-01-31"}},
		{"pypkg.details", map[string]any{"package": "left-pad"}, []string{"left-pad"}},
		{"web.read", map[string]any{"url": "https://go.dev/doc/effective_go"}, []string{"Effective Go", "go.dev"}},
		{"companies.financials", map[string]any{"company": map[string]any{"cik": "789019"}}, []string{"789019"}},
	}
	for _, c := range structured {
		r := e.Do(http.MethodPost, "/v1/capabilities/"+c.id+"/execute", e.TestKey, c.body)
		for _, w := range c.want {
			if !strings.Contains(stableResults(r)+fmt.Sprint(r.JSON["notes"]), w) {
				t.Errorf("%s %v: the answer does not mention %q: %d %.400s", c.id, c.body, w, r.Status, r.Body)
			}
		}
	}
	for id, field := range searches {
		for _, q := range []string{"dune", "quantum computing", "Lisbon"} {
			body := map[string]any{field: q}
			if id == "social.search" {
				body["platform"] = "platform_b"
			}
			r := e.Do(http.MethodPost, "/v1/capabilities/"+id+"/execute", e.TestKey, body)
			word := strings.ToLower(strings.Fields(q)[0])
			if !strings.Contains(strings.ToLower(stableResults(r)), word) {
				t.Errorf("%s %q: no record mentions %q: %d %.300s", id, q, word, r.Status, r.Body)
			}
		}
	}
}

// TestTestModeAnswersAnyValidBody is the property test of issue 18, in full.
func TestTestModeAnswersAnyValidBody(t *testing.T) {
	t.Parallel() // a long CPU-bound sweep: it shares the two cores with the others
	answersAnyValidBody(t, bodiesPerCapability, thoroughBodies)
}
