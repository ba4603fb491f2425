package openalex

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// ProviderID is the OpenAlex provider (PROVIDER_OPENALEX_URL, PROVIDER_OPENALEX_KEY).
const ProviderID = "openalex"

// apiURL is OpenAlex's public API host, the provider's default base URL.
const apiURL = "https://api.openalex.org"

// siteURL is the public OpenAlex site: a work's canonical id (https://openalex.org/W…) is also its
// landing page, whatever base URL a deployment configures for API calls.
const siteURL = "https://openalex.org"

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstream providers of this package.
func Providers() []*providers.Provider {
	return []*providers.Provider{{
		ID:      ProviderID,
		Title:   "OpenAlex",
		Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "the data is CC0; works change slowly (a day)", Source: "OpenAlex docs: CC0 licence (vendor page not re-read this session)"},
		BaseURL: apiURL,
		// Since 13 February 2026 OpenAlex requires an API key: without one a client gets $0.01 of
		// usage a day, about ten searches. The free key (PROVIDER_OPENALEX_KEY) is sent as the
		// api_key query parameter; live calls wait for it.
		KeyRequired: true,
		SignUp:      "https://openalex.org/settings/api",
		Authorize:   authorize,
		// OpenAlex allows 100 requests a second per key; the older, lower figure of 10 is kept.
		RequestsPerSecond: 10,
		Sandbox:           sandboxHandler(),
	}}
}

// authorize adds the key as OpenAlex documents it: ?api_key=KEY on every call.
func authorize(r *http.Request, key string) {
	q := r.URL.Query()
	q.Set("api_key", key)
	r.URL.RawQuery = q.Encode()
}

func sandboxHandler() http.Handler {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	searchHas := func(words ...string) func(r *http.Request) bool {
		return func(r *http.Request) bool {
			s := strings.ToLower(r.URL.Query().Get("search"))
			for _, w := range words {
				if strings.Contains(s, w) {
					return true
				}
			}
			return false
		}
	}
	pageIs := func(p string) func(r *http.Request) bool {
		return func(r *http.Request) bool { return r.URL.Query().Get("page") == p }
	}
	// Search: each example's query has its recorded answer; any other query answers the first
	// page of the open-access query (a sandbox has fixed data), and page 2 its second page.
	routes := []providers.SandboxRoute{
		{Path: "/works", Match: searchHas("crispr", "genome editing", "gene editing"), File: "search_crispr.json"},
		{Path: "/works", Match: searchHas("language model"), File: "search_llm.json"},
		{Path: "/works", Match: pageIs("2"), File: "search_oa_page2.json"},
		{Path: "/works", File: "search_oa_page1.json"},
	}
	for _, id := range sandboxWorks {
		routes = append(routes, providers.SandboxRoute{Path: "/works/" + id, File: "work_" + id + ".json"})
	}
	// An unknown work answers 404 with OpenAlex's documented error body.
	routes = append(routes, providers.SandboxRoute{Path: "/works/*", File: "work_notfound.json",
		Status: http.StatusNotFound})
	return providers.SandboxHandler(sub, routes...)
}

// sandboxWorks are the works the sandbox search fixtures return; each has a singleton fixture.
var sandboxWorks = []string{
	"W2741809807", "W2101234009", "W1975412345", "W2160612345", "W2895346717",
	"W3089541170", "W2259113546",
	"W2284418426", "W2339155032", "W2981728710",
	"W4384561707", "W4327905936", "W4385245566",
}
