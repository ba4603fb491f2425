package video

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The upstream shapes are decoded leniently: a field that is absent, null or of an unexpected
// type counts as absent (never a panic, never a failed page). YouTube sends its statistics as
// numeric strings and Supadata its offsets as JSON numbers; both forms are read everywhere.

var spaceRun = regexp.MustCompile(`\s+`)

// oneLine collapses every run of white space (newlines included) into one space.
func oneLine(s string) string {
	return strings.TrimSpace(spaceRun.ReplaceAllString(s, " "))
}

// clipRunes keeps at most n characters (Unicode code points) of s, never splitting a character,
// and trims the white space a cut may leave at the end.
func clipRunes(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return strings.TrimRightFunc(s[:i], func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == '\r' }), true
}

// mustJSON marshals this package's own state and reference structs (strings only, which cannot
// fail to marshal).
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
