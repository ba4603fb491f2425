package edgar

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// Namespaces of XBRL 2.1, XBRL Dimensions and XLink.
const (
	nsInstance = "http://www.xbrl.org/2003/instance"
	nsLinkbase = "http://www.xbrl.org/2003/linkbase"
	nsXLink    = "http://www.w3.org/1999/xlink"
	nsXBRLDI   = "http://xbrl.org/2006/xbrldi"
	nsXSI      = "http://www.w3.org/2001/XMLSchema-instance"
	nsXML      = "http://www.w3.org/XML/1998/namespace"
	nsISO4217  = "http://www.xbrl.org/2003/iso4217"

	roleStandardLabel = "http://www.xbrl.org/2003/role/label"
	roleTerseLabel    = "http://www.xbrl.org/2003/role/terseLabel"
	roleVerboseLabel  = "http://www.xbrl.org/2003/role/verboseLabel"
	arcConceptLabel   = "http://www.xbrl.org/2003/arcrole/concept-label"
)

var errNotInstance = errors.New("the document is not an XBRL instance (its root is not xbrli:xbrl)")

// --- a small namespace-aware tree: contexts, units and facts are read one top-level element at
// a time, so even a large instance never becomes one big tree.

// scope is one element's namespace declarations, chained to the enclosing element's.
type scope struct {
	decls  map[string]string // prefix → namespace; "" is the default namespace
	parent *scope
}

func (s *scope) lookup(prefix string) (string, bool) {
	for ; s != nil; s = s.parent {
		if uri, ok := s.decls[prefix]; ok {
			return uri, true
		}
	}
	return "", false
}

// prefixes renders namespaces as prefixes: the prefix the document declares first for a
// namespace, and the XBRL specification's own prefixes for its namespaces (an EDGAR instance
// declares xbrli as its default namespace and writes <measure>shares</measure>).
type prefixes struct{ byURI map[string]string }

func newPrefixes() *prefixes {
	return &prefixes{byURI: map[string]string{nsInstance: "xbrli", nsISO4217: "iso4217", nsXBRLDI: "xbrldi", nsLinkbase: "link"}}
}

// scope makes the scope of a start element, recording its prefixes.
func (p *prefixes) scope(se xml.StartElement, parent *scope) *scope {
	var decls map[string]string
	for _, a := range se.Attr {
		prefix, ok := "", false
		switch {
		case a.Name.Space == "xmlns":
			prefix, ok = a.Name.Local, true
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			ok = true
		}
		if !ok {
			continue
		}
		if decls == nil {
			decls = map[string]string{}
		}
		decls[prefix] = a.Value
		if _, known := p.byURI[a.Value]; !known && prefix != "" && a.Value != "" {
			p.byURI[a.Value] = prefix
		}
	}
	if decls == nil {
		return parent
	}
	return &scope{decls: decls, parent: parent}
}

// render writes a qualified name as prefix:local.
func (p *prefixes) render(space, local string) string {
	if space == "" {
		return local
	}
	if prefix, ok := p.byURI[space]; ok {
		return prefix + ":" + local
	}
	return "{" + space + "}" + local
}

type node struct {
	name     xml.Name
	attrs    []xml.Attr
	text     string // character data directly inside the element
	children []*node
	scope    *scope
}

func (n *node) is(space, local string) bool { return n.name.Space == space && n.name.Local == local }

func (n *node) attr(space, local string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

func (n *node) attrStr(space, local string) string {
	v, _ := n.attr(space, local)
	return strings.TrimSpace(v)
}

// innerText is all character data of the element and its descendants.
func (n *node) innerText() string {
	if len(n.children) == 0 {
		return n.text
	}
	var b strings.Builder
	b.WriteString(n.text)
	for _, c := range n.children {
		b.WriteString(c.innerText())
	}
	return b.String()
}

// qname resolves a QName written as text (a measure, a member, a dimension attribute) in the
// element's scope and renders it with the document's prefix; an undeclared prefix keeps the text.
func (n *node) qname(p *prefixes, text string) string {
	text = strings.TrimSpace(text)
	prefix, local := "", text
	if i := strings.IndexByte(text, ':'); i >= 0 {
		prefix, local = text[:i], text[i+1:]
	}
	if local == "" {
		return text
	}
	uri, ok := n.scope.lookup(prefix)
	if !ok {
		return text
	}
	return p.render(uri, local)
}

func readNode(d *xml.Decoder, se xml.StartElement, sc *scope, p *prefixes) (*node, error) {
	n := &node{name: se.Name, attrs: se.Attr, scope: sc}
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			child, err := readNode(d, t, p.scope(t, sc), p)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, child)
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			n.text = text.String()
			return n, nil
		}
	}
}

