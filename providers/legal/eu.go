package legal

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

const (
	eurlexSite        = "https://eur-lex.europa.eu/legal-content/"
	euSource          = "cellar"
	euSourceClass     = "official_publication" // the Publications Office is the EU's official publisher
	sparqlResultsType = "application/sparql-results+json"
	// maxEUOffset bounds the OFFSET a stored paging state may ask for.
	maxEUOffset = 10000
	// partialState is the X-SQL-State Virtuoso sends when an "anytime" query stopped early.
	partialState = "S1TAT"
)

// celexPattern is the CELEX form legal.read's eurlex source takes.
var celexPattern = regexp.MustCompile(`^[0-9][0-9A-Z()_/-]{5,50}$`)

// euState is the paging state: the SPARQL OFFSET of the page.
type euState struct {
	Offset int `json:"offset"`
}

// sparqlResults is the W3C SPARQL 1.1 Query Results JSON Format.
type sparqlResults struct {
	Head struct {
		Vars []string `json:"vars"`
	} `json:"head"`
	Results *struct {
		Bindings lenient.List[map[string]sparqlTerm] `json:"bindings"`
	} `json:"results"`
}

// sparqlTerm is one RDF term of a binding: type uri, literal (Virtuoso also writes typed-literal)
// or bnode, its value, and a literal's language tag or datatype.
type sparqlTerm struct {
	Type     string `json:"type"`
	Value    string `json:"value"`
	Lang     string `json:"xml:lang"`
	Datatype string `json:"datatype"`
}

// euTypes lists the resource types of the kind, or of every kind.
func euTypes(kind string) []string {
	if t, ok := kindTypes[kind]; ok {
		return t
	}
	var out []string
	for _, k := range allKinds {
		out = append(out, kindTypes[k]...)
	}
	return out
}

func searchEU(ctx context.Context, call *providers.Call, s providers.Request, num int) (*providers.Page, error) {
	terms := searchTerms(s.Str("query"))
	if len(terms) == 0 {
		return nil, providers.InvalidField("/search/query", "the query has no word (letters or digits) to look for in titles")
	}
	lang := s.Str("language")
	if lang == "" {
		lang = defaultLanguage
	}
	lang3, ok := languages[lang]
	if !ok {
		return nil, providers.InvalidField("/search/language", "language must be one of the 24 official EU languages")
	}
	var st euState
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Offset < 0 || st.Offset > maxEUOffset {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}
	u := call.Upstream(cellarID)
	q := url.Values{"query": {euQuery(terms, euTypes(s.Str("kind")), lang3, num+1, st.Offset)}, "format": {sparqlResultsType}}
	resp, err := u.Get(ctx, sparqlPath, q, http.Header{"Accept": {sparqlResultsType}})
	if err != nil {
		return nil, cellarError(err)
	}
	var body sparqlResults
	if err := u.Decode(resp, &body); err != nil {
		return nil, err
	}
	if body.Results == nil || body.Results.Bindings == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "CELLAR answered without SPARQL results")
	}
	rows := body.Results.Bindings
	out := &providers.Page{Records: []providers.Record{}, Credits: providers.Credits(0)}
	if len(rows) > num {
		out.HasMore = true
		out.Next, _ = json.Marshal(euState{Offset: st.Offset + num})
		rows = rows[:num]
	}
	seen := map[string]bool{}
	for _, row := range rows {
		if rec, ok := euRecord(row, lang); ok && !seen[rec.Data.(*LegalRecord).Identifier] {
			seen[rec.Data.(*LegalRecord).Identifier] = true
			out.Records = append(out.Records, rec)
		}
	}
	if resp.Header.Get("X-SQL-State") == partialState {
		out.Notes = append(out.Notes, "CELLAR stopped this query early (its time limit); the page may miss matching documents.")
	}
	return out, nil
}

