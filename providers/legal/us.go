package legal

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/upstream/courtlistener"
)

const (
	// clSite is CourtListener's public site: search results carry paths (absolute_url) under it.
	clSite       = "https://www.courtlistener.com"
	clSearchPath = courtlistener.APIPrefix + "search/"
	locItemURL   = "https://www.loc.gov/item/"

	usSource      = "courtlistener"
	usSourceClass = "reproduction" // a non-profit's collection of court opinions, not the official reporter
	usKind        = "judicial_opinion"

	// lastLoCVolume is the last U.S. Reports volume in the Library of Congress collection that
	// legal.read's us_reports source reads (volumes 1-542, 1754-2003).
	lastLoCVolume = 542
	// maxOffset bounds the offset of a stored paging state inside one CourtListener page.
	maxOffset = 1000
)

// jurisdictionClauses express courts federal / state as a filter on the court_jurisdiction keyword
// of CourtListener's case-law index (the Court model's jurisdiction codes). Tribal, territorial,
// military, international and committee bodies, and state attorneys general, are in neither.
var jurisdictionClauses = map[string]string{
	"federal": "court_jurisdiction:(F OR FD OR FB OR FBP OR FS)",
	"state":   "court_jurisdiction:(S OR SA OR ST OR SS)",
}

// usReportsCite matches a U.S. Reports citation, with or without a nominative reporter:
// "381 U.S. 479", "17 U.S. (4 Wheat.) 316".
var usReportsCite = regexp.MustCompile(`^(\d{1,3}) U\.\s?S\. (?:\([^)]{1,40}\) )?(\d{1,4})$`)

// datePrefix matches the date part of dateFiled ("2003-01-10", or a date-time in older answers).
var datePrefix = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

var digits = regexp.MustCompile(`^[0-9]{1,25}$`)

// usState is the paging state: the CourtListener cursor of the provider page (none for the first)
// and the index in that page where the caller's page starts.
type usState struct {
	Cursor string `json:"cursor,omitempty"`
	Offset int    `json:"offset,omitempty"`
}

// clSearch is the v4 search answer (https://www.courtlistener.com/help/api/rest/search/).
type clSearch struct {
	Count   lenient.Int            `json:"count"`
	Next    lenient.Str            `json:"next"`
	Results lenient.List[clResult] `json:"results"`
}

type clResult struct {
	AbsoluteURL   lenient.Str               `json:"absolute_url"`
	CaseName      lenient.Str               `json:"caseName"`
	CaseNameFull  lenient.Str               `json:"caseNameFull"`
	Citation      lenient.List[lenient.Str] `json:"citation"`
	CiteCount     lenient.Int               `json:"citeCount"`
	ClusterID     lenient.ID                `json:"cluster_id"`
	Court         lenient.Str               `json:"court"`
	CourtCitation lenient.Str               `json:"court_citation_string"`
	CourtID       lenient.Str               `json:"court_id"`
	DateArgued    lenient.Str               `json:"dateArgued"`
	DateFiled     lenient.Str               `json:"dateFiled"`
	DocketNumber  lenient.Str               `json:"docketNumber"`
	DocketID      lenient.ID                `json:"docket_id"`
	Judge         lenient.Str               `json:"judge"`
	Opinions      lenient.List[clOpinion]   `json:"opinions"`
	Status        lenient.Str               `json:"status"`
	SuitNature    lenient.Str               `json:"suitNature"`
}

type clOpinion struct {
	ID        lenient.ID   `json:"id"`
	Type      lenient.Str  `json:"type"`
	AuthorID  lenient.ID   `json:"author_id"`
	PerCuriam lenient.Bool `json:"per_curiam"`
}

// usParams are the search's query parameters (the cursor is added per page).
func usParams(s providers.Request) url.Values {
	q := strings.TrimSpace(s.Str("query"))
	courts := s.Str("courts")
	if courts == "" {
		courts = defaultCourts
	}
	if clause, ok := jurisdictionClauses[courts]; ok {
		q = "(" + q + ") AND " + clause
	}
	v := url.Values{"type": {"o"}, "q": {q}}
	if y, ok := s.Int("from_year"); ok {
		v.Set("filed_after", fmt.Sprintf("%04d-01-01", y))
	}
	if y, ok := s.Int("to_year"); ok {
		v.Set("filed_before", fmt.Sprintf("%04d-12-31", y))
	}
	return v
}

