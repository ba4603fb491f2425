package commerce

import (
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// Providers lists the upstream providers of this package: the shared SerpApi provider, whose
// sandbox serves the google_shopping, google_immersive_product, google_jobs and google_finance
// fixtures.
func Providers() []*providers.Provider {
	return []*providers.Provider{serpapi.Provider()}
}
