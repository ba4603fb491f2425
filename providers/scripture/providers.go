package scripture

import (
	"embed"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Provider ids (PROVIDER_BIBLEAPI_URL, PROVIDER_APIBIBLE_URL / _KEY, PROVIDER_QURAN_URL).
const (
	bibleAPIID = "bibleapi"
	apiBibleID = "apibible"
	quranID    = "quran"
)

// Public sites: detail links and record URLs point there whatever base URL a deployment configures
// (a mirror or a test fake is never shown to callers).
const (
	bibleAPISite = "https://bible-api.com"
	quranSite    = "https://quran.com"
)

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstreams of this package.
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:      bibleAPIID,
			Title:   "bible-api.com",
			Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "public-domain translations; a day", Source: "bible-api.com: public-domain translations (not re-read this session)"},
			BaseURL: bibleAPISite,
			// Keyless. The service throttles each client address to 15 requests per 30 seconds
			// (Rack::Attack in seven1m/bible_api app.rb), so this process stays at 0.5 a second.
			RequestsPerSecond: 0.5,
			Sandbox:           bibleAPISandbox(),
		},
		{
			ID:          apiBibleID,
			Title:       "API.Bible",
			Cache:       providers.CacheRule{MaxAge: 0, Rule: "never cached: each answer carries a FUMS token for the caller's own fair-use report of the text it displays; a cached answer would report another caller's request", Source: "docs.api.bible/guides/fair-use (FUMS v3: the token represents one request)"},
			BaseURL:     "https://rest.api.bible",
			KeyRequired: true,
			SignUp:      "https://scripture.api.bible/signup",
			Authorize:   func(r *http.Request, key string) { r.Header.Set("api-key", key) },
			Sandbox:     apiBibleSandbox(),
		},
		{
			ID:    quranID,
			Title: "Quran.com API (Quran Foundation)",
			Cache: providers.CacheRule{MaxAge: time.Hour, Rule: "terms not found; an hour", Source: "not found: conservative hour"},
			// Keyless: the legacy api.quran.com v4 host, kept as the fallback. With
			// PROVIDER_QURAN_KEY (client_id:client_secret) calls go to the Quran Foundation's
			// Content API with an OAuth2 token (quranauth.go).
			BaseURL:  "https://api.quran.com/api/v4",
			KeyedURL: quranContent,
			Sandbox:  quranSandbox(),
		},
		{
			// The Quran Foundation's OAuth2 token host; it uses the quran provider's credentials.
			ID:      quranAuthID,
			Title:   "Quran Foundation OAuth2",
			Cache:   providers.CacheRule{MaxAge: time.Hour, Rule: "token endpoint: no content is kept; the content rule is the Quran.com API's", Source: "not applicable (token endpoint)"},
			BaseURL: quranAuthURL,
			KeyOf:   quranID,
			Sandbox: providers.SandboxHandler(sandboxFS(),
				providers.SandboxRoute{Method: http.MethodPost, Path: "/oauth2/token", File: "quran_oauth_token.json"}),
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

// bibleAPISandbox answers the passages the examples and the sandbox search results need; any other
// passage answers the sandbox's 404, which the adapter reports as a passage it cannot find.
func bibleAPISandbox() http.Handler {
	return providers.SandboxHandler(sandboxFS(),
		providers.SandboxRoute{Path: "/PSA+23", File: "bibleapi_psa_23.json"},
		providers.SandboxRoute{Path: "/PSA+100", File: "bibleapi_psa_100.json"},
		providers.SandboxRoute{Path: "/1CO+13", File: "bibleapi_1co_13.json"},
		providers.SandboxRoute{Path: "/1CO+13:4-7", File: "bibleapi_1co_13_4-7.json"},
		providers.SandboxRoute{Path: "/JHN+3:16", File: "bibleapi_jhn_3_16.json"},
	)
}

// apiBibleSandbox answers searches of any Bible: the second page (offset 3) and the first page.
func apiBibleSandbox() http.Handler {
	isSearch := func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/search") }
	return providers.SandboxHandler(sandboxFS(),
		providers.SandboxRoute{Path: "/v1/bibles/*", Match: func(r *http.Request) bool {
			return isSearch(r) && atLeast(r, "offset", 1)
		}, File: "apibible_search_page2.json"},
		providers.SandboxRoute{Path: "/v1/bibles/*", Match: isSearch, File: "apibible_search.json"},
	)
}

// quranSandbox answers the verses and chapters the examples and sandbox search results need; any
// other verse answers the sandbox's 404 ("not found in the capgate sandbox"), which the adapter
// reports at /reference.
func quranSandbox() http.Handler {
	return providers.SandboxHandler(sandboxFS(),
		providers.SandboxRoute{Path: "/api/v4/verses/by_key/112:1", File: "quran_by_key_112_1.json"},
		providers.SandboxRoute{Path: "/api/v4/verses/by_chapter/1", File: "quran_by_chapter_1.json"},
		providers.SandboxRoute{Path: "/api/v4/verses/by_chapter/112", File: "quran_by_chapter_112.json"},
		providers.SandboxRoute{Path: "/api/v4/search", Match: func(r *http.Request) bool { return atLeast(r, "page", 2) }, File: "quran_search_page2.json"},
		providers.SandboxRoute{Path: "/api/v4/search", File: "quran_search.json"},
	)
}

// atLeast matches a request whose integer query parameter is at least min.
func atLeast(r *http.Request, param string, min int) bool {
	n, err := strconv.Atoi(r.URL.Query().Get(param))
	return err == nil && n >= min
}
