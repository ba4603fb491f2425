package realestate

import (
	"embed"
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// ProviderID is the Zillow-data API's provider id: PROVIDER_ZILLOW_URL / PROVIDER_ZILLOW_KEY.
const ProviderID = "zillow"

// rapidAPIHost is the RapidAPI host of the "Zillow.com" API (apimaker) this package calls.
const rapidAPIHost = "zillow-com1.p.rapidapi.com"

const (
	searchPath   = "/propertyExtendedSearch"
	propertyPath = "/property"
)

//go:embed sandbox/*.json
var sandboxFS embed.FS

// Providers lists the upstream of this package: the "Zillow.com" API on RapidAPI, keyed. RapidAPI
// wants the key in X-RapidAPI-Key and the API's host in X-RapidAPI-Host.
func Providers() []*providers.Provider {
	return []*providers.Provider{{
		ID:          ProviderID,
		Title:       "Zillow.com API (RapidAPI)",
		Cache:       providers.CacheRule{MaxAge: 15 * time.Minute, Rule: "listings and prices change; RapidAPI defers to the provider's terms, none found: 15 minutes", Source: "third-party source: RapidAPI terms (the API provider's terms apply); conservative"},
		BaseURL:     "https://" + rapidAPIHost,
		KeyRequired: true,
		SignUp:      "https://rapidapi.com/apimaker/api/zillow-com1",
		Authorize:   authorize,
		Sandbox: providers.SandboxHandler(sandboxFS,
			providers.SandboxRoute{Path: searchPath, Match: query("status_type", "ForRent"), File: "sandbox/search_forrent_seattle.json"},
			providers.SandboxRoute{Path: searchPath, Match: query("status_type", "RecentlySold"), File: "sandbox/search_sold_denver.json"},
			providers.SandboxRoute{Path: searchPath, File: "sandbox/search_forsale_austin.json"},
			// Details of the first listing of each search; any other zpid is the sandbox's 404.
			providers.SandboxRoute{Path: propertyPath, Match: query("zpid", "29382740"), File: "sandbox/property_29382740.json"},
			providers.SandboxRoute{Path: propertyPath, Match: query("zpid", "2057431936"), File: "sandbox/property_2057431936.json"},
			providers.SandboxRoute{Path: propertyPath, Match: query("zpid", "13278346"), File: "sandbox/property_13278346.json"},
		),
	}}
}

// authorize sends the key and the RapidAPI host: the configured host when it is a RapidAPI host
// (another RapidAPI mirror), else the documented one.
func authorize(r *http.Request, key string) {
	r.Header.Set("X-RapidAPI-Key", key)
	host := r.URL.Hostname()
	if !strings.HasSuffix(host, ".rapidapi.com") {
		host = rapidAPIHost
	}
	r.Header.Set("X-RapidAPI-Host", host)
}

// query matches a request whose query parameter has the value.
func query(name, value string) func(r *http.Request) bool {
	return func(r *http.Request) bool { return r.URL.Query().Get(name) == value }
}
