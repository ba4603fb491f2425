package patents

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// SerpApi engines and the bounds the spec leaves to the adapter (see doc.go).
const (
	searchEngine  = "google_patents"
	detailsEngine = "google_patents_details"
	sourceName    = "google_patents" // record key source
	siteURL       = "https://patents.google.com"

	minUpstreamNum = 10 // SerpApi google_patents num: minimum 10, maximum 100
	maxClaims      = 20 // claims returned by details
	maxCitations   = 20 // entries per citation list returned by details
	defaultDateKey = "priority"
)

// patentIDPattern is a Google Patents id as SerpApi's search answers it and its details engine takes
// it: patent/<publication number>[/<language>], e.g. patent/US8110241B2/en.
var patentIDPattern = regexp.MustCompile(`^patent/[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z]{2})?$`)

// Search is patents.search (spec section 4.29).
var Search = &providers.Capability{
	ID:      "patents.search",
	Fresh:   24 * time.Hour,
	Title:   "Patent search",
	Summary: "Search patents and published patent applications worldwide (Google Patents) by keywords, office, status, type, people and dates.",
	Description: "Searches Google Patents (through SerpApi) for patents and published applications. `query` is " +
		"free text and accepts Google Patents search syntax (for example `(coffee) OR (tea)`, or several " +
		"terms separated by `;`). Optional filters: `countries` (patent offices by two-letter code, e.g. " +
		"US, EP, WO, CN, JP), `status` (GRANT or APPLICATION), `patent_type` (PATENT or DESIGN), `inventor` " +
		"and `assignee` (names; several names may be separated by commas, a name that contains a comma is " +
		"wrapped in parentheses), `before` and `after` (a date YYYYMMDD, optionally prefixed with the date " +
		"it applies to: priority:, filing: or publication:; without a prefix the priority date is used) " +
		"and `sort` (relevance, the default, or new / old by filing date). " +
		"`num` sets the page size (1 to 25, default 10). Each record is one patent publication: title, url " +
		"(its Google Patents page), snippet, and the keys publication_number (always), priority_date, " +
		"filing_date, publication_date (YYYY-MM-DD), inventor, assignee (as Google Patents lists them), " +
		"language, pdf (link to the PDF) when Google Patents has them, and source (always google_patents). " +
		"Follow-ups: more (next provider page), update (change any request field; paging restarts) and the " +
		"record action details ($0.004 per fresh lookup, cached on repeat): bibliographic data, the " +
		"abstract, the first 20 claims (with the total count) and citations (the patents it cites and the " +
		"patents citing it: counts and up to 20 entries each) when Google Patents supplies them, with links " +
		"to the patent page and its PDF.",
	Topic:   "Research and reading",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingPage,
	Actions: []providers.Action{{
		Name: "details",
		Description: "Google Patents' full record of the patent: bibliographic data (publication and application " +
			"numbers, country, inventors, assignees, dates), the abstract, the first 20 claims with the total " +
			"count, and citations (patents cited and citing patents: counts and up to 20 entries each) when " +
			"supplied; links to the patent page and the PDF. $0.004 per fresh request, cached on repeat.",
		Kind:    providers.ActionLookup,
		Credits: 4,
		Run:     details,
	}},
	Cost: providers.Cost{
		Typical: 4,
		Basis:   "$0.004 per SerpApi search page and per fresh details lookup; cached details are free",
	},
	Deadline:  40 * time.Second,
	Providers: []string{serpapi.ProviderID},
	Examples: []providers.Example{
		{Title: "Patents about a technology, five per page", Body: providers.ExampleBody(`{"query": "coffee foam", "num": 5}`)},
		{Title: "Granted US and European patents since 2018, newest first", Body: providers.ExampleBody(`{"query": "lithium battery electrode", "countries": ["US", "EP"], "status": "GRANT", "after": "priority:20180101", "sort": "new"}`)},
		{Title: "Design patents of an assignee filed before 2023", Body: providers.ExampleBody(`{"query": "drone", "assignee": "Amazon Technologies", "patent_type": "DESIGN", "before": "filing:20221231"}`)},
	},
	Record:  PatentRecord{},
	Execute: search,
}

