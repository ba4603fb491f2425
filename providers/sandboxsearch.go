package providers

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Generators of the search families whose answers are about a topic (web, news, patents, trends,
// video, social, classics, fitness, scripture; issue 36): a synthetic set whose records are about
// the asked topic, each one keeping the asked words as they were written.

// TopicWords is a search query without its operators: site:, intitle: and the like keep their
// value's words only when they name the topic (intitle:, allintitle:, intext:), excluded words
// (-word), X's and Google News' operators (from:, is:, when:, lang:) and quotes go; what stays is
// what the records are about. A query of operators only is returned trimmed.
func TopicWords(q string) string {
	var words []string
	for _, w := range strings.Fields(q) {
		w = strings.Trim(w, `"()`)
		lw := strings.ToLower(w)
		switch {
		case w == "", strings.HasPrefix(w, "-"), w == "OR", w == "AND":
			continue
		case strings.HasPrefix(w, "@") || strings.HasPrefix(w, "#"):
			if len(w) > 1 {
				words = append(words, w[1:])
			}
			continue
		}
		if head, val, ok := strings.Cut(lw, ":"); ok && head != "" && !strings.Contains(head, "/") {
			if head == "intitle" || head == "allintitle" || head == "intext" || head == "allintext" {
				if v := strings.Trim(w[len(head)+1:], `"`); v != "" {
					words = append(words, v)
				}
			}
			_ = val
			continue
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return strings.TrimSpace(q)
	}
	return strings.Join(words, " ")
}

// QueryOperator is the value of an operator such as site: or from: in a query ("" when absent).
func QueryOperator(q, op string) string {
	for _, w := range strings.Fields(q) {
		if v, ok := strings.CutPrefix(strings.ToLower(w), op+":"); ok && v != "" {
			return w[len(op)+1:]
		}
	}
	return ""
}

var (
	topicTitles = []string{"%s", "%s: a practical guide", "What to know about %s", "%s explained", "The basics of %s",
		"%s — frequently asked questions", "A short history of %s", "%s in 2026: what changed", "Getting started with %s",
		"%s: common mistakes and how to avoid them", "Why %s matters", "%s, step by step", "Ten facts about %s",
		"%s compared: the options", "Notes on %s", "%s for beginners", "The state of %s", "%s: a field report",
		"Inside %s", "%s: questions and answers"}
	topicSnippets = []string{"An overview of %s: where it comes from, how it works and what people ask about it most.",
		"Everything about %s in one place, with examples and links to further reading.",
		"A close look at %s, written for newcomers and for people who know the subject already.",
		"How %s works in practice, with the details that are easy to miss.",
		"The latest on %s: what has changed this year and what stays the same.",
		"Common questions about %s, answered with sources."}
	newsTitles = []string{"New developments in %s draw attention", "What the latest %s news means", "%s: experts weigh in",
		"Report finds growing interest in %s", "%s takes centre stage this week", "The %s debate, explained",
		"Five things to know about %s today", "Officials respond to questions about %s", "%s: a look behind the headlines",
		"Analysis: where %s goes from here", "Readers ask about %s", "%s update: the key numbers"}
)

// TopicTitle is title i of a synthetic set about topic; the topic stands in it as written
// (title-cased).
func TopicTitle(topic string, i int) string {
	t := topicTitles[i%len(topicTitles)]
	s := fmt.Sprintf(t, TitleCase(topic))
	if n := i / len(topicTitles); n > 0 {
		s += fmt.Sprintf(" (part %d)", n+1)
	}
	return s
}

// NewsTitle is headline i of a synthetic news set about topic.
func NewsTitle(topic string, i int) string {
	s := fmt.Sprintf(newsTitles[i%len(newsTitles)], TitleCase(topic))
	if n := i / len(newsTitles); n > 0 {
		s += fmt.Sprintf(" (%d)", n+1)
	}
	return UpperFirst(s)
}

// TopicSnippet is snippet i of a synthetic set about topic.
func TopicSnippet(topic string, i int) string {
	return fmt.Sprintf(topicSnippets[i%len(topicSnippets)], topic)
}

// SynthSite is a made-up web site for record i of a set: its name and host, under example.com
// (reserved for examples, so never a real site; web.read's test mode reads it as any public host).
func SynthSite(seed string, i int) (name, host string) {
	name = SynthName(seed+"site", i, "")
	return name, Slug(name) + ".example.com"
}

// SynthTime is the time of record i of a set of n dated records spread over window before
// newest, newest first (record 0 is the newest), the same for the same seed.
func SynthTime(seed string, i, n int, newest time.Time, window time.Duration) time.Time {
	if n < 1 {
		n = 1
	}
	step := window / time.Duration(n+1)
	jitter := time.Duration(SeedOf("time", seed, fmt.Sprint(i)).Int64N(int64(max(step/2, time.Second))))
	return newest.Add(-step*time.Duration(i) - jitter)
}

// SandboxToday is today at midnight UTC: the newest date of dated synthetic sets, so their
// answers are the same all day for the same request.
func SandboxToday() time.Time { return time.Now().UTC().Truncate(24 * time.Hour) }

// UpperFirst is s with its first letter in upper case (rune-aware: a query's first letter may be
// any script's).
func UpperFirst(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+utf8.RuneLen(r):]
	}
	return s
}
