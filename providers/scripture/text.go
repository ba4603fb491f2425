package scripture

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"unicode"
)

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