func newDecoder(b []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.CharsetReader = charsetReader
	return d
}

// charsetReader reads the single-byte encodings older EDGAR documents declare besides UTF-8.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "iso-8859-1", "iso8859-1", "latin1", "l1":
		return charmap.ISO8859_1.NewDecoder().Reader(in), nil
	case "windows-1252", "cp1252":
		return charmap.Windows1252.NewDecoder().Reader(in), nil
	case "us-ascii", "ascii":
		return in, nil
	}
	return nil, fmt.Errorf("unsupported character set %q", label)
}

// rootElement reads up to the document's root element.
func rootElement(d *xml.Decoder) (xml.StartElement, error) {
	for {
		tok, err := d.Token()
		if err != nil {
			return xml.StartElement{}, err
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se, nil
		}
	}
}

// --- the instance

type xbrlContext struct {
	id                  string
	scheme, identifier  string
	start, end, instant string // as written; "" when absent
	dims                []dimension
}

// dimension is one dimension of a context: explicit (a member QName) or typed (a domain element
// with a value, nil when the typed member is nil).
type dimension struct {
	dimension    string
	member       string
	typed        bool
	typedElement string
	typedValue   *string
	scenario     bool
}

type xbrlUnit struct {
	id                     string
	numerator, denominator []string
}

// key is the unit as a set of measures, for comparing facts reported in equal units.
func (u *xbrlUnit) key() string {
	num := append([]string(nil), u.numerator...)
	den := append([]string(nil), u.denominator...)
	sort.Strings(num)
	sort.Strings(den)
	return strings.Join(num, "*") + "/" + strings.Join(den, "*")
}

// fact is one item fact as reported.
type fact struct {
	space, local string
	concept      string
	id           string // "" when the fact has none
	contextRef   string
	unitRef      string // "" for a non-numeric fact
	decimals     string // "" when absent
	precision    string
	isNil        bool
	value        string // trimmed for numeric facts
	lang         string
	index        int // document order among facts
}

func (f *fact) numeric() bool { return f.unitRef != "" }

type instance struct {
	contexts map[string]*xbrlContext
	units    map[string]*xbrlUnit
	facts    []*fact
	names    *prefixes
}

// parseInstance reads an XBRL 2.1 instance (an EDGAR *_htm.xml extracted from inline XBRL, or a
// classic .xml instance): contexts (entity, period, segment and scenario dimensions), units
// (measures, divide) and item facts (elements with contextRef) in document order. Tuples, which
// EDGAR does not accept, and footnote links are skipped.
func parseInstance(b []byte) (*instance, error) {
	d := newDecoder(b)
	p := newPrefixes()
	root, err := rootElement(d)
	if err != nil {
		return nil, fmt.Errorf("no root element: %w", err)
	}
	if root.Name.Space != nsInstance || root.Name.Local != "xbrl" {
		return nil, errNotInstance
	}
	rootScope := p.scope(root, nil)
	rootLang := ""
	for _, a := range root.Attr {
		if a.Name.Space == nsXML && a.Name.Local == "lang" {
			rootLang = a.Value
		}
	}
	inst := &instance{contexts: map[string]*xbrlContext{}, units: map[string]*xbrlUnit{}, names: p}
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("the instance ends early: %w", err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return inst, nil
		case xml.StartElement:
			n, err := readNode(d, t, p.scope(t, rootScope), p)
			if err != nil {
				return nil, err
			}
			switch {
			case n.is(nsInstance, "context"):
				c := parseContext(n, p)
				inst.contexts[c.id] = c
			case n.is(nsInstance, "unit"):
				u := parseUnit(n, p)
				inst.units[u.id] = u
			default:
				if ref, ok := n.attr("", "contextRef"); ok {
					inst.facts = append(inst.facts, parseFact(n, p, strings.TrimSpace(ref), rootLang, len(inst.facts)))
				}
			}
		}
	}
}

