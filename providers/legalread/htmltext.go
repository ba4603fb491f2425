package legalread

import (
	"bytes"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlRules tell the HTML reader what an anchor and a structural unit are in one source.
type htmlRules struct {
	// anchor returns the anchor an element starts ("" for none): EUR-Lex ids such as art_1.
	anchor func(n *html.Node) string
	// unit tells whether an element starts a structural unit (a preferred section boundary).
	unit func(n *html.Node) bool
	// pointAnchors adds "<anchor> point <label>" for table rows whose first cell is a point
	// number such as (a), (1) or 2. (EUR-Lex lays points out as two-cell rows).
	pointAnchors bool
	method       string
}

// skipped elements never hold document text.
var skipped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Head: true,
	atom.Template: true, atom.Iframe: true, atom.Object: true, atom.Svg: true, atom.Button: true, atom.Form: true,
	atom.Select: true, atom.Textarea: true}

// blockLevel elements end the running paragraph.
var blockLevel = map[atom.Atom]bool{atom.P: true, atom.Div: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Li: true, atom.Ul: true, atom.Ol: true, atom.Table: true,
	atom.Tr: true, atom.Blockquote: true, atom.Pre: true, atom.Dt: true, atom.Dd: true, atom.Dl: true,
	atom.Section: true, atom.Article: true, atom.Hr: true, atom.Center: true, atom.Body: true, atom.Address: true,
	atom.Figure: true, atom.Figcaption: true, atom.Caption: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true}

// pointLabel is a point number as EUR-Lex prints it in the first cell of a row.
var pointLabel = regexp.MustCompile(`^(?:\([0-9a-zA-Z]{1,6}\)|[0-9]{1,3}\.|[a-z]\))$`)

// htmlReader walks a parsed page in document order and turns it into blocks.
type htmlReader struct {
	rules   htmlRules
	blocks  []block
	buf     strings.Builder
	pending []string // anchors waiting for the next block
	unit    bool     // the next block starts a unit
	anchors []string // stack of the innermost anchors (for point anchors)
	inRow   int      // depth of table rows: cells and paragraphs inside a row form one block
	// printed is the star-pagination page in effect (CourtListener's *439 markers) and
	// startPrinted the one where the running paragraph began.
	printed, startPrinted string
	started               bool
}

// htmlBlocks reads the body of a page (or a fragment) into blocks.
func htmlBlocks(doc []byte, rules htmlRules) ([]block, *html.Node, error) {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return nil, nil, err
	}
	r := &htmlReader{rules: rules}
	body := findFirst(root, atom.Body)
	if body == nil {
		body = root
	}
	r.walk(body)
	r.flush()
	return r.blocks, root, nil
}

func (r *htmlReader) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		if !r.started && strings.TrimSpace(n.Data) != "" {
			r.started, r.startPrinted = true, r.printed
		}
		r.buf.WriteString(n.Data)
		return
	case html.ElementNode:
	default:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			r.walk(c)
		}
		return
	}
	if skipped[n.DataAtom] {
		return
	}
	if isStarPage(n) {
		r.starPage(n)
	}
	if n.DataAtom == atom.Br {
		r.buf.WriteString("\n")
		return
	}
	isBlock := blockLevel[n.DataAtom] && r.inRow == 0
	if isBlock {
		r.flush()
	}
	anchor := ""
	if r.rules.anchor != nil {
		anchor = r.rules.anchor(n)
	}
	if anchor != "" {
		r.pending = append(r.pending, anchor)
		r.anchors = append(r.anchors, anchor)
	}
	if r.rules.unit != nil && r.rules.unit(n) {
		r.flush()
		r.unit = true
	}
	if n.DataAtom == atom.Tr && r.inRow == 0 {
		r.flush()
		r.inRow++
		r.row(n)
		r.inRow--
		r.flush()
	} else {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			r.walk(c)
		}
	}
	if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
		r.buf.WriteString(" ")
	}
	if anchor != "" {
		r.anchors = r.anchors[:len(r.anchors)-1]
	}
	if isBlock {
		r.flush()
	}
}

// row reads one table row as one block: "(a) the text of the point".
func (r *htmlReader) row(tr *html.Node) {
	if r.rules.pointAnchors && len(r.anchors) > 0 {
		if cells := childCells(tr); len(cells) >= 2 {
			label := collapseSpace(textOf(cells[0]))
			// A recital's or citation's own number is not a point of it.
			inner := r.anchors[len(r.anchors)-1]
			if pointLabel.MatchString(label) && !strings.HasPrefix(inner, "rct_") && !strings.HasPrefix(inner, "cit_") {
				r.pending = append(r.pending, inner+" point "+label)
			}
		}
	}
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		r.walk(c)
	}
}

// flush ends the running paragraph as a block.
func (r *htmlReader) flush() {
	text := cleanLines(r.buf.String())
	r.buf.Reset()
	r.started = false
	if text == "" {
		return
	}
	r.blocks = append(r.blocks, block{text: text, anchors: r.pending, unit: r.unit, printed: r.startPrinted, method: r.rules.method})
	r.pending, r.unit = nil, false
}

// starPage reads a star-pagination marker (CourtListener's <span class="star-pagination"
// label="439">*439</span>, or without label): the printed page from here on. Text before the
// first marker has no known page (it is often the case's heading, printed pages earlier). The
// marker's text stays in the text, as reproductions print it; a paragraph is not split at it (a
// block carries the page it begins on).
func (r *htmlReader) starPage(n *html.Node) {
	label := strings.TrimSpace(attr(n, "label"))
	if label == "" {
		label = strings.TrimSpace(strings.TrimLeft(collapseSpace(textOf(n)), "*"))
	}
	if !pageNumber.MatchString(label) {
		return
	}
	r.printed = label
}

var pageNumber = regexp.MustCompile(`^[0-9]{1,5}$`)

func isStarPage(n *html.Node) bool {
	return hasClass(n, "star-pagination")
}

// cleanLines collapses white space inside each line and drops empty lines (a <br> is kept as a
// line break).
func cleanLines(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if l := collapseSpace(line); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func childCells(tr *html.Node) []*html.Node {
	var out []*html.Node
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
			out = append(out, c)
		}
	}
	return out
}

// textOf is the text of a subtree (scripts and styles left out).
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && skipped[n.DataAtom] {
			return
		}
		if n.Type == html.ElementNode && (blockLevel[n.DataAtom] || n.DataAtom == atom.Br) {
			b.WriteString(" ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

func findFirst(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findFirst(c, a); f != nil {
			return f
		}
	}
	return nil
}

// findAll lists the elements for which match is true, in document order.
func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// pageTitle is the <title> of a page, white space collapsed.
func pageTitle(root *html.Node) string {
	if t := findFirst(root, atom.Title); t != nil {
		return collapseSpace(textOf(t))
	}
	return ""
}
