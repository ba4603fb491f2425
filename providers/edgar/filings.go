package edgar

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Public EDGAR addresses of records, details and links: always www.sec.gov, whatever mirror a
// deployment reads through (and in the sandbox), so evidence always points at the SEC.
const publicBase = "https://www.sec.gov"

// maxOlderPages bounds the older submission pages read for one search (each is one request).
const maxOlderPages = 8

// tickersTTL is how long the ticker map is reused; EDGAR updates it about daily.
const tickersTTL = time.Hour

// accessionPattern is an EDGAR accession number; olderPageName an older page of a filing list.
var (
	accessionPattern = regexp.MustCompile(`^[0-9]{10}-[0-9]{2}-[0-9]{6}$`)
	olderPageName    = regexp.MustCompile(`^CIK[0-9]{10}-submissions-[0-9]{3,}\.json$`)
)

// now is the clock of retrieved_at (tests fix it).
var now = time.Now

// normalizeCIK turns 1..10 digits into the 10-digit form EDGAR's submissions API uses; "" when the
// value is not a CIK above 0.
func normalizeCIK(s string) string {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil || n == 0 || n > 9999999999 {
		return ""
	}
	return fmt.Sprintf("%010d", n)
}

// archiveCIK is the CIK as the archive paths write it: without leading zeros.
func archiveCIK(cik string) string { return strings.TrimLeft(cik, "0") }

// folderPath is a filing's archive folder: /Archives/edgar/data/{cik}/{accession without dashes}/.
func folderPath(cik, accession string) string {
	return "/Archives/edgar/data/" + archiveCIK(cik) + "/" + strings.ReplaceAll(accession, "-", "") + "/"
}

func indexPageURL(cik, accession string) string {
	return publicBase + folderPath(cik, accession) + accession + "-index.htm"
}

// --- company: CIK or ticker

type tickerEntry struct {
	CIK    lenient.ID  `json:"cik_str"`
	Ticker lenient.Str `json:"ticker"`
	Title  lenient.Str `json:"title"`
}

// tickerKey folds a ticker for comparison: case-insensitive, and "." the same as "-" (callers
// write BRK.B, EDGAR's map writes BRK-B).
func tickerKey(t string) string {
	return strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(t)), ".", "-")
}

type tickerMap struct {
	at     time.Time
	byKey  map[string][]tickerEntry
	source string
}

var tickerCache struct {
	sync.Mutex
	maps map[string]*tickerMap // by upstream base URL
}

// tickers returns EDGAR's ticker map (files/company_tickers.json: {"0": {cik_str, ticker, title},
// ...}) indexed by folded ticker, reusing a copy younger than tickersTTL.
func tickers(ctx context.Context, call *providers.Call) (map[string][]tickerEntry, error) {
	u := call.Upstream(secID)
	tickerCache.Lock()
	m := tickerCache.maps[u.BaseURL]
	tickerCache.Unlock()
	if m != nil && now().Sub(m.at) < tickersTTL {
		return m.byKey, nil
	}
	resp, err := u.Get(ctx, "/files/company_tickers.json", nil, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, upstreamError(err, "EDGAR's ticker map")
	}
	var raw map[string]tickerEntry
	if err := json.Unmarshal(resp.Body, &raw); err != nil {
		return nil, providers.Errorf(providers.CodeProviderError, "EDGAR's ticker map is not the documented JSON object")
	}
	byKey := map[string][]tickerEntry{}
	for _, e := range raw {
		if e.Ticker == "" || normalizeCIK(string(e.CIK)) == "" {
			continue
		}
		k := tickerKey(string(e.Ticker))
		byKey[k] = append(byKey[k], e)
	}
	tickerCache.Lock()
	if tickerCache.maps == nil {
		tickerCache.maps = map[string]*tickerMap{}
	}
	tickerCache.maps[u.BaseURL] = &tickerMap{at: now(), byKey: byKey}
	tickerCache.Unlock()
	return byKey, nil
}

