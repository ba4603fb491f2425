package npm

import (
	"embed"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Provider ids (PROVIDER_NPM_URL, PROVIDER_NPMDOWNLOADS_URL). Neither has a built-in base URL:
// a deployment sets both (DESIGN.md section 5); the download counts API is served by the
// registry's operator on its own host.
const (
	RegistryID  = "npm"
	DownloadsID = "npmdownloads"
)

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstreams of this package. Both are keyless public APIs; the registry's
// metadata documents are limited to 8 MiB (the spec's metadata limit, the shared client's
// default), and the download counts answers are small.
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:      RegistryID,
			Title:   "JavaScript package registry",
			Cache:   providers.CacheRule{MaxAge: time.Hour, Rule: "package metadata; an hour", Source: "registry metadata is public (conservative hour)"},
			BaseURL: "",
			MaxBody: providers.DefaultMaxBody,
			Sandbox: registrySandbox(),
		},
		{
			ID:      DownloadsID,
			Title:   "JavaScript package registry download counts",
			Cache:   providers.CacheRule{MaxAge: time.Hour, Rule: "download counts update daily; an hour", Source: "public counts (conservative hour)"},
			BaseURL: "",
			Sandbox: downloadsSandbox(),
		},
	}
}

func sandboxFS() fs.FS {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	return sub
}

// sandboxPackuments are the packages whose full documents the sandbox holds: every package its
// search pages return, so details works on each search record.
var sandboxPackuments = map[string]string{
	"/yargs":        "packument_yargs.json",
	"/commander":    "packument_commander.json",
	"/minimist":     "packument_minimist.json",
	"/meow":         "packument_meow.json",
	"/@types/yargs": "packument_types-yargs.json",
}

// sandboxManifests are the version manifests the sandbox holds, by path (request paths arrive
// decoded: "/@babel%2Fparser/latest" is matched as "/@babel/parser/latest").
var sandboxManifests = map[string]string{
	"/yargs/latest":         "manifest_yargs_17.7.2.json",
	"/yargs/17.7.2":         "manifest_yargs_17.7.2.json",
	"/@babel/parser/latest": "manifest_babel-parser_7.26.3.json",
	"/@babel/parser/7.26.3": "manifest_babel-parser_7.26.3.json",
	"/commander/latest":     "manifest_commander_12.1.0.json",
	"/commander/12.1.0":     "manifest_commander_12.1.0.json",
	"/@types/yargs/latest":  "manifest_types-yargs_17.0.33.json",
	"/@types/yargs/17.0.33": "manifest_types-yargs_17.0.33.json",
	"/minimist/latest":      "manifest_minimist_1.2.8.json",
	"/minimist/1.2.8":       "manifest_minimist_1.2.8.json",
	"/meow/latest":          "manifest_meow_13.2.0.json",
	"/meow/13.2.0":          "manifest_meow_13.2.0.json",
}

// registrySandbox answers the registry's search, package document and manifest paths.
func registrySandbox() http.Handler {
	routes := []providers.SandboxRoute{
		{Path: "/-/v1/search", Match: laterOffset, File: "search_page2.json"},
		{Path: "/-/v1/search", File: "search_page1.json"},
	}
	for _, path := range slices.Sorted(maps.Keys(sandboxPackuments)) {
		routes = append(routes, providers.SandboxRoute{Path: path, File: sandboxPackuments[path]})
	}
	for _, path := range slices.Sorted(maps.Keys(sandboxManifests)) {
		routes = append(routes, providers.SandboxRoute{Path: path, File: sandboxManifests[path]})
	}
	// Another version or dist-tag of a package the sandbox knows answers as the registry does
	// for an unknown version (404 with a bare JSON string); anything else is an unknown package
	// (404 {"error": "Not found"}).
	for _, path := range slices.Sorted(maps.Keys(sandboxPackuments)) {
		routes = append(routes, providers.SandboxRoute{Path: path + "/*", File: "version_not_found.json", Status: http.StatusNotFound})
	}
	routes = append(routes,
		providers.SandboxRoute{Path: "/@babel/parser/*", File: "version_not_found.json", Status: http.StatusNotFound},
		providers.SandboxRoute{Path: "/*", File: "package_not_found.json", Status: http.StatusNotFound},
	)
	return providers.SandboxHandler(sandboxFS(), routes...)
}

// downloadsSandbox answers the download counts paths for the sandbox's packages: the examples'
// exact periods get their own fixtures, any other period of a known package the package's
// last-month (point) or last-week (range) fixture, and an unknown package the API's 404.
func downloadsSandbox() http.Handler {
	suffix := func(name string) func(r *http.Request) bool {
		return func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/"+name) }
	}
	routes := []providers.SandboxRoute{
		{Path: "/downloads/point/last-month/yargs", File: "downloads_point_yargs_last-month.json"},
		{Path: "/downloads/point/2024-01-01:2024-06-30/yargs", File: "downloads_point_yargs_2024h1.json"},
		{Path: "/downloads/range/2024-01-01:2024-01-07/@babel/parser", File: "downloads_range_babel-parser_2024-01-01.json"},
		{Path: "/downloads/point/*", Match: suffix("yargs"), File: "downloads_point_yargs_last-month.json"},
		{Path: "/downloads/range/*", Match: suffix("yargs"), File: "downloads_range_yargs_last-week.json"},
		{Path: "/downloads/point/*", Match: suffix("@babel/parser"), File: "downloads_point_babel-parser_last-month.json"},
		{Path: "/downloads/range/*", Match: suffix("@babel/parser"), File: "downloads_range_babel-parser_2024-01-01.json"},
		{Path: "/downloads/*", File: "downloads_not_found.json", Status: http.StatusNotFound},
	}
	return providers.SandboxHandler(sandboxFS(), routes...)
}

// laterOffset matches a search request for any page after the first (from > 0).
func laterOffset(r *http.Request) bool {
	n, err := strconv.Atoi(r.URL.Query().Get("from"))
	return err == nil && n > 0
}
