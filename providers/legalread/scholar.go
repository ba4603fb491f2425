package legalread

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/net/html"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/upstream/courtlistener"
)

const (
	courtlistenerPublic = "https://www.courtlistener.com"
	// scholarCredits is a scholar case retrieval: $0.004 (spec 4.3 cost basis).
	scholarCredits = 4
	// maxOpinions bounds the opinions read from one cluster.
	maxOpinions = 20
)

// cluster is the part of GET /api/rest/v4/clusters/{id}/ legal.read reads.
type cluster struct {
	ID           lenient.ID                `json:"id"`
	AbsoluteURL  lenient.Str               `json:"absolute_url"`
	CaseName     lenient.Str               `json:"case_name"`
	CaseNameFull lenient.Str               `json:"case_name_full"`
	CaseShort    lenient.Str               `json:"case_name_short"`
	DateFiled    lenient.Str               `json:"date_filed"`
	Citations    lenient.List[citation]    `json:"citations"`
	SubOpinions  lenient.List[lenient.Str] `json:"sub_opinions"`
}

type citation struct {
	Volume   lenient.ID  `json:"volume"`
	Reporter lenient.Str `json:"reporter"`
	Page     lenient.ID  `json:"page"`
	Type     lenient.Int `json:"type"`
}

// opinion is the part of GET /api/rest/v4/opinions/{id}/ legal.read reads: the text fields, best
// first (html_with_citations is CourtListener's richest rendering; plain_text the last resort).
type opinion struct {
	ID                lenient.ID  `json:"id"`
	Type              lenient.Str `json:"type"`
	AuthorStr         lenient.Str `json:"author_str"`
	HTMLWithCitations lenient.Str `json:"html_with_citations"`
	HTML              lenient.Str `json:"html"`
	HTMLLawbox        lenient.Str `json:"html_lawbox"`
	HTMLColumbia      lenient.Str `json:"html_columbia"`
	HTMLAnon2020      lenient.Str `json:"html_anon_2020"`
	XMLHarvard        lenient.Str `json:"xml_harvard"`
	PlainText         lenient.Str `json:"plain_text"`
}

var opinionPath = regexp.MustCompile(`/api/rest/v4/opinions/([0-9]{1,25})/?$`)

// readScholar reads a CourtListener opinion cluster and every opinion in it.
func readScholar(ctx context.Context, call *providers.Call, id string) (*document, error) {
	u := call.Upstream(courtlistener.ProviderID)
	var cl cluster
	if err := u.GetJSON(ctx, courtlistener.APIPrefix+"clusters/"+id+"/", nil, &cl); err != nil {
		if status(err) == http.StatusNotFound {
			return nil, providers.Errorf(providers.CodeNotFound, "CourtListener has no opinion cluster %s", id)
		}
		return nil, err
	}
	var ids []string
	seen := map[string]bool{}
	for _, s := range cl.SubOpinions {
		if m := opinionPath.FindStringSubmatch(opinionURLPath(string(s))); m != nil && !seen[m[1]] {
			seen[m[1]] = true
			ids = append(ids, m[1])
		}
	}
	if len(ids) == 0 {
		return nil, providers.Errorf(providers.CodeNotFound, "CourtListener's opinion cluster %s lists no opinions to read", id)
	}
	if len(ids) > maxOpinions {
		ids = ids[:maxOpinions]
	}
	hash := sha256.New()
	ops := make([]opinion, 0, len(ids))
	for _, oid := range ids {
		resp, err := u.Get(ctx, courtlistener.APIPrefix+"opinions/"+oid+"/", nil, http.Header{"Accept": {"application/json"}})
		if err != nil {
			if status(err) == http.StatusNotFound {
				return nil, providers.Errorf(providers.CodeProviderError, "CourtListener lists opinion %s in cluster %s but does not serve it", oid, id).WithRetryable(false)
			}
			return nil, err
		}
		var op opinion
		if err := u.Decode(resp, &op); err != nil {
			return nil, err
		}
		if op.ID == "" {
			op.ID = lenient.ID(oid)
		}
		hash.Write(resp.Body)
		ops = append(ops, op)
	}
	// CourtListener's type codes sort opinions as a reporter prints them: combined or lead,
	// plurality, concurrences, dissents, addenda.
	sort.SliceStable(ops, func(i, j int) bool { return typeRank(ops[i].Type) < typeRank(ops[j].Type) })
	var blocks []block
	for _, op := range ops {
		bs, err := opinionBlocks(op)
		if err != nil {
			return nil, err
		}
		if len(bs) == 0 {
			continue
		}
		bs[0].hard = true
		bs[0].anchors = append([]string{"opinion_" + string(op.ID)}, bs[0].anchors...)
		blocks = append(blocks, bs...)
	}
	public := courtlistenerPublic + "/opinion/" + id + "/"
	if p := string(cl.AbsoluteURL); strings.HasPrefix(p, "/") {
		public = courtlistenerPublic + p
	} else if strings.HasPrefix(p, courtlistenerPublic+"/") {
		public = p
	}
	d := &document{
		source: sourceScholar, identifier: id, title: clusterTitle(cl, id), sourceClass: classReproduction,
		// CourtListener holds U.S. court opinions, written in English; it has no language field.
		language: defaultLanguage, sourceURL: public, sha256: hex.EncodeToString(hash.Sum(nil)),
		retrievedAt: now(), blocks: blocks, credits: scholarCredits,
		links: []providers.Link{{Label: "CourtListener opinion", URL: public}},
	}
	return d, nil
}

