package providers

import (
	"encoding/json"
	"math"
	"strconv"
)

// Request is a decoded JSON object body. Numbers are json.Number (the decoder keeps them exact).
type Request map[string]any

// Clone copies the top level of the request.
func (r Request) Clone() Request {
	out := make(Request, len(r))
	for k, v := range r {
		out[k] = v
	}
	return out
}

// String returns a string field.
func (r Request) String(key string) (string, bool) {
	s, ok := r[key].(string)
	return s, ok
}

// Str returns a string field or "".
func (r Request) Str(key string) string {
	s, _ := r[key].(string)
	return s
}

// Int returns an integer field.
func (r Request) Int(key string) (int, bool) { return asInt(r[key]) }

// Float returns a numeric field.
func (r Request) Float(key string) (float64, bool) { return asFloat(r[key]) }

// Bool returns a boolean field.
func (r Request) Bool(key string) (bool, bool) {
	b, ok := r[key].(bool)
	return b, ok
}

// Object returns an object field as a Request.
func (r Request) Object(key string) (Request, bool) {
	m, ok := r[key].(map[string]any)
	return Request(m), ok
}

// Strings returns a string-array field.
func (r Request) Strings(key string) []string {
	arr, _ := r[key].([]any)
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Has tells whether the key is present.
func (r Request) Has(key string) bool { _, ok := r[key]; return ok }

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err == nil {
			return int(i), true
		}
		f, err := n.Float64()
		if err == nil && f == math.Trunc(f) {
			return int(f), true
		}
	case float64:
		if n == math.Trunc(n) {
			return int(n), true
		}
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
