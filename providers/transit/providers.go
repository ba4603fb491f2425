package transit

import (
	"bytes"
	"embed"
	"encoding/json"
	"io"
	"net/http"

	"github.com/capgate/capgate/providers"
)

// ProviderID is the Routes API's provider id: PROVIDER_GOOGLEROUTES_URL / PROVIDER_GOOGLEROUTES_KEY.
const ProviderID = "googleroutes"

// computeRoutesPath is the Routes API method this package calls.
const computeRoutesPath = "/directions/v2:computeRoutes"

//go:embed sandbox/*.json
var sandboxFS embed.FS

// Providers lists the upstream of this package: Google Maps Platform's Routes API, keyed, the key
// sent in the X-Goog-Api-Key header (never in the URL).
func Providers() []*providers.Provider {
	return []*providers.Provider{{
		ID:          ProviderID,
		Title:       "Google Maps Platform Routes API",
		Cache:       providers.CacheRule{MaxAge: 0, Rule: "never cached beyond the call: Google Maps Platform terms forbid caching Content except place IDs (and lat/lng up to 30 days)", Source: "Google Maps Platform Terms (No caching, §3.2.3) and Service Specific Terms (Directions/Routes caching)"},
		BaseURL:     "https://routes.googleapis.com",
		KeyRequired: true,
		SignUp:      "https://console.cloud.google.com/google/maps-apis/",
		Authorize:   func(r *http.Request, key string) { r.Header.Set("X-Goog-Api-Key", key) },
		Sandbox: providers.SandboxHandler(sandboxFS,
			// Coordinates as origin: the New York answer; place names: the Vancouver answer.
			providers.SandboxRoute{Method: http.MethodPost, Path: computeRoutesPath,
				Match: originHasLatLng, File: "sandbox/computeRoutes_newyork.json"},
			providers.SandboxRoute{Method: http.MethodPost, Path: computeRoutesPath,
				File: "sandbox/computeRoutes_vancouver.json"},
		),
	}}
}

// originHasLatLng matches a computeRoutes body whose origin is given as coordinates; the body is
// put back for the handler.
func originHasLatLng(r *http.Request) bool {
	if r.Body == nil {
		return false
	}
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return false
	}
	var body struct {
		Origin struct {
			Location *json.RawMessage `json:"location"`
		} `json:"origin"`
	}
	return json.Unmarshal(b, &body) == nil && body.Origin.Location != nil
}
