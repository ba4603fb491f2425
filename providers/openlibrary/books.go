package openlibrary

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Bounds the spec leaves to the adapter (see doc.go).
const (
	maxRecordSubjects  = 10 // subjects[] of a search record
	maxDetailSubjects  = 25 // subjects[] of the details lookup
	maxDetailEditions  = 10 // editions with ISBNs in the details lookup
	editionsFetchLimit = 50 // editions.json?limit= (the endpoint's own default page)
	maxDetailLinks     = 10 // external links of the work copied into the detail links
	maxRedirects       = 3  // /type/redirect hops followed when a work was merged
)

// searchFields are the Solr fields requested with fields=: exactly the ones the records map.
var searchFields = []string{
	"key", "title", "author_name", "first_publish_year", "edition_count",
	"ratings_average", "subject", "isbn", "cover_i",
}

var workOLID = regexp.MustCompile(`^OL[0-9]+W$`)

// BooksSearch is books.search (spec 4.15).
var BooksSearch = &providers.Capability{
	ID:      "books.search",
	Fresh:   24 * time.Hour,
	Title:   "Book search",
	Summary: "Search the Open Library catalog of books by keywords, author or subject.",
	Description: "Searches Open Library's catalog of works (all editions of a book grouped together) by free-text " +
		"keywords, author name and/or subject; at least one of query, author and subject is required, and " +
		"when several are given a work must match all of them. Each record is one work: title, url (the " +
		"work's Open Library page) and, when Open Library has them, authors (string[]), first_published " +
		"(integer year), editions (integer count), rating (number, average reader rating out of 5), " +
		"subjects (string[], up to 10), isbn (string, one representative ISBN of an edition) and cover_url " +
		"(string, medium-size cover image). Records carry no snippet. Follow-ups: more (next provider " +
		"page), update (change the query), and the record action details (free): the work's description, " +
		"subjects (up to 25), first publish date, edition count and up to 10 editions that have ISBNs " +
		"(title, publishers, publish date, ISBN-10/ISBN-13, pages, page url), with links to the work page, " +
		"its cover and the external links Open Library lists. Open Library refuses free-text queries " +
		"shorter than 3 characters; such a query is answered with invalid_request at /query.",
	Topic:     "Research and reading",
	Request:   booksRequestSchema,
	Rules:     booksRules,
	Paging:    providers.PagingPage,
	Cost:      providers.Cost{Typical: 0, Basis: "Free: Open Library is a keyless public catalog; search pages and details cost no credits."},
	Deadline:  15 * time.Second,
	Providers: []string{ProviderID},
	Actions: []providers.Action{{
		Name: "details",
		Description: "Open Library's record of the work: description, subjects, first publish date, edition count " +
			"and up to 10 editions with ISBNs, plus links to the work page, its cover and external links. Free.",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     bookDetails,
	}},
	Examples: []providers.Example{
		{Title: "Books matching a title, three per page", Body: providers.ExampleBody(`{"query": "the lord of the rings", "num": 3}`)},
		{Title: "Books by an author on a subject", Body: providers.ExampleBody(`{"author": "Roald Dahl", "subject": "Children's fiction"}`)},
		{Title: "Books on a subject", Body: providers.ExampleBody(`{"subject": "Children's fiction", "num": 5}`)},
	},
	Execute: searchBooks,
	Record:  BookRecord{},
}

const booksRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "books.search request",
  "description": "Search Open Library's catalog of works. At least one of query, author and subject is required; when several are given a work must match all of them.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 300,
      "pattern": "\\S",
      "description": "Free-text keywords matched against titles, authors, subjects, ISBNs and other catalog text. Open Library refuses queries shorter than 3 characters."
    },
    "author": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200,
      "pattern": "\\S",
      "description": "Author name (or an Open Library author id such as OL26320A); only works by this author are returned."
    },
    "subject": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200,
      "pattern": "\\S",
      "description": "Subject, for example \"Fantasy\" or \"Astronomy\"; only works catalogued under it are returned."
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

