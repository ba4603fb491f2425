package classics

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// English Wikisource's MediaWiki Action API (https://en.wikisource.org/w/api.php), always with
// format=json&formatversion=2:
//   - list=search (CirrusSearch): {batchcomplete, continue{sroffset, continue},
//     query{searchinfo{totalhits}, search[{ns, title, pageid, size, wordcount, snippet, timestamp}]}}
//   - prop=links: {query{pages[{pageid, ns, title, links[{ns, title}]}]}}
//   - prop=extracts (TextExtracts): {query{pages[{pageid, ns, title, extract}]}}; a missing page
//     is {pageid, missing: true}
//   - action=parse: {parse{title, pageid, text}}
// Failures come with HTTP 200 as {error{code, info, docref}, servedby}.

// wikisourceAPIPath is the Action API entry point under the base URL (…/w).
const wikisourceAPIPath = "/api.php"

// minExtractChars: an extract shorter than this is checked against the rendered page.
const minExtractChars = 200

// authorNamespace is English Wikisource's Author: namespace.
const authorNamespace = 102

type mwSearchAnswer struct {
	Error    json.RawMessage             `json:"error"`
	Continue lenient.Obj[mwContinue]     `json:"continue"`
	Query    lenient.Obj[mwSearchResult] `json:"query"`
}

type mwContinue struct {
	SROffset lenient.Int `json:"sroffset"`
}

type mwSearchResult struct {
	Search lenient.List[mwSearchHit] `json:"search"`
}

type mwSearchHit struct {
	NS        lenient.Int `json:"ns"`
	Title     lenient.Str `json:"title"`
	PageID    lenient.Int `json:"pageid"`
	WordCount lenient.Int `json:"wordcount"`
}

type mwPagesAnswer struct {
	Error json.RawMessage            `json:"error"`
	Query lenient.Obj[mwPagesResult] `json:"query"`
}

type mwPagesResult struct {
	Pages lenient.List[mwPage] `json:"pages"`
}

type mwPage struct {
	PageID  lenient.Int          `json:"pageid"`
	Title   lenient.Str          `json:"title"`
	Missing optBool              `json:"missing"`
	Invalid optBool              `json:"invalid"`
	Extract lenient.Str          `json:"extract"`
	Links   lenient.List[mwLink] `json:"links"`
}

type mwLink struct {
	NS    lenient.Int `json:"ns"`
	Title lenient.Str `json:"title"`
}

type mwParseAnswer struct {
	Error json.RawMessage       `json:"error"`
	Parse lenient.Obj[mwParsed] `json:"parse"`
}

type mwParsed struct {
	Title  lenient.Str `json:"title"`
	PageID lenient.Int `json:"pageid"`
	Text   lenient.Str `json:"text"`
}

// apiQuery is the common part of every Action API call.
func apiQuery(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	q.Set("format", "json")
	q.Set("formatversion", "2")
	return q
}

// callAPI reads one Action API answer into out and maps an error member; error is the raw
// "error" member of out, read after decoding.
func callAPI(ctx context.Context, u *providers.Upstream, q url.Values, out any, errMember func() json.RawMessage) error {
	if err := u.GetJSON(ctx, wikisourceAPIPath, q, out); err != nil {
		return err
	}
	return mediawikiError(errMember())
}

// mediawikiError maps MediaWiki's {"code", "info"} error member (nil when absent).
func mediawikiError(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var e struct {
		Code lenient.Str `json:"code"`
		Info lenient.Str `json:"info"`
	}
	_ = json.Unmarshal(raw, &e)
	msg := "wikisource reported an error"
	if e.Code != "" {
		msg += " (" + string(e.Code) + ")"
	}
	if e.Info != "" {
		msg += ": " + string(e.Info)
	}
	switch code := string(e.Code); {
	case code == "ratelimited":
		return &providers.Error{Code: providers.CodeRateLimited, Message: msg, RetryAfter: 5 * time.Second}
	case code == "maxlag" || code == "readonly":
		return &providers.Error{Code: providers.CodeServiceUnavailable, Message: msg, RetryAfter: 5 * time.Second}
	case strings.HasPrefix(code, "internal_api_error"):
		return providers.Errorf(providers.CodeProviderError, "%s", msg).WithRetryable(true)
	case code == "missingtitle" || code == "nosuchpageid":
		return providers.Errorf(providers.CodeNotFound, "%s", msg)
	}
	return providers.Errorf(providers.CodeProviderError, "%s", msg).WithRetryable(false)
}

