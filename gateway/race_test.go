//go:build race

package gateway_test

import "testing"

// raceBodies is how many generated bodies each capability answers under the race detector: the
// concurrent shape of the property test (every capability at once on one Env) at a fraction of
// its CPU (the first walked in full). The full sweep runs in the plain build (sweeps_test.go).
const raceBodies = 3

// TestTestModeAnswersAnyValidBody is the property test of issue 18, with a few bodies.
func TestTestModeAnswersAnyValidBody(t *testing.T) {
	t.Parallel()
	answersAnyValidBody(t, raceBodies, 1)
}
