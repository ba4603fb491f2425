package providertest

import (
	"sort"
	"time"
)

// MaxInWindow is the largest number of the given instants that fall in any window [t, t+window):
// what an upstream counting calls per window would see.
func MaxInWindow(at []time.Time, window time.Duration) int {
	ts := append([]time.Time(nil), at...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	best, j := 0, 0
	for i := range ts {
		for j < len(ts) && ts[j].Sub(ts[i]) < window {
			j++
		}
		if n := j - i; n > best {
			best = n
		}
	}
	return best
}
