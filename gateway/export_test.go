package gateway

import (
	"context"
	"testing"

	"github.com/capgate/capgate/providers"
)

// PanicInReviews makes every sharpen review goroutine panic until the test ends.
func PanicInReviews(t *testing.T) {
	orig := reviewWith
	t.Cleanup(func() { reviewWith = orig })
	reviewWith = func(*Server, context.Context, providers.Mode, string, []string, providers.ReviewPrompt) (*sharpenReview, error) {
		panic("reviewer bug")
	}
}
