package openalex

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/capgate/capgate/providers/internal/lenient"
)

// maxAbstractWords bounds the rebuilt abstract (the longest real abstracts have a few thousand
// words; an index claiming more is treated as damaged past that point).
const maxAbstractWords = 20000

// rebuildAbstract turns OpenAlex's abstract_inverted_index ({"word": [positions…], …}) back into
// the abstract's text: every word is placed at each of its positions and the words are joined
// with single spaces in position order. Gaps in the positions are skipped; a position claimed by
// two words keeps the one that sorts first (so the answer is the same on every call); words and
// positions of the wrong JSON type are ignored. Absent, null or empty indexes give "".
func rebuildAbstract(raw json.RawMessage) string {
	var index map[string]lenient.List[optInt]
	if lenient.Unmarshal(raw, &index) != nil || len(index) == 0 {
		return ""
	}
	type placed struct {
		pos  int
		word string
	}
	var words []placed
	for word, positions := range index {
		if strings.TrimSpace(word) == "" {
			continue
		}
		for _, p := range positions {
			if p.OK && p.V >= 0 {
				words = append(words, placed{pos: p.V, word: word})
			}
		}
	}
	sort.Slice(words, func(i, j int) bool {
		if words[i].pos != words[j].pos {
			return words[i].pos < words[j].pos
		}
		return words[i].word < words[j].word
	})
	var b strings.Builder
	n := 0
	for i, w := range words {
		if i > 0 && w.pos == words[i-1].pos {
			continue // a second word at the same position
		}
		if n == maxAbstractWords {
			break
		}
		if n > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.TrimSpace(w.word))
		n++
	}
	return b.String()
}
