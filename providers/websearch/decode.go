package websearch

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
)

// SerpApi answers are documented by example, so they are decoded leniently: a member that is
// absent, null or of an unexpected type counts as absent (never a panic, never a failed page).

// decodeAny decodes raw JSON into plain values, keeping numbers exact (json.Number); nil when the
// JSON does not decode.
func decodeAny(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// object returns v as a JSON object, or nil.
func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// list returns v as a JSON array, or nil.
func list(v any) []any {
	a, _ := v.([]any)
	return a
}

// str returns v as a trimmed string, or "".
func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// integer returns v as an integer when it is a whole JSON number.
func integer(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, false
	}
	return int(f), true
}

// Bounds of the provider-shaped keys copied from answer boxes and knowledge graphs.
const (
	maxExtraValue = 4 << 10  // a value whose JSON is larger is left out
	maxExtraTotal = 16 << 10 // the extra keys of one record together
)

// reservedKeys are record keys an extra key must never overwrite.
var reservedKeys = map[string]bool{
	"record_id": true, "title": true, "url": true, "snippet": true, "kind": true, "workout_resource": true,
	"position": true, "type": true, "attributes": true,
}

// extraKeys copies the provider's remaining keys of an answer box or knowledge graph (sorted by
// name for a stable result), minus skipped and reserved ones and the huge or unsafe ones: SerpApi's
// own links (serpapi_*, which need this deployment's key and expose the provider), Google's
// opaque "*_stick" tokens, inline data: images, empty values, and any value whose JSON exceeds
// maxExtraValue, within maxExtraTotal for the record.
func extraKeys(m map[string]any, skip func(key string) bool) map[string]any {
	out := map[string]any{}
	total := 0
	for _, k := range sortedKeys(m) {
		if reservedKeys[k] || unsafeKey(k) || (skip != nil && skip(k)) {
			continue
		}
		v, ok := clean(m[k])
		if !ok {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil || len(b) > maxExtraValue || total+len(b) > maxExtraTotal {
			continue
		}
		total += len(b)
		out[k] = v
	}
	return out
}

func unsafeKey(k string) bool {
	return strings.HasPrefix(k, "serpapi_") || strings.HasSuffix(k, "_stick")
}

// clean drops unsafe keys, data: URIs, nulls and empty values, recursively; ok is false when
// nothing is left.
func clean(v any) (any, bool) {
	switch t := v.(type) {
	case nil:
		return nil, false
	case string:
		s := strings.TrimSpace(t)
		if s == "" || strings.HasPrefix(strings.ToLower(s), "data:") {
			return nil, false
		}
		return s, true
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			if unsafeKey(k) {
				continue
			}
			if c, ok := clean(x); ok {
				out[k] = c
			}
		}
		return out, len(out) > 0
	case []any:
		out := make([]any, 0, len(t))
		for _, x := range t {
			if c, ok := clean(x); ok {
				out = append(out, c)
			}
		}
		return out, len(out) > 0
	default:
		return t, true // numbers and booleans
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
