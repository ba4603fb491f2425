package providers

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode"
)

// questionWords are dropped from a recorded query to find its topic ("how tall is the eiffel
// tower" is about "eiffel tower").
var questionWords = map[string]bool{
	"how": true, "tall": true, "is": true, "the": true, "what": true, "a": true, "of": true, "in": true, "to": true,
}

// topicOf is a query without operators (site:, a ticker's exchange) and question words.
func topicOf(q string) string {
	var words []string
	for _, w := range strings.Fields(q) {
		if strings.Contains(w, ":") && !strings.HasSuffix(w, ":") {
			if head, _, _ := strings.Cut(w, ":"); head != "" && strings.ToUpper(head) == head {
				words = append(words, head) // a ticker such as GOOGL:NASDAQ
			}
			continue
		}
		words = append(words, w)
	}
	out := words
	for len(out) > 1 && questionWords[strings.ToLower(out[0])] {
		out = out[1:]
	}
	return strings.Join(out, " ")
}

// RewriteTopic replaces the recorded query's topic by the asked one in every text of the answer;
// comma-separated queries (trends comparisons) are replaced term by term.
func RewriteTopic(doc any, recorded, asked string) {
	from, to := strings.Split(recorded, ","), strings.Split(asked, ",")
	type pair struct{ from, to string }
	var pairs []pair
	for i, f := range from {
		if i >= len(to) {
			break
		}
		t := to[i]
		ft, tt := topicOf(strings.TrimSpace(f)), topicOf(strings.TrimSpace(t))
		if ft == "" || tt == "" {
			continue
		}
		pairs = append(pairs, pair{ft, tt})
		// A multi-word topic also appears by its first word alone ("Eiffel" of "eiffel tower").
		if fw := strings.Fields(ft); len(fw) > 1 && len(fw[0]) > 3 {
			pairs = append(pairs, pair{fw[0], tt})
		}
	}
	RewriteStrings(doc, func(key, s string) string {
		if strings.HasPrefix(s, "http") || strings.Contains(s, "://") || key == "q" ||
			strings.HasSuffix(key, "_token") || strings.HasSuffix(key, "_id") {
			return s
		}
		for _, p := range pairs {
			repl := p.to
			if s != "" && strings.ToUpper(s[:1]) == s[:1] {
				repl = TitleCase(p.to)
			}
			s = ReplaceWord(s, p.from, repl)
		}
		return s
	})
}

// TopicSearch is the generator of a search endpoint whose recorded answers were for the queries
// recorded: the answer's texts take the topic of the query parameter param instead of the
// recorded topic found in the answer. A recorded query, a query whose topic the answer already
// holds, or no query gets the recorded answer; the reserved miss (sandbox-not-found) gets the
// recorded answer without results, as a search without hits answers.
func TopicSearch(param string, recorded ...string) Generator {
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		asked := strings.TrimSpace(r.URL.Query().Get(param))
		if status != http.StatusOK || asked == "" {
			return fixture, status
		}
		if IsSandboxMiss(asked) {
			return EmptyAnswer(fixture), status
		}
		text := strings.ToLower(string(fixture))
		if holdsWords(plainWords(text), plainWords(topicOf(asked))) {
			return fixture, status // the answer is already about the asked topic
		}
		for _, rec := range recorded {
			if plainWords(asked) == plainWords(rec) {
				return fixture, status
			}
		}
		plain := plainWords(text)
		for _, rec := range recorded {
			// The recorded topic this answer is about: all its words are in the answer.
			if !holdsWords(plain, plainWords(topicOf(rec))) {
				continue
			}
			doc := decodeAny(fixture)
			if doc == nil {
				return fixture, status
			}
			RewriteTopic(doc, rec, asked)
			return JSONBytes(doc), status
		}
		return fixture, status
	}
}

// ReplaceWord replaces the case-insensitive occurrences of old in s that stand as whole words.
func ReplaceWord(s, old, repl string) string {
	lower, lold := strings.ToLower(s), strings.ToLower(old)
	if old == "" || len(lower) != len(s) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, lold)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		if isWordByte(lower, i-1) || isWordByte(lower, end) {
			b.WriteString(s[:end])
		} else {
			b.WriteString(s[:i])
			b.WriteString(repl)
		}
		s, lower = s[end:], lower[end:]
	}
}

func isWordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// plainWords is s in lower case with every run of non-letters, non-digits as one space.
func plainWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// holdsWords tells whether every word of topic appears as a word of text.
func holdsWords(text, topic string) bool {
	words := strings.Fields(topic)
	if len(words) == 0 {
		return false
	}
	have := map[string]bool{}
	for _, w := range strings.Fields(text) {
		have[w] = true
	}
	for _, w := range words {
		if !have[w] {
			return false
		}
	}
	return true
}

// countKeys are the total-count fields of search answers, zeroed with their results.
var countKeys = map[string]bool{"numFound": true, "num_found": true, "count": true, "total_count": true, "totalResults": true,
	"result_count": true, "total": true, "totalhits": true, "dist": true, "total_results": true}

// EmptyAnswer is a search answer without results: every list of objects emptied, every total
// count zeroed, cursors to a next page removed.
func EmptyAnswer(fixture []byte) []byte {
	doc := decodeAny(fixture)
	if doc == nil {
		return fixture
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if arr, ok := c.([]any); ok && len(arr) > 0 {
					if _, obj := arr[0].(map[string]any); obj {
						x[k] = []any{}
						continue
					}
				}
				switch {
				case countKeys[k]:
					if _, ok := c.(json.Number); ok {
						x[k] = 0
					}
				case k == "after" || k == "next" || k == "nextPageToken" || k == "next_token" || k == "next_page_token":
					x[k] = nil
				default:
					walk(c)
				}
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	return JSONBytes(doc)
}

// LimitResults makes a generator honour the page size the request asks for (param: per_page,
// limit, maxResults…): the answer's result list (its longest top-level list of objects) is cut to
// that size, as the upstream cuts its page.
func LimitResults(param string, gen Generator) Generator {
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		out, st := gen(r, fixture, status)
		size, err := strconv.Atoi(r.URL.Query().Get(param))
		if err != nil || size < 1 || st != http.StatusOK {
			return out, st
		}
		doc, ok := decodeAny(out).(map[string]any)
		if !ok {
			return out, st
		}
		key, longest := "", 0
		for k, v := range doc {
			if arr, ok := v.([]any); ok && len(arr) > longest {
				if _, obj := arr[0].(map[string]any); obj {
					key, longest = k, len(arr)
				}
			}
		}
		if longest <= size {
			return out, st
		}
		doc[key] = doc[key].([]any)[:size]
		return JSONBytes(doc), st
	}
}
