package openalex

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Bounds the spec leaves to the adapter (see doc.go).
const (
	maxAuthors     = 20    // authors[] of a record
	snippetRunes   = 300   // abstract excerpt of a record
	maxPagedResult = 10000 // OpenAlex basic paging: page × per_page must not exceed 10,000
	maxPage        = 500   // OpenAlex documents page as 1..500
)

// noteUnreachable explains a has_more cut short by OpenAlex's basic paging bounds.
const noteUnreachable = "OpenAlex pages through only the first 10,000 results of a search (page × per_page ≤ 10,000, " +
	"at most 500 pages); narrow the query or the year range to reach the rest."

// searchSelect are the root-level Work fields requested with select=: exactly the ones a record maps.
var searchSelect = []string{
	"id", "doi", "display_name", "title", "publication_year", "type", "primary_location",
	"authorships", "cited_by_count", "open_access", "abstract_inverted_index",
}

// detailSelect are the Work fields the details lookup maps.
var detailSelect = []string{
	"id", "doi", "display_name", "title", "publication_year", "publication_date", "type",
	"primary_location", "best_oa_location", "open_access", "cited_by_count", "counts_by_year",
	"abstract_inverted_index",
}

// sortParam maps the body's sort to OpenAlex's sort parameter (relevance_score needs a search,
// which every academic.search call has).
var sortParam = map[string]string{
	"relevance": "relevance_score:desc",
	"cited":     "cited_by_count:desc",
	"recent":    "publication_date:desc",
}

var workIDPattern = regexp.MustCompile(`^W[0-9]+$`)

// AcademicSearch is academic.search (spec 4.11).
var AcademicSearch = &providers.Capability{
	ID:      "academic.search",
	Fresh:   24 * time.Hour,
	Title:   "Scholarly works search",
	Summary: "Search OpenAlex's index of scholarly works (articles, books, preprints, datasets) by keywords.",
	Description: "Searches OpenAlex, an open index of hundreds of millions of scholarly works, by free-text " +
		"keywords (matched against titles, abstracts and full text), optionally limited to a publication " +
		"year range and to open-access works, sorted by relevance, citation count or publication date. " +
		"Each record is one work: title, url (the DOI link, or the work's OpenAlex page when it has no " +
		"DOI), snippet (the start of the abstract, when OpenAlex has one) and openalex_id (string, always: " +
		"the OpenAlex work id such as W2741809807), plus, when OpenAlex has them, year (integer), venue " +
		"(string, journal or repository), authors (string[], the first 20), cited_by (integer), type " +
		"(string, e.g. article, preprint, book-chapter), open_access (boolean), oa_url (string, best " +
		"open-access copy) and doi (string, the bare DOI such as 10.7717/peerj.4375). Follow-ups: more " +
		"(next provider page; OpenAlex pages through the first 10,000 results only), update (change the " +
		"query or filters), and the record action details (free): the full abstract, the citation count " +
		"with citations per year, the open-access status and PDF, and the landing page, with links. " +
		"Details need the record's OpenAlex id; a record without one is refused.",
	Topic:   "Research and reading",
	Request: academicRequestSchema,
	Rules:   academicRules,
	Paging:  providers.PagingPage,
	Cost: providers.Cost{Typical: 0, Basis: "No credits. OpenAlex meters its API against the deployment's key: " +
		"each search page is a full-text search at US$1 per 1,000 calls (about 1,000 pages a day on a free key's $1 daily allowance, " +
		"then pay as you go), and details are free single-work lookups."},
	Deadline:  15 * time.Second,
	Providers: []string{ProviderID},
	Actions: []providers.Action{{
		Name: "details",
		Description: "OpenAlex's record of the work: the full abstract, citation count and citations per year, " +
			"open-access status, PDF and copy, and the landing page, with links. Free. Needs the record's " +
			"OpenAlex id.",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     workDetails,
	}},
	Examples: []providers.Example{
		{Title: "Most relevant works on a topic, five per page", Body: providers.ExampleBody(`{"query": "open access citation advantage", "num": 5}`)},
		{Title: "Most cited works of a period", Body: providers.ExampleBody(`{"query": "CRISPR genome editing", "from_year": 2015, "to_year": 2020, "sort": "cited"}`)},
		{Title: "Newest open-access works", Body: providers.ExampleBody(`{"query": "large language models", "open_access_only": true, "sort": "recent", "num": 3}`)},
	},
	Execute: searchWorks,
	Record:  WorkRecord{},
}

