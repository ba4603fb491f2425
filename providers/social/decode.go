package social

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/capgate/capgate/providers/internal/lenient"
)

// Both upstreams are decoded leniently: a field that is absent, null or of an unexpected type is
// "not there" (never a panic, never a failed page). X documents its objects by schema but adds and
// renames fields over time (tweet_count / post_count); Reddit documents its JSON only by example.

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
func isoTime(s lenient.Str) string {
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
func unixTime(f lenient.Float) string {
	if !f.OK || f.V <= 0 || f.V > 1e11 {
		return ""
	}
	return time.Unix(int64(f.V), 0).UTC().Format(time.RFC3339)
}

// oneLine collapses every run of whitespace (newlines included) to one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
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
