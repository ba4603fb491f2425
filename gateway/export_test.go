package gateway

import (
	"context"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/reviewers"
)

// PanicInReviews makes every sharpen review goroutine panic until the test ends.
func PanicInReviews(t *testing.T) {
	orig := reviewWith
	t.Cleanup(func() { reviewWith = orig })
	reviewWith = func(*Server, context.Context, providers.Mode, string, []string, reviewers.Prompt) (*sharpenReview, error) {
		panic("reviewer bug")
	}
}