// WorkRecord is an academic.search record (besides title, url and snippet).
type WorkRecord struct {
	OpenAlexID string   `json:"openalex_id,omitempty" doc:"the OpenAlex work id, e.g. W2741809807"`
	Year       *int     `json:"year,omitempty" doc:"publication year"`
	Venue      string   `json:"venue,omitempty" doc:"journal or repository"`
	Authors    []string `json:"authors,omitempty" doc:"the first 20"`
	CitedBy    *int     `json:"cited_by,omitempty"`
	Type       string   `json:"type,omitempty" doc:"e.g. article, preprint, book-chapter"`
	OpenAccess *bool    `json:"open_access,omitempty"`
	OAURL      string   `json:"oa_url,omitempty" doc:"best open-access copy"`
	DOI        string   `json:"doi,omitempty" doc:"the bare DOI, e.g. 10.7717/peerj.4375"`
}

// WorkDetail is the body of the details action; fields are declared in key order, as
// encoding/json writes them in declared order.
type WorkDetail struct {
	Abstract        string          `json:"abstract,omitempty"`
	CitedByCount    *int            `json:"cited_by_count,omitempty"`
	CountsByYear    []YearCount     `json:"counts_by_year"`
	DOI             string          `json:"doi,omitempty"`
	LandingPageURL  string          `json:"landing_page_url,omitempty"`
	OpenAccess      *OpenAccessInfo `json:"open_access,omitempty"`
	OpenAlexID      string          `json:"openalex_id"`
	OpenAlexURL     string          `json:"openalex_url"`
	PublicationDate string          `json:"publication_date,omitempty"`
	PublicationYear *int            `json:"publication_year,omitempty"`
	Title           string          `json:"title,omitempty"`
	Type            string          `json:"type,omitempty"`
	Venue           string          `json:"venue,omitempty"`
}

// YearCount is one counts_by_year entry of a detail (fields in key order).
type YearCount struct {
	CitedByCount int `json:"cited_by_count"`
	Year         int `json:"year"`
}

// OpenAccessInfo is a detail's open_access object (fields in key order).
type OpenAccessInfo struct {
	IsOA     *bool  `json:"is_oa,omitempty"`
	License  string `json:"license,omitempty"`
	OAStatus string `json:"oa_status,omitempty"`
	OAURL    string `json:"oa_url,omitempty"`
	PDFURL   string `json:"pdf_url,omitempty"`
	Version  string `json:"version,omitempty"`
}

func ptr[T any](v T) *T { return &v }

const academicRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "academic.search request",
  "description": "Search OpenAlex's index of scholarly works by keywords, optionally within a publication year range and limited to open-access works.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500,
      "pattern": "\\S",
      "description": "Free-text keywords matched against the titles, abstracts and full texts of works. OpenAlex refuses the | operator and words starting with !."
    },
    "from_year": {
      "type": "integer",
      "minimum": 1000,
      "maximum": 2100,
      "description": "Earliest publication year to include (inclusive). Must not be after to_year."
    },
    "to_year": {
      "type": "integer",
      "minimum": 1000,
      "maximum": 2100,
      "description": "Latest publication year to include (inclusive)."
    },
    "open_access_only": {
      "type": "boolean",
      "default": false,
      "description": "Only works that are free to read somewhere (OpenAlex's open_access.is_oa)."
    },
    "sort": {
      "type": "string",
      "enum": ["relevance", "cited", "recent"],
      "default": "relevance",
      "description": "Order of results: relevance to the query, most cited first, or most recently published first."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 25,
      "default": 10,
      "description": "Results per page (1 to 25)."
    }
  }
}`

// academicRules: a year range must not run backwards (the spec lists no rule for academic.search,
// but a reversed range can only ever answer nothing).
func academicRules(req providers.Request, _ *providers.Update) []providers.Violation {
	from, okFrom := req.Int("from_year")
	to, okTo := req.Int("to_year")
	if okFrom && okTo && from > to {
		return []providers.Violation{{Path: "/from_year",
			Message: fmt.Sprintf("from_year (%d) must not be after to_year (%d)", from, to)}}
	}
	return nil
}

// pageState is the opaque paging state: the OpenAlex page number (1-based) to fetch.
type pageState struct {
	Page int `json:"page"`
}

// searchQuery builds the /works query of one page.
func searchQuery(req providers.Request, page, perPage int) url.Values {
	q := url.Values{}
	q.Set("search", strings.TrimSpace(req.Str("query")))
	if f := filterParam(req); f != "" {
		q.Set("filter", f)
	}
	sort, ok := sortParam[req.Str("sort")]
	if !ok {
		sort = sortParam["relevance"]
	}
	q.Set("sort", sort)
	q.Set("page", strconv.Itoa(page))
	q.Set("per_page", strconv.Itoa(perPage))
	q.Set("select", strings.Join(searchSelect, ","))
	return q
}

// filterParam is OpenAlex's filter=: the publication year range (a closed range A-B, an exact
// year, or the documented > / < forms for an open end) and is_oa:true.
func filterParam(req providers.Request) string {
	var parts []string
	from, okFrom := req.Int("from_year")
	to, okTo := req.Int("to_year")
	switch {
	case okFrom && okTo && from == to:
		parts = append(parts, fmt.Sprintf("publication_year:%d", from))
	case okFrom && okTo:
		parts = append(parts, fmt.Sprintf("publication_year:%d-%d", from, to))
	case okFrom:
		parts = append(parts, fmt.Sprintf("publication_year:>%d", from-1))
	case okTo:
		parts = append(parts, fmt.Sprintf("publication_year:<%d", to+1))
	}
	if oa, _ := req.Bool("open_access_only"); oa {
		parts = append(parts, "is_oa:true")
	}
	return strings.Join(parts, ",")
}

// pageReachable tells whether OpenAlex's basic paging serves page p of per results.
func pageReachable(p, per int) bool { return p <= maxPage && p*per <= maxPagedResult }

func searchWorks(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	page := 1
	if len(call.State) > 0 {
		var st pageState
		if err := json.Unmarshal(call.State, &st); err != nil || st.Page < 1 {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
		page = st.Page
	}
	num, ok := call.Request.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	var body struct {
		Meta lenient.Opt[struct {
			Count optInt `json:"count"`
		}] `json:"meta"`
		Results lenient.Opt[[]json.RawMessage] `json:"results"`
	}
	if err := call.Upstream(ProviderID).GetJSON(ctx, "/works", searchQuery(call.Request, page, num), &body); err != nil {
		return nil, upstreamError(err, "/query")
	}
	results := body.Results.V
	out := &providers.Page{Records: make([]providers.Record, 0, len(results))}
	for _, raw := range results {
		if rec, ok := workRecord(raw); ok {
			out.Records = append(out.Records, rec)
		}
	}
	more := len(results) > 0
	if count := body.Meta.V.Count; count.OK {
		more = more && count.V > page*num
	} else {
		more = more && len(results) >= num // no count: only a full page may have a successor
	}
	if more && !pageReachable(page+1, num) {
		more = false
		out.Notes = append(out.Notes, noteUnreachable)
	}
	out.HasMore = more
	if more {
		out.Next, _ = json.Marshal(pageState{Page: page + 1})
	}
	return out, nil
}

// workRecord maps one Work of a /works answer to a record; ok is false when the work has neither
// a title nor an id (or is not an object).
func workRecord(raw json.RawMessage) (providers.Record, bool) {
	var w work
	if lenient.Unmarshal(raw, &w) != nil {
		return providers.Record{}, false
	}
	id := workID(string(w.ID))
	title := w.title()
	if title == "" {
		if id == "" {
			return providers.Record{}, false
		}
		title = "Untitled work " + id
	}
	data := &WorkRecord{OpenAlexID: id}
	rec := providers.Record{Title: title, Data: data}
	doi := bareDOI(string(w.DOI))
	switch {
	case doi != "":
		rec.URL = doiURL(doi)
	case id != "":
		rec.URL = siteURL + "/" + id
	}
	if id != "" {
		rec.Ref, _ = json.Marshal(workRef{ID: id})
	} else {
		rec.Actions = []string{} // no OpenAlex id: details cannot be looked up
	}
	if abs := rebuildAbstract(w.AbstractInvertedIndex); abs != "" {
		rec.Snippet = providers.ClipLine(abs, snippetRunes)
	}
	if w.PublicationYear.OK {
		data.Year = ptr(w.PublicationYear.V)
	}
	data.Venue = w.venue()
	data.Authors = w.authors(maxAuthors)
	if w.CitedByCount.OK && w.CitedByCount.V >= 0 {
		data.CitedBy = ptr(w.CitedByCount.V)
	}
	data.Type = string(w.Type)
	oa := w.OpenAccess.V
	if oa.IsOA.OK {
		data.OpenAccess = ptr(oa.IsOA.V)
	}
	data.OAURL = webURL(string(oa.OAURL))
	data.DOI = doi
	return rec, true
}

// workRef is the record's Ref: the work's OpenAlex id, all the details lookup needs.
type workRef struct {
	ID string `json:"id"`
}

// workID turns "https://openalex.org/W2741809807" (or the bare "W2741809807") into the W-id, or "".
func workID(s string) string {
	s = strings.TrimSpace(s)
	for _, prefix := range []string{"https://openalex.org/works/", "https://openalex.org/", "http://openalex.org/"} {
		if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
			s = s[len(prefix):]
			break
		}
	}
	if strings.HasPrefix(s, "w") {
		s = "W" + s[1:]
	}
	if workIDPattern.MatchString(s) {
		return s
	}
	return ""
}

// bareDOI turns OpenAlex's DOI URL ("https://doi.org/10.7717/peerj.4375") into the DOI itself, or "".
func bareDOI(s string) string {
	s = strings.TrimSpace(s)
	for _, prefix := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"} {
		if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
			s = s[len(prefix):]
			break
		}
	}
	if !strings.HasPrefix(s, "10.") || !strings.Contains(s, "/") || strings.ContainsAny(s, " \t\n") {
		return ""
	}
	return s
}

func doiURL(doi string) string { return "https://doi.org/" + doi }

// webURL returns s when it is an absolute http(s) URL, else "".
func webURL(s string) string {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ""
	}
	return s
}

// upstreamError maps OpenAlex's refusals, documented as {"error": ..., "message": ...} bodies:
// 400 for a bad parameter (a search the query syntax refuses becomes invalid_request at
// queryPath), 401 for an unknown or expired API key, 403 for a throttled client ("rate limit
// exceeded; slow down") or a parameter that needs a key; 429 for the per-second throttle
// (rate_limited), the daily budget ("Insufficient budget ... Resets at midnight UTC":
// provider_allowance until midnight UTC) or a parameter the plan lacks ("Plan upgrade required").
// 5xx are mapped by the client.
func upstreamError(err error, queryPath string) error {
	e, ok := providers.AsError(err)
	if !ok {
		return err
	}
	var body struct {
		Error   lenient.Str `json:"error"`
		Message lenient.Str `json:"message"`
	}
	_ = json.Unmarshal(e.Body, &body)
	text := string(body.Message)
	if text == "" {
		text = string(body.Error)
	}
	switch e.UpstreamStatus {
	case http.StatusBadRequest:
		if queryPath != "" && strings.Contains(strings.ToLower(string(body.Message)), "search") {
			return providers.InvalidField(queryPath, "OpenAlex refused the query: "+string(body.Message)).
				WithHint("Remove the | operator and any word starting with !, then search again.")
		}
		if text != "" {
			return providers.Errorf(providers.CodeProviderError, "openalex refused the request: %s", text).WithRetryable(false)
		}
	case http.StatusUnauthorized:
		msg := "openalex refused this deployment's API key"
		if text != "" {
			msg += ": " + text
		}
		return providers.Errorf(providers.CodeProviderError, "%s", msg).WithRetryable(false).
			WithHint("The gateway operator must set a valid PROVIDER_OPENALEX_KEY.")
	case http.StatusForbidden:
		// OpenAlex documents 403 as "rate limit exceeded; slow down"; its proxy also answers 403
		// to a parameter that needs an API key, which no retry fixes.
		if text == "" || strings.Contains(strings.ToLower(string(body.Error)+" "+string(body.Message)), "rate limit") {
			return &providers.Error{Code: providers.CodeRateLimited, Message: "openalex is rate limiting this gateway; retry shortly",
				RetryAfter: time.Second, UpstreamStatus: e.UpstreamStatus, Body: e.Body, Cause: err}
		}
		return providers.Errorf(providers.CodeProviderError, "openalex refused the request: %s", text).WithRetryable(false)
	case http.StatusTooManyRequests:
		return tooManyRequests(e, string(body.Error), text, err)
	}
	return err
}

// tooManyRequests tells OpenAlex's three 429 answers apart by their documented bodies.
func tooManyRequests(e *providers.Error, kind, text string, cause error) error {
	low := strings.ToLower(text)
	switch {
	case strings.EqualFold(kind, "Plan upgrade required"):
		return providers.Errorf(providers.CodeProviderError, "openalex refused a parameter this deployment's plan lacks: %s", text).
			WithRetryable(false)
	case strings.Contains(low, "budget") || strings.Contains(low, "daily") || strings.Contains(low, "midnight"):
		wait := untilMidnightUTC(time.Now())
		return &providers.Error{Code: providers.CodeProviderAllowance, RetryAfter: wait, UpstreamStatus: e.UpstreamStatus, Body: e.Body, Cause: cause,
			Message: "openalex's daily allowance for this gateway's API key is used up; it resets at midnight UTC",
			Hint:    "The gateway operator can add funds to the OpenAlex account of PROVIDER_OPENALEX_KEY."}
	}
	wait := e.RetryAfter
	if wait <= 0 || wait > time.Minute {
		wait = time.Second
	}
	return &providers.Error{Code: providers.CodeRateLimited, Message: "openalex is rate limiting this gateway; retry shortly",
		RetryAfter: wait, UpstreamStatus: e.UpstreamStatus, Body: e.Body, Cause: cause}
}

// untilMidnightUTC is how long until OpenAlex's daily budget resets.
func untilMidnightUTC(now time.Time) time.Duration {
	now = now.UTC()
	return now.Truncate(24 * time.Hour).Add(24 * time.Hour).Sub(now)
}