func searchUS(ctx context.Context, call *providers.Call, s providers.Request, num int) (*providers.Page, error) {
	var st usState
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Offset < 0 || st.Offset > maxOffset {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}
	q := usParams(s)
	if st.Cursor != "" {
		q.Set("cursor", st.Cursor)
	}
	var body clSearch
	if err := call.Upstream(courtlistener.ProviderID).GetJSON(ctx, clSearchPath, q, &body); err != nil {
		return nil, courtListenerError(err, st.Cursor != "")
	}
	if body.Results == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "CourtListener answered the search without results")
	}
	results := body.Results
	start, end := min(st.Offset, len(results)), min(st.Offset+num, len(results))
	out := &providers.Page{Records: []providers.Record{}}
	for _, r := range results[start:end] {
		if rec, ok := usRecord(r); ok {
			out.Records = append(out.Records, rec)
		}
	}
	switch next := nextCursor(string(body.Next)); {
	case end < len(results):
		out.HasMore = true
		out.Next, _ = json.Marshal(usState{Cursor: st.Cursor, Offset: end})
	case next != "":
		out.HasMore = true
		out.Next, _ = json.Marshal(usState{Cursor: next})
	case body.Next != "":
		out.Notes = append(out.Notes, "CourtListener announced more results without a paging cursor; the search ends here.")
	}
	return out, nil
}

// nextCursor reads the cursor parameter of the v4 next link.
func nextCursor(next string) string {
	if next == "" {
		return ""
	}
	u, err := url.Parse(next)
	if err != nil {
		return ""
	}
	return u.Query().Get("cursor")
}

// usRecord maps one search result; a result without a numeric cluster id cannot be identified or
// read and is left out.
func usRecord(r clResult) (providers.Record, bool) {
	id := string(r.ClusterID)
	if !digits.MatchString(id) {
		return providers.Record{}, false
	}
	title := firstOf(string(r.CaseName), string(r.CaseNameFull))
	if title == "" {
		title = "CourtListener case " + id
	}
	var citations []string
	for _, c := range r.Citation {
		if c != "" {
			citations = append(citations, string(c))
		}
	}
	read, alternatives, itemID := usReadRequests(id, citations)
	date := datePrefix.FindString(string(r.DateFiled))
	fields := &LegalRecord{Identifier: id, Source: usSource, SourceClass: usSourceClass, DocumentKind: usKind, FullText: read,
		Court: string(r.Court), Date: date, Citations: citations, DocketNumber: string(r.DocketNumber)}

	rec := providers.Record{Title: providers.Clip(title, maxTitle), Data: fields}
	if p := string(r.AbsoluteURL); strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
		rec.URL = clSite + p
	}

	detail := &LegalDetail{Jurisdiction: "us", Source: usSource, SourceClass: usSourceClass, Identifier: id, ClusterID: id,
		Title: title, DocumentKind: usKind, LegalRead: read, LegalReadAlternatives: alternatives,
		CaseNameFull: string(r.CaseNameFull), Court: string(r.Court), CourtID: string(r.CourtID),
		CourtCitationString: string(r.CourtCitation), DateFiled: date,
		DateArgued: datePrefix.FindString(string(r.DateArgued)), DocketNumber: string(r.DocketNumber),
		DocketID: string(r.DocketID), Judges: string(r.Judge), PrecedentialStatus: string(r.Status),
		NatureOfSuit: string(r.SuitNature), Citations: citations}
	if r.CiteCount.OK {
		detail.CiteCount = &r.CiteCount.V
	}
	for _, o := range r.Opinions {
		if o.ID == "" {
			continue
		}
		op := Opinion{ID: string(o.ID), Type: string(o.Type), AuthorID: string(o.AuthorID)}
		if o.PerCuriam.OK {
			op.PerCuriam = &o.PerCuriam.V
		}
		detail.Opinions = append(detail.Opinions, op)
	}
	links := []providers.Link{}
	if rec.URL != "" {
		detail.URL = rec.URL
		links = append(links, providers.Link{Label: "CourtListener", URL: rec.URL})
	}
	if itemID != "" {
		links = append(links, providers.Link{Label: "U.S. Reports (Library of Congress)", URL: locItemURL + itemID + "/"})
	}
	rec.Stored = map[string]*providers.Detail{"details": {Body: detail, Links: links}}
	return rec, true
}

