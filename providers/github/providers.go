package github

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// ProviderID is the GitHub REST API provider (PROVIDER_GITHUB_URL, PROVIDER_GITHUB_KEY).
const ProviderID = "github"

// apiVersion is the REST API version every request pins with X-GitHub-Api-Version.
const apiVersion = "2022-11-28"

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstream providers of this package.
func Providers() []*providers.Provider {
	return []*providers.Provider{{
		ID:      ProviderID,
		Title:   "GitHub REST API",
		Cache:   providers.CacheRule{MaxAge: time.Hour, Rule: "repository metadata changes; an hour", Source: "GitHub API terms (not re-read this session; conservative hour)"},
		BaseURL: "https://api.github.com",
		// Keyless; a token (a fine-grained or classic personal access token, no scopes needed for
		// public data) raises the search allowance from 10 to 30 requests a minute and the core
		// allowance (README lookups) from 60 to 5,000 an hour.
		KeyRequired: false,
		Authorize: func(r *http.Request, key string) {
			r.Header.Set("Authorization", "Bearer "+key)
		},
		Sandbox: sandboxHandler(),
	}}
}

// sandboxHandler answers the two endpoints the adapter calls. Search: the Go router query has two
// pages; any other query answers the static-site fixture (a sandbox has fixed data). README: one
// route per sandbox/readme_<owner>_<repo>.json file (GitHub logins never hold "_"); any other
// repository answers GitHub's 404.
func sandboxHandler() http.Handler {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	isRouterQuery := func(r *http.Request) bool {
		return strings.Contains(strings.ToLower(r.URL.Query().Get("q")), "router")
	}
	routes := []providers.SandboxRoute{
		{Path: "/search/repositories", Match: func(r *http.Request) bool {
			return isRouterQuery(r) && r.URL.Query().Get("page") == "2"
		}, File: "search_go_routers_page2.json"},
		{Path: "/search/repositories", Match: isRouterQuery, File: "search_go_routers_page1.json"},
		{Path: "/search/repositories", File: "search_static_sites.json"},
	}
	files, err := fs.Glob(sub, "readme_*.json")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		owner, repo, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(path.Base(f), "readme_"), ".json"), "_")
		if !ok {
			panic("github sandbox: bad README fixture name " + f)
		}
		routes = append(routes, providers.SandboxRoute{Path: "/repos/" + owner + "/" + repo + "/readme", File: f})
	}
	routes = append(routes, providers.SandboxRoute{Path: "/repos/*", File: "not_found.json", Status: http.StatusNotFound})
	return providers.SandboxHandler(sub, routes...)
}