// searchWikisource answers a page from the fallback source: a full-text search of English
// Wikisource's main namespace, then one prop=links call for the Author: pages the works link to.
func searchWikisource(ctx context.Context, u *providers.Upstream, sr searchRequest, offset int, why string) (*providers.Page, error) {
	q := apiQuery("action", "query", "list", "search", "srsearch", sr.terms,
		"srlimit", strconv.Itoa(sr.num), "sroffset", strconv.Itoa(offset))
	var ans mwSearchAnswer
	if err := callAPI(ctx, u, q, &ans, func() json.RawMessage { return ans.Error }); err != nil {
		return nil, err
	}
	if ans.Query.V == nil || ans.Query.V.Search == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "wikisource answered without search results").WithRetryable(true)
	}
	out := &providers.Page{Records: []providers.Record{}}
	var ids []int64
	for _, hit := range ans.Query.V.Search {
		rec, ok := wikiRecord(hit)
		if !ok {
			continue
		}
		out.Records = append(out.Records, rec)
		if rec.Ref != nil {
			ids = append(ids, hit.PageID.V)
		}
	}
	authorsFailed := false
	if len(ids) > 0 {
		authors, err := wikisourceAuthors(ctx, u, ids)
		if err != nil {
			authorsFailed = true
		}
		for i := range out.Records {
			var ref recordRef
			if json.Unmarshal(out.Records[i].Ref, &ref) == nil && len(authors[ref.PageID]) > 0 {
				out.Records[i].Data.(*BookRecord).Authors = authors[ref.PageID]
			}
		}
	}
	if c := ans.Continue.V; c != nil && c.SROffset.OK && int(c.SROffset.V) > offset {
		out.HasMore, out.Next = true, mustJSON(pageState{Source: wikisourceID, Offset: int(c.SROffset.V)})
	}
	out.Notes = fallbackNotes(why, sr.language, authorsFailed)
	return out, nil
}

// fallbackNotes say that the fallback answered, why, which keys its records lack and that the
// language filter was not applied (spec 4.14).
func fallbackNotes(why, language string, authorsFailed bool) []string {
	note := "These results come from the fallback source Wikisource (English); " + why + ". " +
		"Its records lack snippet, languages, subjects and download counts; they carry title, url, source " +
		"(wiki_library), words (the page's word count) and authors where the work page links to Wikisource " +
		"author pages (which can include translators or editors)."
	if language != "" {
		note += " The language filter (" + language + ") was not applied: the fallback searches English Wikisource."
	}
	notes := []string{note}
	if authorsFailed {
		notes = append(notes, "Authors could not be looked up on Wikisource for this page, so its records carry none.")
	}
	return notes
}

// wikiRecord maps one search hit; ok is false without a title.
func wikiRecord(hit mwSearchHit) (providers.Record, bool) {
	title := string(hit.Title)
	if title == "" {
		return providers.Record{}, false
	}
	data := &BookRecord{Source: "wiki_library"}
	rec := providers.Record{Title: title, URL: wikiPage(title), Data: data}
	if hit.WordCount.OK && hit.WordCount.V >= 0 {
		data.Words = &hit.WordCount.V
	}
	if !hit.PageID.OK || hit.PageID.V <= 0 {
		rec.Actions = []string{}
		return rec, true
	}
	rec.Ref = mustJSON(recordRef{Source: wikisourceID, PageID: hit.PageID.V, Title: title})
	return rec, true
}

// wikisourceAuthors reads, for each page, the Author: pages it links to (the header template
// links the work's author there). Pages beyond one answer's link limit keep what was read.
func wikisourceAuthors(ctx context.Context, u *providers.Upstream, ids []int64) (map[int64][]string, error) {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	q := apiQuery("action", "query", "prop", "links", "pageids", strings.Join(parts, "|"),
		"plnamespace", strconv.Itoa(authorNamespace), "pllimit", "max")
	var ans mwPagesAnswer
	if err := callAPI(ctx, u, q, &ans, func() json.RawMessage { return ans.Error }); err != nil {
		return nil, err
	}
	out := map[int64][]string{}
	if ans.Query.V == nil {
		return out, nil
	}
	for _, p := range ans.Query.V.Pages {
		var names []lenient.Str
		for _, l := range p.Links {
			if l.NS.OK && l.NS.V != authorNamespace {
				continue
			}
			if _, name, ok := strings.Cut(string(l.Title), ":"); ok {
				names = append(names, lenient.Str(strings.TrimSpace(name)))
			}
		}
		if authors := cleanStrings(names, 0); len(authors) > 0 && p.PageID.OK {
			out[p.PageID.V] = authors
		}
	}
	return out, nil
}

