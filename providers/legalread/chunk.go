package legalread

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk bounds (doc.go): a section holds at most maxChunkRunes characters; a new section starts
// at a structural unit (an article, a recital, a chapter, an annex) once the current one holds
// minChunkRunes, so small articles share a section and a long one is split at paragraphs.
const (
	maxChunkRunes = 4000
	minChunkRunes = 1200
	// maxSections bounds what one session holds; a longer document is refused rather than cut,
	// because every section promises that the whole document is available through more.
	maxSections = 1000
)

// block is one paragraph-level piece of a document's text, in reading order.
type block struct {
	text    string
	anchors []string // anchors that begin at this block
	unit    bool     // starts a structural unit: a preferred section boundary
	hard    bool     // starts a new section whatever the sizes (a PDF page, another opinion)
	pdfPage int      // PDF page index (1-based), 0 when the source is not a PDF
	printed string   // page number printed on the source page, "" when unknown
	method  string   // extraction method of the block
}

// chunk is one bounded section of a document.
type chunk struct {
	text    string
	anchors []string
	pdfPage int
	printed string
	method  string
}

// chunkBlocks packs blocks into sections of at most maxChunkRunes characters. Boundaries fall
// between blocks: at a hard block always, at a unit block once the current section holds
// minChunkRunes, and wherever the next block would overflow. A block longer than the bound is
// cut at sentence or word boundaries (its anchors stay with its first piece).
func chunkBlocks(blocks []block) []chunk {
	var out []chunk
	var cur *chunk
	var size int
	flush := func() {
		if cur != nil && strings.TrimSpace(cur.text) != "" {
			cur.text = strings.TrimSpace(cur.text)
			out = append(out, *cur)
		}
		cur, size = nil, 0
	}
	start := func(b block) {
		flush()
		cur = &chunk{pdfPage: b.pdfPage, printed: b.printed, method: b.method}
	}
	for _, b := range blocks {
		text := strings.TrimSpace(b.text)
		if text == "" {
			continue
		}
		n := utf8.RuneCountInString(text)
		switch {
		case cur == nil, b.hard, b.unit && size >= minChunkRunes, size > 0 && size+2+n > maxChunkRunes:
			start(b)
		}
		pieces := []string{text}
		if n > maxChunkRunes {
			pieces = splitLong(text, maxChunkRunes)
		}
		for i, p := range pieces {
			if i > 0 {
				start(b)
			}
			if size > 0 {
				cur.text += "\n\n"
				size += 2
			}
			if i == 0 {
				cur.anchors = append(cur.anchors, b.anchors...)
			}
			cur.text += p
			size += utf8.RuneCountInString(p)
		}
	}
	flush()
	return out
}

// splitLong cuts text into pieces of at most max runes, preferring the end of a sentence, then a
// line break, then a space in the last fifth of each piece.
func splitLong(text string, max int) []string {
	var out []string
	runes := []rune(text)
	for len(runes) > max {
		cut := bestCut(runes[:max])
		out = append(out, strings.TrimSpace(string(runes[:cut])))
		runes = []rune(strings.TrimLeftFunc(string(runes[cut:]), unicode.IsSpace))
	}
	if len(runes) > 0 {
		out = append(out, string(runes))
	}
	return out
}

func bestCut(r []rune) int {
	floor := len(r) * 4 / 5
	for i := len(r) - 1; i > floor; i-- {
		if unicode.IsSpace(r[i]) && i > 0 && strings.ContainsRune(".;:!?", r[i-1]) {
			return i
		}
	}
	for i := len(r) - 1; i > floor; i-- {
		if r[i] == '\n' {
			return i
		}
	}
	for i := len(r) - 1; i > floor; i-- {
		if unicode.IsSpace(r[i]) {
			return i
		}
	}
	return len(r)
}

// collapseSpace turns runs of white space (and no-break spaces) into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
