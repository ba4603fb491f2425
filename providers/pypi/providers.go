package pypi

import (
	"embed"
	"io/fs"
	"net/http"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// Provider ids (PROVIDER_PYPI_URL, PROVIDER_PYPISTATS_URL).
const (
	indexID = "pypi"
	statsID = "pypistats"
	// statsURL is pypistats' public site: its API base and the page a downloads record links to.
	statsURL = "https://pypistats.org"
)

// topic is the catalog group of every capability of this package.
const topic = "Dev"

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstreams of this package: the Python package index (no default base URL:
// every deployment sets PROVIDER_PYPI_URL, which also names the site pypkg.search is restricted
// to), pypistats (keyless) and the shared SerpApi provider of pypkg.search.
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{ID: indexID, Title: "Python package index", Cache: providers.CacheRule{MaxAge: time.Hour, Rule: "package metadata; an hour", Source: "public metadata (conservative hour)"}, Sandbox: indexSandbox()},
		{ID: statsID, Title: "pypistats", Cache: providers.CacheRule{MaxAge: time.Hour, Rule: "counts update daily; an hour", Source: "pypistats API notes (data updated daily)"}, BaseURL: statsURL, Sandbox: statsSandbox()},
		serpapi.Provider(),
	}
}

func sandboxFS() fs.FS {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	return sub
}

// sandboxProjects are the projects the index sandbox knows: the details and versions examples
// and every candidate of the discovery fixture (providers/upstream/serpapi/sandbox/google/site.json).
var sandboxProjects = []string{"requests", "httpx", "urllib3", "requests-toolbelt", "aiohttp", "httpie"}

// sandboxRequestsReleases are the releases of requests in the Simple API fixture; each has a
// release answer, for the details lookup of pypkg.versions.
var sandboxRequestsReleases = []string{"0.2.0", "0.2.1", "1.0.0", "2.0.0", "2.25.1", "2.28.0", "2.31.0", "2.32.0", "2.32.1", "2.32.2", "2.32.3", "2.32.4"}

// indexSandbox answers the JSON API and the Simple API's JSON form with recorded-shape fixtures;
// an unknown project or release answers 404 {"message": "Not Found"}.
func indexSandbox() http.Handler {
	routes := []providers.SandboxRoute{
		{Path: "/pypi/django/4.2.11/json", File: "index_django_4.2.11.json"},
		{Path: "/simple/requests/", File: "simple_requests.json", Type: simpleJSON},
	}
	for _, p := range sandboxProjects {
		routes = append(routes, providers.SandboxRoute{Path: "/pypi/" + p + "/json", File: "index_" + p + ".json"})
	}
	for _, v := range sandboxRequestsReleases {
		routes = append(routes, providers.SandboxRoute{Path: "/pypi/requests/" + v + "/json", File: "index_requests_" + v + ".json"})
	}
	routes = append(routes,
		providers.SandboxRoute{Path: "/pypi/*", File: "index_not_found.json", Status: http.StatusNotFound},
		providers.SandboxRoute{Path: "/simple/*", File: "index_not_found.json", Status: http.StatusNotFound},
	)
	return providers.SandboxHandler(sandboxFS(), routes...)
}

// statsSandbox answers pypistats' recent and overall (mirrors=false) endpoints for requests; any
// other package answers 404 as pypistats does for a package without data.
func statsSandbox() http.Handler {
	return providers.SandboxHandler(sandboxFS(),
		providers.SandboxRoute{Path: "/api/packages/requests/recent", File: "stats_requests_recent.json"},
		providers.SandboxRoute{Path: "/api/packages/requests/overall", Match: func(r *http.Request) bool {
			return r.URL.Query().Get("mirrors") == "false"
		}, File: "stats_requests_overall.json"},
	)
}
