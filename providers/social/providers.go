package social

import (
	"embed"
	"io/fs"
	"net/http"
	"time"

	"github.com/capgate/capgate/providers"
)

// Provider ids (PROVIDER_X_URL / PROVIDER_X_KEY, PROVIDER_REDDIT_URL / PROVIDER_REDDIT_KEY).
const (
	xID      = "x"
	redditID = "reddit"
)

// Public sites: record URLs and detail links point there whatever base URL a deployment
// configures for API calls (a mirror or a test fake is never shown to callers).
const (
	xSite      = "https://x.com"
	redditSite = "https://www.reddit.com"
)

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstreams of this package: the X API v2 (platform_a, keyed, app-only
// Bearer token) and Reddit's Data API (platform_b, keyed: application-only OAuth, a User-Agent in
// Reddit's required form, 100 requests a minute).
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:          xID,
			Title:       "X API v2",
			Cache:       providers.CacheRule{MaxAge: 5 * time.Minute, Rule: "a post deleted, protected or edited on X must disappear from what we serve: 5 minutes", Source: "developer.x.com: Developer Agreement and Policy; compliance guide \"Honoring user intent\""},
			BaseURL:     "https://api.x.com",
			KeyRequired: true,
			SignUp:      "https://developer.x.com/en/portal/dashboard",
			Authorize: func(r *http.Request, key string) {
				r.Header.Set("Authorization", "Bearer "+key)
			},
			Sandbox: xSandbox(),
		},
		{
			ID:    redditID,
			Title: "Reddit Data API",
			Cache: providers.CacheRule{MaxAge: 5 * time.Minute, Rule: "content deleted from Reddit must be removed: 5 minutes", Source: "Reddit Data API Wiki (support.reddithelp.com): \"You must remove any user content … deleted from Reddit\""},
			// Application-only OAuth: PROVIDER_REDDIT_KEY is <client id>:<client secret>:<reddit
			// username> (see reddit_oauth.go); the token comes from www.reddit.com, the calls go to
			// the OAuth host.
			BaseURL:     redditAPI,
			KeyRequired: true,
			SignUp:      "https://www.reddit.com/prefs/apps",
			Authorize:   redditAuthorize,
			// Reddit allows 100 queries a minute per OAuth client id.
			RequestsPerSecond: redditPerMinute / 60.0,
			Sandbox:           redditSandbox(),
		},
	}
}

func sandboxSub() fs.FS {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	return sub
}

// xSandbox answers the X endpoints the adapter calls: recent search (a second page when a
// next_token is sent), user lookup by usernames, post lookup and user lookup by id.
func xSandbox() http.Handler {
	return providers.SandboxHandler(sandboxSub(),
		providers.SandboxRoute{Path: "/2/tweets/search/recent", Match: hasParam("next_token"), File: "x_search_recent_page2.json"},
		providers.SandboxRoute{Path: "/2/tweets/search/recent", File: "x_search_recent.json"},
		providers.SandboxRoute{Path: "/2/users/by", File: "x_users_by.json"},
		providers.SandboxRoute{Path: "/2/tweets/*", File: "x_tweet.json"},
		providers.SandboxRoute{Path: "/2/users/*", File: "x_user.json"},
	)
}

// redditSandbox answers the Reddit endpoints the adapter calls: the application-only token, search
// for posts (a second page when an after cursor is sent) and for users, a post with its comments,
// a user's about page.
func redditSandbox() http.Handler {
	return providers.SandboxHandler(sandboxSub(),
		providers.SandboxRoute{Method: http.MethodPost, Path: redditTokenPath, File: "reddit_access_token.json"},
		providers.SandboxRoute{Path: "/search", Match: paramIs("type", "user"), File: "reddit_search_user.json"},
		providers.SandboxRoute{Path: "/search", Match: hasParam("after"), File: "reddit_search_link_page2.json"},
		providers.SandboxRoute{Path: "/search", File: "reddit_search_link.json"},
		providers.SandboxRoute{Path: "/comments/*", File: "reddit_comments.json"},
		providers.SandboxRoute{Path: "/user/*", File: "reddit_user_about.json"},
	)
}

func hasParam(name string) func(r *http.Request) bool {
	return func(r *http.Request) bool { return r.URL.Query().Get(name) != "" }
}

func paramIs(name, value string) func(r *http.Request) bool {
	return func(r *http.Request) bool { return r.URL.Query().Get(name) == value }
}