// euRecord maps one result row; a row without a CELEX number cannot be identified and is left out.
func euRecord(b map[string]sparqlTerm, lang string) (providers.Record, bool) {
	celex := strings.TrimSpace(b["celex"].Value)
	if celex == "" {
		return providers.Record{}, false
	}
	title := cleanTitle(b["title"].Value)
	short := shortTitle(b["title"].Value)
	rtype := ""
	if t := b["type"]; t.Type == "uri" && strings.HasPrefix(t.Value, resourceTypeNS) {
		rtype = strings.TrimPrefix(t.Value, resourceTypeNS)
	}
	kind := typeKinds[rtype]
	ecli := strings.TrimSpace(b["ecli"].Value)
	date := datePrefix.FindString(strings.TrimSpace(b["date"].Value))
	page := eurlexSite + lang + "/TXT/?uri=CELEX:" + url.QueryEscape(celex)

	var read *ReadRequest
	if celexPattern.MatchString(celex) {
		read = readRequest(ReadDocument{Source: "eurlex", Celex: celex, Language: lang})
	}
	fields := &LegalRecord{Identifier: celex, Source: euSource, SourceClass: euSourceClass, Language: lang, ECLI: ecli,
		DocumentKind: kind, Date: date, FullText: read}
	rec := providers.Record{Title: providers.Clip(firstOf(short, celex), maxTitle), URL: page, Data: fields}

	detail := &LegalDetail{Jurisdiction: "eu", Source: euSource, SourceClass: euSourceClass, Identifier: celex, Celex: celex,
		Language: lang, URL: page, Title: title, ECLI: ecli, DocumentKind: kind, ResourceType: rtype, Date: date, LegalRead: read}
	links := []providers.Link{{Label: "EUR-Lex", URL: page}}
	if w := b["work"]; w.Type == "uri" && strings.HasPrefix(w.Value, "http://publications.europa.eu/resource/cellar/") {
		detail.CellarWork = w.Value
		links = append(links, providers.Link{Label: "CELLAR work", URL: w.Value})
	}
	rec.Stored = map[string]*providers.Detail{"details": {Body: detail, Links: links}}
	return rec, true
}

// cleanTitle joins the parts of a CELLAR title (separated by "#": the court and date, the parties,
// the referring court, the subject-matter, the case number) into one line.
func cleanTitle(s string) string { return joinParts(titleParts(s)) }

// shortTitle is the record title of a case-law title of four parts or more: the court and date,
// the parties and the case number, without the referring court and the subject-matter keywords
// (the details keep the whole title).
func shortTitle(s string) string {
	parts := titleParts(s)
	if len(parts) >= 4 {
		parts = []string{parts[0], parts[1], parts[len(parts)-1]}
	}
	return joinParts(parts)
}

func titleParts(s string) []string {
	var out []string
	for _, part := range strings.Split(s, "#") {
		if part = strings.Join(strings.Fields(part), " "); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// joinParts ends every part but the last with a full stop (when it has no closing punctuation).
func joinParts(parts []string) string {
	var b strings.Builder
	for _, part := range parts {
		if b.Len() > 0 {
			if !strings.ContainsAny(b.String()[b.Len()-1:], ".!?;:") {
				b.WriteByte('.')
			}
			b.WriteByte(' ')
		}
		b.WriteString(part)
	}
	return b.String()
}

// cellarError adds the first line of the endpoint's error text (Virtuoso answers errors as
// text/plain, e.g. "Virtuoso 37000 Error SP030: SPARQL compiler, line 4: syntax error …" for a
// refused query or "Virtuoso S1T00 Error SR171: Transaction timed out"). A refused query is this
// adapter's fault, not the caller's: provider_error, not retryable.
func cellarError(err error) error {
	e, ok := providers.AsError(err)
	if !ok {
		return err
	}
	named(e, cellarID, "CELLAR")
	if e.UpstreamStatus == 0 || e.UpstreamStatus == http.StatusTooManyRequests {
		return e
	}
	line := firstLine(e.Body)
	if e.UpstreamStatus >= 400 && e.UpstreamStatus < 500 {
		e = (&providers.Error{Code: providers.CodeProviderError, Message: "CELLAR refused the SPARQL query",
			UpstreamStatus: e.UpstreamStatus, Body: e.Body}).WithRetryable(false)
	}
	if line != "" {
		e.Message += ": " + line
	}
	return e
}

// firstLine is the first non-blank line of a plain-text error body (HTML pages say nothing useful).
func firstLine(body []byte) string {
	text := strings.TrimSpace(string(body))
	if text == "" || strings.HasPrefix(text, "<") {
		return ""
	}
	if d := errorDetail(body); d != "" && strings.HasPrefix(text, "{") {
		return d
	}
	line, _, _ := strings.Cut(text, "\n")
	return providers.Clip(strings.TrimSpace(line), 200)
}
