package mealdb

import (
	"embed"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"time"

	"github.com/capgate/capgate/providers"
)

// ProviderID is TheMealDB provider (PROVIDER_MEALDB_URL, PROVIDER_MEALDB_KEY).
const ProviderID = "mealdb"

// baseURL is the v1 JSON API root; the key is the next path segment (/{key}/search.php).
const baseURL = "https://www.themealdb.com/api/json/v1"

// siteURL is the public TheMealDB site: record URLs point to its meal pages whatever base URL a
// deployment configures for API calls (a mirror or a test fake is never shown to callers).
const siteURL = "https://www.themealdb.com"

// publicTestKey is TheMealDB's public test key, for development and education only: a
// deployment uses it only when it sets PROVIDER_MEALDB_KEY=1 explicitly.
const publicTestKey = "1"

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstream providers of this package.
func Providers() []*providers.Provider {
	return []*providers.Provider{{
		ID:      ProviderID,
		Title:   "TheMealDB",
		Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "recipes rarely change; terms on caching not found: a day", Source: "not found: conservative day for static recipe data"},
		BaseURL: baseURL,
		// The key is a path segment, not a header or query parameter: the adapter builds the path
		// itself (see apiPath), so Authorize stays nil. TheMealDB reserves its public test key "1"
		// for development and education; a public deployment needs a supporter key, so live calls
		// wait for PROVIDER_MEALDB_KEY.
		KeyRequired: true,
		SignUp:      "https://www.themealdb.com/api.php",
		// A base URL of the deployment's own (a mirror, a test double) takes the test key's path.
		OwnHostKey: publicTestKey,
		KeyNote: "TheMealDB's public test key \"" + publicTestKey + "\" is for development and education only, a public " +
			"deployment needs a TheMealDB supporter key (set PROVIDER_MEALDB_KEY=" + publicTestKey + " explicitly for development)",
		Sandbox: sandboxHandler(),
	}}
}

// sandboxMeals are the meal ids the sandbox can look up (lookup_<id>.json); they are the meals
// of the filter fixtures. Any other id answers {"meals": null}, as TheMealDB does.
var sandboxMeals = []string{"52771", "52819", "52844", "52897", "52918", "52959", "52982", "53058"}

func sandboxHandler() http.Handler {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	has := func(param string) func(url.Values) bool {
		return func(q url.Values) bool { return q.Get(param) != "" }
	}
	routes := []providers.SandboxRoute{
		// The sandbox holds fixed data: any name search answers the "stew" fixture, any
		// ingredient the "garlic" one, any category "Seafood" and any cuisine "Italian".
		sandboxRoute("search.php", has("s"), "search_stew.json"),
		sandboxRoute("filter.php", has("i"), "filter_ingredient_garlic.json"),
		sandboxRoute("filter.php", has("c"), "filter_category_seafood.json"),
		sandboxRoute("filter.php", has("a"), "filter_area_italian.json"),
	}
	for _, id := range sandboxMeals {
		routes = append(routes, sandboxRoute("lookup.php", func(q url.Values) bool { return q.Get("i") == id }, "lookup_"+id+".json"))
	}
	routes = append(routes,
		sandboxRoute("lookup.php", nil, "meals_null.json"),
		sandboxRoute("search.php", nil, "meals_null.json"),
		sandboxRoute("filter.php", nil, "meals_null.json"),
	)
	return providers.SandboxHandler(sub, routes...)
}

// sandboxRoute answers /api/json/v1/{any key}/{endpoint} when match accepts the query.
func sandboxRoute(endpoint string, match func(url.Values) bool, file string) providers.SandboxRoute {
	return providers.SandboxRoute{
		Path: "/api/json/v1/*",
		Match: func(r *http.Request) bool {
			if path.Base(r.URL.Path) != endpoint || path.Dir(path.Dir(r.URL.Path)) != "/api/json/v1" {
				return false
			}
			return match == nil || match(r.URL.Query())
		},
		File: file,
	}
}
