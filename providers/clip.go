package providers

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clip shortens a title, snippet or message to at most n runes (characters), the "…" that marks a
// cut included, never splitting a rune: a string of n runes or fewer is returned as it is;
// otherwise the first n-1 runes are kept, cut back to the last word boundary when that keeps more
// than half of them, with trailing white space and ,.;:-— dropped, and "…" appended.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return "…"
	}
	end, count := 0, 0
	for i := range s {
		if count == n-1 {
			end = i
			break
		}
		count++
	}
	kept := s[:end]
	if i := strings.LastIndexFunc(kept, unicode.IsSpace); i > 0 && utf8.RuneCountInString(kept[:i]) > (n-1)/2 {
		kept = kept[:i]
	}
	return strings.TrimRightFunc(kept, clipTrailing) + "…"
}

func clipTrailing(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune(",.;:-—", r)
}

// Truncate keeps at most n runes of a body whose truncation the caller reports in a field of its
// own, never splitting a rune and adding no marker; the white space a cut leaves at the end is
// dropped. n <= 0 means no limit. cut tells whether anything was removed.
func Truncate(s string, n int) (out string, cut bool) {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s, false
	}
	count := 0
	for i := range s {
		if count == n {
			return strings.TrimRightFunc(s[:i], unicode.IsSpace), true
		}
		count++
	}
	return s, false
}

// ClipLine is Clip of s with every run of white space (newlines included) made one space: a
// one-line snippet.
func ClipLine(s string, n int) string {
	return Clip(strings.Join(strings.Fields(s), " "), n)
}