func parseContext(n *node, p *prefixes) *xbrlContext {
	c := &xbrlContext{id: n.attrStr("", "id")}
	for _, ch := range n.children {
		switch {
		case ch.is(nsInstance, "entity"):
			for _, e := range ch.children {
				switch {
				case e.is(nsInstance, "identifier"):
					c.scheme = e.attrStr("", "scheme")
					c.identifier = strings.TrimSpace(e.text)
				case e.is(nsInstance, "segment"):
					c.dims = append(c.dims, dimensions(e, p, false)...)
				}
			}
		case ch.is(nsInstance, "period"):
			for _, e := range ch.children {
				switch {
				case e.is(nsInstance, "startDate"):
					c.start = strings.TrimSpace(e.text)
				case e.is(nsInstance, "endDate"):
					c.end = strings.TrimSpace(e.text)
				case e.is(nsInstance, "instant"):
					c.instant = strings.TrimSpace(e.text)
				}
			}
		case ch.is(nsInstance, "scenario"):
			c.dims = append(c.dims, dimensions(ch, p, true)...)
		}
	}
	return c
}

// dimensions reads the XBRL Dimensions members of a segment or scenario, in document order.
func dimensions(container *node, p *prefixes, scenario bool) []dimension {
	var out []dimension
	for _, m := range container.children {
		switch {
		case m.is(nsXBRLDI, "explicitMember"):
			out = append(out, dimension{dimension: m.qname(p, m.attrStr("", "dimension")), member: m.qname(p, m.text), scenario: scenario})
		case m.is(nsXBRLDI, "typedMember"):
			d := dimension{dimension: m.qname(p, m.attrStr("", "dimension")), typed: true, scenario: scenario}
			if len(m.children) > 0 {
				el := m.children[0]
				d.typedElement = p.render(el.name.Space, el.name.Local)
				if nilAttr(el) {
					d.typedValue = nil
				} else {
					v := strings.TrimSpace(el.innerText())
					d.typedValue = &v
				}
			}
			out = append(out, d)
		}
	}
	return out
}

func nilAttr(n *node) bool {
	v := n.attrStr(nsXSI, "nil")
	return v == "true" || v == "1"
}

func parseUnit(n *node, p *prefixes) *xbrlUnit {
	u := &xbrlUnit{id: n.attrStr("", "id"), numerator: []string{}, denominator: []string{}}
	measures := func(parent *node) []string {
		out := []string{}
		for _, m := range parent.children {
			if m.is(nsInstance, "measure") {
				out = append(out, m.qname(p, m.text))
			}
		}
		return out
	}
	for _, ch := range n.children {
		switch {
		case ch.is(nsInstance, "measure"):
			u.numerator = append(u.numerator, ch.qname(p, ch.text))
		case ch.is(nsInstance, "divide"):
			for _, part := range ch.children {
				switch {
				case part.is(nsInstance, "unitNumerator"):
					u.numerator = append(u.numerator, measures(part)...)
				case part.is(nsInstance, "unitDenominator"):
					u.denominator = append(u.denominator, measures(part)...)
				}
			}
		}
	}
	return u
}

func parseFact(n *node, p *prefixes, contextRef, rootLang string, index int) *fact {
	f := &fact{space: n.name.Space, local: n.name.Local, concept: p.render(n.name.Space, n.name.Local),
		id: n.attrStr("", "id"), contextRef: contextRef, unitRef: n.attrStr("", "unitRef"),
		decimals: n.attrStr("", "decimals"), precision: n.attrStr("", "precision"), isNil: nilAttr(n), index: index}
	f.lang = rootLang
	if l, ok := n.attr(nsXML, "lang"); ok {
		f.lang = l
	}
	if !f.isNil {
		f.value = n.innerText()
		if f.numeric() {
			f.value = strings.TrimSpace(f.value)
		}
	}
	return f
}