// resolveCompany returns the 10-digit CIK of the request's company. A ticker is looked up in
// EDGAR's ticker map: it must fold to entries of exactly one CIK (several share classes of one
// filer, e.g. BRK-A and BRK-B, are one filer); none or several CIKs are refused at /company/ticker.
func resolveCompany(ctx context.Context, call *providers.Call) (string, error) {
	company, _ := call.Request.Object("company")
	if cik, ok := company.String("cik"); ok {
		if n := normalizeCIK(cik); n != "" {
			return n, nil
		}
		return "", providers.InvalidField("/company/cik", "cik must be a Central Index Key above 0")
	}
	ticker, ok := company.String("ticker")
	if !ok {
		return "", providers.InvalidField("/company", "company needs a cik or a ticker")
	}
	byKey, err := tickers(ctx, call)
	if err != nil {
		return "", err
	}
	entries := byKey[tickerKey(ticker)]
	ciks := map[string]string{}
	for _, e := range entries {
		ciks[normalizeCIK(string(e.CIK))] = string(e.Title)
	}
	switch len(ciks) {
	case 1:
		for cik := range ciks {
			return cik, nil
		}
	case 0:
		return "", providers.InvalidField("/company/ticker",
			fmt.Sprintf("EDGAR's ticker map has no filer with ticker %q; use the company's CIK", ticker))
	}
	list := make([]string, 0, len(ciks))
	for cik, title := range ciks {
		list = append(list, fmt.Sprintf("%s (%s)", cik, title))
	}
	sort.Strings(list)
	return "", providers.InvalidField("/company/ticker", fmt.Sprintf(
		"ticker %q identifies %d filers in EDGAR's ticker map: %s; use the CIK of the one you mean",
		ticker, len(ciks), strings.Join(list, ", ")))
}

// --- submissions

// filingColumns is EDGAR's columnar filing list: filings.recent of the submissions document, and
// the whole body of an older page (CIK##########-submissions-NNN.json). Columns are read one by
// one so that one column of an unexpected type does not lose the others; rows are aligned by index.
type filingColumns struct {
	AccessionNumber    json.RawMessage `json:"accessionNumber"`
	FilingDate         json.RawMessage `json:"filingDate"`
	ReportDate         json.RawMessage `json:"reportDate"`
	AcceptanceDateTime json.RawMessage `json:"acceptanceDateTime"`
	Form               json.RawMessage `json:"form"`
	PrimaryDocument    json.RawMessage `json:"primaryDocument"`
	PrimaryDocDesc     json.RawMessage `json:"primaryDocDescription"`
	IsXBRL             json.RawMessage `json:"isXBRL"`
	IsInlineXBRL       json.RawMessage `json:"isInlineXBRL"`
}

type submissions struct {
	CIK     lenient.ID  `json:"cik"`
	Name    lenient.Str `json:"name"`
	Filings struct {
		Recent filingColumns `json:"recent"`
		Files  []olderPage   `json:"files"`
	} `json:"filings"`
}

type olderPage struct {
	Name       lenient.Str `json:"name"`
	FilingFrom lenient.Str `json:"filingFrom"`
	FilingTo   lenient.Str `json:"filingTo"`
}

// filing is one row of the filing list.
type filing struct {
	Accession, FilingDate, ReportDate, AcceptanceDateTime, Form, PrimaryDocument, PrimaryDocDesc string
	IsXBRL, IsInlineXBRL                                                                         bool
}

func strColumn(raw json.RawMessage) []lenient.Str {
	var out []lenient.Str
	_ = json.Unmarshal(raw, &out)
	return out
}

func intColumn(raw json.RawMessage) []lenient.Int {
	var out []lenient.Int
	_ = json.Unmarshal(raw, &out)
	return out
}

func (c filingColumns) rows() []filing {
	acc := strColumn(c.AccessionNumber)
	cols := [][]lenient.Str{strColumn(c.FilingDate), strColumn(c.ReportDate), strColumn(c.AcceptanceDateTime),
		strColumn(c.Form), strColumn(c.PrimaryDocument), strColumn(c.PrimaryDocDesc)}
	xbrl, inline := intColumn(c.IsXBRL), intColumn(c.IsInlineXBRL)
	at := func(col []lenient.Str, i int) string {
		if i < len(col) {
			return string(col[i])
		}
		return ""
	}
	flag := func(col []lenient.Int, i int) bool { return i < len(col) && col[i].OK && col[i].V == 1 }
	out := make([]filing, 0, len(acc))
	for i, a := range acc {
		if a == "" {
			continue
		}
		out = append(out, filing{Accession: string(a), FilingDate: at(cols[0], i), ReportDate: at(cols[1], i),
			AcceptanceDateTime: at(cols[2], i), Form: at(cols[3], i), PrimaryDocument: at(cols[4], i),
			PrimaryDocDesc: at(cols[5], i), IsXBRL: flag(xbrl, i), IsInlineXBRL: flag(inline, i)})
	}
	return out
}

