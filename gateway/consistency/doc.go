// Package consistency holds no code: its tests are the test-mode consistency sweeps (thousands
// of generated requests through the gateway), in a package of their own so that they run beside
// the gateway package's tests. They are sequential loops of single requests, so they are left
// out of race builds (//go:build !race) and make test runs them in a plain build beside the race
// run (scripts/test.sh).
package consistency
