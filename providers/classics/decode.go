package classics

import (
	"encoding/json"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/capgate/capgate/providers/internal/lenient"
)

// Upstream JSON is decoded leniently: a field that is absent, null or of an unexpected type is
// "not there" (never a panic, never a failed page). Gutendex documents its shapes by example
// (title and download_count are nullable columns), and MediaWiki answers differ between
// formatversion 1 and 2.

// optBool is a boolean that may be absent, null or of another type (then false).
type optBool bool

func (o *optBool) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*o = dec.PeekKind() == 't'
	return dec.SkipValue()
}

func (o *optBool) UnmarshalJSON(b []byte) error {
	_ = lenient.Unmarshal(b, o)
	return nil
}

// strMap is a JSON object of strings (Gutendex's formats map); members that are not non-blank
// strings are skipped, and anything but an object is an empty map.
type strMap map[string]string

func (m *strMap) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*m = strMap{}
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String() // the token is valid until the next read
		var s lenient.Str
		if err := s.UnmarshalJSONFrom(dec); err != nil {
			return err
		}
		if s != "" {
			(*m)[name] = string(s)
		} else {
			delete(*m, name) // a later duplicate name wins
		}
	}
	_, err := dec.ReadToken()
	return err
}

func (m *strMap) UnmarshalJSON(b []byte) error {
	_ = lenient.Unmarshal(b, m)
	return nil
}

// cleanStrings trims, drops blanks and case-insensitive duplicates, and keeps at most max
// entries (0: all).
func cleanStrings(in []lenient.Str, max int) []string {
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
