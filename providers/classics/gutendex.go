package classics

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/internal/ttlcache"
)

// Gutendex (https://gutendex.com, github.com/garethbjohnson/gutendex): GET /books/ answers
// {count, next, previous, results} with 0 to 32 books a page, most downloaded first; a book is
// {id, title, authors[{name, birth_year, death_year}], summaries[], editors[] (Persons, as
// authors), translators[], subjects[],
// bookshelves[], languages[], copyright, media_type, formats{mime: url}, download_count}. Errors
// are {"detail": "..."} (Django REST framework); a page past the last is 404 "Invalid page.".

// gutendexBooksPath is the list endpoint. The router registers it with a trailing slash (the
// `next` links Gutendex returns use /books/?page=2); /books without it is a redirect.
const gutendexBooksPath = "/books/"

// gutendexPageSize is Gutendex's fixed page size (REST_FRAMEWORK PAGE_SIZE).
const gutendexPageSize = 32

// maxRecordSubjects bounds subjects[] of a record.
const maxRecordSubjects = 10

type gutendexList struct {
	Count   lenient.Int                `json:"count"`
	Next    lenient.Str                `json:"next"`
	Results lenient.List[gutendexBook] `json:"results"`
}

type gutendexBook struct {
	ID            lenient.Int                  `json:"id"`
	Title         lenient.Str                  `json:"title"`
	Authors       lenient.List[gutendexPerson] `json:"authors"`
	Editors       lenient.List[gutendexPerson] `json:"editors"`
	Summaries     lenient.List[lenient.Str]    `json:"summaries"`
	Subjects      lenient.List[lenient.Str]    `json:"subjects"`
	Languages     lenient.List[lenient.Str]    `json:"languages"`
	MediaType     lenient.Str                  `json:"media_type"`
	Formats       strMap                       `json:"formats"`
	DownloadCount lenient.Int                  `json:"download_count"`
}

type gutendexPerson struct {
	Name lenient.Str `json:"name"`
}

// searchGutendex answers one page of num records starting at book offset of Gutendex page
// page. A page that runs past the end of a Gutendex page continues on the next one (one extra
// call at most; num is at most 25, a Gutendex page 32).
func searchGutendex(ctx context.Context, u *providers.Upstream, sr searchRequest, page, offset int) (*providers.Page, error) {
	cur, err := fetchGutendex(ctx, u, sr, page)
	if err != nil {
		return nil, err
	}
	out := &providers.Page{Records: []providers.Record{}}
	idx, taken := offset, 0
	for extra := 0; ; extra++ {
		for ; idx < len(cur.Results) && taken < sr.num; idx, taken = idx+1, taken+1 {
			if rec, ok := ebookRecord(cur.Results[idx]); ok {
				out.Records = append(out.Records, rec)
			}
		}
		if taken == sr.num || cur.Next == "" || extra == 1 {
			break
		}
		next, err := fetchGutendex(ctx, u, sr, page+1)
		if err != nil {
			if len(out.Records) == 0 {
				return nil, err
			}
			// Keep what was read; `more` retries the page that failed.
			out.HasMore, out.Next = true, mustJSON(pageState{Source: gutendexID, Page: page + 1})
			return out, nil
		}
		page, cur, idx = page+1, next, 0
	}
	switch {
	case idx < len(cur.Results):
		out.HasMore, out.Next = true, mustJSON(pageState{Source: gutendexID, Page: page, Offset: idx})
	case cur.Next != "":
		out.HasMore, out.Next = true, mustJSON(pageState{Source: gutendexID, Page: page + 1})
	}
	return out, nil
}

// fetchGutendex reads one Gutendex page. A page past the last (404 on a page after the first,
// when the catalog shrank between two calls) is an empty last page.
func fetchGutendex(ctx context.Context, u *providers.Upstream, sr searchRequest, page int) (*gutendexList, error) {
	q := url.Values{}
	q.Set("search", sr.terms)
	if sr.language != "" {
		q.Set("languages", sr.language)
	}
	q.Set("page", strconv.Itoa(page))
	var body gutendexList
	err := u.GetJSON(ctx, gutendexBooksPath, q, &body)
	if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusNotFound && page > 1 {
		return &gutendexList{Results: lenient.List[gutendexBook]{}}, nil
	}
	if err != nil {
		return nil, gutendexError(err)
	}
	if body.Results == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "gutendex answered without a results list").WithRetryable(true)
	}
	return &body, nil
}

