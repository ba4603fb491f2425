package pypi

import (
	"math/rand"
	"slices"
	"testing"
)

// TestVersionOrder checks PEP 440 precedence on the spec's own examples and the spellings it
// normalizes: the list is in strictly increasing order.
func TestVersionOrder(t *testing.T) {
	ordered := []string{
		"0.9", "1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2",
		"1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7", "1.0+5",
		"1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1", "1.9", "1.10", "2.0", "10.0",
		"99999999999999999999.0", "1!0.1",
	}
	parsed := make([]version, len(ordered))
	for i, s := range ordered {
		v, ok := parseVersion(s)
		if !ok {
			t.Fatalf("%q does not parse", s)
		}
		parsed[i] = v
	}
	for i := range parsed {
		for j := range parsed {
			want := sign(i - j)
			if got := compareVersions(parsed[i], parsed[j]); got != want {
				t.Errorf("compare(%s, %s) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	// Sorting a shuffled copy gives the list back.
	shuffled := slices.Clone(parsed)
	rand.New(rand.NewSource(1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	slices.SortFunc(shuffled, compareVersions)
	for i := range shuffled {
		if compareVersions(shuffled[i], parsed[i]) != 0 {
			t.Fatalf("sorted position %d is %v, want %s", i, shuffled[i], ordered[i])
		}
	}
}

func TestVersionSpellings(t *testing.T) {
	cases := map[string]string{
		"1.0":          "1",
		"1.0.0":        "1",
		"v1.2":         "1.2",
		"1.0-alpha1":   "1a1",
		"1.0.beta.2":   "1b2",
		"1.0c1":        "1rc1",
		"1.0pre1":      "1rc1",
		"1.0preview":   "1rc0",
		"1.0-1":        "1.post1",
		"1.0.rev2":     "1.post2",
		"1.0r":         "1.post0",
		"1.0-dev":      "1.dev0",
		"1.0+Ubuntu-1": "1+ubuntu.1",
		"0!1.01":       "1.1",
		"2!1.0":        "2!1",
		" 1.2 ":        "1.2",
		"1.0.post1":    "1.post1",
		"1.0RC1":       "1rc1",
	}
	for in, want := range cases {
		v, ok := parseVersion(in)
		if !ok {
			t.Errorf("%q does not parse", in)
			continue
		}
		if got := v.canonical(); got != want {
			t.Errorf("canonical(%q) = %q, want %q", in, got, want)
		}
	}
	for _, legacy := range []string{"2004d", "1.0-beta-x", "", "abc", "1.0.x", "1..0", "1.0+"} {
		if _, ok := parseVersion(legacy); ok {
			t.Errorf("%q parsed as a PEP 440 version", legacy)
		}
	}
	equal := [][2]string{{"1.0", "1.0.0"}, {"1.0a1", "1.0alpha1"}, {"1.0.post1", "1.0-1"}, {"01.2", "1.2"}}
	for _, p := range equal {
		a, _ := parseVersion(p[0])
		b, _ := parseVersion(p[1])
		if compareVersions(a, b) != 0 {
			t.Errorf("%s and %s compare unequal", p[0], p[1])
		}
	}
}
