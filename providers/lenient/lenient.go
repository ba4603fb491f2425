// Package lenient decodes upstream JSON leniently: a field that is absent, null or of an
// unexpected type is "not there" — never a panic and never a failed page — because many
// upstreams are documented by example rather than by schema and change field types over time
// (numbers sent as strings, ids as numbers or strings). Record mappers then leave absent values
// out instead of writing zeros.
package lenient

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// number parses a JSON number or a numeric string.
func number(b []byte) (float64, bool) {
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

// Int is an integer that may be absent, null, a JSON number or a numeric string.
type Int struct {
	V  int64
	OK bool
}

// UnmarshalJSON never fails.
func (n *Int) UnmarshalJSON(b []byte) error {
	*n = Int{}
	if f, ok := number(b); ok && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		*n = Int{V: int64(f), OK: true}
	}
	return nil
}

// Float is a number that may be absent, null, a JSON number or a numeric string.
type Float struct {
	V  float64
	OK bool
}

// UnmarshalJSON never fails.
func (n *Float) UnmarshalJSON(b []byte) error {
	*n = Float{}
	if f, ok := number(b); ok {
		*n = Float{V: f, OK: true}
	}
	return nil
}

// Str is a string that may be absent, null or of another type; blank strings count as absent.
type Str string

// UnmarshalJSON never fails.
func (s *Str) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) != nil {
		*s = ""
		return nil
	}
	*s = Str(strings.TrimSpace(v))
	return nil
}

// Bool is a boolean that may be absent, null or of another type.
type Bool struct {
	V  bool
	OK bool
}

// UnmarshalJSON never fails.
func (o *Bool) UnmarshalJSON(b []byte) error {
	*o = Bool{}
	var v bool
	if json.Unmarshal(b, &v) == nil {
		*o = Bool{V: v, OK: true}
	}
	return nil
}

// ID is an upstream id sent as a JSON number or a string, kept as text.
type ID string

// UnmarshalJSON never fails.
func (id *ID) UnmarshalJSON(b []byte) error {
	*id = ""
	b = bytes.TrimSpace(b)
	var s string
	if json.Unmarshal(b, &s) == nil {
		*id = ID(strings.TrimSpace(s))
		return nil
	}
	var n json.Number
	if json.Unmarshal(b, &n) == nil {
		if i, err := n.Int64(); err == nil {
			*id = ID(strconv.FormatInt(i, 10))
		}
	}
	return nil
}

// List is a JSON array that may be absent, null or of another type (then it is nil, while a
// present empty array is a non-nil empty list); null elements and elements that do not decode
// are skipped.
type List[T any] []T

// UnmarshalJSON never fails.
func (l *List[T]) UnmarshalJSON(b []byte) error {
	*l = nil
	var raw []json.RawMessage
	if json.Unmarshal(b, &raw) != nil || raw == nil {
		return nil
	}
	*l = make(List[T], 0, len(raw))
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

// Obj is a JSON object that may be absent, null or of another type (then V is nil).
type Obj[T any] struct{ V *T }

// UnmarshalJSON never fails.
func (o *Obj[T]) UnmarshalJSON(b []byte) error {
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

// SetStr sets a record field when the value is non-empty.
func SetStr(fields map[string]any, key, v string) {
	if v != "" {
		fields[key] = v
	}
}

// SetInt sets a record field when the value is present.
func SetInt(fields map[string]any, key string, v Int) {
	if v.OK {
		fields[key] = v.V
	}
}

// SetBool sets a record field when the value is present.
func SetBool(fields map[string]any, key string, v Bool) {
	if v.OK {
		fields[key] = v.V
	}
}