// gutendexError adds Django REST framework's {"detail": "..."} to a refused call's message.
func gutendexError(err error) error {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 || len(e.Body) == 0 {
		return err
	}
	var body struct {
		Detail lenient.Str `json:"detail"`
	}
	if json.Unmarshal(e.Body, &body) != nil || body.Detail == "" {
		return err
	}
	out := *e
	out.Message = fmt.Sprintf("%s: %s", strings.TrimSuffix(e.Message, "."), body.Detail)
	return &out
}

// ebookRecord maps one Gutendex book; ok is false when it has neither a title nor an id.
func ebookRecord(b gutendexBook) (providers.Record, bool) {
	id := b.ID.V
	if !b.ID.OK || id <= 0 {
		id = 0
	}
	title := strings.Join(strings.Fields(string(b.Title)), " ")
	if title == "" {
		if id == 0 {
			return providers.Record{}, false
		}
		title = fmt.Sprintf("Project Gutenberg ebook #%d", id)
	}
	data := &BookRecord{Source: "ebook_library"}
	rec := providers.Record{Title: title, Data: data}
	names := make([]lenient.Str, 0, len(b.Authors))
	for _, a := range b.Authors {
		names = append(names, a.Name)
	}
	if authors := cleanStrings(names, 0); len(authors) > 0 {
		data.Authors = authors
	}
	if langs := cleanStrings(b.Languages, 0); len(langs) > 0 {
		for i := range langs {
			langs[i] = strings.ToLower(langs[i])
		}
		data.Languages = langs
	}
	if subjects := cleanStrings(b.Subjects, maxRecordSubjects); len(subjects) > 0 {
		data.Subjects = subjects
	}
	if b.DownloadCount.OK && b.DownloadCount.V >= 0 {
		data.Downloads = &b.DownloadCount.V
	}
	for _, s := range b.Summaries {
		if s != "" {
			rec.Snippet = providers.ClipLine(string(s), snippetChars)
			break
		}
	}
	if id == 0 {
		rec.Actions = []string{} // no ebook number: no page, no details
		return rec, true
	}
	rec.URL = ebookPage(id)
	editors := make([]lenient.Str, 0, len(b.Editors))
	for _, e := range b.Editors {
		editors = append(editors, e.Name)
	}
	rec.Ref = mustJSON(recordRef{Source: gutendexID, ID: id, Editors: cleanStrings(editors, 0),
		Text: pickFormat(b.Formats, "text/plain"), EPUB: pickFormat(b.Formats, "application/epub+zip"), HTML: pickFormat(b.Formats, "text/html")})
	return rec, true
}

func ebookPage(id int64) string { return fmt.Sprintf("%s/ebooks/%d", gutenbergSite, id) }

