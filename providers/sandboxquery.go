package providers

import (
	"fmt"
	"strings"
	"unicode"
)

// PrependGenerators puts generated routes before a provider's registered ones (first match
// wins): a capability that shares an upstream with others (a web search restricted to one site)
// answers its own requests without touching the shared generator.
func PrependGenerators(providerID string, routes ...GeneratedRoute) {
	generators[providerID] = append(append([]GeneratedRoute{}, routes...), generators[providerID]...)
}

// queryStopWords are left out of the names a query gives.
var queryStopWords = map[string]bool{"a": true, "an": true, "the": true, "for": true, "of": true, "and": true, "or": true,
	"to": true, "in": true, "on": true, "with": true, "by": true, "is": true, "not": true}

// QueryWords are the words of a search query in lower case (letters and digits), without
// operators and qualifiers (keywords:cli, site:…, not:unstable) and without stop words.
func QueryWords(q string) []string {
	var out []string
	for _, f := range strings.Fields(q) {
		if strings.Contains(f, ":") {
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(f), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			if !queryStopWords[w] {
				out = append(out, w)
			}
		}
	}
	return out
}

// Qualifier reads a qualifier of a registry query ("keywords:cli" → "cli"); "" when absent.
func Qualifier(q, name string) string {
	for _, f := range strings.Fields(q) {
		if k, v, ok := strings.Cut(f, ":"); ok && strings.EqualFold(k, name) {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

var nameSuffixes = []string{"", "utils", "core", "kit", "lite", "tools", "cli", "plus", "helpers", "async", "sdk", "next", "extra", "compat"}

// PackageNames are n distinct package names made from a query's words, the most relevant
// first: the words joined, then the first word and the joined words with common suffixes. Every
// name contains the query's first word, so a caller can tell the answer is about the query. An
// empty query gives names of "package".
func PackageNames(query string, n int) []string {
	words := QueryWords(query)
	if len(words) == 0 {
		words = []string{"package"}
	}
	if len(words) > 4 {
		words = words[:4]
	}
	bases := []string{strings.Join(words, "-")}
	if len(words) > 1 {
		bases = append(bases, words[0])
		if len(words) > 2 {
			bases = append(bases, words[0]+"-"+words[1])
		}
	}
	seen := map[string]bool{}
	var out []string
	for round := 0; len(out) < n; round++ {
		for _, s := range nameSuffixes {
			for _, b := range bases {
				if len(out) == n {
					return out
				}
				name := b
				if s != "" {
					name += "-" + s
				}
				if round > 0 {
					name += fmt.Sprintf("-%d", round+1)
				}
				if !seen[name] {
					seen[name] = true
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// SynthVersion is a plausible semantic version drawn from a seed.
func SynthVersion(seed ...string) string {
	r := SeedOf(append([]string{"version"}, seed...)...)
	return fmt.Sprintf("%d.%d.%d", r.IntN(8), r.IntN(20), r.IntN(15))
}