// wikisourceDetail is the details of a Wikisource page: a plain-text excerpt from TextExtracts
// (prop=extracts&explaintext=1), or from the rendered page (action=parse) when TextExtracts
// gives little or nothing, and links to the page and the WS Export downloads.
func wikisourceDetail(ctx context.Context, u *providers.Upstream, ref recordRef) (*providers.Detail, error) {
	id := strconv.FormatInt(ref.PageID, 10)
	// No exchars: TextExtracts caps it at 1,200 characters; the excerpt is cut here to 2,000.
	q := apiQuery("action", "query", "prop", "extracts", "explaintext", "1", "exsectionformat", "plain",
		"exlimit", "1", "pageids", id)
	var ans mwPagesAnswer
	if err := callAPI(ctx, u, q, &ans, func() json.RawMessage { return ans.Error }); err != nil {
		return nil, err
	}
	title, text := ref.Title, ""
	if ans.Query.V != nil {
		for _, p := range ans.Query.V.Pages {
			if p.PageID.OK && p.PageID.V != ref.PageID {
				continue
			}
			if p.Missing || p.Invalid {
				return nil, providers.Errorf(providers.CodeNotFound, "Wikisource no longer has the page %q", ref.Title)
			}
			if p.Title != "" {
				title = string(p.Title)
			}
			text = tidyText(string(p.Extract))
		}
	}
	// TextExtracts drops every div by default (ExtractsRemoveClasses), and Wikisource wraps
	// transcluded text in divs: a missing or very short extract means the text is in the page,
	// not in the extract.
	if utf8.RuneCountInString(text) < minExtractChars {
		parsedTitle, parsed, err := wikisourceParse(ctx, u, id)
		switch {
		case err != nil && providers.CodeOf(err) == providers.CodeNotFound:
			return nil, providers.Errorf(providers.CodeNotFound, "Wikisource no longer has the page %q", ref.Title)
		case err != nil && text == "":
			return nil, err
		case err == nil && utf8.RuneCountInString(parsed) > utf8.RuneCountInString(text):
			text = parsed
			if parsedTitle != "" {
				title = parsedTitle
			}
		}
	}
	body := &BookDetail{Source: "wiki_library", PageID: ref.PageID, Title: title, URL: wikiPage(title)}
	if text == "" {
		body.Note = "Wikisource returned no text for this page, so there is no excerpt."
	} else {
		excerpt := providers.Clip(text, excerptChars)
		cut := excerpt != text
		body.Excerpt, body.ExcerptTruncated = excerpt, &cut
	}
	links := []providers.Link{
		{Label: "Plain text (WS Export)", URL: wsExport(title, "txt")},
		{Label: "EPUB (WS Export)", URL: wsExport(title, "epub")},
		{Label: "HTML (Wikisource page)", URL: wikiPage(title)},
	}
	return &providers.Detail{Body: body, Links: links}, nil
}

// wikisourceParse renders a page (action=parse&prop=text) and returns its title and plain text.
func wikisourceParse(ctx context.Context, u *providers.Upstream, pageID string) (title, text string, err error) {
	var ans mwParseAnswer
	q := apiQuery("action", "parse", "pageid", pageID, "prop", "text", "disableeditsection", "1", "disablelimitreport", "1")
	if err := callAPI(ctx, u, q, &ans, func() json.RawMessage { return ans.Error }); err != nil {
		return "", "", err
	}
	if p := ans.Parse.V; p != nil {
		return string(p.Title), htmlText(string(p.Text)), nil
	}
	return "", "", nil
}

// wikiPage is a page's address on English Wikisource: spaces become underscores and characters
// outside MediaWiki's URL-safe set are percent-encoded.
func wikiPage(title string) string {
	return wikisourceSite + "/wiki/" + wikiPath(strings.ReplaceAll(title, " ", "_"))
}

func wikiPath(s string) string {
	const safe = "-_.~:/!$'()*,;@"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(safe, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
	}
	return b.String()
}

// wsExport is the WS Export download of a page (lang, page, format: epub, txt, …).
func wsExport(title, format string) string {
	return wsExportSite + "/?lang=en&page=" + url.QueryEscape(title) + "&format=" + format
}
