package legalread

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/courtlistener"
)

// Provider ids (PROVIDER_<ID>_URL / PROVIDER_<ID>_KEY).
const (
	eurlexID     = "eurlex"     // EUR-Lex, keyless
	locID        = "loc"        // Library of Congress loc.gov JSON API and its PDF storage, keyless
	historicalID = "historical" // the university-hosted transcription of the 1890 article, keyless
	scrapeID     = "scrape"     // the scraper API of the fallback, keyed
)

//go:embed sandbox
var sandboxFS embed.FS

// Providers lists the upstreams of legal.read. CourtListener is the shared provider of the
// courtlistener package (the registry keeps one copy of it).
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:      eurlexID,
			Title:   "EUR-Lex",
			Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "EU official texts, free reuse; a day", Source: "third-party source: none found this session; conservative day for official texts"},
			BaseURL: "https://eur-lex.europa.eu",
			Sandbox: http.HandlerFunc(serveEurlexSandbox),
			// Consolidated acts with annexes run to several MiB of HTML.
			MaxBody: 16 << 20,
		},
		{
			ID:      locID,
			Title:   "Library of Congress",
			Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "U.S. Reports scans are public domain; a day", Source: "Library of Congress (not re-read this session)"},
			BaseURL: "https://www.loc.gov",
			// loc.gov blocks a client past 10 requests in 10 s for five minutes (providers.md): keep a
			// margin of 8 in 10 s, shared by the fleet when Redis is configured.
			Limits: []providers.Limit{{Requests: 8, Per: 10 * time.Second}},
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/item/usrep277438/", File: "sandbox/loc_item_usrep277438.json"},
				providers.SandboxRoute{Path: "/storage-services/service/ll/usrep/usrep277/usrep277438/usrep277438.pdf",
					File: "sandbox/usrep277438.pdf", Type: "application/pdf"},
			),
			// A U.S. Reports PDF is a scan with a text layer: tens of MiB for a long opinion.
			MaxBody: 64 << 20,
		},
		{
			ID:      historicalID,
			Title:   "MIT CSAIL 6.805 course archive (historical transcription)",
			Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "a static transcription of an 1890 article; a day", Source: "static archive page (no terms found; conservative day)"},
			BaseURL: "https://groups.csail.mit.edu",
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: historicalPath, File: "sandbox/historical_privacy_brand_warr2.html", Type: "text/html; charset=utf-8"}),
		},
		{
			ID:          scrapeID,
			Title:       "ScrapingBee (scraper fallback)",
			Cache:       providers.CacheRule{MaxAge: time.Hour, Rule: "scraped pages of third parties; an hour", Source: "not found: conservative hour"},
			BaseURL:     "https://app.scrapingbee.com",
			KeyRequired: true,
			SignUp:      "https://www.scrapingbee.com/",
			Authorize: func(r *http.Request, key string) {
				q := r.URL.Query()
				q.Set("api_key", key)
				r.URL.RawQuery = q.Encode()
			},
			Sandbox: http.HandlerFunc(serveScrapeSandbox),
			MaxBody: 16 << 20,
		},
		courtlistener.Provider(),
	}
}

var (
	eurlexSandboxPath = regexp.MustCompile(`^/legal-content/([A-Z]{2})/TXT/HTML/?$`)
	sandboxCelex      = regexp.MustCompile(`^CELEX:([0-9][0-9A-Z()_/-]{5,50})$`)
)

// eurlexSandboxFile names the fixture of a EUR-Lex document: sandbox/eurlex_<celex>_<LANG>.html.
func eurlexSandboxFile(lang, uri string) (string, bool) {
	m := sandboxCelex.FindStringSubmatch(uri)
	if m == nil {
		return "", false
	}
	name := strings.NewReplacer("/", "_", "(", "_", ")", "_").Replace(m[1])
	return fmt.Sprintf("sandbox/eurlex_%s_%s.html", name, lang), true
}

// serveEurlexSandbox answers GET /legal-content/{LANG}/TXT/HTML/?uri=CELEX:{id} from the
// fixture of that document, or EUR-Lex's 404 page.
func serveEurlexSandbox(w http.ResponseWriter, r *http.Request) {
	if m := eurlexSandboxPath.FindStringSubmatch(r.URL.Path); m != nil {
		if name, ok := eurlexSandboxFile(m[1], r.URL.Query().Get("uri")); ok {
			if b, err := fs.ReadFile(sandboxFS, name); err == nil {
				w.Header().Set("Content-Type", "text/html;charset=UTF-8")
				_, _ = w.Write(b)
				return
			}
		}
	}
	w.Header().Set("Content-Type", "text/html;charset=UTF-8")
	w.WriteHeader(http.StatusNotFound)
	b, _ := fs.ReadFile(sandboxFS, "sandbox/eurlex_not_found.html")
	_, _ = w.Write(b)
}

// serveScrapeSandbox answers the scraper's GET /api/v1/?api_key=&url= with the sandbox page of
// that URL (the EUR-Lex and historical fixtures), Spb-cost 1 as for render_js=false, or the
// scraper's error body.
func serveScrapeSandbox(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path != "/api/v1/" && r.URL.Path != "/api/v1":
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message": "Not found"}`))
		return
	case q.Get("api_key") == "":
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"message": "Invalid api key"}`))
		return
	}
	file := ""
	if target, err := url.Parse(q.Get("url")); err == nil {
		switch {
		case target.Host == "eur-lex.europa.eu":
			if m := eurlexSandboxPath.FindStringSubmatch(target.Path); m != nil {
				file, _ = eurlexSandboxFile(m[1], target.Query().Get("uri"))
			}
		case target.Host == "groups.csail.mit.edu" && target.Path == historicalPath:
			file = "sandbox/historical_privacy_brand_warr2.html"
		}
	}
	b, err := fs.ReadFile(sandboxFS, file)
	if file == "" || err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"message": "Error with your request, please try again, you will not be charged for this request"}`))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Spb-cost", "1")
	w.Header().Set("Spb-initial-status-code", "200")
	w.Header().Set("Spb-resolved-url", q.Get("url"))
	_, _ = w.Write(b)
}