// opinionURLPath is the path of a sub_opinions entry (an absolute API URL, or a path).
func opinionURLPath(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Path
	}
	return s
}

var typeOrder = []string{"010", "015", "020", "025", "030", "035", "040", "050", "060", "070", "080", "090"}

func typeRank(t lenient.Str) int {
	for i, p := range typeOrder {
		if strings.HasPrefix(string(t), p) {
			return i
		}
	}
	return len(typeOrder)
}

// scholarRules keep element ids as anchors (CourtListener's Harvard-derived paragraphs carry
// ids such as b438-3) but not the star-pagination markers' own ids (p439).
var scholarRules = htmlRules{
	anchor: func(n *html.Node) string {
		if isStarPage(n) || !blockLevel[n.DataAtom] {
			return ""
		}
		return strings.TrimSpace(attr(n, "id"))
	},
}

var (
	// plainStar is a star-pagination marker in plain text: "*439".
	plainStar = regexp.MustCompile(`(?:^|\s)\*([0-9]{1,5})\b`)
	blankLine = regexp.MustCompile(`\n\s*\n`)
)

// opinionBlocks reads the best text field of an opinion.
func opinionBlocks(op opinion) ([]block, error) {
	fields := []struct {
		method string
		text   lenient.Str
	}{
		{"courtlistener_html_with_citations", op.HTMLWithCitations},
		{"courtlistener_html", op.HTML},
		{"courtlistener_html_lawbox", op.HTMLLawbox},
		{"courtlistener_html_columbia", op.HTMLColumbia},
		{"courtlistener_html_anon_2020", op.HTMLAnon2020},
		{"courtlistener_xml_harvard", op.XMLHarvard},
	}
	for _, f := range fields {
		if f.text == "" {
			continue
		}
		rules := scholarRules
		rules.method = f.method
		bs, _, err := htmlBlocks([]byte(f.text), rules)
		if err != nil {
			return nil, providers.Errorf(providers.CodeProviderError, "CourtListener opinion %s has HTML that could not be read", op.ID).WithRetryable(false)
		}
		if len(bs) > 0 {
			return bs, nil
		}
	}
	return plainBlocks(string(op.PlainText)), nil
}

// plainBlocks cuts plain text at blank lines; a star-pagination marker ("*351") sets the printed
// page from there on (a paragraph carries the page it begins on; text before the first marker
// has no known page).
func plainBlocks(text string) []block {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var out []block
	page := ""
	for _, para := range blankLine.Split(text, -1) {
		p := cleanLines(para)
		if p == "" {
			continue
		}
		b := block{text: p, printed: page, method: "courtlistener_plain_text"}
		if m := plainStar.FindAllStringSubmatch(p, -1); m != nil {
			if strings.HasPrefix(p, "*"+m[0][1]) {
				b.printed = m[0][1]
			}
			page = m[len(m)-1][1]
		}
		out = append(out, b)
	}
	return out
}

// clusterTitle is "Case name, 277 U.S. 438 (1928)" from what the cluster supplies.
func clusterTitle(cl cluster, id string) string {
	name := string(cl.CaseName)
	if name == "" {
		name = string(cl.CaseNameFull)
	}
	if name == "" {
		name = string(cl.CaseShort)
	}
	if name == "" {
		name = "CourtListener opinion cluster " + id
	}
	var cite string
	for _, c := range cl.Citations {
		if c.Volume != "" && c.Reporter != "" && c.Page != "" {
			s := fmt.Sprintf("%s %s %s", c.Volume, c.Reporter, c.Page)
			if cite == "" || (c.Type.OK && c.Type.V == 1) {
				cite = s
				if c.Type.OK && c.Type.V == 1 {
					break
				}
			}
		}
	}
	if cite != "" {
		name += ", " + cite
	}
	if y := string(cl.DateFiled); len(y) >= 4 {
		name += " (" + y[:4] + ")"
	}
	return name
}
