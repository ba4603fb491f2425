package pageread

import (
	"embed"
	"net/http"
	"time"

	"github.com/capgate/capgate/providers"
)

// ProviderID is the reader's provider id (PROVIDER_READER_URL, PROVIDER_READER_KEY). Capabilities
// that call Read (web.search and news.search `read`) need it configured too.
const ProviderID = "reader"

//go:embed sandbox/*.json
var sandboxFS embed.FS

// Providers lists the upstream of this package: a Jina-style reader (https://r.jina.ai by
// default). A key is optional: it is sent as Authorization: Bearer <key> and raises the reader's
// rate limit.
func Providers() []*providers.Provider {
	return []*providers.Provider{{
		ID:          ProviderID,
		Title:       "Jina Reader",
		Cache:       providers.CacheRule{MaxAge: 5 * time.Minute, Rule: "Jina's reader keeps a read page 300 s (x-no-cache bypasses it); pages change, so no longer", Source: "jina-ai/reader README (x-no-cache: cached page lifetime 300 s)"},
		BaseURL:     "https://r.jina.ai",
		KeyRequired: false,
		Authorize: func(r *http.Request, key string) {
			r.Header.Set("Authorization", "Bearer "+key)
		},
		Sandbox: providers.SandboxHandler(sandboxFS,
			providers.SandboxRoute{Path: "/https://example.com/", File: "sandbox/example_com.json"},
			providers.SandboxRoute{Path: "/https://example.com/missing", File: "sandbox/example_com_missing.json"},
			providers.SandboxRoute{Path: "/https://en.wikipedia.org/wiki/Web_scraping", File: "sandbox/wikipedia_web_scraping.json"},
			providers.SandboxRoute{Path: "/https://en.wikipedia.org/wiki/Markdown", File: "sandbox/wikipedia_markdown.json"},
		),
	}}
}
