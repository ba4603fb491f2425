package social

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Both upstreams are decoded leniently: a field that is absent, null or of an unexpected type is
// "not there" (never a panic, never a failed page). X documents its objects by schema but adds and
// renames fields over time (tweet_count / post_count); Reddit documents its JSON only by example.

// optInt is an integer that may be absent, null, a JSON number or a numeric string.
type optInt struct {
	V  int64
	OK bool
}

func (n *optInt) UnmarshalJSON(b []byte) error {
	*n = optInt{}
	b = bytes.TrimSpace(b)
	if len(b) > 1 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
		b = []byte(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
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
	b = bytes.TrimSpace(b)
	if len(b) > 1 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
		b = []byte(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	*n = optFloat{V: f, OK: true}
	return nil
}

// optStr is a string that may be absent, null or of another type; blank strings count as absent.
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

// optBool is a boolean that may be absent, null or of another type.
type optBool struct {
	V  bool
	OK bool
}

func (o *optBool) UnmarshalJSON(b []byte) error {
	*o = optBool{}
	var v bool
	if json.Unmarshal(b, &v) == nil {
		*o = optBool{V: v, OK: true}
	}
	return nil
}

// optID is an upstream id sent as a string (X, Reddit) or, unexpectedly, a number; kept as text.
type optID string

func (id *optID) UnmarshalJSON(b []byte) error {
	*id = ""
	b = bytes.TrimSpace(b)
	var s string
	if json.Unmarshal(b, &s) == nil {
		*id = optID(strings.TrimSpace(s))
		return nil
	}
	var n json.Number
	if json.Unmarshal(b, &n) == nil {
		if i, err := n.Int64(); err == nil && i >= 0 {
			*id = optID(strconv.FormatInt(i, 10))
		}
	}
	return nil
}

// list is a JSON array that may be absent, null or of another type (then it is nil); elements
// that do not decode are skipped.
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

// obj is a JSON object that may be absent, null or of another type (then V is nil).
type obj[T any] struct{ V *T }

func (o *obj[T]) UnmarshalJSON(b []byte) error {
	o.V = nil
	if !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		return nil
	}
	var v T
	if json.Unmarshal(b, &v) == nil {
		o.V = &v
	}
	return nil
}

// rawObject keeps a JSON object as it came (for the X paging buffer); anything else is dropped.
type rawObject json.RawMessage

func (r *rawObject) UnmarshalJSON(b []byte) error {
	*r = nil
	b = bytes.TrimSpace(b)
	if bytes.HasPrefix(b, []byte("{")) {
		*r = append(rawObject(nil), b...)
	}
	return nil
}

func (r rawObject) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return []byte(r), nil
}

// isoTime normalises an upstream RFC 3339 timestamp ("2026-09-22T14:03:11.000Z") to second
// precision in UTC; a value that does not parse is passed through as the source wrote it.
func isoTime(s optStr) string {
	if s == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, string(s))
	if err != nil {
		return string(s)
	}
	return t.UTC().Format(time.RFC3339)
}

// unixTime formats Reddit's created_utc (Unix seconds as a float) as RFC 3339 in UTC.
func unixTime(f optFloat) string {
	if !f.OK || f.V <= 0 || f.V > 1e11 {
		return ""
	}
	return time.Unix(int64(f.V), 0).UTC().Format(time.RFC3339)
}

// oneLine collapses every run of whitespace (newlines included) to one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip shortens s to at most n runes, ending with an ellipsis when it cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	cut := string(r[:n-1])
	// Prefer a word boundary in the last fifth of the cut.
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)*4/5 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-") + "…"
}

// setStr sets a record field when the value is non-empty.
func setStr(fields map[string]any, key, v string) {
	if v != "" {
		fields[key] = v
	}
}

// setInt sets a record field when the value is present.
func setInt(fields map[string]any, key string, v optInt) {
	if v.OK {
		fields[key] = v.V
	}
}

// setBool sets a record field when the value is present.
func setBool(fields map[string]any, key string, v optBool) {
	if v.OK {
		fields[key] = v.V
	}
}

// mustJSON marshals this package's own state and reference structs (strings, ints and raw JSON
// objects already validated as objects, which cannot fail to marshal).
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// looksLikeJSON tells whether a body starts like a JSON object or array (after whitespace and a BOM).
func looksLikeJSON(b []byte) bool {
	b = bytes.TrimPrefix(bytes.TrimSpace(b), []byte("\xef\xbb\xbf"))
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}
