package classics

import (
	"embed"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Provider ids (PROVIDER_GUTENDEX_URL, PROVIDER_WIKISOURCE_URL, PROVIDER_GUTENBERG_URL).
const (
	gutendexID   = "gutendex"
	wikisourceID = "wikisource"
	gutenbergID  = "gutenberg"
)

// Public sites: record URLs and detail links point there whatever base URL a deployment
// configures for API calls (a mirror or a test fake is never shown to callers).
const (
	gutenbergSite  = "https://www.gutenberg.org"
	wikisourceSite = "https://en.wikisource.org"
	wsExportSite   = "https://ws-export.wmcloud.org"
)

//go:embed sandbox/*.json sandbox/*.txt sandbox/*.html
var sandboxFiles embed.FS

// gutenbergMirror is the default source of ebook texts: Project Gutenberg asks automated clients
// to use its mirrors, not www.gutenberg.org; PGLAF's own mirror serves the same /cache/epub tree.
// PROVIDER_GUTENBERG_URL picks another mirror that serves it.
const gutenbergMirror = "https://gutenberg.pglaf.org"

// Providers lists the upstreams of this package: Gutendex (the Project Gutenberg catalog,
// primary), English Wikisource's MediaWiki API (fallback) and a Project Gutenberg mirror (the
// plain-text files the ebook details excerpt). All three are keyless. Gutendex and Wikisource
// publish no request rate (see doc.go); ebook texts are read at most one every 2 seconds (fleet
// wide with Redis) and cached. Wikimedia asks for an identifying User-Agent, which the shared
// client always sends.
func Providers() []*providers.Provider {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	return []*providers.Provider{
		{
			ID:      gutendexID,
			Title:   "Gutendex (Project Gutenberg catalog)",
			Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "public-domain catalogue; a day", Source: "Project Gutenberg: public-domain texts (vendor terms not re-read this session)"},
			BaseURL: "https://gutendex.com",
			Sandbox: providers.SandboxHandler(sub,
				// A page past the last answers as Django REST framework does: 404 {"detail": "Invalid page."}.
				providers.SandboxRoute{Path: gutendexBooksPath, Match: laterPage, File: "gutendex_invalid_page.json", Status: http.StatusNotFound},
				providers.SandboxRoute{Path: gutendexBooksPath, Match: searchMentions("verne"), File: "gutendex_books_verne_fr.json"},
				providers.SandboxRoute{Path: gutendexBooksPath, File: "gutendex_books_dickens.json"},
			),
		},
		{
			ID:      wikisourceID,
			Title:   "Wikisource (English)",
			Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "CC BY-SA / public-domain texts; a day", Source: "Wikimedia terms (not re-read this session; conservative day)"},
			BaseURL: wikisourceSite + "/w",
			Sandbox: providers.SandboxHandler(sub, wikisourceSandboxRoutes()...),
		},
		{
			ID:                gutenbergID,
			Title:             "Project Gutenberg (mirror)",
			Cache:             providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "public-domain texts from a mirror; a day", Source: "Project Gutenberg mirroring policy (not re-read this session; conservative day)"},
			BaseURL:           gutenbergMirror,
			RequestsPerSecond: 0.5,
			Sandbox:           providers.SandboxHandler(sub, gutenbergSandboxRoutes()...),
		},
	}
}

// sandboxEbooks are the Project Gutenberg ids of the sandbox's Gutendex fixtures; each has a
// plain-text fixture sandbox/gutenberg_<id>.txt.
var sandboxEbooks = []int{98, 1400, 46, 730, 766, 1023, 786, 4791, 5097, 800}

// sandboxWikiPages are the page ids of the sandbox's Wikisource search fixtures; each has an
// extract fixture sandbox/wikisource_extract_<pageid>.json.
var sandboxWikiPages = []int{44862, 106392, 212338, 79014, 1060457, 293761, 1517743}

func gutenbergSandboxRoutes() []providers.SandboxRoute {
	var routes []providers.SandboxRoute
	for _, id := range sandboxEbooks {
		n := strconv.Itoa(id)
		routes = append(routes, providers.SandboxRoute{Path: "/cache/epub/" + n + "/pg" + n + ".txt",
			File: "gutenberg_" + n + ".txt", Type: "text/plain; charset=utf-8"})
	}
	// Any other file answers as gutenberg.org does: a 404 HTML page.
	return append(routes, providers.SandboxRoute{Path: "/*", File: "gutenberg_not_found.html",
		Status: http.StatusNotFound, Type: "text/html; charset=utf-8"})
}

func wikisourceSandboxRoutes() []providers.SandboxRoute {
	api := "/w" + wikisourceAPIPath
	routes := []providers.SandboxRoute{
		{Path: api, Match: wikiQuery("list", "search", laterOffset), File: "wikisource_search_dickens_page2.json"},
		{Path: api, Match: wikiQuery("list", "search", nil), File: "wikisource_search_dickens.json"},
		{Path: api, Match: wikiQuery("prop", "links", nil), File: "wikisource_links_dickens.json"},
	}
	for _, id := range sandboxWikiPages {
		n := strconv.Itoa(id)
		routes = append(routes, providers.SandboxRoute{Path: api, Match: wikiQuery("prop", "extracts", param("pageids", n)),
			File: "wikisource_extract_" + n + ".json"})
	}
	return append(routes,
		providers.SandboxRoute{Path: api, Match: wikiQuery("prop", "extracts", nil), File: "wikisource_extract_missing.json"},
		providers.SandboxRoute{Path: api, Match: wikiAction("parse", param("pageid", "44862")), File: "wikisource_parse_44862.json"},
		providers.SandboxRoute{Path: api, Match: wikiAction("parse", nil), File: "wikisource_parse_nosuchpageid.json"},
	)
}

// laterPage matches a Gutendex request for a page after the first.
func laterPage(r *http.Request) bool {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	return err == nil && n > 1
}

// laterOffset matches a MediaWiki search continued past its first page.
func laterOffset(r *http.Request) bool {
	n, err := strconv.Atoi(r.URL.Query().Get("sroffset"))
	return err == nil && n > 0
}

// searchMentions matches a Gutendex search containing the word.
func searchMentions(word string) func(r *http.Request) bool {
	return func(r *http.Request) bool {
		return strings.Contains(strings.ToLower(r.URL.Query().Get("search")), word)
	}
}

// param matches a request whose query parameter has the value.
func param(key, value string) func(r *http.Request) bool {
	return func(r *http.Request) bool { return r.URL.Query().Get(key) == value }
}

// wikiQuery matches action=query with the given list= or prop= module (and more, when set).
func wikiQuery(kind, module string, more func(r *http.Request) bool) func(r *http.Request) bool {
	return func(r *http.Request) bool {
		q := r.URL.Query()
		return q.Get("action") == "query" && q.Get(kind) == module && (more == nil || more(r))
	}
}

// wikiAction matches another MediaWiki action (and more, when set).
func wikiAction(action string, more func(r *http.Request) bool) func(r *http.Request) bool {
	return func(r *http.Request) bool {
		return r.URL.Query().Get("action") == action && (more == nil || more(r))
	}
}
