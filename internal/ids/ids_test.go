package ids

import (
	"strings"
	"testing"
	"time"
)

// TestTimeOrder: ids made later sort after ids made earlier, whatever their random parts, and
// keep their fixed width.
func TestTimeOrder(t *testing.T) {
	base := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var made [][]string // by time, earliest first
	for _, d := range []time.Duration{0, time.Millisecond, 61 * time.Millisecond, time.Second, 62 * 62 * time.Millisecond, 24 * time.Hour, 50 * 365 * 24 * time.Hour} {
		var group []string
		for range 3 {
			group = append(group, New("req_", base.Add(d), 12))
		}
		made = append(made, group)
	}
	for i := 1; i < len(made); i++ {
		for _, earlier := range made[i-1] {
			for _, later := range made[i] {
				if earlier >= later {
					t.Fatalf("%q (later) does not sort after %q", later, earlier)
				}
			}
		}
	}
	var all []string
	for _, g := range made {
		all = append(all, g...)
	}
	for _, id := range all {
		if len(id) != len("req_")+TimeLen+12 || !strings.HasPrefix(id, "req_") {
			t.Fatalf("id %q", id)
		}
		for _, c := range id[4:] {
			if !strings.ContainsRune(base62, c) {
				t.Fatalf("id %q holds %q", id, c)
			}
		}
	}
}

// TestUnique: a million ids of one millisecond do not repeat.
func TestUnique(t *testing.T) {
	now := time.Now()
	seen := make(map[string]bool, 1<<20)
	for range 1 << 20 {
		id := New("", now, 12)
		if seen[id] {
			t.Fatalf("%q made twice", id)
		}
		seen[id] = true
	}
}

// TestTimeOf: the time prefix reads back as the milliseconds it was made from, and anything else
// (another prefix, too short, a character outside base 62) is refused.
func TestTimeOf(t *testing.T) {
	at := time.Date(2026, 11, 27, 1, 2, 3, 456_000_000, time.UTC)
	if ms, ok := TimeOf("req_", New("req_", at, 12)); !ok || ms != at.UnixMilli() {
		t.Fatalf("TimeOf = %d %v, want %d", ms, ok, at.UnixMilli())
	}
	for _, id := range []string{"", "req_", "req_0000000", "key_0000000000", "req_0000-000xx", "my-own-request-id"} {
		if _, ok := TimeOf("req_", id); ok {
			t.Errorf("TimeOf(%q) accepted", id)
		}
	}
}
