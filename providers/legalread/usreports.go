package legalread

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

const locPublic = "https://www.loc.gov"

// locItem is the part of the loc.gov item response (GET /item/{id}/?fo=json) legal.read reads:
// item.title and item.language, and resources[] whose pdf (or a files entry of mimetype
// application/pdf) is the PDF on tile.loc.gov.
type locItem struct {
	Item      lenient.Obj[locItemInfo]  `json:"item"`
	Resources lenient.List[locResource] `json:"resources"`
}

type locItemInfo struct {
	Title    lenient.Str               `json:"title"`
	Language lenient.List[lenient.Str] `json:"language"`
}

type locResource struct {
	PDF   lenient.Str     `json:"pdf"`
	URL   lenient.Str     `json:"url"`
	Files json.RawMessage `json:"files"`
}

type locFile struct {
	Mimetype lenient.Str `json:"mimetype"`
	URL      lenient.Str `json:"url"`
}

// pdfURL is the item's PDF: a resource's pdf, else a file of mimetype application/pdf (files
// is a list of lists of files in item responses, a count in search results).
func (it *locItem) pdfURL() string {
	for _, r := range it.Resources {
		if r.PDF != "" {
			return string(r.PDF)
		}
	}
	for _, r := range it.Resources {
		var groups [][]locFile
		if json.Unmarshal(r.Files, &groups) != nil {
			continue
		}
		for _, g := range groups {
			for _, f := range g {
				if strings.EqualFold(string(f.Mimetype), "application/pdf") && f.URL != "" {
					return string(f.URL)
				}
			}
		}
	}
	return ""
}

// readUSReports reads the loc.gov item, then its PDF, and cuts the PDF's text layer by page.
func readUSReports(ctx context.Context, call *providers.Call, itemID string) (*document, error) {
	u := call.Upstream(locID)
	missing := fmt.Sprintf("the Library of Congress has no U.S. Reports item %s (usrep + volume + first page, e.g. usrep277438)", itemID)
	resp, err := u.Get(ctx, "/item/"+itemID+"/", url.Values{"fo": {"json"}}, http.Header{"Accept": {"application/json"}})
	if err != nil {
		if s := status(err); s == http.StatusNotFound || s == http.StatusGone {
			return nil, providers.Errorf(providers.CodeNotFound, "%s", missing)
		}
		return nil, err
	}
	if body := bytes.TrimSpace(resp.Body); len(body) == 0 || body[0] != '{' {
		return nil, notDocument("the Library of Congress", resp.Body, "its item record")
	}
	var item locItem
	if err := u.Decode(resp, &item); err != nil {
		return nil, err
	}
	pdfURL := item.pdfURL()
	if pdfURL == "" {
		return nil, providers.Errorf(providers.CodeNotFound, "the Library of Congress item %s has no PDF to read", itemID)
	}
	target, err := url.Parse(pdfURL)
	if err != nil || !trustedPDFHost(target, u.BaseURL) {
		return nil, providers.Errorf(providers.CodeProviderError, "the Library of Congress item %s names a PDF outside loc.gov (%s); it was not fetched", itemID, pdfURL).WithRetryable(false)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return nil, providers.Errorf(providers.CodeInternal, "the PDF request could not be built")
	}
	req.Header.Set("Accept", "application/pdf")
	pdfResp, err := u.Do(req)
	if err != nil {
		if s := status(err); s == http.StatusNotFound || s == http.StatusGone {
			return nil, providers.Errorf(providers.CodeNotFound, "the PDF of Library of Congress item %s is missing (%s)", itemID, pdfURL)
		}
		return nil, err
	}
	if !bytes.HasPrefix(bytes.TrimLeft(pdfResp.Body, "\r\n\t "), []byte("%PDF-")) {
		return nil, notDocument("the Library of Congress", pdfResp.Body, "the PDF")
	}
	pages, err := pdfText(pdfResp.Body)
	if err != nil {
		return nil, providers.Errorf(providers.CodeProviderError, "the PDF of %s could not be read: %v", itemID, err).WithRetryable(false)
	}
	printed := printedPages(pages)
	var blocks []block
	for _, p := range pages {
		blocks = append(blocks, block{text: strings.Join(p.lines, "\n"), hard: true, pdfPage: p.index,
			printed: printed[p.index], method: "pdf_text_layer"})
	}
	if len(chunkBlocks(blocks)) == 0 {
		return nil, providers.Errorf(providers.CodeProviderError,
			"the PDF of %s has no text layer (an image-only scan); no OCR is performed", itemID).WithRetryable(false)
	}
	title := ""
	lang := defaultLanguage
	if info := item.Item.V; info != nil {
		title = string(info.Title)
		if l := languageCode(info.Language); l != "" {
			lang = l
		}
	}
	if title == "" {
		title = "U.S. Reports, Library of Congress item " + itemID
	}
	sum := sha256.Sum256(pdfResp.Body)
	itemPage := locPublic + "/item/" + itemID + "/"
	d := &document{
		source: sourceUSReports, identifier: itemID, title: title, sourceClass: classOfficial, language: lang,
		sourceURL: pdfURL, sha256: hex.EncodeToString(sum[:]), retrievedAt: now(), blocks: blocks,
		links: []providers.Link{{Label: "PDF", URL: pdfURL}, {Label: "Library of Congress item", URL: itemPage}},
	}
	d.sectionURL = func(c chunk) string { return pdfURL + "#page=" + strconv.Itoa(c.pdfPage) }
	return d, nil
}

// trustedPDFHost admits a PDF on loc.gov (https) or on the configured host of the provider (a
// mirror or a test fake): an item record cannot send the gateway elsewhere.
func trustedPDFHost(target *url.URL, base string) bool {
	host := strings.ToLower(target.Hostname())
	if b, err := url.Parse(base); err == nil && b.Host != "" && strings.EqualFold(b.Host, target.Host) {
		return true
	}
	return target.Scheme == "https" && (host == "loc.gov" || strings.HasSuffix(host, ".loc.gov"))
}

// languageCode maps loc.gov's language values (ISO 639-2 codes or English names) to the
// spec's upper-case codes; only English is expected for U.S. Reports.
func languageCode(langs lenient.List[lenient.Str]) string {
	for _, l := range langs {
		switch strings.ToLower(string(l)) {
		case "eng", "en", "english":
			return "EN"
		case "fre", "fra", "fr", "french":
			return "FR"
		case "ger", "deu", "de", "german":
			return "DE"
		case "spa", "es", "spanish":
			return "ES"
		}
	}
	return ""
}

// notDocument is the provider_error of an answer that is not the expected document: a
// challenge, refusal or error page, or something else.
func notDocument(source string, body []byte, what string) error {
	reason := blockedPage(body)
	if reason == "" {
		reason = "an answer of another kind"
	}
	return providers.Errorf(providers.CodeProviderError, "%s answered %s instead of %s", source, reason, what).WithRetryable(true)
}