// PatentRecord is a patents.search record; a key Google Patents does not supply is absent.
type PatentRecord struct {
	PublicationNumber string `json:"publication_number" doc:"e.g. US10123456B2"`
	Source            string `json:"source"`
	PriorityDate      string `json:"priority_date,omitempty"`
	FilingDate        string `json:"filing_date,omitempty"`
	PublicationDate   string `json:"publication_date,omitempty"`
	Inventor          string `json:"inventor,omitempty"`
	Assignee          string `json:"assignee,omitempty"`
	Language          string `json:"language,omitempty"`
	PDF               string `json:"pdf,omitempty" doc:"the patent's PDF"`
}

// PatentDetail is the details answer; fields in key order (a detail is written in declared order).
type PatentDetail struct {
	Abstract          string     `json:"abstract,omitempty"`
	ApplicationNumber string     `json:"application_number,omitempty"`
	Assignees         []string   `json:"assignees,omitempty"`
	Citations         *Citations `json:"citations,omitempty"`
	Claims            []string   `json:"claims,omitempty"`
	ClaimsTotal       int        `json:"claims_total,omitempty"`
	Country           string     `json:"country,omitempty"`
	FamilyID          string     `json:"family_id,omitempty"`
	FilingDate        string     `json:"filing_date,omitempty"`
	Inventors         []string   `json:"inventors,omitempty"`
	PatentID          string     `json:"patent_id"`
	PriorityDate      string     `json:"priority_date,omitempty"`
	PublicationDate   string     `json:"publication_date,omitempty"`
	PublicationNumber string     `json:"publication_number,omitempty"`
	Title             string     `json:"title,omitempty"`
	Type              string     `json:"type,omitempty"`
}

// Citations are the patents a patent cites and those citing it.
type Citations struct {
	CitedBy         *CitationSummary `json:"cited_by,omitempty"`
	PatentCitations *CitationSummary `json:"patent_citations,omitempty"`
}

// CitationSummary counts a citation list and shows its first entries.
type CitationSummary struct {
	Entries             []Citation `json:"entries"`
	FamilyToFamilyTotal int        `json:"family_to_family_total"`
	Total               int        `json:"total"`
}

