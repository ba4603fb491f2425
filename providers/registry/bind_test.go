package registry

import (
	"context"
	"testing"

	"github.com/capgate/capgate/providers/fitness"
)

type fakeSaver struct{}

func (fakeSaver) SaveWorkout(context.Context, string, fitness.Workout) (string, error) {
	return "wkt_x", nil
}

// TestCapabilitiesWithBinds: a capability with a Bind hook is bound to the dependency it needs
// and left as declared without it; unrelated dependencies bind nothing.
func TestCapabilitiesWithBinds(t *testing.T) {
	byID := func(deps ...any) map[string]bool {
		out := map[string]bool{}
		for _, c := range CapabilitiesWith(deps...) {
			out[c.ID] = c == fitness.Exercises
		}
		return out
	}
	if got := byID(); !got["fitness.exercises"] {
		t.Fatal("without deps fitness.exercises is not the declared capability")
	}
	if got := byID("not a saver", 42); !got["fitness.exercises"] {
		t.Fatal("deps without a WorkoutSaver bound fitness.exercises")
	}
	if got := byID(fakeSaver{}); got["fitness.exercises"] {
		t.Fatal("a WorkoutSaver did not bind fitness.exercises")
	}
	if n, m := len(CapabilitiesWith(fakeSaver{})), len(Capabilities()); n != m {
		t.Fatalf("binding changed the list: %d capabilities, want %d", n, m)
	}
}
