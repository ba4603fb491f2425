package scripture

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// useQuota swaps in a quota of limit calls a day on a test clock.
func useQuota(t *testing.T, limit int, clock *time.Time) {
	t.Helper()
	saved := apiBibleQuota
	apiBibleQuota = newDailyQuota(limit, func() time.Time { return *clock })
	t.Cleanup(func() { apiBibleQuota = saved })
}

// API.Bible allows 5,000 queries a day per key: past the day's allowance the search answers a
// retryable provider_allowance until 00:00 UTC without calling API.Bible, and the next day it
// calls again. Test keys (the sandbox) do not count.
func TestAPIBibleDailyAllowance(t *testing.T) {
	if apiBibleQuota.limit != 5000 || apiBibleMaxVerses != 500 {
		t.Fatalf("allowance %d a day, %d verses a request; API.Bible documents 5,000 and 500", apiBibleQuota.limit, apiBibleMaxVerses)
	}
	clock := time.Date(2026, 11, 26, 21, 30, 0, 0, time.UTC)
	useQuota(t, 3, &clock)
	f := providertest.ServeFile(t, http.StatusOK, "testdata/apibible_search.json")
	c := fakes{apiBible: f}.client(t)
	body := `{"text":"bible","query":"love one another","num":25}`
	for i := 0; i < 3; i++ {
		mustRun(t, c, body, "")
	}
	if got := f.Requests()[0].URL.Query().Get("limit"); got != "25" {
		t.Errorf("limit %s, want the page size (at most 500 verses a request)", got)
	}
	_, err := run(t, c, body, "")
	e, ok := providers.AsError(err)
	if !ok || e.Code != providers.CodeProviderAllowance || !e.IsRetryable() || e.RetryAfter != 150*time.Minute ||
		!strings.Contains(e.Message, "5000 requests a day") || !strings.Contains(e.Message, "2h30m") || !strings.Contains(e.Hint, "reference") {
		t.Fatalf("past the allowance: %v (retry after %v, hint %q)", err, e.RetryAfter, e.Hint)
	}
	if n := len(f.Requests()); n != 3 {
		t.Fatalf("%d calls to API.Bible, want 3", n)
	}
	// References still work: they use bible-api.com.
	bible := providertest.ServeFile(t, http.StatusOK, "testdata/bibleapi_jhn_3_16-18.json")
	if _, err := run(t, fakes{bible: bible, apiBible: f}.client(t), `{"text":"bible","reference":"John 3:16-18"}`, ""); err != nil {
		t.Fatalf("reference lookup past the API.Bible allowance: %v", err)
	}
	// Test keys are answered by the sandbox and count nothing.
	sandbox := providertest.Client(t, Providers(), nil, nil)
	if _, err := providertest.ExecuteState(t, sandbox, Search, providers.ModeTest, prepare(t, body), nil); err != nil {
		t.Fatalf("test key: %v", err)
	}
	clock = clock.Add(150 * time.Minute) // 00:00 UTC
	mustRun(t, c, body, "")
	if n := len(f.Requests()); n != 4 {
		t.Fatalf("%d calls after the day turned, want 4", n)
	}
}

// An API.Bible 429 (its allowance refusal) is the same clear provider_allowance, and no further
// call is sent that day.
func TestAPIBibleAllowanceRefusedUpstream(t *testing.T) {
	clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	useQuota(t, 5000, &clock)
	refusal, err := os.ReadFile("testdata/apibible_error_429.json")
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{Answer: func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write(refusal)
	}}
	c := fakes{apiBible: f}.client(t)
	for i := 0; i < 2; i++ {
		_, err := run(t, c, `{"text":"bible","query":"grace"}`, "")
		e, ok := providers.AsError(err)
		if !ok || e.Code != providers.CodeProviderAllowance || !e.IsRetryable() || e.RetryAfter != 12*time.Hour {
			t.Fatalf("call %d: %v (retry after %v)", i, err, e.RetryAfter)
		}
	}
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("%d calls to API.Bible after its refusal, want 1", n)
	}
}