// Citation is one cited or citing patent.
type Citation struct {
	Assignee          string `json:"assignee,omitempty"`
	ExaminerCited     *bool  `json:"examiner_cited,omitempty"`
	PriorityDate      string `json:"priority_date,omitempty"`
	PublicationDate   string `json:"publication_date,omitempty"`
	PublicationNumber string `json:"publication_number,omitempty"`
	Title             string `json:"title,omitempty"`
	URL               string `json:"url,omitempty"`
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "patents.search request",
  "description": "Search patents and published applications on Google Patents. Only query is required; every other field narrows or orders the results.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500,
      "pattern": "\\S",
      "description": "What to search for: keywords or Google Patents search syntax, for example \"(coffee) OR (tea)\"; several search terms may be separated by \";\". Must not be blank."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 25,
      "default": 10,
      "description": "Results per page, 1 to 25."
    },
    "countries": {
      "type": "array",
      "minItems": 1,
      "maxItems": 20,
      "uniqueItems": true,
      "items": {
        "type": "string",
        "pattern": "^[A-Za-z]{2}$",
        "description": "A patent office as Google Patents codes it, two letters: a country (US, CN, JP, DE, ...) or a regional office (EP, WO)."
      },
      "description": "Only publications of these patent offices (1 to 20 distinct two-letter codes, for example [\"US\", \"EP\"])."
    },
    "status": {
      "type": "string",
      "enum": ["GRANT", "APPLICATION"],
      "description": "Only granted patents (GRANT) or only published applications (APPLICATION)."
    },
    "patent_type": {
      "type": "string",
      "enum": ["PATENT", "DESIGN"],
      "description": "Only utility patents (PATENT) or only design patents (DESIGN)."
    },
    "inventor": {
      "type": "string",
      "minLength": 1,
      "maxLength": 250,
      "pattern": "\\S",
      "description": "Only patents naming this inventor. Several inventors may be separated by commas; wrap a name that contains a comma in parentheses, e.g. \"(Doe, John)\"."
    },
    "assignee": {
      "type": "string",
      "minLength": 1,
      "maxLength": 250,
      "pattern": "\\S",
      "description": "Only patents assigned to this owner (a company or person). Several assignees may be separated by commas; wrap a name that contains a comma in parentheses."
    },
    "before": {
      "type": "string",
      "pattern": "^(?:(?:priority|filing|publication):)?[0-9]{8}$",
      "description": "Latest date of the results (SerpApi's maximum date) as YYYYMMDD, optionally prefixed with the date it applies to: priority:, filing: or publication: (for example \"publication:20231231\"). Without a prefix it applies to the priority date. Must be a real calendar date."
    },
    "after": {
      "type": "string",
      "pattern": "^(?:(?:priority|filing|publication):)?[0-9]{8}$",
      "description": "Earliest date of the results (SerpApi's minimum date) as YYYYMMDD, optionally prefixed with priority:, filing: or publication: (for example \"filing:20180101\"). Without a prefix it applies to the priority date. Must be a real calendar date, and not later than before when both apply to the same date."
    },
    "sort": {
      "type": "string",
      "enum": ["relevance", "new", "old"],
      "description": "Order of the results: relevance (the default when omitted), new (newest filing date first) or old (oldest first)."
    }
  }
}`

// dateBound is a parsed before/after value.
type dateBound struct {
	kind string    // priority, filing or publication
	day  time.Time // the calendar day
}

// parseBound reads "[kind:]YYYYMMDD"; ok is false when the digits are not a real calendar date.
func parseBound(s string) (dateBound, bool) {
	kind, digits := defaultDateKey, s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		kind, digits = s[:i], s[i+1:]
	}
	if len(digits) != 8 {
		return dateBound{}, false
	}
	day, err := time.Parse("20060102", digits)
	// time.Parse checks the month and the day of the month (leap years included); the Gregorian
	// calendar has no year 0.
	if err != nil || day.Year() < 1 {
		return dateBound{}, false
	}
	return dateBound{kind: kind, day: day}, true
}

// upstream renders the bound the way SerpApi takes it: type:YYYYMMDD.
func (b dateBound) upstream() string { return b.kind + ":" + b.day.Format("20060102") }

// rules checks the rules beyond the schema: before and after are real calendar dates, and after is
// not later than before when both apply to the same kind of date.
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	var vs []providers.Violation
	bounds := map[string]dateBound{}
	for _, field := range []string{"before", "after"} {
		s, ok := req.String(field)
		if !ok {
			continue
		}
		b, ok := parseBound(s)
		if !ok {
			vs = append(vs, providers.Violation{Path: "/" + field,
				Message: fmt.Sprintf("%s must be a real calendar date (YYYYMMDD); %q is not", field, s)})
			continue
		}
		bounds[field] = b
	}
	before, hasBefore := bounds["before"]
	after, hasAfter := bounds["after"]
	if hasBefore && hasAfter && before.kind == after.kind && after.day.After(before.day) {
		vs = append(vs, providers.Violation{Path: "/after",
			Message: fmt.Sprintf("after (%s) is later than before (%s): no %s date can match both",
				after.upstream(), before.upstream(), after.kind)})
	}
	return vs
}

// upstreamSize is the SerpApi page size for a caller page size: the smallest multiple of num that
// SerpApi accepts (at least 10). Caller pages then never straddle two upstream pages.
func upstreamSize(num int) int {
	if num < 1 {
		num = 10
	}
	size := num
	for size < minUpstreamNum {
		size += num
	}
	return size
}

// pageState is the opaque paging state: the SerpApi page (1-based) and the index in it where the
// next caller page starts.
type pageState struct {
	Page   int `json:"page"`
	Offset int `json:"offset"`
}

// searchParams builds the SerpApi google_patents parameters of a request and an upstream page.
func searchParams(req providers.Request, size, page int) url.Values {
	q := url.Values{}
	q.Set("q", strings.TrimSpace(req.Str("query")))
	q.Set("num", strconv.Itoa(size))
	if page > 1 {
		q.Set("page", strconv.Itoa(page)) // page 1 is SerpApi's default and is left out
	}
	if countries := countryCodes(req.Strings("countries")); len(countries) > 0 {
		q.Set("country", strings.Join(countries, ","))
	}
	if s := req.Str("status"); s != "" {
		q.Set("status", s)
	}
	if s := req.Str("patent_type"); s != "" {
		q.Set("type", s)
	}
	for _, k := range []string{"inventor", "assignee"} {
		if s := strings.TrimSpace(req.Str(k)); s != "" {
			q.Set(k, s)
		}
	}
	for _, k := range []string{"before", "after"} {
		if b, ok := parseBound(req.Str(k)); ok {
			q.Set(k, b.upstream())
		}
	}
	if s := req.Str("sort"); s == "new" || s == "old" {
		q.Set("sort", s) // relevance is SerpApi's default and has no value of its own
	}
	return q
}

// countryCodes upper-cases the codes and drops duplicates ("us" and "US" are one office).
func countryCodes(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range in {
		c = strings.ToUpper(strings.TrimSpace(c))
		if c != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

func search(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	num, ok := call.Request.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	size := upstreamSize(num)
	st := pageState{Page: 1}
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Page < 1 || st.Offset < 0 || st.Offset >= size {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}

	var body map[string]json.RawMessage
	meta, err := serpapi.Search(ctx, call, searchEngine, searchParams(call.Request, size, st.Page), &body)
	if err != nil {
		return nil, err
	}
	var results []json.RawMessage
	_ = json.Unmarshal(body["organic_results"], &results) // absent, null or not an array: no results
	if len(results) > size {
		results = results[:size]
	}
	out := &providers.Page{Records: []providers.Record{}}
	if meta.NoResults() || len(results) == 0 {
		// An empty answer (SerpApi's "hasn't returned any results", or a page past the end) ends the search.
		return out, nil
	}
	start, end := min(st.Offset, len(results)), min(st.Offset+num, len(results))
	for _, raw := range results[start:end] {
		if rec, ok := patentRecord(raw); ok {
			out.Records = append(out.Records, rec)
		}
	}
	switch {
	case st.Offset+num < len(results):
		out.HasMore = true
		out.Next, _ = json.Marshal(pageState{Page: st.Page, Offset: st.Offset + num})
	case moreUpstreamPages(body, st.Page, size):
		out.HasMore = true
		out.Next, _ = json.Marshal(pageState{Page: st.Page + 1})
	}
	return out, nil
}

// moreUpstreamPages tells whether SerpApi has a page after page: never past
// search_information.total_pages; otherwise the pagination's next link; without a pagination
// object, total_results beyond the pages read so far.
func moreUpstreamPages(body map[string]json.RawMessage, page, size int) bool {
	var info map[string]json.RawMessage
	_ = json.Unmarshal(body["search_information"], &info)
	if total, ok := intOf(info["total_pages"]); ok && page >= total {
		return false
	}
	for _, key := range []string{"pagination", "serpapi_pagination"} {
		var p map[string]json.RawMessage
		if json.Unmarshal(body[key], &p) == nil && p != nil {
			return stringOf(p["next"]) != ""
		}
	}
	if total, ok := intOf(info["total_results"]); ok {
		return total > page*size
	}
	return false
}

// patentRef is a record's Ref: the Google Patents id the details engine takes.
type patentRef struct {
	PatentID string `json:"patent_id"`
}

// patentRecord maps one organic result; ok is false for a scholar result or a result without a
// publication number or patent id.
func patentRecord(raw json.RawMessage) (providers.Record, bool) {
	var r map[string]json.RawMessage
	if json.Unmarshal(raw, &r) != nil || r == nil {
		return providers.Record{}, false
	}
	if scholar, _ := boolOf(r["is_scholar"]); scholar {
		return providers.Record{}, false // only requested patents are records (scholar is off by default)
	}
	patentID := strings.TrimSpace(stringOf(r["patent_id"]))
	if !patentIDPattern.MatchString(patentID) {
		patentID = ""
	}
	number := strings.TrimSpace(stringOf(r["publication_number"]))
	if number == "" && patentID != "" {
		number = strings.Split(patentID, "/")[1]
	}
	if number == "" {
		return providers.Record{}, false
	}
	if patentID == "" && patentIDPattern.MatchString("patent/"+number) {
		patentID = "patent/" + number // the details engine accepts the id without its language
	}

	rec := providers.Record{
		Title:   text(r["title"]),
		Snippet: text(r["snippet"]),
	}
	f := &PatentRecord{PublicationNumber: number, Source: sourceName, PriorityDate: text(r["priority_date"]),
		FilingDate: text(r["filing_date"]), PublicationDate: text(r["publication_date"]), Inventor: text(r["inventor"]),
		Assignee: text(r["assignee"]), Language: text(r["language"])}
	rec.Data = f
	if rec.Title == "" {
		rec.Title = number
	}
	if link := stringOf(r["patent_link"]); isWebURL(link) {
		rec.URL = link
	} else if patentID != "" {
		rec.URL = siteURL + "/" + patentID
	}
	if pdf := stringOf(r["pdf"]); isWebURL(pdf) {
		f.PDF = pdf
	}
	if patentID != "" {
		rec.Ref, _ = json.Marshal(patentRef{PatentID: patentID})
	} else {
		rec.Actions = []string{} // nothing the details engine could look up
	}
	return rec, true
}

// details is the record action: SerpApi's google_patents_details engine for the record's patent id.
func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref patentRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !patentIDPattern.MatchString(ref.PatentID) {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record has no Google Patents id, so it has no details")
	}
	var body map[string]json.RawMessage
	meta, err := serpapi.Search(ctx, call, detailsEngine, url.Values{"patent_id": {ref.PatentID}}, &body)
	if err != nil {
		return nil, err
	}
	if meta.NoResults() {
		return nil, providers.Errorf(providers.CodeNotFound, "Google Patents has no details for %s", ref.PatentID)
	}
	d := patentDetail(ref.PatentID, body)
	if d.onlyID() { // nothing usable came back
		return nil, providers.Errorf(providers.CodeNotFound, "Google Patents has no details for %s", ref.PatentID)
	}
	return &providers.Detail{Body: d, Links: detailLinks(ref.PatentID, rec, body)}, nil
}

// patentDetail builds the detail body; keys are left out when Google Patents does not supply them.
func patentDetail(patentID string, b map[string]json.RawMessage) *PatentDetail {
	d := &PatentDetail{PatentID: patentID, PublicationNumber: text(b["publication_number"]), Title: text(b["title"]),
		Type: text(b["type"]), Country: text(b["country"]), ApplicationNumber: text(b["application_number"]),
		FamilyID: text(b["family_id"]), PriorityDate: text(b["priority_date"]), FilingDate: text(b["filing_date"]),
		PublicationDate: text(b["publication_date"]), Abstract: text(b["abstract"])}
	if names := names(b["inventors"]); len(names) > 0 {
		d.Inventors = names
	}
	if names := names(b["assignees"]); len(names) > 0 {
		d.Assignees = names
	}
	var claims []string
	for _, c := range stringsOf(b["claims"]) {
		if c = strings.TrimSpace(html.UnescapeString(c)); c != "" {
			claims = append(claims, c)
		}
	}
	if len(claims) > 0 {
		d.ClaimsTotal = len(claims)
		d.Claims = claims[:min(len(claims), maxClaims)]
	}
	citations := Citations{PatentCitations: citationSummary(b["patent_citations"]), CitedBy: citationSummary(b["cited_by"])}
	if citations.PatentCitations != nil || citations.CitedBy != nil {
		d.Citations = &citations
	}
	return d
}

// onlyID tells whether the detail holds nothing but the patent id.
func (d *PatentDetail) onlyID() bool {
	return d.Abstract == "" && d.ApplicationNumber == "" && d.Assignees == nil && d.Citations == nil && d.Claims == nil &&
		d.Country == "" && d.FamilyID == "" && d.FilingDate == "" && d.Inventors == nil && d.PriorityDate == "" &&
		d.PublicationDate == "" && d.PublicationNumber == "" && d.Title == "" && d.Type == ""
}

// citationSummary reads {original: [...], family_to_family: [...]}: the count of each list and up
// to maxCitations entries of original (or of family_to_family when original is empty).
func citationSummary(raw json.RawMessage) *CitationSummary {
	var lists struct {
		Original       []json.RawMessage `json:"original"`
		FamilyToFamily []json.RawMessage `json:"family_to_family"`
	}
	if json.Unmarshal(raw, &lists) != nil || (len(lists.Original) == 0 && len(lists.FamilyToFamily) == 0) {
		return nil
	}
	out := &CitationSummary{Total: len(lists.Original), FamilyToFamilyTotal: len(lists.FamilyToFamily), Entries: []Citation{}}
	src := lists.Original
	if len(src) == 0 {
		src = lists.FamilyToFamily
	}
	for _, e := range src {
		if len(out.Entries) == maxCitations {
			break
		}
		if c, ok := citation(e); ok {
			out.Entries = append(out.Entries, c)
		}
	}
	return out
}

func citation(raw json.RawMessage) (Citation, bool) {
	var c map[string]json.RawMessage
	if json.Unmarshal(raw, &c) != nil || c == nil {
		return Citation{}, false
	}
	out := Citation{PublicationNumber: text(c["publication_number"]), Title: text(c["title"]),
		PriorityDate: text(c["priority_date"]), PublicationDate: text(c["publication_date"]),
		Assignee: text(c["assignee_original"])}
	if v, ok := boolOf(c["examiner_cited"]); ok {
		out.ExaminerCited = &v
	}
	if id := stringOf(c["patent_id"]); patentIDPattern.MatchString(id) {
		out.URL = siteURL + "/" + id
	}
	if out.PublicationNumber == "" && out.Title == "" {
		return Citation{}, false
	}
	return out, true
}

// detailLinks are the patent's Google Patents page and its PDF.
func detailLinks(patentID string, rec *providers.Record, b map[string]json.RawMessage) []providers.Link {
	page := rec.URL
	if !strings.HasPrefix(page, siteURL+"/") {
		page = siteURL + "/" + patentID
	}
	links := []providers.Link{{Label: "Google Patents page", URL: page}}
	pdf := stringOf(b["pdf"])
	if !isWebURL(pdf) {
		pdf, _ = rec.Fields["pdf"].(string)
	}
	if isWebURL(pdf) {
		links = append(links, providers.Link{Label: "PDF", URL: pdf})
	}
	return links
}

// --- lenient readers: a field of an unexpected JSON type is treated as absent.

func stringOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// text reads a display string: HTML entities (SerpApi keeps "&hellip;" in titles and snippets)
// decoded, whitespace trimmed.
func text(raw json.RawMessage) string {
	return strings.TrimSpace(html.UnescapeString(stringOf(raw)))
}

func stringsOf(raw json.RawMessage) []string {
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		if s := stringOf(v); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// names reads a list of people or companies: strings, or objects with a name (inventors come as
// [{name, link, serpapi_link}], assignees as strings).
func names(raw json.RawMessage) []string {
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return nil
	}
	var out []string
	for _, v := range arr {
		s := text(v)
		if s == "" {
			var o map[string]json.RawMessage
			if json.Unmarshal(v, &o) == nil {
				s = text(o["name"])
			}
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func boolOf(raw json.RawMessage) (bool, bool) {
	var b bool
	if json.Unmarshal(raw, &b) != nil || len(raw) == 0 || string(raw) == "null" {
		return false, false
	}
	return b, true
}

func intOf(raw json.RawMessage) (int, bool) {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		return 0, false
	}
	return int(i), true
}

func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