// pickFormat chooses the download URL of a media type from Gutendex's formats map, whose keys
// carry charsets ("text/plain; charset=us-ascii"). The bare type wins, then UTF-8, then any
// charset; zip archives (older entries such as "text/html; charset=utf-8": ".../1400-h.zip")
// are not the format itself and are skipped.
func pickFormat(formats strMap, mediaType string) string {
	keys := make([]string, 0, len(formats))
	for k := range formats {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, bestRank := "", 0
	for _, k := range keys {
		base, params, _ := strings.Cut(strings.ToLower(k), ";")
		link := formats[k]
		if strings.TrimSpace(base) != mediaType || strings.HasSuffix(strings.ToLower(link), ".zip") {
			continue
		}
		rank := 1
		switch {
		case strings.TrimSpace(params) == "":
			rank = 3
		case strings.Contains(params, "utf-8"):
			rank = 2
		}
		if rank > bestRank {
			best, bestRank = link, rank
		}
	}
	return best
}

// gutenbergTextRange is how much of a plain-text ebook the excerpt reads: the licence header
// is a few kilobytes, the excerpt 2,000 characters, the whole file up to several megabytes.
const gutenbergTextRange = "bytes=0-65535"

// ebookDetail is the details of an ebook: the opening of its plain text from Project Gutenberg
// (GET /cache/epub/{id}/pg{id}.txt, ranged) and the download links Gutendex listed.
func ebookDetail(ctx context.Context, u *providers.Upstream, ref recordRef, title string) (*providers.Detail, error) {
	body := &BookDetail{Source: "ebook_library", ID: ref.ID, Title: title, URL: ebookPage(ref.ID), Editors: ref.Editors}
	if ref.Text == "" {
		body.Note = "Project Gutenberg lists no plain-text format for this ebook, so there is no excerpt."
	} else {
		text, partial, found, err := cachedGutenbergText(ctx, u, ref.ID)
		switch {
		case err != nil:
			return nil, err
		case !found:
			body.Note = "Project Gutenberg has no plain-text file for this ebook, so there is no excerpt."
		case text == "":
			body.Note = "The ebook's plain-text file holds no text after Project Gutenberg's header."
		default:
			excerpt := providers.Clip(text, excerptChars)
			cut := excerpt != text
			if !cut && partial { // the ranged read ended inside the text
				excerpt, cut = dropPartialWord(text), true
			}
			body.Excerpt, body.ExcerptTruncated = excerpt, &cut
		}
	}
	links := make([]providers.Link, 0, 4)
	for _, l := range []providers.Link{{Label: "Plain text", URL: ref.Text}, {Label: "EPUB", URL: ref.EPUB}, {Label: "HTML", URL: ref.HTML}} {
		if l.URL != "" {
			links = append(links, l)
		}
	}
	links = append(links, providers.Link{Label: "Project Gutenberg page", URL: ebookPage(ref.ID)})
	return &providers.Detail{Body: body, Links: links}, nil
}

// ebookText is the opening of an ebook's plain text as the excerpt needs it; the zero value is
// "no such file".
type ebookText struct {
	text    string
	partial bool
	found   bool
}

// ebookTexts keeps the texts read in process: Project Gutenberg asks automated clients not to
// fetch the same files again and again. A text is kept a day, a missing file an hour.
var ebookTexts = ttlcache.New[ebookText](512, 24*time.Hour, time.Hour)

// cachedGutenbergText is gutenbergText through ebookTexts (keyed by base URL, so the sandbox and
// differently configured mirrors never mix); failures are not kept.
func cachedGutenbergText(ctx context.Context, u *providers.Upstream, id int64) (text string, partial, found bool, err error) {
	key := u.BaseURL + "\x00" + strconv.FormatInt(id, 10)
	if t, ok := ebookTexts.Get(key); ok {
		return t.text, t.partial, t.found, nil
	}
	text, partial, found, err = gutenbergText(ctx, u, id)
	if err == nil {
		ebookTexts.Put(key, ebookText{text: text, partial: partial, found: found})
	}
	return text, partial, found, err
}

// gutenbergText reads the opening of an ebook's plain text without its header; partial tells
// that the ranged read stopped before the end of the file, found is false when Project
// Gutenberg has no such file (404).
func gutenbergText(ctx context.Context, u *providers.Upstream, id int64) (text string, partial, found bool, err error) {
	req, err := u.NewRequest(ctx, http.MethodGet, fmt.Sprintf("/cache/epub/%d/pg%d.txt", id, id), nil, nil)
	if err != nil {
		return "", false, false, err
	}
	req.Header.Set("Range", gutenbergTextRange)
	req.Header.Set("Accept", "text/plain")
	resp, err := u.Do(req)
	if e, ok := providers.AsError(err); ok && (e.UpstreamStatus == http.StatusNotFound || e.UpstreamStatus == http.StatusGone) {
		return "", false, false, nil
	}
	if err != nil {
		return "", false, false, err
	}
	if ct := strings.ToLower(resp.Header.Get("Content-Type")); strings.Contains(ct, "html") {
		return "", false, false, providers.Errorf(providers.CodeProviderError,
			"gutenberg answered a web page instead of the ebook's plain text").WithRetryable(true)
	}
	return gutenbergBody(string(resp.Body)), rangeCut(resp), true, nil
}

// rangeCut tells whether a 206 answer holds less than the whole file ("bytes 0-65535/804335").
func rangeCut(resp *providers.Response) bool {
	if resp.Status != http.StatusPartialContent {
		return false
	}
	_, total, ok := strings.Cut(resp.Header.Get("Content-Range"), "/")
	size, err := strconv.Atoi(strings.TrimSpace(total))
	if !ok || err != nil {
		return true // unknown size: assume the file goes on
	}
	return size > len(resp.Body)
}
