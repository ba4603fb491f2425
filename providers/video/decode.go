package video

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/capgate/capgate/providers/lenient"
)

// The lenient decoders are shared by every adapter (providers/lenient).
type (
	optStr   = lenient.Str
	optInt   = lenient.Int
	optFloat = lenient.Float
)

type list[T any] = lenient.List[T]

// The upstream shapes are decoded leniently: a field that is absent, null or of an unexpected
// type counts as absent (never a panic, never a failed page). YouTube sends its statistics as
// numeric strings and Supadata its offsets as JSON numbers; both forms are read everywhere.

// obj is a nested JSON object that may be absent, null or of another type (then OK is false).
type obj[T any] struct {
	V  T
	OK bool
}

func (o *obj[T]) UnmarshalJSON(b []byte) error {
	*o = obj[T]{}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var v T
	if json.Unmarshal(b, &v) == nil {
		*o = obj[T]{V: v, OK: true}
	}
	return nil
}

// strs is a string array whose non-string or blank elements are dropped.
type strs []string

func (s *strs) UnmarshalJSON(b []byte) error {
	*s = nil
	var items list[optStr]
	_ = json.Unmarshal(b, &items)
	for _, it := range items {
		if it != "" {
			*s = append(*s, string(it))
		}
	}
	return nil
}

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
