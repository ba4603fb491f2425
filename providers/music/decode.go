package music

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The upstream shapes are decoded leniently: a field that is absent, null or of an unexpected
// type is "not there" (never a panic, never a failed page), because both upstreams are documented
// by example rather than by schema and MusicBrainz has changed field types before (search scores
// used to be strings).

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

// optID is an upstream id: a JSON number (Deezer) or a string (MusicBrainz), kept as text.
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
		if i, err := n.Int64(); err == nil {
			*id = optID(strconv.FormatInt(i, 10))
		}
	}
	return nil
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

// obj is a JSON object that may be absent, null or of another type (then it is nil).
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

// clock formats a duration in seconds as m:ss (minutes are not wrapped into hours).
func clock(seconds int64) string {
	return fmt.Sprintf("%d:%02d", seconds/60, seconds%60)
}

// firstOf returns the first non-empty string.
func firstOf(values ...optStr) string {
	for _, v := range values {
		if v != "" {
			return string(v)
		}
	}
	return ""
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// setStr sets a record field when the value is non-empty.
func setStr(fields map[string]any, key string, v string) {
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
