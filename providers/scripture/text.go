package scripture

import (
	"bytes"
	"encoding/json"
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Lenient JSON types: an upstream field of an unexpected type (null, a number for a string, an
// object for a list) is read as absent instead of failing the whole answer.

// optString is a JSON string; any other JSON value leaves it empty.
type optString string

func (s *optString) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = optString(v)
	}
	return nil
}

// optInt is a JSON integer (or an integral number, or a string of digits); anything else is absent.
type optInt struct {
	V  int
	OK bool
}

func (n *optInt) UnmarshalJSON(b []byte) error {
	*n = optInt{}
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
		b = []byte(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1e15 {
		return nil
	}
	*n = optInt{V: int(f), OK: true}
	return nil
}

// list is a JSON array whose elements are decoded one by one; elements that do not decode are
// dropped, and a value that is not an array is an empty list.
type list[T any] []T

func (l *list[T]) UnmarshalJSON(b []byte) error {
	*l = nil
	var raws []json.RawMessage
	if json.Unmarshal(b, &raws) != nil {
		return nil
	}
	for _, r := range raws {
		if string(bytes.TrimSpace(r)) == "null" {
			continue
		}
		var v T
		if json.Unmarshal(r, &v) == nil {
			*l = append(*l, v)
		}
	}
	return nil
}

// obj is a JSON object decoded leniently: a value that is not an object leaves it zero.
type obj[T any] struct{ V T }

func (o *obj[T]) UnmarshalJSON(b []byte) error {
	var v T
	if len(bytes.TrimSpace(b)) > 0 && bytes.TrimSpace(b)[0] == '{' && json.Unmarshal(b, &v) == nil {
		o.V = v
	}
	return nil
}

var (
	// footnotePattern matches Quran.com's footnote markers, <sup foot_note=123>1</sup>, with their number.
	footnotePattern = regexp.MustCompile(`(?is)<sup\b[^>]*>.*?</sup>`)
	tagPattern      = regexp.MustCompile(`(?s)<[^>]*>`)
)

// cleanText turns upstream verse text into plain text: footnote markers removed, other tags (such
// as the <em> highlights of search answers) stripped with their content kept, entities decoded,
// whitespace collapsed.
func cleanText(s string) string {
	if strings.ContainsRune(s, '<') {
		s = footnotePattern.ReplaceAllString(s, "")
		s = tagPattern.ReplaceAllString(s, "")
	}
	s = html.UnescapeString(s)
	return strings.Join(strings.Fields(s), " ")
}

// phraseKey normalizes text for phrase matching: lower case, letters and digits only, single spaces,
// padded so that a match must cover whole words.
func phraseKey(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// containsPhrase tells whether any of the texts contains the phrase as whole words, ignoring case
// and punctuation.
func containsPhrase(phrase string, texts ...string) bool {
	p := phraseKey(phrase)
	if strings.TrimSpace(p) == "" {
		return false
	}
	for _, t := range texts {
		if t != "" && strings.Contains(phraseKey(t), p) {
			return true
		}
	}
	return false
}

// mustJSON marshals this package's own state and reference structs (strings and ints only, which
// cannot fail to marshal).
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
