package video

import (
	"encoding/json"
	"regexp"
	"strings"
)

// The upstream shapes are decoded leniently: a field that is absent, null or of an unexpected
// type counts as absent (never a panic, never a failed page). YouTube sends its statistics as
// numeric strings and Supadata its offsets as JSON numbers; both forms are read everywhere.

var spaceRun = regexp.MustCompile(`\s+`)

// oneLine collapses every run of white space (newlines included) into one space.
func oneLine(s string) string {
	return strings.TrimSpace(spaceRun.ReplaceAllString(s, " "))
}

// mustJSON marshals this package's own state and reference structs (strings only, which cannot
// fail to marshal).
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