// --- duplicates: facts sharing concept, context and unit (and language for text)

type factInfo struct {
	duplicates  []*fact // the other facts of its group
	conflicting bool
}

func duplicateKey(inst *instance, f *fact) string {
	unit := ""
	if f.numeric() {
		if u, ok := inst.units[f.unitRef]; ok {
			unit = u.key()
		} else {
			unit = "#" + f.unitRef
		}
	} else {
		unit = "lang:" + strings.ToLower(f.lang)
	}
	return f.space + "\x00" + f.local + "\x00" + f.contextRef + "\x00" + unit
}

// analyze finds, for every fact, the other facts with the same concept, context and unit, and
// whether their values conflict.
func analyze(inst *instance) map[*fact]*factInfo {
	groups := map[string][]*fact{}
	for _, f := range inst.facts {
		k := duplicateKey(inst, f)
		groups[k] = append(groups[k], f)
	}
	out := make(map[*fact]*factInfo, len(inst.facts))
	for _, g := range groups {
		conflicting := len(g) > 1 && !consistent(g)
		for _, f := range g {
			info := &factInfo{conflicting: conflicting}
			for _, o := range g {
				if o != f {
					info.duplicates = append(info.duplicates, o)
				}
			}
			out[f] = info
		}
	}
	return out
}

// consistent tells whether duplicate facts agree, as XBRL Duplicates 1.0 reads numeric
// duplicates: each value stands for the interval of values that round to it at its decimals
// ([v - ½·10^-d, v + ½·10^-d]; exact for INF, absent decimals or a precision attribute), and the
// facts agree when all their intervals share a point. Other values agree when their text is equal;
// a nil fact agrees only with nil facts.
func consistent(g []*fact) bool {
	nils := 0
	for _, f := range g {
		if f.isNil {
			nils++
		}
	}
	if nils > 0 {
		return nils == len(g)
	}
	if g[0].numeric() {
		var lo, hi *big.Rat
		for _, f := range g {
			l, h, ok := interval(f)
			if !ok {
				return sameText(g)
			}
			if lo == nil || l.Cmp(lo) > 0 {
				lo = l
			}
			if hi == nil || h.Cmp(hi) < 0 {
				hi = h
			}
		}
		return lo.Cmp(hi) <= 0
	}
	return sameText(g)
}

func sameText(g []*fact) bool {
	for _, f := range g[1:] {
		if f.value != g[0].value {
			return false
		}
	}
	return true
}

// maxDecimals bounds the decimals a duplicate check scales by; a wilder attribute (no filing
// reports one) counts as exact rather than costing a loop of that many steps.
const maxDecimals = 400

// interval is the range of values a numeric fact stands for at its decimals.
func interval(f *fact) (lo, hi *big.Rat, ok bool) {
	v, ok := new(big.Rat).SetString(strings.TrimPrefix(f.value, "+"))
	if !ok || strings.ContainsAny(f.value, "eE/") { // xsd:decimal has no exponent or fraction form
		return nil, nil, false
	}
	d := strings.TrimSpace(f.decimals)
	if d == "" || d == "INF" {
		return v, v, true
	}
	var n int
	if _, err := fmt.Sscanf(d, "%d", &n); err != nil || fmt.Sprint(n) != strings.TrimPrefix(d, "+") || abs(n) > maxDecimals {
		return v, v, true
	}
	// half = 10^-n / 2
	half := new(big.Rat).SetInt64(1)
	ten := new(big.Rat).SetInt64(10)
	for i := 0; i < abs(n); i++ {
		if n > 0 {
			half.Quo(half, ten)
		} else {
			half.Mul(half, ten)
		}
	}
	half.Quo(half, new(big.Rat).SetInt64(2))
	return new(big.Rat).Sub(v, half), new(big.Rat).Add(v, half), true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// --- the label linkbase

// labelSet maps a schema element id (the locator's fragment, e.g. us-gaap_Revenues) to its label.
type labelSet struct {
	byID    map[string]string
	byLocal map[string][]string // local name → element ids
}

type labelCandidate struct {
	text       string
	role, lang int // ranks, lower is better
}

// parseLabels reads a label linkbase: in each link:labelLink, concept-label arcs from a locator
// (xlink:href …#id) to label resources. The standard label is preferred (then terse, verbose, any
// other role), in US English, then any English, then any language.
func parseLabels(b []byte) (*labelSet, error) {
	d := newDecoder(b)
	p := newPrefixes()
	root, err := rootElement(d)
	if err != nil {
		return nil, fmt.Errorf("no root element: %w", err)
	}
	if root.Name.Space != nsLinkbase || root.Name.Local != "linkbase" {
		return nil, errors.New("the document is not an XBRL linkbase")
	}
	rootScope := p.scope(root, nil)
	best := map[string]labelCandidate{}
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("the linkbase ends early: %w", err)
		}
		if _, end := tok.(xml.EndElement); end {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		n, err := readNode(d, se, p.scope(se, rootScope), p)
		if err != nil {
			return nil, err
		}
		if n.is(nsLinkbase, "labelLink") {
			collectLabels(n, best)
		}
	}
	set := &labelSet{byID: map[string]string{}, byLocal: map[string][]string{}}
	for id, c := range best {
		set.byID[id] = c.text
		if i := strings.IndexByte(id, '_'); i >= 0 {
			set.byLocal[id[i+1:]] = append(set.byLocal[id[i+1:]], id)
		}
	}
	return set, nil
}