func booksRules(req providers.Request, _ *providers.Update) []providers.Violation {
	for _, k := range []string{"query", "author", "subject"} {
		if strings.TrimSpace(req.Str(k)) != "" {
			return nil
		}
	}
	return []providers.Violation{{Path: "", Message: "at least one of query, author or subject is required"}}
}

// pageState is the opaque paging state: the Open Library page number (1-based) to fetch.
type pageState struct {
	Page int `json:"page"`
}

func searchBooks(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	page := 1
	if len(call.State) > 0 {
		var st pageState
		if err := json.Unmarshal(call.State, &st); err != nil || st.Page < 1 {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
		page = st.Page
	}
	limit, ok := call.Request.Int("num")
	if !ok || limit < 1 {
		limit = 10
	}
	q := url.Values{}
	if s := strings.TrimSpace(call.Request.Str("query")); s != "" {
		q.Set("q", s)
	}
	if s := strings.TrimSpace(call.Request.Str("author")); s != "" {
		q.Set("author", s)
	}
	if s := strings.TrimSpace(call.Request.Str("subject")); s != "" {
		q.Set("subject", s)
	}
	q.Set("page", strconv.Itoa(page))
	q.Set("limit", strconv.Itoa(limit))
	q.Set("fields", strings.Join(searchFields, ","))

	var body map[string]json.RawMessage
	if err := call.Upstream(ProviderID).GetJSON(ctx, "/search.json", q, &body); err != nil {
		return nil, searchError(err)
	}
	if msg := errorText(body["error"]); msg != "" {
		return nil, providers.Errorf(providers.CodeProviderError, "openlibrary reported an error: %s", msg)
	}
	total, ok := intOf(body["numFound"])
	if !ok {
		total, _ = intOf(body["num_found"])
	}
	var docs []json.RawMessage
	_ = json.Unmarshal(body["docs"], &docs) // absent or not an array: no results

	out := &providers.Page{Records: make([]providers.Record, 0, len(docs))}
	for _, raw := range docs {
		if rec, ok := bookRecord(raw); ok {
			out.Records = append(out.Records, rec)
		}
	}
	out.HasMore = len(docs) > 0 && total > page*limit
	if out.HasMore {
		out.Next, _ = json.Marshal(pageState{Page: page + 1})
	}
	return out, nil
}

// bookRecord maps one search.json doc (a work) to a record; ok is false when the doc has neither
// a title nor a work key.
func bookRecord(raw json.RawMessage) (providers.Record, bool) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return providers.Record{}, false
	}
	olid := workID(stringOf(doc["key"]))
	title := strings.TrimSpace(stringOf(doc["title"]))
	if title == "" {
		if olid == "" {
			return providers.Record{}, false
		}
		title = "Untitled work " + olid
	}
	data := &BookRecord{}
	rec := providers.Record{Title: title, Data: data}
	if olid != "" {
		rec.URL = siteURL + "/works/" + olid
		rec.Ref, _ = json.Marshal(workRef{Key: olid})
	} else {
		rec.Actions = []string{} // no work id: details cannot be looked up
	}
	if authors := cleanStrings(stringsOf(doc["author_name"]), 0); len(authors) > 0 {
		data.Authors = authors
	}
	if y, ok := intOf(doc["first_publish_year"]); ok {
		data.FirstPublished = &y
	}
	if n, ok := intOf(doc["edition_count"]); ok && n >= 0 {
		data.Editions = &n
	}
	if r, ok := floatOf(doc["ratings_average"]); ok && r > 0 {
		r = math.Round(r*100) / 100
		data.Rating = &r
	}
	if subjects := cleanStrings(stringsOf(doc["subject"]), maxRecordSubjects); len(subjects) > 0 {
		data.Subjects = subjects
	}
	if isbn := representativeISBN(stringsOf(doc["isbn"])); isbn != "" {
		data.ISBN = isbn
	}
	if id, ok := intOf(doc["cover_i"]); ok && id > 0 {
		data.CoverURL = coverURL(id)
	}
	return rec, true
}

