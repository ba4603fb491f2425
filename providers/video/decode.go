package video

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The upstream shapes are decoded leniently: a field that is absent, null or of an unexpected
// type counts as absent (never a panic, never a failed page). YouTube sends its statistics as
// numeric strings and Supadata its offsets as JSON numbers; both forms are read everywhere.

// optStr is a string that may be absent, null or of another type; it is trimmed, and a blank
// string counts as absent.
type optStr string

func (s *optStr) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) != nil {
		*s = ""
		return nil
	}
	*s = optStr(strings.TrimSpace(v))
	return nil
}

// optInt is a non-fractional number that may be absent, null, a JSON number or a numeric string
// (YouTube's statistics are strings: "viewCount": "8087").
type optInt struct {
	V  int64
	OK bool
}

func (n *optInt) UnmarshalJSON(b []byte) error {
	*n = optInt{}
	f, ok := numberOf(b)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return nil
	}
	*n = optInt{V: int64(f), OK: true}
	return nil
}

// optFloat is a number that may be absent, null, a JSON number or a numeric string.
type optFloat struct {
	V  float64
	OK bool
}

func (n *optFloat) UnmarshalJSON(b []byte) error {
	*n = optFloat{}
	if f, ok := numberOf(b); ok {
		*n = optFloat{V: f, OK: true}
	}
	return nil
}

func numberOf(b []byte) (float64, bool) {
	b = bytes.TrimSpace(b)
	if len(b) > 1 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return 0, false
		}
		b = []byte(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// list is a JSON array that may be absent, null or of another type (then it is nil, while a
// present empty array is a non-nil empty list); elements that do not decode are skipped.
type list[T any] []T

func (l *list[T]) UnmarshalJSON(b []byte) error {
	*l = nil
	var raw []json.RawMessage
	if json.Unmarshal(b, &raw) != nil || raw == nil {
		return nil
	}
	*l = make(list[T], 0, len(raw))
	for _, r := range raw {
		var v T
		if json.Unmarshal(r, &v) == nil {
			*l = append(*l, v)
		}
	}
	return nil
}

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
