package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// fakeSEC stands in for both EDGAR hosts on loopback and records when each call arrived. It
// answers every path as www.sec.gov and data.sec.gov answer an unknown file: 404.
type fakeSEC struct {
	mu sync.Mutex
	at []time.Time
	ua []string
}

func (f *fakeSEC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.at = append(f.at, time.Now())
	f.ua = append(f.ua, r.UserAgent())
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>`))
}

// TestUpstreamPacingAcrossInstances: SEC allows 10 requests a second per client "regardless of
// the number of machines used". Two gateway processes sharing Redis, under concurrent load on
// both EDGAR hosts, make at most that many calls in any one-second window, as the fake counts
// them (one call of margin for arrival jitter).
func TestUpstreamPacingAcrossInstances(t *testing.T) {
	if tenantstest.PostgresURL(t) == "" {
		t.Skip("no PostgreSQL test server")
	}
	d := newDeployment(t, "postgres").withRedis(t)
	fake := &fakeSEC{}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	env := []string{"PROVIDER_SEC_URL=" + srv.URL, "PROVIDER_SECDATA_URL=" + srv.URL, "GATEWAY_CONTACT=e2e@example.com"}
	a := d.serve(t, env...)
	b := d.serveOther(t, env...)
	tk := d.newTenant(t, "pro")

	const calls = 40
	var wg sync.WaitGroup
	statuses := make([]int, calls)
	for i := 0; i < calls; i++ {
		in := []*instance{a, b}[i%2]
		// By ticker the adapter reads www.sec.gov's ticker map, by CIK data.sec.gov's submissions.
		company := map[string]any{"cik": fmt.Sprint(1000 + i)}
		if i%4 < 2 {
			company = map[string]any{"ticker": fmt.Sprintf("ZZ%d", i)}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := in.call(t, "POST", "/v1/capabilities/companies.financials/execute", tk.Live, map[string]any{"company": company})
			statuses[i] = r.Status
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s == http.StatusOK || s == http.StatusTooManyRequests || s == 0 {
			t.Errorf("call %d: HTTP %d, want the upstream's refusal passed on", i, s)
		}
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.at) < calls {
		t.Fatalf("the fake SEC saw %d calls, want at least %d (every execute reaches it)", len(fake.at), calls)
	}
	// The gateway paces 8 a second; SEC's limit, counted where SEC counts (at the fake), is 10.
	if got := providertest.MaxInWindow(fake.at, time.Second); got > 10 {
		t.Errorf("%d calls to SEC in one second from two instances sharing Redis, want at most SEC's 10", got)
	}
	for _, ua := range fake.ua {
		if !strings.HasSuffix(ua, "(+e2e@example.com)") {
			t.Fatalf("User-Agent %q does not carry GATEWAY_CONTACT", ua)
		}
	}
}

// TestGatewayContact: without GATEWAY_CONTACT the first start says which providers wait for it
// and the catalog marks their capabilities unavailable to live keys, naming the setting; an
// invalid value stops serve with a usage error; a valid one makes them available.
func TestGatewayContact(t *testing.T) {
	d := newDeployment(t, "sqlite")
	t.Run("invalid value", func(t *testing.T) {
		in := d.start(t, d.DataDir, "GATEWAY_CONTACT=not a contact")
		select {
		case <-in.done:
		case <-time.After(20 * time.Second):
			t.Fatal("serve with an invalid GATEWAY_CONTACT kept running")
		}
		in.stopped = true
		if in.cmd.ProcessState.ExitCode() == 0 || !strings.Contains(in.stderr.String(), "GATEWAY_CONTACT") {
			t.Fatalf("exit %d, stderr %q; want a failure naming GATEWAY_CONTACT", in.cmd.ProcessState.ExitCode(), in.stderr.String())
		}
	})
	t.Run("unset", func(t *testing.T) {
		in := d.serve(t)
		out := in.stdout.String()
		for _, want := range []string{"GATEWAY_CONTACT is not set", "SEC EDGAR", "MusicBrainz", "Nominatim", "Open Library"} {
			if !strings.Contains(out, want) {
				t.Errorf("first start output lacks %q:\n%s", want, out)
			}
		}
		tk := d.newTenant(t, "pro")
		cat := in.get(t, "/v1/catalog", tk.Live).mustOK(t, "catalog")
		for _, id := range []string{"companies.financials", "books.search"} {
			c := catalogEntry(t, cat, id)
			if c["available"] != false || !strings.Contains(str(c, "unavailable_reason"), "GATEWAY_CONTACT") {
				t.Errorf("%s for a live key without a contact: %v", id, c)
			}
		}
		test := in.get(t, "/v1/catalog", tk.Test).mustOK(t, "catalog")
		if c := catalogEntry(t, test, "books.search"); c["available"] != true {
			t.Errorf("books.search for a test key: %v, want available (the sandbox needs no contact)", c)
		}
	})
}

func catalogEntry(t *testing.T, cat *response, id string) map[string]any {
	t.Helper()
	caps, _ := cat.JSON["capabilities"].([]any)
	for _, c := range caps {
		if m, _ := c.(map[string]any); m["id"] == id {
			return m
		}
	}
	t.Fatalf("catalog has no %s", id)
	return nil
}