// usReadRequests picks the legal.read request of a case: the official U.S. Reports scan (source
// us_reports, free) when a citation "VVV U.S. PPP" falls in the Library of Congress collection
// (volumes 1-542, pages up to 999), else CourtListener's own text of the cluster (source scholar).
// alternatives holds the other request when there is one; itemID is the us_reports item.
func usReadRequests(clusterID string, citations []string) (read *ReadRequest, alternatives []ReadRequest, itemID string) {
	scholar := readRequest(ReadDocument{Source: "scholar", CaselawID: clusterID})
	itemID = usReportsItem(citations)
	if itemID == "" {
		return scholar, nil, ""
	}
	return readRequest(ReadDocument{Source: "us_reports", ItemID: itemID}), []ReadRequest{*scholar}, itemID
}

// usReportsItem is the Library of Congress item id (usrepVVVPPP) of the first U.S. Reports
// citation inside the collection, or "".
func usReportsItem(citations []string) string {
	for _, c := range citations {
		m := usReportsCite.FindStringSubmatch(strings.TrimSpace(c))
		if m == nil {
			continue
		}
		vol, _ := strconv.Atoi(m[1])
		page, _ := strconv.Atoi(m[2])
		if vol >= 1 && vol <= lastLoCVolume && page >= 1 && page <= 999 {
			return fmt.Sprintf("usrep%03d%03d", vol, page)
		}
	}
	return ""
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// courtListenerError maps CourtListener's refusals (Django REST framework bodies {"detail": …}).
func courtListenerError(err error, paging bool) error {
	e, ok := providers.AsError(err)
	if !ok {
		return err
	}
	named(e, courtlistener.ProviderID, "CourtListener")
	if e.UpstreamStatus == 0 {
		return e
	}
	detail := errorDetail(e.Body)
	with := func(msg string) string {
		if detail != "" {
			return msg + ": " + detail
		}
		return msg
	}
	switch e.UpstreamStatus {
	case http.StatusUnauthorized, http.StatusForbidden:
		return (&providers.Error{Code: providers.CodeProviderError, Message: with("CourtListener refused this deployment's API token"),
			UpstreamStatus: e.UpstreamStatus, Body: e.Body}).WithRetryable(false)
	case http.StatusTooManyRequests:
		e.Message = with(e.Message)
		return e
	case http.StatusBadRequest:
		return providers.InvalidField("/search/query", with("CourtListener could not run this search"))
	case http.StatusNotFound:
		if paging {
			return (&providers.Error{Code: providers.CodeProviderError,
				Message:        "CourtListener no longer accepts this search's paging cursor; run the search again",
				UpstreamStatus: e.UpstreamStatus, Body: e.Body}).WithRetryable(false)
		}
	}
	e.Message = with(e.Message)
	return e
}

// named writes the provider's name instead of its id at the start of the client's message
// ("courtlistener failed (HTTP 502)" → "CourtListener failed (HTTP 502)").
func named(e *providers.Error, id, name string) {
	if rest, ok := strings.CutPrefix(e.Message, id+" "); ok {
		e.Message = name + " " + rest
	}
}

// errorDetail reads an error body: DRF's {"detail": "…"}, a DRF validation object
// ({"field": ["message", …]}), or short plain text; HTML pages and long bodies say nothing useful.
func errorDetail(body []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil && obj != nil {
		var d string
		if json.Unmarshal(obj["detail"], &d) == nil && strings.TrimSpace(d) != "" {
			return strings.TrimSpace(d)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			var msgs []string
			if json.Unmarshal(obj[k], &msgs) == nil && len(msgs) > 0 {
				parts = append(parts, k+": "+strings.Join(msgs, " "))
			}
		}
		return providers.Clip(strings.Join(parts, "; "), 300)
	}
	text := strings.TrimSpace(string(body))
	if text == "" || strings.HasPrefix(text, "<") || len(text) > 300 {
		return ""
	}
	return text
}
