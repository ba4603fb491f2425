package providers

import (
	"context"
	"time"
)

// FallbackWorthy tells whether a primary source's failure is one a fallback source should absorb:
// the source failing, timing out, paused by its breaker, out of allowance or not configured. A
// short rate limit and a refused query are the caller's to see (and retry or fix).
func FallbackWorthy(err error) bool {
	switch CodeOf(err) {
	case CodeProviderError, CodeProviderTimeout, CodeServiceUnavailable, CodeProviderAllowance, CodeCapabilityUnavailable:
		return true
	}
	return false
}

// PrimaryBudget is the share of the remaining deadline a primary source gets before the
// fallback must start: at most max, and never more than half of what is left.
func PrimaryBudget(ctx context.Context, max time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		if half := time.Until(dl) / 2; half < max {
			return half
		}
	}
	return max
}

// CodeOf is the vocabulary code of err (internal_error for a foreign error).
func CodeOf(err error) Code {
	if e, ok := AsError(err); ok {
		return e.Code
	}
	return CodeInternal
}

// MessageOf is the message the caller would see for err.
func MessageOf(err error) string {
	if e, ok := AsError(err); ok {
		return e.Message
	}
	return err.Error()
}