// loadSubmissions reads data.sec.gov/submissions/CIK##########.json. EDGAR answers an unknown CIK
// with 404; path is where the request named the company.
func loadSubmissions(ctx context.Context, call *providers.Call, cik, path string) (*submissions, error) {
	u := call.Upstream(secDataID)
	resp, err := u.Get(ctx, "/submissions/CIK"+cik+".json", nil, http.Header{"Accept": {"application/json"}})
	if err != nil {
		if isNotFound(err) {
			return nil, providers.InvalidField(path, fmt.Sprintf("EDGAR has no filer with CIK %s", archiveCIK(cik)))
		}
		return nil, upstreamError(err, "EDGAR's submissions API")
	}
	var s submissions
	if err := json.Unmarshal(resp.Body, &s); err != nil {
		return nil, providers.Errorf(providers.CodeProviderError, "EDGAR's submissions answer for CIK %s is not the documented JSON", archiveCIK(cik))
	}
	return &s, nil
}

// loadOlderPage reads one older page of the filing list; its body is the bare columns.
func loadOlderPage(ctx context.Context, call *providers.Call, name string) ([]filing, error) {
	if !olderPageName.MatchString(name) {
		return nil, providers.Errorf(providers.CodeProviderError, "EDGAR listed an older filing page with an unexpected name %q", name)
	}
	var cols filingColumns
	resp, err := call.Upstream(secDataID).Get(ctx, "/submissions/"+name, nil, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, upstreamError(err, "EDGAR's submissions API")
	}
	if err := json.Unmarshal(resp.Body, &cols); err != nil {
		return nil, providers.Errorf(providers.CodeProviderError, "EDGAR's older filing page %s is not the documented JSON", name)
	}
	return cols.rows(), nil
}

// filingQuery is what the filings view keeps.
type filingQuery struct {
	forms     map[string]bool // nil: every form
	from, to  string          // YYYY-MM-DD or ""
	accession string
}

func (q filingQuery) keep(f filing) bool {
	if q.forms != nil && !q.forms[f.Form] {
		return false
	}
	if q.accession != "" && f.Accession != q.accession {
		return false
	}
	if q.from != "" && f.FilingDate < q.from {
		return false
	}
	return q.to == "" || f.FilingDate <= q.to
}

// earliest is the first filing date the query can reach: filed_from, or for an accession the
// first day of the year before its two-digit year (an accession's year is the year its number was
// assigned, at most days before filing).
func (q filingQuery) earliest() string {
	e := q.from
	if y, ok := accessionYear(q.accession); ok {
		if a := fmt.Sprintf("%04d-01-01", y-1); e == "" || a > e {
			e = a
		}
	}
	return e
}

func accessionYear(acc string) (int, bool) {
	if len(acc) != 20 {
		return 0, false
	}
	yy, err := strconv.Atoi(acc[11:13])
	if err != nil {
		return 0, false
	}
	if yy >= 80 { // EDGAR's first accession numbers date from the 1990s
		return 1900 + yy, true
	}
	return 2000 + yy, true
}

