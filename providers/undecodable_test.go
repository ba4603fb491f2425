package providers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
)

// An upstream answering 200 with garbage opens the breaker like one answering 500: not JSON, and
// JSON of another shape, each counted once per answer; a good answer between them resets the run.
func TestUndecodableAnswersOpenTheBreaker(t *testing.T) {
	const failures = 3
	for name, body := range map[string]string{
		"not JSON":    `<html><body>Service temporarily unavailable</body></html>`,
		"wrong shape": `{"docs": "none"}`,
	} {
		t.Run(name, func(t *testing.T) {
			up := newUpstream(t, status(200, body))
			c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{BreakerFailures: failures, BreakerTimeout: time.Minute})
			u := c.Upstream(fakeID, providers.ModeLive)
			var out struct{ Docs []string }
			for i := 0; i < failures; i++ {
				err := u.GetJSON(context.Background(), "/search.json", nil, &out)
				wantError(t, err, providers.CodeProviderError, true)
			}
			if got := c.BreakerState(fakeID); got != "open" {
				t.Fatalf("breaker %s after %d undecodable answers, want open", got, failures)
			}
			err := u.GetJSON(context.Background(), "/search.json", nil, &out)
			wantError(t, err, providers.CodeServiceUnavailable, true)
			if n := up.hits.Load(); n != failures {
				t.Fatalf("upstream hits %d, want %d", n, failures)
			}
		})
	}
	t.Run("a good answer in between resets the run", func(t *testing.T) {
		var n int
		up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			n++
			if n%failures == 0 {
				status(200, `{"docs": ["a"]}`)(w, r)
				return
			}
			status(200, `garbage`)(w, r)
		})
		c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{BreakerFailures: failures, BreakerTimeout: time.Minute})
		var out struct{ Docs []string }
		for i := 0; i < 3*failures; i++ {
			_ = c.Upstream(fakeID, providers.ModeLive).GetJSON(context.Background(), "/search.json", nil, &out)
		}
		if got := c.BreakerState(fakeID); got != "closed" {
			t.Fatalf("breaker %s: runs of %d bad answers, each ended by a good one, must not open it", got, failures-1)
		}
	})
}

// A body that breaks off after the headers is a truncated answer, not an unreachable provider.
func TestTruncatedAnswerSaysSo(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"docs": [`))
		// The handler returns with 990 bytes missing: the server closes the connection.
	})
	c := newClient(t, fakeProvider(), up.URL, "", providers.ClientOptions{})
	_, err := call(t, c)
	e := wantError(t, err, providers.CodeProviderError, true)
	if !strings.Contains(e.Message, "truncated answer") || strings.Contains(e.Message, "could not be reached") {
		t.Fatalf("message %q, want a truncated answer", e.Message)
	}
}
