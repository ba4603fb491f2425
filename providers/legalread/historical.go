package legalread

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"golang.org/x/net/html"

	"github.com/capgate/capgate/providers"
)

const (
	historicalHost  = "https://groups.csail.mit.edu"
	historicalPath  = "/mac/classes/6.805/articles/privacy/Privacy_brand_warr2.html"
	historicalTitle = "Samuel D. Warren and Louis D. Brandeis, \"The Right to Privacy\", 4 Harvard Law Review 193 (1890)"
)

// historicalRules keep the page's own anchors (<a name="..."> targets and element ids, such as
// its footnote anchors) and start a unit at each heading.
var historicalRules = htmlRules{
	anchor: func(n *html.Node) string {
		if n.Data == "a" {
			if name := strings.TrimSpace(attr(n, "name")); name != "" {
				return name
			}
		}
		return strings.TrimSpace(attr(n, "id"))
	},
	unit: func(n *html.Node) bool {
		switch n.Data {
		case "h1", "h2", "h3", "h4", "hr":
			return true
		}
		return false
	},
}

// readHistorical reads the one historical work from its university-hosted transcription, with the
// scraper as the fallback.
func readHistorical(ctx context.Context, call *providers.Call) (*document, error) {
	public := historicalHost + historicalPath
	page, err := fetchPage(ctx, call, pageSpec{primary: historicalID, name: "the transcription host (MIT CSAIL)",
		path: historicalPath, publicURL: public,
		missing: "the transcription of \"The Right to Privacy\" is no longer at " + public})
	if err != nil {
		return nil, err
	}
	rules := historicalRules
	rules.method = "html_parse"
	if page.viaScraper {
		rules.method = "html_parse_via_scraper"
	}
	blocks, _, err := htmlBlocks(page.body, rules)
	if err != nil {
		return nil, providers.Errorf(providers.CodeProviderError, "the transcription answered HTML that could not be read").WithRetryable(false)
	}
	sum := sha256.Sum256(page.body)
	d := &document{
		source: sourceHistorical, identifier: historicalWorkID, title: historicalTitle, sourceClass: classTranscription,
		language: defaultLanguage, sourceURL: public, sha256: hex.EncodeToString(sum[:]), retrievedAt: now(), blocks: blocks,
		links: []providers.Link{{Label: "transcription", URL: public}},
	}
	d.sectionURL = func(c chunk) string {
		if len(c.anchors) > 0 {
			return public + "#" + c.anchors[0]
		}
		return public
	}
	if page.viaScraper {
		d.notes = append(d.notes, page.note)
		d.credits = page.scraperCr * scraperCreditCost
	}
	return d, nil
}
