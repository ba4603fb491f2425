package providers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"the quick brown fox jumps", 17, "the quick brown…"},
		{"the quick brown fox jumps", 12, "the quick…"},
		{"wordswithoutanyspaces", 10, "wordswith…"},
		{"ééééé ééééé", 6, "ééééé…"},
		{"one, two, three", 9, "one, two…"},
		{"one two three four five six", 15, "one two three…"},
		{"a🍰🍰🍰", 3, "a🍰…"},
		{"ab", 1, "…"},
		{"ab", 0, ""},
		{"", 3, ""},
		{"x    y", 5, "x…"},
	}
	for _, tc := range cases {
		got := Clip(tc.in, tc.n)
		if got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > max(tc.n, 0) || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q: %d runes", tc.in, tc.n, got, n)
		}
	}
	long := strings.Repeat("word ", 1000)
	for _, n := range []int{2, 3, 7, 40, 300} {
		if got := Clip(long, n); utf8.RuneCountInString(got) > n || !strings.HasSuffix(got, "…") {
			t.Errorf("Clip(long, %d) = %q", n, got)
		}
	}
}

func TestTruncate(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"abcdef", 3, "abc", true},
		{"abc", 3, "abc", false},
		{"héllo", 2, "hé", true},
		{"a🍰b", 2, "a🍰", true},
		{"hello world", 6, "hello", true},
		{"abc", 0, "abc", false},
		{"", 5, "", false},
	}
	for _, tc := range cases {
		got, cut := Truncate(tc.in, tc.n)
		if got != tc.want || cut != tc.cut || !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.cut)
		}
	}
}