// listFilings returns the rows of the filing list the query keeps, newest first, with notes.
// filings.recent holds the latest filings (at least a year's or 1,000); older pages are read
// only when the query reaches before the oldest recent filing (filed_from or accession), at most
// maxOlderPages of them, and only those whose date range overlaps the query's.
func listFilings(ctx context.Context, call *providers.Call, s *submissions, q filingQuery) ([]filing, []string, error) {
	recent := s.Filings.Recent.rows()
	var out []filing
	oldest := ""
	for _, f := range recent {
		if f.FilingDate != "" && (oldest == "" || f.FilingDate < oldest) {
			oldest = f.FilingDate
		}
		if q.keep(f) {
			out = append(out, f)
		}
	}
	var notes []string
	earliest := q.earliest()
	var pages []string
	for _, p := range s.Filings.Files {
		if p.Name == "" {
			continue
		}
		if earliest != "" && p.FilingTo != "" && string(p.FilingTo) < earliest {
			continue
		}
		if q.to != "" && p.FilingFrom != "" && string(p.FilingFrom) > q.to {
			continue
		}
		pages = append(pages, string(p.Name))
	}
	// The older pages are needed when the query reaches before the oldest recent filing, or
	// lies wholly before it; without a lower bound the recent list is the answer, with a note.
	reachesBack := earliest != "" && (oldest == "" || earliest < oldest)
	endsBefore := q.to != "" && oldest != "" && q.to < oldest
	switch {
	case len(pages) == 0:
	case !reachesBack && !endsBefore && oldest != "":
		if earliest == "" {
			notes = append(notes, fmt.Sprintf("EDGAR's recent filing list starts on %s; set filed_from to an earlier date to list older filings", oldest))
		}
	default:
		if len(pages) > maxOlderPages {
			notes = append(notes, fmt.Sprintf("only %d of the %d older EDGAR filing pages in range were read; narrow filed_from / filed_to to reach the others", maxOlderPages, len(pages)))
			pages = pages[:maxOlderPages]
		}
		seen := map[string]bool{}
		for _, f := range out {
			seen[f.Accession] = true
		}
		for _, name := range pages {
			rows, err := loadOlderPage(ctx, call, name)
			if err != nil {
				return nil, nil, err
			}
			for _, f := range rows {
				if q.keep(f) && !seen[f.Accession] {
					seen[f.Accession] = true
					out = append(out, f)
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].FilingDate != out[j].FilingDate {
			return out[i].FilingDate > out[j].FilingDate
		}
		return out[i].AcceptanceDateTime > out[j].AcceptanceDateTime
	})
	return out, notes, nil
}

// filingRef is what a record's actions need: the filer and the filing.
type filingRef struct {
	CIK       string `json:"cik"`
	Accession string `json:"accession"`
}

func filingsPage(ctx context.Context, call *providers.Call, cik string) (*providers.Page, error) {
	s, err := loadSubmissions(ctx, call, cik, companyPath(call.Request))
	if err != nil {
		return nil, err
	}
	q := filingQuery{forms: map[string]bool{}, from: call.Request.Str("filed_from"), to: call.Request.Str("filed_to"),
		accession: call.Request.Str("accession")}
	forms := call.Request.Strings("forms")
	if len(forms) == 0 {
		forms = periodicForms
	}
	for _, f := range forms {
		q.forms[f] = true
	}
	rows, notes, err := listFilings(ctx, call, s, q)
	if err != nil {
		return nil, err
	}
	issuer := string(s.Name)
	page := &providers.Page{Records: make([]providers.Record, 0, len(rows)), Notes: notes}
	for _, f := range rows {
		page.Records = append(page.Records, filingRecord(cik, issuer, f))
	}
	if len(rows) == 0 && q.accession != "" {
		page.Notes = append(page.Notes, fmt.Sprintf("EDGAR lists no filing %s of the requested forms and dates for CIK %s", q.accession, archiveCIK(cik)))
	}
	return page, nil
}

func companyPath(req providers.Request) string {
	if company, ok := req.Object("company"); ok && company.Has("ticker") {
		return "/company/ticker"
	}
	return "/company/cik"
}

func primaryURL(cik string, f filing) string {
	if f.PrimaryDocument == "" {
		return ""
	}
	return publicBase + folderPath(cik, f.Accession) + f.PrimaryDocument
}

// filingRecord maps one filing row. The record's actions need the XBRL instance for the fact
// actions, so a filing EDGAR marks as without XBRL offers details only.
func filingRecord(cik, issuer string, f filing) providers.Record {
	amendment := strings.HasSuffix(f.Form, "/A")
	fields := &FilingRecord{CIK: cik, Accession: f.Accession, Source: sourceName, AcceptedAt: nullableJSON(nil),
		IsAmendment: &amendment, Issuer: issuer, Form: f.Form, FiledAt: f.FilingDate, ReportDate: f.ReportDate,
		PrimaryDocument: f.PrimaryDocument, PrimaryURL: primaryURL(cik, f)}
	if at, ok := easternAcceptance(f.AcceptanceDateTime); ok {
		fields.AcceptedAt = nullableJSON(&at)
	}
	name := issuer
	if name == "" {
		name = "CIK " + archiveCIK(cik)
	}
	title := strings.TrimSpace(fmt.Sprintf("%s %s", name, f.Form))
	if f.FilingDate != "" {
		title += " filed " + f.FilingDate
	}
	var parts []string
	if f.PrimaryDocDesc != "" && f.PrimaryDocDesc != f.Form {
		parts = append(parts, f.PrimaryDocDesc)
	}
	if f.ReportDate != "" {
		parts = append(parts, "period of report "+f.ReportDate)
	}
	parts = append(parts, "accession "+f.Accession)
	switch {
	case f.IsInlineXBRL:
		parts = append(parts, "inline XBRL")
	case f.IsXBRL:
		parts = append(parts, "XBRL")
	default:
		parts = append(parts, "no XBRL")
	}
	rec := providers.Record{Title: title, URL: indexPageURL(cik, f.Accession), Snippet: strings.Join(parts, "; "), Data: fields}
	rec.Ref, _ = json.Marshal(filingRef{CIK: cik, Accession: f.Accession})
	if !f.IsXBRL {
		rec.Actions = []string{"details"}
	}
	return rec
}

// easternAcceptance re-labels EDGAR's acceptanceDateTime. EDGAR writes it with a Z suffix
// ("2024-11-01T06:01:36.000Z"), but the wall-clock time is US Eastern: EDGAR's own RSS feed gives
// the same acceptance as 2024-11-01T06:01:36-04:00, and filings accepted after 17:30 carry the
// next day's filing date. The time is kept and given the Eastern offset in force on that date.
func easternAcceptance(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	t, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	if err != nil {
		t, err = time.Parse("2006-01-02T15:04:05Z", s)
	}
	if err != nil {
		return "", false
	}
	return t.Format("2006-01-02T15:04:05") + easternOffset(t), true
}

// easternOffset is -04:00 during US daylight saving time and -05:00 otherwise, for a wall-clock
// time in New York: since 2007 from the second Sunday of March 02:00 to the first Sunday of
// November 02:00; 1987-2006 from the first Sunday of April to the last Sunday of October.
func easternOffset(t time.Time) string {
	y := t.Year()
	var start, end time.Time
	if y >= 2007 {
		start = nthSunday(y, time.March, 2)
		end = nthSunday(y, time.November, 1)
	} else {
		start = nthSunday(y, time.April, 1)
		end = nthSunday(y, time.November, 1).AddDate(0, 0, -7) // last Sunday of October
	}
	start = start.Add(2 * time.Hour)
	end = end.Add(2 * time.Hour)
	if !t.Before(start) && t.Before(end) {
		return "-04:00"
	}
	return "-05:00"
}

// nthSunday is the n-th Sunday of a month (UTC midnight, as wall-clock times are compared).
func nthSunday(year int, month time.Month, n int) time.Time {
	d := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Sunday {
		d = d.AddDate(0, 0, 1)
	}
	return d.AddDate(0, 0, 7*(n-1))
}

// --- errors

func isNotFound(err error) bool {
	e, ok := providers.AsError(err)
	return ok && e.UpstreamStatus == http.StatusNotFound
}

// upstreamError explains EDGAR's refusals: it answers 403 with a "Request Rate Threshold
// Exceeded" or "Undeclared Automated Tool" page to clients over 10 requests a second or without a
// descriptive User-Agent, and keeps them out for about ten minutes.
func upstreamError(err error, what string) error {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus != http.StatusForbidden {
		return err
	}
	body := bytes.ToLower(e.Body)
	if bytes.Contains(body, []byte("request rate threshold exceeded")) || bytes.Contains(body, []byte("undeclared automated tool")) {
		return &providers.Error{Code: providers.CodeRateLimited, Message: what + " is refusing this gateway for exceeding EDGAR's fair-access rate; retry in about ten minutes",
			RetryAfter: 10 * time.Minute, UpstreamStatus: e.UpstreamStatus, Cause: err}
	}
	return &providers.Error{Code: providers.CodeProviderError, Message: what + " refused the request (HTTP 403)",
		Retryable: ptr(false), UpstreamStatus: e.UpstreamStatus, Cause: err}
}

// --- details

// findFiling finds a filing's row in the filer's list (recent, then older pages of its year).
func findFiling(ctx context.Context, call *providers.Call, cik, accession string) (*submissions, *filing, error) {
	s, err := loadSubmissions(ctx, call, cik, "/company/cik")
	if err != nil {
		return nil, nil, err
	}
	rows, _, err := listFilings(ctx, call, s, filingQuery{accession: accession})
	if err != nil {
		return s, nil, err
	}
	if len(rows) == 0 {
		return s, nil, nil
	}
	return s, &rows[0], nil
}

func filingDetails(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	ref, err := recordRef(rec)
	if err != nil {
		return nil, err
	}
	s, f, err := findFiling(ctx, call, ref.CIK, ref.Accession)
	if err != nil {
		return nil, err
	}
	items, err := loadIndex(ctx, call, ref.CIK, ref.Accession, "")
	if err != nil {
		return nil, err
	}
	folder := publicBase + folderPath(ref.CIK, ref.Accession)
	body := &FilingDetail{CIK: ref.CIK, Accession: ref.Accession, Source: sourceName,
		FilingIndexURL: indexPageURL(ref.CIK, ref.Accession), FolderURL: folder}
	links := []providers.Link{{Label: "EDGAR filing index", URL: indexPageURL(ref.CIK, ref.Accession)}}
	var notes []string
	if s != nil {
		body.Issuer = string(s.Name)
	}
	if f != nil {
		body.Form, body.FiledAt, body.ReportDate = f.Form, f.FilingDate, f.ReportDate
		body.AcceptedAt = nullableJSON(nil)
		if at, ok := easternAcceptance(f.AcceptanceDateTime); ok {
			body.AcceptedAt = nullableJSON(&at)
		}
		amendment, xbrl, inline := strings.HasSuffix(f.Form, "/A"), f.IsXBRL, f.IsInlineXBRL
		body.IsAmendment, body.IsXBRL, body.IsInlineXBRL = &amendment, &xbrl, &inline
		body.PrimaryDocument, body.PrimaryDocumentDescription = f.PrimaryDocument, f.PrimaryDocDesc
		if u := primaryURL(ref.CIK, *f); u != "" {
			body.PrimaryURL = u
			links = append(links, providers.Link{Label: "Primary document", URL: u})
		}
	} else {
		notes = append(notes, "the filing is not in the filer's EDGAR submissions list; identity fields come from the filing folder only")
	}
	body.Documents = make([]Document, 0, len(items))
	for _, it := range items {
		d := Document{Name: string(it.Name), URL: folder + url.PathEscape(string(it.Name)), LastModified: string(it.LastModified)}
		if n, err := strconv.ParseInt(string(it.Size), 10, 64); err == nil {
			d.Size = &n
		}
		body.Documents = append(body.Documents, d)
	}
	var primary string
	if f != nil {
		primary = f.PrimaryDocument
	}
	if inst, labels := pickXBRL(items, primary); inst != "" {
		body.XBRLInstanceURL = folder + url.PathEscape(inst)
		links = append(links, providers.Link{Label: "XBRL instance", URL: folder + url.PathEscape(inst)})
		if labels != "" {
			body.LabelLinkbaseURL = folder + url.PathEscape(labels)
			links = append(links, providers.Link{Label: "XBRL label linkbase", URL: folder + url.PathEscape(labels)})
		}
	}
	body.Notes = orEmpty(notes)
	return &providers.Detail{Body: body, Links: links}, nil
}

func recordRef(rec *providers.Record) (filingRef, error) {
	var ref filingRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || normalizeCIK(ref.CIK) == "" || !accessionPattern.MatchString(ref.Accession) {
		return ref, providers.Errorf(providers.CodeInvalidRequest, "this record names no EDGAR filing")
	}
	ref.CIK = normalizeCIK(ref.CIK)
	return ref, nil
}

func ptr[T any](v T) *T { return &v }

func orEmpty[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}