func collectLabels(link *node, best map[string]labelCandidate) {
	locs := map[string][]string{}
	res := map[string][]labelCandidate{}
	type arc struct{ from, to string }
	var arcs []arc
	for _, ch := range link.children {
		switch {
		case ch.is(nsLinkbase, "loc"):
			href := ch.attrStr(nsXLink, "href")
			if i := strings.LastIndexByte(href, '#'); i >= 0 && i+1 < len(href) {
				label := ch.attrStr(nsXLink, "label")
				locs[label] = append(locs[label], href[i+1:])
			}
		case ch.is(nsLinkbase, "label"):
			text := strings.Join(strings.Fields(ch.innerText()), " ")
			if text == "" {
				continue
			}
			lang, _ := ch.attr(nsXML, "lang")
			res[ch.attrStr(nsXLink, "label")] = append(res[ch.attrStr(nsXLink, "label")],
				labelCandidate{text: text, role: roleRank(ch.attrStr(nsXLink, "role")), lang: langRank(lang)})
		case ch.is(nsLinkbase, "labelArc"):
			if ar := ch.attrStr(nsXLink, "arcrole"); ar == arcConceptLabel {
				arcs = append(arcs, arc{ch.attrStr(nsXLink, "from"), ch.attrStr(nsXLink, "to")})
			}
		}
	}
	for _, a := range arcs {
		for _, id := range locs[a.from] {
			for _, c := range res[a.to] {
				if cur, ok := best[id]; !ok || c.role < cur.role || (c.role == cur.role && c.lang < cur.lang) {
					best[id] = c
				}
			}
		}
	}
}

func roleRank(role string) int {
	switch role {
	case roleStandardLabel, "":
		return 0
	case roleTerseLabel:
		return 1
	case roleVerboseLabel:
		return 2
	}
	return 3
}

func langRank(lang string) int {
	l := strings.ToLower(strings.TrimSpace(lang))
	switch {
	case l == "en-us":
		return 0
	case l == "en" || strings.HasPrefix(l, "en-"):
		return 1
	}
	return 2
}

// label finds a QName's label: EDGAR requires an element's id to be its prefix, an underscore and
// its name (us-gaap:Revenues → us-gaap_Revenues); when the filing uses another prefix, a unique
// element id with the same name is used.
func (s *labelSet) label(qname string) (string, bool) {
	if s == nil {
		return "", false
	}
	if l, ok := s.byID[strings.Replace(qname, ":", "_", 1)]; ok {
		return l, true
	}
	local := qname
	if i := strings.IndexByte(qname, ':'); i >= 0 {
		local = qname[i+1:]
	}
	if ids := s.byLocal[local]; len(ids) == 1 {
		return s.byID[ids[0]], true
	}
	return "", false
}
