package legalread

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"

	"github.com/capgate/capgate/providers"
)

const eurlexPublic = "https://eur-lex.europa.eu"

var (
	// eurlexAnchor is an id EUR-Lex gives a part of an act (usable as #fragment): art_5, rct_12,
	// cpt_II, anx_I, cit_1, pbl_1, fnp_1, and paragraph ids such as 005.001.
	eurlexAnchor = regexp.MustCompile(`^(?:(?:art|rct|cit|cpt|anx|sct|tis|prt|pbl|fnp|enc|fin|sub)_[0-9A-Za-z]+(?:\.[0-9A-Za-z_]+)*|[0-9]{3}\.[0-9]{3})$`)
	// eurlexUnit is an id that starts a structural unit: an article, a recital, a chapter,
	// title, part or section, an annex.
	eurlexUnit = regexp.MustCompile(`^(?:art|rct|cpt|anx|sct|tis|prt)_[0-9A-Za-z]+$`)
	// eurlexUnitClass are the heading classes of documents without eli ids (older OJ layout).
	eurlexUnitClass = []string{"oj-ti-art", "ti-art", "oj-ti-section-1", "ti-section-1", "oj-ti-grseq-1", "ti-grseq-1", "oj-doc-ti", "doc-ti"}
	// eurlexMissing is EUR-Lex's message for a CELEX number it does not have.
	eurlexMissing = []string{"the requested document does not exist", "requested document does not exist"}
)

var eurlexRules = htmlRules{
	anchor: func(n *html.Node) string {
		id := attr(n, "id")
		if eurlexAnchor.MatchString(id) && !strings.Contains(id, ".tit_") {
			return id
		}
		return ""
	},
	unit: func(n *html.Node) bool {
		if eurlexUnit.MatchString(attr(n, "id")) {
			return true
		}
		for _, c := range eurlexUnitClass {
			if hasClass(n, c) {
				return true
			}
		}
		return false
	},
	pointAnchors: true,
}

// readEurlex reads GET {base}/legal-content/{LANG}/TXT/HTML/?uri=CELEX:{celex}.
func readEurlex(ctx context.Context, call *providers.Call, celex, lang string) (*document, error) {
	path := "/legal-content/" + lang + "/TXT/HTML/"
	public := eurlexPublic + path + "?uri=CELEX:" + celex
	missing := fmt.Sprintf("EUR-Lex has no %s text of CELEX %s (check the CELEX number and the language version)", lang, celex)
	page, err := fetchPage(ctx, call, pageSpec{primary: eurlexID, name: "EUR-Lex", path: path,
		query: url.Values{"uri": {"CELEX:" + celex}}, publicURL: public, missing: missing})
	if err != nil {
		return nil, err
	}
	rules := eurlexRules
	rules.method = "html_parse"
	if page.viaScraper {
		rules.method = "html_parse_via_scraper"
	}
	blocks, root, err := htmlBlocks(page.body, rules)
	if err != nil {
		return nil, providers.Errorf(providers.CodeProviderError, "EUR-Lex answered HTML that could not be read").WithRetryable(false)
	}
	if isMissingPage(blocks) {
		return nil, providers.Errorf(providers.CodeNotFound, "%s", missing)
	}
	sum := sha256.Sum256(page.body)
	d := &document{
		source: sourceEurlex, identifier: celex, title: eurlexTitle(root, celex), sourceClass: classOfficial,
		language: lang, sourceURL: public, sha256: hex.EncodeToString(sum[:]), retrievedAt: now(), blocks: blocks,
		links: []providers.Link{{Label: "EUR-Lex text", URL: public},
			{Label: "EUR-Lex document page", URL: eurlexPublic + "/legal-content/" + lang + "/ALL/?uri=CELEX:" + celex}},
	}
	d.sectionURL = func(c chunk) string {
		for _, a := range c.anchors {
			if !strings.Contains(a, " ") {
				return public + "#" + a
			}
		}
		return public
	}
	if page.viaScraper {
		d.notes = append(d.notes, page.note)
		d.credits = page.scraperCr * scraperCreditCost
	}
	return d, nil
}

// isMissingPage tells whether a short page is EUR-Lex's "document does not exist" answer.
func isMissingPage(blocks []block) bool {
	if len(blocks) > 40 {
		return false
	}
	var all strings.Builder
	for _, b := range blocks {
		all.WriteString(strings.ToLower(b.text))
		all.WriteByte(' ')
	}
	for _, m := range eurlexMissing {
		if strings.Contains(all.String(), m) {
			return true
		}
	}
	return false
}

// eurlexTitle is the act's title: the eli main title, else the first document-title lines,
// else the page title when it is not a file name, else the CELEX number.
func eurlexTitle(root *html.Node, celex string) string {
	if ts := findAll(root, func(n *html.Node) bool { return hasClass(n, "eli-main-title") }); len(ts) > 0 {
		if t := collapseSpace(textOf(ts[0])); t != "" {
			return t
		}
	}
	var parts []string
	for _, n := range findAll(root, func(n *html.Node) bool { return hasClass(n, "oj-doc-ti") || hasClass(n, "doc-ti") }) {
		if t := collapseSpace(textOf(n)); t != "" {
			parts = append(parts, t)
		}
		if len(parts) == 4 {
			break
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, " ")
	}
	if t := pageTitle(root); t != "" && !strings.Contains(strings.ToLower(t), ".xml") {
		return t
	}
	return "CELEX " + celex
}