// BookRecord is a books.search record (besides title and url): one work.
type BookRecord struct {
	Authors        []string `json:"authors,omitempty"`
	CoverURL       string   `json:"cover_url,omitempty" doc:"medium-size cover image"`
	Editions       *int     `json:"editions,omitempty" doc:"edition count"`
	FirstPublished *int     `json:"first_published,omitempty" doc:"year"`
	ISBN           string   `json:"isbn,omitempty" doc:"one representative ISBN of an edition"`
	Rating         *float64 `json:"rating,omitempty" doc:"average reader rating out of 5"`
	Subjects       []string `json:"subjects,omitempty" doc:"up to 10"`
}

// WorkDetail is the details body of a work; fields in key order (a detail is written by
// encoding/json, which keeps the declared order).
type WorkDetail struct {
	Description      string    `json:"description,omitempty"`
	EditionCount     *int      `json:"edition_count,omitempty"`
	Editions         []Edition `json:"editions"`
	FirstPublishDate string    `json:"first_publish_date,omitempty"`
	Key              string    `json:"key"`
	Subjects         []string  `json:"subjects,omitempty"`
	Title            string    `json:"title,omitempty"`
	URL              string    `json:"url"`
}

// Edition is one edition of a work that carries an ISBN (fields in key order).
type Edition struct {
	ISBN10         []string `json:"isbn_10,omitempty"`
	ISBN13         []string `json:"isbn_13,omitempty"`
	Key            string   `json:"key,omitempty"`
	NumberOfPages  *int     `json:"number_of_pages,omitempty"`
	PhysicalFormat string   `json:"physical_format,omitempty"`
	PublishDate    string   `json:"publish_date,omitempty"`
	Publishers     []string `json:"publishers,omitempty"`
	Title          string   `json:"title,omitempty"`
	URL            string   `json:"url,omitempty"`
}

// workRef is the record's Ref: the work's OLID, all the details lookup needs.
type workRef struct {
	Key string `json:"key"`
}

func coverURL(id int) string { return fmt.Sprintf("%s/b/id/%d-M.jpg", coversURL, id) }

// workID turns "/works/OL27448W" (or the bare "OL27448W" older answers carry) into the OLID, or "".
func workID(key string) string {
	id := strings.TrimPrefix(strings.TrimSpace(key), "/works/")
	if workOLID.MatchString(id) {
		return id
	}
	return ""
}

// representativeISBN picks one ISBN of the work's editions: the first ISBN-13, else the first
// ISBN-10, else nothing (Solr's isbn field mixes both forms, unordered by edition).
func representativeISBN(isbns []string) string {
	var ten string
	for _, s := range isbns {
		s = normalizeISBN(s)
		switch {
		case len(s) == 13 && isDigits(s):
			return s
		case len(s) == 10 && ten == "" && isDigits(s[:9]) && (isDigits(s[9:]) || s[9] == 'X'):
			ten = s
		}
	}
	return ten
}

