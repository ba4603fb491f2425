package hotels

import (
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// Providers lists the upstream providers of this package: the shared SerpApi provider, whose
// sandbox serves the google_hotels fixtures (search pages and property details).
func Providers() []*providers.Provider {
	return []*providers.Provider{serpapi.Provider()}
}
