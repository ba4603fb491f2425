package legalread

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPDFPages bounds the pages read from one PDF (the longest U.S. Reports cases run to a few
// hundred pages).
const maxPDFPages = 2000

// pdfPage is the text layer of one PDF page as lines in reading order.
type pdfPage struct {
	index int // 1-based PDF page index
	lines []string
}

// pdfText reads the text layer of every page. The reader is a pure-Go parser that panics on
// some malformed files; every call into it is guarded.
func pdfText(data []byte) (pages []pdfPage, err error) {
	defer func() {
		if r := recover(); r != nil {
			pages, err = nil, fmt.Errorf("malformed PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	n := r.NumPage()
	if n <= 0 {
		return nil, errors.New("the PDF has no pages")
	}
	if n > maxPDFPages {
		return nil, fmt.Errorf("the PDF has %d pages (at most %d are read)", n, maxPDFPages)
	}
	for i := 1; i <= n; i++ {
		pages = append(pages, pdfPage{index: i, lines: pageLines(r.Page(i))})
	}
	return pages, nil
}

// pageLines assembles a page's glyphs into lines: a new line where the baseline moves by more
// than half the font size, a space where a gap opens between two glyphs of a line (OCR text
// layers place words without space characters). A page that cannot be read has no lines.
func pageLines(p pdf.Page) (lines []string) {
	defer func() {
		if recover() != nil {
			lines = nil
		}
	}()
	var cur strings.Builder
	var lastY, lastEnd float64
	have := false
	flush := func() {
		if l := collapseSpace(cur.String()); l != "" {
			lines = append(lines, l)
		}
		cur.Reset()
	}
	for _, t := range p.Content().Text {
		if t.S == "\n" || t.S == "" {
			continue
		}
		size := math.Abs(t.FontSize)
		if size == 0 {
			size = 10
		}
		if have && math.Abs(t.Y-lastY) > size/2 {
			flush()
		} else if have && t.X-lastEnd > size/5 && t.S != " " {
			cur.WriteByte(' ')
		}
		cur.WriteString(t.S)
		lastY, lastEnd, have = t.Y, t.X+t.W, true
	}
	flush()
	return lines
}

var (
	// leadingNumber is a running head that begins with the page number: "438 OCTOBER TERM, 1927."
	leadingNumber = regexp.MustCompile(`^([0-9]{1,4})(?:\s+(.*))?$`)
	// trailingNumber is a running head that ends with it: "OLMSTEAD v. UNITED STATES. 439"
	trailingNumber = regexp.MustCompile(`^(.*?)\s*([0-9]{1,4})$`)
	// volumeCite is "277 U. S." in a running head: a volume number, not a page.
	volumeCite = regexp.MustCompile(`^U\.\s?S\.`)
	termYear   = regexp.MustCompile(`(?i)term,?$`)
)

// headCandidates are the numbers a page's running head or foot could print as its page
// number: a number opening or closing one of the first three or the last two lines, other
// than a volume citation ("277 U. S.") or a term year ("OCTOBER TERM, 1927.").
func headCandidates(lines []string) []int {
	var probe []string
	for i, l := range lines {
		if i < 3 || i >= len(lines)-2 {
			probe = append(probe, strings.TrimSpace(l))
		}
	}
	var out []int
	for _, l := range probe {
		if m := leadingNumber.FindStringSubmatch(l); m != nil && !volumeCite.MatchString(m[2]) {
			if n, _ := strconv.Atoi(m[1]); n > 0 {
				out = append(out, n)
			}
		}
		if m := trailingNumber.FindStringSubmatch(l); m != nil && m[1] != "" && !termYear.MatchString(strings.TrimSpace(m[1])) {
			if n, _ := strconv.Atoi(m[2]); n > 0 {
				out = append(out, n)
			}
		}
	}
	return out
}

// printedPages finds the page number printed on each page. A printed page number runs in step
// with the PDF index, so the offset (printed - index) most pages agree on is taken, and a page
// gets a printed number only when its own running head shows that number: nothing is inferred
// for a page whose head does not print it.
func printedPages(pages []pdfPage) map[int]string {
	cands := map[int][]int{}
	votes := map[int]int{}
	for _, p := range pages {
		seen := map[int]bool{}
		for _, n := range headCandidates(p.lines) {
			cands[p.index] = append(cands[p.index], n)
			if off := n - p.index; !seen[off] {
				seen[off] = true
				votes[off]++
			}
		}
	}
	if len(votes) == 0 {
		return nil
	}
	offsets := make([]int, 0, len(votes))
	for off := range votes {
		offsets = append(offsets, off)
	}
	// Most votes first; among equals the smallest offset (deterministic).
	sort.Slice(offsets, func(i, j int) bool {
		if votes[offsets[i]] != votes[offsets[j]] {
			return votes[offsets[i]] > votes[offsets[j]]
		}
		return offsets[i] < offsets[j]
	})
	best := offsets[0]
	out := map[int]string{}
	for _, p := range pages {
		for _, n := range cands[p.index] {
			if n-p.index == best {
				out[p.index] = strconv.Itoa(n)
				break
			}
		}
	}
	return out
}
