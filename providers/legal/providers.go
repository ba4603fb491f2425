package legal

import (
	"embed"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/courtlistener"
)

// cellarID is the provider id of the EU Publications Office's CELLAR SPARQL endpoint
// (PROVIDER_CELLAR_URL; keyless).
const cellarID = "cellar"

// sparqlPath is the SPARQL protocol endpoint under the CELLAR base URL.
const sparqlPath = "/webapi/rdf/sparql"

//go:embed sandbox/*.json
var sandboxFS embed.FS

// offsetZero matches the OFFSET clause of a first page.
var offsetZero = regexp.MustCompile(`\bOFFSET 0\b`)

// sparqlQueryHas matches a sandbox request whose SPARQL text contains s.
func sparqlQueryHas(s string) func(*http.Request) bool {
	return func(r *http.Request) bool { return strings.Contains(r.URL.Query().Get("query"), s) }
}

var cellar = &providers.Provider{
	ID:      cellarID,
	Title:   "EU Publications Office CELLAR (SPARQL)",
	Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "EU legal metadata, free reuse; a day", Source: "third-party source: none found this session; conservative day for official metadata"},
	BaseURL: "https://publications.europa.eu",
	// The sandbox answers by what the query asks: a search word "noresults" gets no rows,
	// legislation types get the legislation fixture, a later page (OFFSET > 0) the second page.
	Sandbox: providers.SandboxHandler(sandboxFS,
		providers.SandboxRoute{Path: sparqlPath, Match: sparqlQueryHas(`"noresults"`), File: "sandbox/cellar_empty.json",
			Type: "application/sparql-results+json"},
		providers.SandboxRoute{Path: sparqlPath, Match: sparqlQueryHas("/resource-type/REG>"), File: "sandbox/cellar_legislation.json",
			Type: "application/sparql-results+json"},
		providers.SandboxRoute{Path: sparqlPath, Match: func(r *http.Request) bool { return !offsetZero.MatchString(r.URL.Query().Get("query")) },
			File: "sandbox/cellar_judgments_page2.json", Type: "application/sparql-results+json"},
		providers.SandboxRoute{Path: sparqlPath, File: "sandbox/cellar_judgments.json", Type: "application/sparql-results+json"},
	),
}

// Providers lists the upstreams of this package: the shared CourtListener provider (US case law,
// token sent as Authorization: Token …; its sandbox serves providers/upstream/courtlistener/sandbox/search*.json)
// and CELLAR (EU law, keyless).
func Providers() []*providers.Provider {
	return []*providers.Provider{courtlistener.Provider(), cellar}
}
