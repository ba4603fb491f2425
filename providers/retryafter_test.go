package providers

import (
	"testing"
	"time"
)

// Every code of the vocabulary: a retryable 503 or 429 always names a wait (its own, rounded up,
// or DefaultRetryAfter); anything else names one only when its cause did.
func TestRetryAfterSecondsEveryCode(t *testing.T) {
	for _, code := range Codes() {
		t.Run(string(code), func(t *testing.T) {
			e := &Error{Code: code}
			st, retry := e.HTTPStatus(), e.IsRetryable()
			want := 0
			if (st == 503 || st == 429) && retry {
				want = 1
			}
			if got := e.RetryAfterSeconds(); got != want {
				t.Fatalf("status %d retryable %v: Retry-After %d, want %d", st, retry, got, want)
			}
			e.RetryAfter = 2500 * time.Millisecond
			if got := e.RetryAfterSeconds(); got != 3 {
				t.Fatalf("its own wait of 2.5 s: Retry-After %d, want 3", got)
			}
			if retry {
				e = (&Error{Code: code}).WithRetryable(false)
				if got := e.RetryAfterSeconds(); got != 0 {
					t.Fatalf("made not retryable: Retry-After %d, want none", got)
				}
			}
		})
	}
}
