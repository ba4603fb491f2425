package classics

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Upstream JSON is decoded leniently: a field that is absent, null or of an unexpected type is
// "not there" (never a panic, never a failed page). Gutendex documents its shapes by example
// (title and download_count are nullable columns), and MediaWiki answers differ between
// formatversion 1 and 2.

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

// optStr is a string that may be absent, null or of another type; it is kept trimmed and blank
// strings count as absent.
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

// optBool is a boolean that may be absent, null or of another type (then false).
type optBool bool

func (o *optBool) UnmarshalJSON(b []byte) error {
	var v bool
	*o = optBool(json.Unmarshal(b, &v) == nil && v)
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
		if bytes.Equal(bytes.TrimSpace(r), []byte("null")) {
			continue
		}
		var v T
		if json.Unmarshal(r, &v) == nil {
			*l = append(*l, v)
		}
	}
	return nil
}

// strMap is a JSON object of strings (Gutendex's formats map); members that are not non-blank
// strings are skipped, and anything but an object is an empty map.
type strMap map[string]string

func (m *strMap) UnmarshalJSON(b []byte) error {
	*m = strMap{}
	var raw map[string]json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		return nil
	}
	for k, v := range raw {
		var s optStr
		_ = json.Unmarshal(v, &s)
		if s != "" {
			(*m)[k] = string(s)
		}
	}
	return nil
}

// cleanStrings trims, drops blanks and case-insensitive duplicates, and keeps at most max
// entries (0: all).
func cleanStrings(in []optStr, max int) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, s := range in {
		v := strings.TrimSpace(string(s))
		key := strings.ToLower(v)
		if v == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, v)
		if max > 0 && len(out) == max {
			break
		}
	}
	return out
}

// mustJSON marshals this package's own state and reference structs (strings and ints only,
// which cannot fail to marshal).
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
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
