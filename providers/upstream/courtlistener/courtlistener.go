// Package courtlistener is the CourtListener REST API v4 upstream (Free Law Project), shared by
// legal.search (case-law search) and legal.read (opinion text): one provider id `courtlistener`,
// its token, and one sandbox that serves recorded-shape fixtures by path.
//
// CourtListener (https://www.courtlistener.com/help/api/rest/): GET {base}/api/rest/v4/<endpoint>/
// with `Authorization: Token <key>`. Errors are Django REST framework bodies such as
// {"detail": "Not found."} or {"detail": "Invalid token."}.
package courtlistener

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// ProviderID is the provider id (PROVIDER_COURTLISTENER_URL / PROVIDER_COURTLISTENER_KEY).
const ProviderID = "courtlistener"

// APIPrefix is the path prefix of every REST v4 endpoint.
const APIPrefix = "/api/rest/v4/"

//go:embed sandbox
var sandboxFS embed.FS

var provider = &providers.Provider{
	ID:          ProviderID,
	Title:       "CourtListener",
	Cache:       providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "Free Law Project data is public domain (bulk data offered); a day", Source: "CourtListener bulk-data docs (public domain mark), seen through third-party copies of the dataset"},
	BaseURL:     "https://www.courtlistener.com",
	KeyRequired: true,
	SignUp:      "https://www.courtlistener.com/register/",
	Authorize:   func(r *http.Request, key string) { r.Header.Set("Authorization", "Token "+key) },
	Sandbox:     http.HandlerFunc(serveSandbox),
}

// Provider is the CourtListener provider (the same value for every family that uses it).
func Provider() *providers.Provider { return provider }

// SandboxName is the fixture name of a request path: the path below /api/rest/v4/ with its
// slashes turned into underscores ("search", "opinions_2812209", "clusters_112331").
func SandboxName(p string) string {
	p = strings.Trim(strings.TrimPrefix(p, APIPrefix), "/")
	return strings.ReplaceAll(p, "/", "_")
}

// serveSandbox answers GET /api/rest/v4/… from sandbox/<name>.json (SandboxName), with
// <name>_page2.json for a request carrying a cursor and <name>_empty.json for a query q that
// contains "noresults"; an unknown path is the API's 404 body.
func serveSandbox(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") == "" {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"detail":"Authentication credentials were not provided."}`))
		return
	}
	if !strings.HasPrefix(r.URL.Path, APIPrefix) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"detail":"Not found."}`))
		return
	}
	name := path.Base("/" + SandboxName(r.URL.Path))
	q := r.URL.Query()
	var candidates []string
	if strings.Contains(strings.ToLower(q.Get("q")), "noresults") {
		candidates = append(candidates, name+"_empty")
	}
	if q.Get("cursor") != "" {
		candidates = append(candidates, name+"_page2")
	}
	candidates = append(candidates, name)
	for _, c := range candidates {
		if b, err := fs.ReadFile(sandboxFS, "sandbox/"+c+".json"); err == nil {
			_, _ = w.Write(b)
			return
		}
	}
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"detail":"Not found."}`))
}
