package gateway_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
)

// denyAll refuses every request without naming a wait.
type denyAll struct{}

func (denyAll) Allow(context.Context, string, int) (gateway.RateResult, error) {
	return gateway.RateResult{Allowed: false, Limit: 1, Remaining: 0}, nil
}

// TestRetryAfterOnEveryRetryableWait walks each path that answers 503 or 429: every answer that is
// retryable carries a positive Retry-After (docs/api.md promises it), whether or not its cause
// named a wait.
func TestRetryAfterOnEveryRetryableWait(t *testing.T) {
	const path = "/v1/capabilities/books.search/execute"
	body := map[string]any{"query": "dune"}
	check := func(t *testing.T, r *gatewaytest.Response) {
		t.Helper()
		if r.Status != http.StatusServiceUnavailable && r.Status != http.StatusTooManyRequests {
			t.Fatalf("status %d %s, want 503 or 429", r.Status, r.Body)
		}
		retryable, _ := r.JSON["error"].(map[string]any)["retryable"].(bool)
		ra := r.Header.Get("Retry-After")
		n, err := strconv.Atoi(ra)
		if retryable && (err != nil || n <= 0) {
			t.Fatalf("%d %s: retryable with Retry-After %q", r.Status, r.ErrorCode(), ra)
		}
	}
	t.Run("rate limited without a wait from the limiter", func(t *testing.T) {
		e := gatewaytest.New(t, gatewaytest.Options{Limiter: denyAll{}})
		check(t, e.Do(http.MethodPost, path, e.LiveKey, body))
	})
	for _, f := range []providers.SandboxFault{providers.FaultRateLimited, providers.FaultAllowance, providers.FaultBreakerOpen} {
		t.Run("sandbox fault "+string(f), func(t *testing.T) {
			e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
			check(t, e.DoHeaders(http.MethodPost, path, e.TestKey, body, map[string]string{gateway.SandboxFaultHeader: string(f)}))
		})
	}
	t.Run("breaker open after upstream failures", func(t *testing.T) {
		e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}, BreakerTimeout: time.Minute})
		fault := map[string]string{gateway.SandboxFaultHeader: string(providers.FaultError)}
		for range 3 {
			e.DoHeaders(http.MethodPost, path, e.TestKey, body, fault)
		}
		check(t, e.Do(http.MethodPost, path, e.TestKey, body))
	})
	t.Run("sharpen without a reviewer", func(t *testing.T) {
		e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
		setStage(t, e, e.Tenant, "stage1")
		check(t, e.Do(http.MethodPost, "/v1/sharpen", e.LiveKey, draft))
	})
	t.Run("account store down", func(t *testing.T) {
		e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
		if r := e.Do(http.MethodPost, path, e.TestKey, body); r.Status != http.StatusOK {
			t.Fatalf("first call: %d %s", r.Status, r.Body)
		}
		if err := e.DB.Close(); err != nil {
			t.Fatal(err)
		}
		check(t, e.Do(http.MethodPost, path, e.TestKey, body))
		check(t, e.Do(http.MethodPost, path, e.LiveKey, body))
	})
}