func normalizeISBN(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	return strings.NewReplacer("-", "", " ", "").Replace(s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// searchError maps a refused search. Open Library answers 422 to a free-text q shorter than 3
// characters (or the blocked query "the"): FastAPI's {"detail":[{"loc":["query","q"],"msg":...}]}
// today, {"error": "..."} from the older web.py handler.
func searchError(err error) error {
	e, ok := providers.AsError(err)
	if !ok || (e.UpstreamStatus != http.StatusUnprocessableEntity && e.UpstreamStatus != http.StatusBadRequest) {
		return err
	}
	var body struct {
		Detail json.RawMessage `json:"detail"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(e.Body, &body) != nil {
		return err
	}
	if msg := errorText(body.Error); msg != "" {
		return queryRefused(msg)
	}
	var details []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(body.Detail, &details) != nil {
		if s := stringOf(body.Detail); s != "" {
			return providers.Errorf(providers.CodeProviderError, "openlibrary refused the search: %s", s).WithRetryable(false)
		}
		return err
	}
	var other []string
	for _, d := range details {
		msg := strings.TrimSpace(strings.TrimPrefix(d.Msg, "Value error, "))
		if len(d.Loc) > 0 && fmt.Sprint(d.Loc[len(d.Loc)-1]) == "q" {
			return queryRefused(msg)
		}
		if msg != "" {
			other = append(other, msg)
		}
	}
	if len(other) > 0 {
		return providers.Errorf(providers.CodeProviderError, "openlibrary refused the search: %s", strings.Join(other, "; ")).WithRetryable(false)
	}
	return err
}

func queryRefused(msg string) error {
	if msg == "" {
		msg = "the query was refused"
	}
	return providers.InvalidField("/query", "Open Library refused the query: "+msg).
		WithHint("Use a query of at least 3 characters, or search by author or subject instead.")
}

// errorText reads an "error" member: a string, or an array of strings (the older handler answers
// the blocked-query message as a one-element array).
func errorText(raw json.RawMessage) string {
	if s := stringOf(raw); s != "" {
		return s
	}
	return strings.Join(cleanStrings(stringsOf(raw), 0), "; ")
}

// bookDetails is the details lookup: the work record and its editions.
func bookDetails(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref workRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !workOLID.MatchString(ref.Key) {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record has no Open Library work id, so it has no details")
	}
	u := call.Upstream(ProviderID)
	olid, work, err := fetchWork(ctx, u, ref.Key)
	if err != nil {
		return nil, err
	}

	var eds map[string]json.RawMessage
	err = u.GetJSON(ctx, "/works/"+olid+"/editions.json", url.Values{"limit": {strconv.Itoa(editionsFetchLimit)}}, &eds)
	if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusNotFound {
		eds, err = nil, nil // a work without an editions list: no editions
	}
	if err != nil {
		return nil, err
	}
	detail, links := workDetail(olid, work, eds)
	return &providers.Detail{Body: detail, Links: links}, nil
}

// fetchWork reads /works/{olid}.json, following the redirects a merged work leaves behind.
func fetchWork(ctx context.Context, u *providers.Upstream, olid string) (string, map[string]json.RawMessage, error) {
	for hop := 0; ; hop++ {
		var work map[string]json.RawMessage
		err := u.GetJSON(ctx, "/works/"+olid+".json", nil, &work)
		if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusNotFound {
			return "", nil, workGone(olid)
		}
		if err != nil {
			return "", nil, err
		}
		if stringOf(work["error"]) == "notfound" {
			return "", nil, workGone(olid)
		}
		switch typeKey(work["type"]) {
		case "/type/redirect":
			next := workID(stringOf(work["location"]))
			if next == "" || hop >= maxRedirects {
				return "", nil, providers.Errorf(providers.CodeProviderError, "openlibrary redirected work %s to an unusable location", olid).WithRetryable(false)
			}
			olid = next
			continue
		case "/type/delete":
			return "", nil, workGone(olid)
		}
		return olid, work, nil
	}
}

func workGone(olid string) error {
	return providers.Errorf(providers.CodeNotFound, "Open Library no longer has the work %s", olid)
}

// typeKey reads {"key": "/type/..."}.
func typeKey(raw json.RawMessage) string {
	var t struct {
		Key json.RawMessage `json:"key"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return ""
	}
	return stringOf(t.Key)
}

// workDetail builds the detail body and links from the work and its editions.json answer.
func workDetail(olid string, work, eds map[string]json.RawMessage) (*WorkDetail, []providers.Link) {
	page := siteURL + "/works/" + olid
	d := &WorkDetail{Key: olid, URL: page, Title: strings.TrimSpace(stringOf(work["title"])),
		Description: textOf(work["description"]), Subjects: cleanStrings(stringsOf(work["subjects"]), maxDetailSubjects),
		FirstPublishDate: strings.TrimSpace(stringOf(work["first_publish_date"])), Editions: editionsWithISBN(eds["entries"])}
	if n, ok := intOf(eds["size"]); ok && n >= 0 {
		d.EditionCount = &n
	}

	links := []providers.Link{{Label: "Open Library work page", URL: page}}
	var covers []json.RawMessage
	_ = json.Unmarshal(work["covers"], &covers)
	for _, c := range covers {
		if id, ok := intOf(c); ok && id > 0 {
			links = append(links, providers.Link{Label: "Cover image", URL: fmt.Sprintf("%s/b/id/%d-L.jpg", coversURL, id)})
			break
		}
	}
	var ext []map[string]json.RawMessage
	_ = json.Unmarshal(work["links"], &ext)
	n := 0
	for _, l := range ext {
		link := strings.TrimSpace(stringOf(l["url"]))
		if n >= maxDetailLinks || !isWebURL(link) {
			continue
		}
		label := strings.TrimSpace(stringOf(l["title"]))
		if label == "" {
			label = link
		}
		links = append(links, providers.Link{Label: label, URL: link})
		n++
	}
	return d, links
}

// editionsWithISBN keeps the editions that carry an ISBN, at most maxDetailEditions.
func editionsWithISBN(raw json.RawMessage) []Edition {
	var entries []map[string]json.RawMessage
	_ = json.Unmarshal(raw, &entries)
	out := []Edition{}
	for _, e := range entries {
		if len(out) >= maxDetailEditions {
			break
		}
		isbn13 := cleanStrings(stringsOf(e["isbn_13"]), 0)
		isbn10 := cleanStrings(stringsOf(e["isbn_10"]), 0)
		if len(isbn13) == 0 && len(isbn10) == 0 {
			continue
		}
		ed := Edition{Title: strings.TrimSpace(stringOf(e["title"])), Publishers: cleanStrings(stringsOf(e["publishers"]), 0),
			PublishDate: strings.TrimSpace(stringOf(e["publish_date"])), ISBN13: isbn13, ISBN10: isbn10,
			PhysicalFormat: strings.TrimSpace(stringOf(e["physical_format"]))}
		if k := strings.TrimSpace(stringOf(e["key"])); strings.HasPrefix(k, "/books/") {
			ed.Key, ed.URL = strings.TrimPrefix(k, "/books/"), siteURL+k
		}
		if n, ok := intOf(e["number_of_pages"]); ok && n > 0 {
			ed.NumberOfPages = &n
		}
		out = append(out, ed)
	}
	return out
}

func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// --- lenient readers: Open Library's JSON is hand-edited catalog data, so a field of an
// unexpected type is treated as absent rather than failing the whole answer.

func stringOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// textOf reads a text field that is either a string or {"type": "/type/text", "value": "..."}.
func textOf(raw json.RawMessage) string {
	if s := stringOf(raw); s != "" {
		return strings.TrimSpace(s)
	}
	var t struct {
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return ""
	}
	return strings.TrimSpace(stringOf(t.Value))
}

// stringsOf reads a string array (non-string members skipped) or a lone string.
func stringsOf(raw json.RawMessage) []string {
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		if s := stringOf(raw); s != "" {
			return []string{s}
		}
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

// cleanStrings trims, drops empties and case-insensitive duplicates, and keeps at most max (0: all).
func cleanStrings(in []string, max int) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		s = strings.TrimSpace(s)
		k := strings.ToLower(s)
		if s == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s)
		if max > 0 && len(out) == max {
			break
		}
	}
	return out
}

func intOf(raw json.RawMessage) (int, bool) {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return int(i), true
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

func floatOf(raw json.RawMessage) (float64, bool) {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}
