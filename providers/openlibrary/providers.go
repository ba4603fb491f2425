package openlibrary

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// ProviderID is the Open Library provider (PROVIDER_OPENLIBRARY_URL).
const ProviderID = "openlibrary"

// siteURL is the public Open Library site: record URLs and detail links point there whatever base
// URL a deployment configures for API calls (a mirror or a test fake is never shown to callers).
const siteURL = "https://openlibrary.org"

// coversURL is the Covers API host; covers fetched by cover id are not rate limited by Open Library.
const coversURL = "https://covers.openlibrary.org"

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstream providers of this package.
func Providers() []*providers.Provider {
	return []*providers.Provider{{
		ID:      ProviderID,
		Title:   "Open Library",
		Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "open bibliographic data; a day", Source: "Open Library: open data (vendor page not re-read this session; conservative day)"},
		BaseURL: siteURL,
		// Keyless. Open Library asks API clients for a User-Agent with an application name and a
		// contact (capgate/<version> (+<contact>)), so it is unavailable in live mode until
		// GATEWAY_CONTACT is set. The bound follows the allowance of 3 requests a second for
		// identified clients (see doc.go), shared by the fleet when Redis is configured.
		RequestsPerSecond: 3,
		ContactRequired:   true,
		Sandbox:           sandboxHandler(),
	}}
}

func sandboxHandler() http.Handler {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	routes := []providers.SandboxRoute{
		// Search: page 2 of the title query, the author/subject query, anything else answers the
		// title query's first page (a sandbox has fixed data).
		{Path: "/search.json", Match: func(r *http.Request) bool {
			q := r.URL.Query()
			return q.Get("author") == "" && q.Get("subject") == "" && q.Get("page") == "2"
		}, File: "search_lotr_page2.json"},
		{Path: "/search.json", Match: func(r *http.Request) bool {
			q := r.URL.Query()
			return q.Get("author") != "" || q.Get("subject") != ""
		}, File: "search_dahl.json"},
		{Path: "/search.json", File: "search_lotr_page1.json"},
	}
	for _, olid := range sandboxWorks {
		routes = append(routes,
			providers.SandboxRoute{Path: "/works/" + olid + ".json", File: "work_" + olid + ".json"},
			providers.SandboxRoute{Path: "/works/" + olid + "/editions.json", File: "editions_" + olid + ".json"},
		)
	}
	// An unknown work answers as Open Library does: 404 with its "notfound" body.
	routes = append(routes, providers.SandboxRoute{Path: "/works/*", Match: func(r *http.Request) bool {
		return !strings.HasSuffix(r.URL.Path, "/editions.json")
	}, File: "work_notfound.json", Status: http.StatusNotFound})
	return providers.SandboxHandler(sub, routes...)
}

// sandboxWorks are the works the sandbox search fixtures return; each has a work and an editions fixture.
var sandboxWorks = []string{
	"OL27448W", "OL27479W", "OL27513W", "OL27516W", "OL5720023W",
	"OL45804W", "OL45883W", "OL45790W",
}
