package classics

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Search is classics.search (spec section 4.14): public-domain ebooks from Project Gutenberg's
// catalog (Gutendex), with English Wikisource as the fallback source.
var Search = &providers.Capability{
	ID:      "classics.search",
	Fresh:   24 * time.Hour,
	Title:   "Classic literature search",
	Summary: "Find public-domain classics (Project Gutenberg ebooks) by title words or author, with excerpts and download links.",
	Description: "Searches Project Gutenberg's catalog of free public-domain ebooks (through Gutendex) by title words " +
		"and/or author name; at least one of `query` and `author` is required. Every word of both must appear in " +
		"the book's title or in an author's name (the catalog searches nothing else), so use distinctive title " +
		"words or a surname. `language` (two-letter ISO 639-1 code, lower case) keeps only ebooks in that language; " +
		"`num` sets the page size (1 to 25, default 10). Results are ordered by popularity (downloads). Every record " +
		"has `source` (`ebook_library`), a title and url (the ebook's Project Gutenberg page) and, when the catalog " +
		"has them, `authors` (string[], as catalogued, e.g. \"Dickens, Charles\"), `languages` (string[] of codes), " +
		"`subjects` (string[], up to 10), `downloads` (integer, recent downloads) and a snippet (the catalog's summary, " +
		"up to 600 characters). When the ebook catalog is unavailable the search runs on the fallback source " +
		"Wikisource (English): records carry `source` `wiki_library`, title, url, `words` (the page's word count) and " +
		"`authors` where the work page links to Wikisource author pages (this can include translators or editors); " +
		"they have no snippet, languages, subjects or downloads, and the language filter is not applied; `notes` says " +
		"so, and `more` continues on the source the search started on. Follow-ups: `more` (next page), `update` " +
		"(change any request field; paging restarts) and the record action `details` (free): an excerpt of the text " +
		"(about the first 2,000 characters, without Project Gutenberg's licence header) with download links in plain " +
		"text, EPUB and HTML.",
	Topic:   "Research and reading",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingPage,
	Actions: []providers.Action{{
		Name: "details",
		Description: "An excerpt of the work's text (about the first 2,000 characters; Project Gutenberg's licence " +
			"header removed) with download links in plain text, EPUB and HTML and the work's page. Free.",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     details,
	}},
	Cost: providers.Cost{
		Typical: 0,
		Basis:   "Free: Gutendex, Project Gutenberg and Wikisource are keyless public sources, so searches, more, update and details cost nothing.",
	},
	Deadline: 15 * time.Second,
	// Gutendex is the source a search starts on; Wikisource only stands in for it (doc.go).
	Providers: []string{gutendexID},
	Examples: []providers.Example{
		{Title: "Works by an author, five per page", Body: providers.ExampleBody(`{"author": "Charles Dickens", "num": 5}`)},
		{Title: "Title words by an author, in French", Body: providers.ExampleBody(`{"query": "voyage", "author": "Jules Verne", "language": "fr"}`)},
	},
	Execute: execute,
	Record:  BookRecord{},
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "classics.search request",
  "description": "Search public-domain ebooks by title words and/or author. At least one of query and author is required; every word of both must appear in the title or an author's name.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 300,
      "pattern": "\\S",
      "description": "Words of the title to look for (for example \"great expectations\"); every word must appear in the title or an author's name. Must not be blank."
    },
    "author": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200,
      "pattern": "\\S",
      "description": "Author name or surname (for example \"Jules Verne\" or \"Austen\"); every word must appear in an author's name or the title. Must not be blank."
    },
    "language": {
      "type": "string",
      "minLength": 2,
      "maxLength": 2,
      "pattern": "^[a-z]{2}$",
      "description": "Two-letter ISO 639-1 language code in lower case (for example \"en\", \"fr\", \"de\"): only ebooks in this language. Not applied when the fallback source answers (notes say so)."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 25,
      "default": 10,
      "description": "Results per page, 1 to 25."
    }
  }
}`

// rules: query or author is required (spec 4.14, rules beyond the schema).
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	if strings.TrimSpace(req.Str("query")) != "" || strings.TrimSpace(req.Str("author")) != "" {
		return nil
	}
	return []providers.Violation{{Path: "", Message: "query or author is required"}}
}

// gutendexMaxBudget bounds the primary source's first-page calls so a timeout still leaves the
// fallback time to answer within the 15 s deadline.
const gutendexMaxBudget = 8 * time.Second

// searchRequest is the validated request as the adapter uses it.
type searchRequest struct {
	terms    string // query and author words, as one space-separated search string
	language string
	num      int
}

func readRequest(req providers.Request) searchRequest {
	num, ok := req.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	return searchRequest{
		terms:    strings.Join(strings.Fields(req.Str("query")+" "+req.Str("author")), " "),
		language: strings.TrimSpace(req.Str("language")),
		num:      num,
	}
}

func execute(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	sr := readRequest(call.Request)
	st, err := decodeState(call.State)
	if err != nil {
		return nil, err
	}
	if st.Source == wikisourceID { // a fallback search continues on the fallback
		return searchWikisource(ctx, call.Upstream(wikisourceID), sr, st.Offset,
			"this search started there because the primary source, Gutendex, was unavailable")
	}
	gx := call.Upstream(gutendexID)
	ws := call.Upstream(wikisourceID)
	// A Gutendex search continues on Gutendex: switching sources mid-search would mix two result sets.
	if !firstPage(call.State) || !ws.Available() {
		return searchGutendex(ctx, gx, sr, st.Page, st.Offset)
	}
	var why string
	switch {
	case !gx.Available():
		why = "Gutendex is not configured in this deployment"
	case gx.BreakerOpen():
		why = "Gutendex is failing and calls to it are paused"
	default:
		gctx, cancel := context.WithTimeout(ctx, providers.PrimaryBudget(ctx, gutendexMaxBudget))
		page, err := searchGutendex(gctx, gx, sr, 1, 0)
		cancel()
		if err == nil || !providers.FallbackWorthy(err) || ctx.Err() != nil {
			return page, err
		}
		why = "Gutendex could not answer: " + providers.MessageOf(err)
	}
	return searchWikisource(ctx, ws, sr, 0, why)
}

// pageState is the paging state of the following page. Gutendex pages hold 32 books: page is
// its page number and offset the index of the next book on it. Wikisource pages by offset.
type pageState struct {
	Source string `json:"source"`
	Page   int    `json:"page,omitempty"`
	Offset int    `json:"offset"`
}

// firstPage tells whether the paging state asks for the first page (none is stored yet).
func firstPage(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func decodeState(raw json.RawMessage) (pageState, error) {
	if firstPage(raw) {
		return pageState{Source: gutendexID, Page: 1}, nil
	}
	var st pageState
	err := json.Unmarshal(raw, &st)
	valid := err == nil && st.Offset >= 0 &&
		(st.Source == gutendexID && st.Page >= 1 || st.Source == wikisourceID && st.Page == 0)
	if !valid {
		return pageState{}, &providers.Error{Code: providers.CodeInternal, Message: "the stored paging state of this search is unreadable"}
	}
	return st, nil
}

// BookRecord is a classics.search record (besides title, url and snippet): the ebook library's keys
// or, from the Wikisource fallback, words and authors; keys a source does not report are left out.
type BookRecord struct {
	Source    string   `json:"source" doc:"ebook_library or wiki_library (the fallback)"`
	Authors   []string `json:"authors,omitempty"`
	Languages []string `json:"languages,omitempty" doc:"lower-case language codes (ebook_library only)"`
	Subjects  []string `json:"subjects,omitempty" doc:"ebook_library only"`
	Downloads *int64   `json:"downloads,omitempty" doc:"recent download count (ebook_library only)"`
	Words     *int64   `json:"words,omitempty" doc:"the page's word count (wiki_library only)"`
}

// BookDetail is the details body of either source. json.Marshal keeps declared order, so the
// fields are declared in sorted key order.
type BookDetail struct {
	Editors          []string `json:"editors,omitempty"`
	Excerpt          string   `json:"excerpt,omitempty"`
	ExcerptTruncated *bool    `json:"excerpt_truncated,omitempty"`
	ID               int64    `json:"id,omitempty"`
	Note             string   `json:"note,omitempty"`
	PageID           int64    `json:"pageid,omitempty"`
	Source           string   `json:"source"`
	Title            string   `json:"title"`
	URL              string   `json:"url"`
}

// recordRef is what the details action needs: the source and the source's ids (and, for an
// ebook, the download links of its formats, captured from the catalog at search time).
type recordRef struct {
	Source string `json:"source"`
	ID     int64  `json:"id,omitempty"`     // Project Gutenberg ebook number
	PageID int64  `json:"pageid,omitempty"` // Wikisource page id
	Title  string `json:"title,omitempty"`  // Wikisource page title
	Text   string `json:"text,omitempty"`   // plain-text download
	EPUB   string `json:"epub,omitempty"`
	HTML   string `json:"html,omitempty"`
	// Editors are the ebook's editors as Gutendex lists them (the details show them).
	Editors []string `json:"editors,omitempty"`
}

func (r recordRef) valid() bool {
	switch r.Source {
	case gutendexID:
		return r.ID > 0
	case wikisourceID:
		return r.PageID > 0 && r.Title != ""
	}
	return false
}

func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref recordRef
	if err := json.Unmarshal(rec.Ref, &ref); err != nil || !ref.valid() {
		return nil, &providers.Error{Code: providers.CodeInternal, Message: "the record carries no usable classics reference"}
	}
	if ref.Source == wikisourceID {
		return wikisourceDetail(ctx, call.Upstream(wikisourceID), ref)
	}
	return ebookDetail(ctx, call.Upstream(gutenbergID), ref, rec.Title)
}
